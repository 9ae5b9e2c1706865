import ArgumentParser
import FarmCommandLine
import FarmControl

/// `farm recover`: finishes what dead processes left half-done in the spool. Every command that
/// starts work runs the same recovery first; this one exists to run it by hand.
struct Recover: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Finish interrupted adds and hand back jobs whose lease expired.",
        discussion: """
            Finishes what processes killed half-way left in the spool: an add killed after its commit has \
            its lists published, one killed before it is discarded (nothing of it was ever visible), a list \
            edit is finished or undone, a WARC file whose writer died has its torn tail cut and its \
            finished name, and every claim not renewed for the lease (the farm's own, unless \
            --lease says) goes back to the queue with its bytes. farm start, farm add and the supervisor \
            run the same recovery; recover runs it by hand. With the farm's own lease it never takes a live \
            worker's claim, which is renewed every quarter of the lease.

            EXAMPLES:
              farm recover
                  Tidy a spool after a crash, without starting the farm.
            """ + ExitStatus.section([
                0: "Recovered; the line printed says what was done.",
                1: ExitStatus.spoolUnusable,
            ]))

    static let createsSpool = true

    @OptionGroup var options: SpoolOptions

    @Option(help: "Seconds after which an unrenewed claim is handed back (default: the farm's own lease).")
    var lease: Double?

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.recover(lease: lease)
    }
}
