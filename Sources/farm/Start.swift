import ArgumentParser
import FarmSpool
import FarmSupervisor

/// `farm start`: the supervisor, its workers and the watcher, detached; returns once they run.
struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start the farm: a detached supervisor, N workers and the watcher.")

    @OptionGroup var options: SpoolOptions

    @Option(help: "How many workers (1 to 64; default: the last `scale`, else 4).")
    var workers: Int?

    @Option(help: "Seconds a claim stays valid without renewal.")
    var lease: Double?

    @Option(help: "The most bytes one download may weigh (default 1 GiB).")
    var maxSize: Int?

    @Flag(help: ArgumentHelp("Download and complete only: no display images, no thumbnails (for benchmarks).",
                             visibility: .hidden))
    var noConvert = false

    func validate() throws {
        if let workers, !Desired.workerRange.contains(workers) {
            throw FarmError("--workers must be between 1 and 64 (got \(workers))")
        }
        if let lease, !(lease >= 1 && lease <= 3600) { throw FarmError("--lease must be between 1 and 3600 seconds") }
        if let maxSize, maxSize <= 0 { throw FarmError("--max-size must be a positive number of bytes") }
    }

    func run() throws {
        let spool = try options.open()
        switch try Launch.start(spool, workers: workers, lease: lease, maxSize: maxSize, convert: !noConvert, roles: .farm) {
        case .alreadyRunning(let supervisor):
            print("farm is already running on \(spool.root)" + (supervisor.map { " (supervisor pid \($0))" } ?? "")
                + "; nothing changed. Use `farm scale N` to change the workers.")
        case .started(let running):
            let supervisor = running.first { $0.role == .supervisor }?.pid ?? 0
            print("farm started on \(spool.root): supervisor pid \(supervisor), "
                + "\(running.filter { $0.role == .worker }.count) workers, a watcher")
        }
    }
}
