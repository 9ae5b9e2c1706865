import ArgumentParser
import FarmSupervisor

/// `farm stop`: every process ends; active jobs go back to the queue with their bytes kept.
struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop every farm process; active jobs go back to the queue, their bytes kept.")

    @OptionGroup var options: SpoolOptions

    func run() throws {
        let spool = try options.open(create: false)
        let report = try Shutdown.stopAll(spool)
        guard report.stopped > 0 else {
            print("farm was not running on \(spool.root)")
            return
        }
        var line = "farm stopped: \(report.stopped) process(es); \(report.handedBack) active job(s) back in the queue"
        if report.killed > 0 { line += "; \(report.killed) did not stop in time and were killed" }
        print(line)
    }
}
