import ArgumentParser
import FarmControl
import FarmSpool
import Foundation

/// `farm start`: the supervisor, its workers and the watcher, detached; returns once they run. With
/// `--foreground` the supervisor is this process, for a service manager (Sources/Packaging/farm@.service).
struct Start: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start the farm: a detached supervisor, N workers and the watcher.")

    static let createsSpool = true

    @OptionGroup var options: SpoolOptions

    @Option(help: "How many workers, each downloading one resource at a time (1 to 64; default: the last `scale`, else 4).")
    var workers: Int?

    @Option(help: """
        Transfers each worker runs at once (1 to 256; default: the last `start` or `scale`, else 1): workers × \
        transfers resources download at once. More than 1 pays where each request waits on the server, not on \
        the CPU (many small files from a slow or far server): a worker's transfers share its connections, TLS \
        sessions and HTTP/2. Measured at 64 at once from a server taking 20 ms a response: `--workers 4 \
        --transfers 16` as fast as wget2 (0.95×) in 4 processes instead of 64.
        """)
    var transfers: Int?

    @Option(help: "Seconds a claim stays valid without renewal.")
    var lease: Double?

    @Option(help: "The most bytes one download may weigh (default 1 GiB).")
    var maxSize: Int?

    @Flag(help: "Download the files only: no display images and no thumbnails.")
    var noConvert = false

    @Option(help: """
        Bytes to keep free on the spool's disk: below them no new transfer starts until space is freed \
        (default: the last start's, else 1 GiB or 5 % of the file system, the smaller; 0: no limit).
        """)
    var minFree: Int?

    @Option(help: "At most N transfers at once to one host, across every worker (0: no limit, the default).")
    var perHost: Int?

    @Option(help: "At most R requests a second to one host, across every worker (0: no limit, the default).")
    var ratePerHost: Double?

    @Option(help: "Verify HTTPS servers against the CA certificates in this PEM file (a company's CA) instead of the system's; \"\" for the system's again.")
    var caFile: String?

    @Option(help: ArgumentHelp("""
        Cap the bytes a second of every transfer on this host together: 500K, 2M, 1G (0: no cap; \
        `farm limit` changes it live).
        """, valueName: "rate"))
    var limitRate: String?

    @OptionGroup var polling: PollOption

    @Flag(help: "Run the supervisor in this process, not detached, until `farm stop` or SIGTERM (for systemd).")
    var foreground = false

    private var change: DesiredChange {
        DesiredChange(workers: workers, transfers: transfers, lease: lease, maxSize: maxSize, convert: !noConvert,
                      minFree: minFree, perHost: perHost, ratePerHost: ratePerHost, caFile: caFile.map(Self.absolute),
                      poll: polling.poll)
    }

    func validate() throws {
        try Control.check(change)
    }

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        // Set before the workers start, so that none of them takes a byte over it.
        if let limitRate { _ = try control.setBandwidthLimit(try Control.bandwidth(limitRate)) }
        guard foreground else { return try control.start(change, roles: .farm) }
        // A supervisor that runs already is a failure here: the service manager must not think it started one.
        guard let status = try control.startInForeground(change, roles: .farm) else {
            throw FarmError("farm is already running on \(control.spool.root); nothing changed")
        }
        if status != 0 { throw ExitCode(status) }
        return "farm stopped on \(control.spool.root)"
    }

    /// `path` from the directory the command runs in: the workers run elsewhere.
    private static func absolute(_ path: String) -> String {
        path.isEmpty || path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
