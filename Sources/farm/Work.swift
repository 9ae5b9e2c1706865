import ArgumentParser
import FarmControl
import FarmSpool
import FarmSupervisor
import FarmTransfer
import FarmWorker

/// `farm work`: one worker process. The supervisor starts these; running one by hand works too.
struct Work: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work", abstract: "Run one worker: claim, download, convert, complete.")

    @OptionGroup var options: SpoolOptions

    @Option(help: "Seconds a claim stays valid without renewal (default: the farm's own lease).")
    var lease: Double?

    @Option(help: "The most bytes one download may weigh (default: the farm's).")
    var maxSize: Int?

    @Option(help: "Transfers at once (1 to 256; default: the farm's, followed as `farm scale --transfers` changes it).")
    var transfers: Int?

    @Option(help: "Attempts per resource before a transient failure (5xx, reset, time-out) becomes its error.")
    var retries = 5

    @Option(help: "Seconds of the first back-off; each retry doubles it, with jitter.")
    var retryDelay = 0.5

    @Option(help: "Seconds without a byte before a transfer counts as timed out.")
    var stallTimeout = 30.0

    @Flag(help: "Exit once the queue is empty and nothing is active.")
    var exitWhenIdle = false

    @Flag(help: .hidden) var supervised = false

    @Flag(help: ArgumentHelp("Download and complete only: no display image, no thumbnail.", visibility: .hidden))
    var noConvert = false

    func validate() throws {
        if let transfers { try Control.check(transfers: transfers) }
    }

    func run() throws {
        let spool = try options.open()
        // The farm's settings (`farm start`'s: the lease, the disk minimum, the fleet-wide limits, the CA
        // file), whoever started this worker: by hand, or a supervisor that could not copy itself.
        var settings = WorkerOptions(spool.desired())
        // A shorter lease than the farm's would take jobs from its live workers, which renew at its pace.
        if let lease { settings.lease = lease }
        if let maxSize { settings.maxSize = maxSize }
        settings.exitWhenIdle = exitWhenIdle
        settings.retry = RetryPolicy(maxAttempts: retries, baseDelay: retryDelay)
        settings.stallTimeout = stallTimeout
        settings.convert = !noConvert
        settings.transfers = transfers
        try Self.work(spool, settings, supervised: supervised)
    }

    /// One worker's life, from registration to exit.
    static func work(_ spool: Spool, _ settings: WorkerOptions, supervised: Bool) throws {
        try RoleLife.run(spool, as: .worker, supervised: supervised, metrics: true) { life in
            try Worker(spool: spool, options: settings, metrics: life.metrics).run()
        }
    }

    /// `farm work --supervised` in a copy of the supervisor (`SupervisedRoles`).
    static func supervised(_ spool: Spool, _ desired: Desired) -> Int32 {
        Farm.exitStatus { try work(spool, WorkerOptions(desired), supervised: true) }
    }
}
