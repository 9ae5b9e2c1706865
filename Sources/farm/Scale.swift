import ArgumentParser
import FarmSpool
import Foundation

/// `farm scale N`: the desired number of workers, applied live by the supervisor within a second.
struct Scale: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Change the number of workers (1 to 64) while the farm runs.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "How many workers to run.")
    var workers: Int

    func validate() throws {
        guard Desired.workerRange.contains(workers) else {
            throw FarmError("farm scale takes a number of workers from 1 to 64 (got \(workers))")
        }
    }

    func run() throws {
        let spool = try options.open(create: false)
        var desired = spool.desired()
        desired.workers = workers
        try spool.setDesired(desired)
        guard spool.processes().contains(where: { $0.role == .supervisor }) else {
            print("farm is not running; `farm start` will start \(workers) workers")
            return
        }
        // Wait (briefly) to report what happened rather than what was asked.
        let deadline = Date().addingTimeInterval(5)
        var running = 0
        repeat {
            running = spool.processes().filter { $0.role == .worker }.count
            if running == workers { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        print(running == workers ? "scaled to \(workers) workers"
            : "asked for \(workers) workers; \(running) running so far (busy workers hand back their job first)")
    }
}
