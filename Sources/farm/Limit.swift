import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmDesired

/// `farm limit [RATE]`: caps the bandwidth of every transfer on this host together, live (SPEC §12).
struct Limit: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "limit",
        abstract: "Cap the bytes a second of every transfer on this host together, live (0: no cap).",
        // The argument is taken whole (`NegativeNumber`): say it is one rate or none, not "[<rate> ...]".
        usage: "farm limit [<rate>] [--spool <spool>]",
        discussion: """
            Without RATE, says the cap in force. With RATE, caps the bytes a second of every transfer on \
            this host together, all workers included; they follow within a second, whatever they are \
            downloading. RATE is bytes a second, with K, M or G for powers of 1024; 0 lifts the cap. The \
            cap is kept in the spool, as farm start --limit-rate sets it, and lasts through restarts. Other \
            hosts keep their own. A transfer with no allowance left is paused, its bytes held, until the \
            allowance refills: over any 5 seconds the farm stays within a few percent of the cap.

            EXAMPLES:
              farm limit 500K
                  At most 500 KiB a second, from now on.
              farm limit 0
                  No cap.
              farm limit
                  Say the cap in force.
            """ + ExitStatus.section([
                0: "The cap is set (or said).",
                1: ExitStatus.spoolUnusable,
                2: "RATE is not a number of bytes a second.",
            ]))

    @OptionGroup var options: SpoolOptions

    /// One argument or none, taken so that a negative one is refused as a rate that is none (`NegativeNumber`).
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Bytes a second: 500K, 2M, 1.5G; 0 lifts the cap.",
                                                           valueName: "rate"))
    var rate: [String] = []

    func validate() throws {
        _ = try NegativeNumber.value(rate, name: "rate")
    }

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        guard let rate = try NegativeNumber.value(rate, name: "rate") else { return control.bandwidthLimit }
        return try control.setBandwidthLimit(try Control.bandwidth(rate))
    }
}
