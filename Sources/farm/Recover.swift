import ArgumentParser
import FarmSpool

/// `farm recover`: finishes what dead processes left half-done in the spool. Every command that
/// starts work runs the same recovery first; this one exists to run it by hand.
struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Finish interrupted adds and hand back jobs whose lease expired.")

    @OptionGroup var options: SpoolOptions

    @Option(help: "Seconds after which an unrenewed claim is handed back.")
    var lease: Double = 10

    func run() throws {
        let spool = try options.open()
        let report = try spool.recover()
        let reclaimed = spool.reclaimExpired(lease: lease)
        print("rolled forward \(report.batchesRolledForward) batch(es), discarded \(report.stagesDiscarded) "
            + "abandoned stage(s), reclaimed \(reclaimed.count) job(s)")
    }
}
