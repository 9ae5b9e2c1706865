import ArgumentParser
import FarmSupervisor

/// `farm reset`: stop everything and delete every list, job and file: the spool as on first launch.
struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Stop everything and delete every list, job and file (the spool as on first launch).")

    @OptionGroup var options: SpoolOptions

    func run() throws {
        let spool = try options.open(create: false)
        let report = try Shutdown.stopAll(spool)
        try spool.erase()
        print("farm reset: \(spool.root) is empty" + (report.stopped > 0 ? " (stopped \(report.stopped) process(es))" : ""))
    }
}
