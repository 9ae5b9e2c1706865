import ArgumentParser
import FarmControl

/// `farm recover`: finishes what dead processes left half-done in the spool. Every command that
/// starts work runs the same recovery first; this one exists to run it by hand.
struct Recover: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Finish interrupted adds and hand back jobs whose lease expired.")

    static let createsSpool = true

    @OptionGroup var options: SpoolOptions

    @Option(help: "Seconds after which an unrenewed claim is handed back (default: the farm's own lease).")
    var lease: Double?

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.recover(lease: lease)
    }
}
