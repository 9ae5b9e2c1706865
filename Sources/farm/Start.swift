import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmDesired
import FarmSpool
import FoundationEssentials

/// `farm start`: the supervisor, its workers and the watcher, detached; returns once they run. With
/// `--foreground` the supervisor is this process, for a service manager (Sources/Packaging/farm@.service).
struct Start: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start the farm: a detached supervisor, N workers and the watcher.",
        discussion: """
            Starts this host's supervisor in the background; it starts the workers and a watcher (and a \
            follower while a paged list has pages to fetch), and start returns once they all run. The \
            supervisor keeps them running: it replaces a process that dies and hands its jobs back to the \
            queue at once. Where this host's farm runs already, start says so, exits 0 and changes nothing \
            but the cap of a --limit-rate given.

            Each worker runs one transfer at a time unless --transfers says otherwise, so --workers N \
            downloads N resources at once. A worker's transfers share one connection pool: connections and \
            TLS sessions are reused, and HTTP/2 is multiplexed, which pays for many small files or a server \
            far away. The settings are kept in the spool: a later start, and a supervisor that replaces a \
            dead one, use them; farm scale and farm limit change them while the farm runs.

            With --foreground the supervisor runs in this process until farm stop or SIGTERM, as the \
            systemd unit farm@.service runs it.

            start downloads nothing itself, and never starts a second supervisor on a host.

            With conversions on, a worker stores each download and leaves its display image and thumbnail to \
            a thread of its own at a low CPU priority (nice 10), holding the job (shown Rendering) until they \
            are made, so the status may count many jobs active at once. --per-host and --rate-per-host are \
            shared through the spool by every worker of every host; they cost each transfer an open, an flock \
            and a close (about 10 % of a set of small files' throughput at --per-host equal to the workers).

            SEVERAL HOSTS:
            Hosts that mount one spool on a shared file system each run farm start --workers N on it, at the \
            same mount point everywhere (the status names files by their path): each host runs its own \
            supervisor and workers, one watcher serves the whole spool and the others stand by, and stop, \
            pause, resume and reset act on every host. On such a file system (FUSE, so GlusterFS; NFS; SMB; \
            Ceph) the watcher and the views poll the spool, as --poll asks elsewhere. A host killed whole \
            leaves its claims and pieces to their lease before another host takes them. With GlusterFS:
              gluster volume create farm transport tcp gluster1:/srv/farm-brick force
                  On the server: one brick.
              gluster volume set farm performance.stat-prefetch off
                  No caching that would hide the other hosts' changes.
              gluster volume set farm network.ping-timeout 5
                  A cut-off host's mount fails within about 10 s, not a minute; then
                  gluster volume start farm.
              mount -t glusterfs -o OPTIONS gluster1:/farm /mnt/farm
                  On every farm host, OPTIONS being attribute-timeout=0,
                  entry-timeout=0, negative-timeout=0 and use-readdirp=no, joined by
                  commas (use-readdirp=no lists a folder of 20,000 names five times
                  faster); then farm start --workers 4 --spool /mnt/farm.

            EXAMPLES:
              farm start
                  The last settings, else 4 workers of one transfer each.
              farm start --workers 2 --transfers 16
                  32 downloads at once on two connection pools: many small files, or
                  a server far away.
              farm start --per-host 4 --rate-per-host 10 --limit-rate 2M
                  At most 4 transfers and 10 requests a second to each server, and
                  2 MiB a second in all.
              farm start --ca-file /etc/ssl/company-ca.pem
                  Verify HTTPS servers against a company's CA.
            """ + ExitStatus.section([
                0: "The farm runs: started now, or running already.",
                1: """
                    It did not start: a number out of its range, an unreadable
                    --ca-file, a spool that cannot be used, or a farm that did not come
                    up within 30 s (the spool's log/farm.log says why). With
                    --foreground: a supervisor runs already.
                    """,
                2: "A --limit-rate that is not a rate.",
            ]))

    static let createsSpool = true

    @OptionGroup var options: SpoolOptions

    @Option(parsing: .unconditional, help: "How many workers, each downloading one resource at a time (1 to 64; default: the last `scale`, else 4).")
    var workers: Int?

    @OptionGroup var limits: WorkerLimits

    @Flag(help: "Download the files only: no display images and no thumbnails.")
    var noConvert = false

    @Option(help: """
        Bytes to keep free on the spool's disk: below them no new transfer starts until space is freed \
        (default: the last start's, else 1 GiB or 5 % of the file system, the smaller; 0: no limit).
        """)
    var minFree: Int?

    @Option(parsing: .unconditional, help: "At most N transfers at once to one host, across every worker (0: no limit, the default).")
    var perHost: Int?

    @Option(parsing: .unconditional, help: "At most R requests a second to one host, across every worker (0: no limit, the default).")
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
        DesiredChange(workers: workers, transfers: limits.transfers, lease: limits.lease, maxSize: limits.maxSize,
                      convert: !noConvert, minFree: minFree, perHost: perHost, ratePerHost: ratePerHost,
                      caFile: caFile.map(Self.absolute), poll: polling.poll)
    }

    func validate() throws {
        try Control.check(change)
    }

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        // Set before the workers start, so that none of them takes a byte over it.
        if let limitRate { _ = try control.setBandwidthLimit(try Control.bandwidth(limitRate)) }
        guard foreground else { return try control.start(change) }
        // A supervisor that runs already is a failure here: the service manager must not think it started one.
        guard let status = try control.startInForeground(change) else {
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
