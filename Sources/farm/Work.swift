import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmDesired
import FarmSpool
import FarmTransfer
import FarmWorker

/// `farm work`: one worker process. The supervisor starts these; running one by hand works too.
struct Work: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work", abstract: "Run one worker: claim, download, convert, complete.",
        discussion: """
            Runs one worker in this process, as the supervisor runs them: it claims a queued job, downloads \
            it (resuming the bytes a previous owner left), makes its display image and thumbnail, and \
            completes it, up to --transfers jobs at once, renewing each claim's lease meanwhile. It follows \
            the farm's pause, transfers and bandwidth cap as they change, and its settings are the farm's \
            (farm start's) unless given here. A transient failure (a 5xx, 408 or 429, a reset, a time-out) \
            is retried with back-off, resuming by range; a permanent one (another 4xx, bytes of no supported \
            kind) fails the resource at once.

            A worker started by hand runs until SIGTERM or ^C (or, with --exit-when-idle, until nothing is \
            queued or active), then hands its jobs back, their bytes kept. This host's supervisor, when one \
            runs, counts it among its workers, and may retire it; farm stop on this host stops it.

            EXAMPLES:
              farm work --exit-when-idle
                  Download what is queued in this process, then exit.
            """ + ExitStatus.section([
                0: "Stopped by a signal, or idle with --exit-when-idle.",
                1: """
                    The spool cannot be used, or a failure of the worker itself (the
                    reason is on standard error).
                    """,
            ]))

    @OptionGroup var options: SpoolOptions

    @OptionGroup var limits: WorkerLimits

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
        try Control.check(DesiredChange(transfers: limits.transfers, lease: limits.lease, maxSize: limits.maxSize))
    }

    func run() throws {
        let spool = try options.open()
        // The farm's settings (`farm start`'s: the lease, the disk minimum, the fleet-wide limits, the CA
        // file), whoever started this worker: by hand, or a supervisor that could not copy itself.
        var settings = WorkerOptions(spool.control.desired())
        // A shorter lease than the farm's would take jobs from its live workers, which renew at its pace.
        if let lease = limits.lease { settings.lease = lease }
        if let maxSize = limits.maxSize { settings.maxSize = maxSize }
        settings.exitWhenIdle = exitWhenIdle
        settings.retry = RetryPolicy(maxAttempts: retries, baseDelay: retryDelay)
        settings.stallTimeout = stallTimeout
        settings.convert = !noConvert
        settings.transfers = limits.transfers
        try Worker.run(spool, settings, supervised: supervised)
    }
}
