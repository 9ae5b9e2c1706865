import ArgumentParser
import FarmSpool
import FarmSupervisor
import Foundation

/// `farm start`: the supervisor, its workers and the watcher, detached; returns once they run.
struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the farm: a detached supervisor, N workers and the watcher.")

    @OptionGroup var options: SpoolOptions

    @Option(help: "How many workers (1 to 64; default: the last `scale`, else 4).")
    var workers: Int?

    @Option(help: "Seconds a claim stays valid without renewal.")
    var lease: Double?

    @Option(help: "The most bytes one download may weigh (default 1 GiB).")
    var maxSize: Int?

    func validate() throws {
        if let workers, !Desired.workerRange.contains(workers) {
            throw FarmError("--workers must be between 1 and 64 (got \(workers))")
        }
        if let lease, !(lease >= 1 && lease <= 3600) { throw FarmError("--lease must be between 1 and 3600 seconds") }
        if let maxSize, maxSize <= 0 { throw FarmError("--max-size must be a positive number of bytes") }
    }

    func run() throws {
        let spool = try options.open()
        guard let lock = try SupervisorLock.take(spool) else {
            let pid = spool.processes().first { $0.role == .supervisor }.map { " (supervisor pid \($0.pid))" } ?? ""
            print("farm is already running on \(spool.root)\(pid); nothing changed. "
                + "Use `farm scale N` to change the workers.")
            return
        }
        defer { close(lock) }
        var desired = spool.desired()
        if let workers { desired.workers = workers }
        if let lease { desired.lease = lease }
        if let maxSize { desired.maxSize = maxSize }
        try spool.setDesired(desired)
        try spool.setStopping(false)
        _ = try Spawn.farm(["supervise", "--spool", spool.root, "--lock-fd", String(Spawn.lockDescriptor)],
                           spool: spool, newSession: true, handingDown: lock)
        let running = waitUntilRunning(spool, workers: desired.workers, timeout: 30)
        let supervisor = running.first { $0.role == .supervisor }?.pid
        let count = running.filter { $0.role == .worker }.count
        guard let supervisor, count >= desired.workers, running.contains(where: { $0.role == .watcher }) else {
            throw FarmError("the farm did not come up within 30 s (\(count) of \(desired.workers) workers); "
                + "see \(spool.logFile)")
        }
        print("farm started on \(spool.root): supervisor pid \(supervisor), \(count) workers, a watcher")
    }

    private func waitUntilRunning(_ spool: Spool, workers: Int, timeout: Double) -> [FarmProcess] {
        let deadline = Date().addingTimeInterval(timeout)
        var running = spool.processes()
        while Date() < deadline {
            let roles = running.map(\.role)
            if roles.contains(.supervisor), roles.contains(.watcher), roles.filter({ $0 == .worker }).count >= workers {
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
            running = spool.processes()
        }
        return running
    }
}
