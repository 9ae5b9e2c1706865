import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmSpool

/// `farm scale N [--transfers T] [--host H]`: the desired number of workers of one host (this one by
/// default), applied live by that host's supervisor within a second; and the transfers of every worker,
/// which the running workers follow.
struct Scale: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Change the number of workers (1 to 64) of this host, or another one, while the farm runs.",
        // The argument is taken whole (`NegativeNumber`): say it is one number, not "[<workers> ...]".
        usage: "farm scale <workers> [--transfers <transfers>] [--host <host>] [--spool <spool>]",
        discussion: """
            Sets how many workers this host runs, or host H with --host; its supervisor applies it within a \
            second, and scale waits up to 5 s to say how many run. Each worker runs one transfer at a time \
            unless told otherwise, so N workers download N resources at once. --transfers T sets the \
            transfers of every worker, on every host, which the running workers follow within a second; \
            one worker's transfers share its connection pool (connections and TLS sessions reused, HTTP/2 \
            multiplexed), which pays for many small files or a server far away.

            A worker retired, or left with fewer transfers, hands the jobs it drops back to the queue with \
            their bytes kept; busy workers are retired last. The numbers are kept in the spool, and the \
            next farm start uses them. scale never starts or stops a farm: where none runs, it only records \
            the number. Other hosts keep their workers.

            EXAMPLES:
              farm scale 8
                  8 workers on this host: 8 downloads at once.
              farm scale 2 --transfers 16
                  32 downloads at once on two connection pools.
              farm scale 4 --host node2
                  4 workers on node2, as farm ps names it.
            """ + ExitStatus.section([
                0: "The number is recorded; the line printed says how many run.",
                1: """
                    A number out of its range, or a spool that cannot be used:
                    nothing changed.
                    """,
            ]))

    @OptionGroup var options: SpoolOptions

    /// One argument, taken so that a negative one reaches the range check (`NegativeNumber`).
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("How many workers to run (1 to 64).", valueName: "workers"))
    var workers: [String] = []

    @Option(parsing: .unconditional,
            help: "Transfers each worker runs at once, on every host (1 to 256; default: unchanged); workers × transfers download at once.")
    var transfers: Int?

    @Option(help: "The host (as `farm ps` shows it) whose workers to change (default: this one).")
    var host: String?

    /// The number given, negative ones included; after `validate`, one from 1 to 64.
    private var count: Int {
        get throws { try NegativeNumber.int(workers, name: "workers") }
    }

    func validate() throws {
        try Control.check(workers: try count)
        if let transfers { try Control.check(transfers: transfers) }
    }

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        if let transfers { try control.scale(transfers: transfers) }
        // Waits (briefly) to report what happened rather than what was asked.
        return try control.scale(to: try count, settle: 5, host: host.map { FarmHost(name: $0) })
    }
}
