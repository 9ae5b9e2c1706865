import FarmSpool
import FarmStatus
import FarmSupervisor
import Foundation

/// What the page's buttons do: the same library calls as `farm scale`, `pause`, `resume`, `reset` and
/// `reload`, and `farm add` itself run as a child. Each returns the sentence the page shows, or throws
/// a 4xx with the reason. Blocking: called through `Blocking.run`.
struct Actions: Sendable {
    let spool: Spool
    /// The `farm` executable, for `add` (a slow manifest fetch then blocks nothing but its own request).
    let farm: String

    func scale(_ workers: Int) throws(ServeError) -> String {
        guard Desired.workerRange.contains(workers) else {
            throw ServeError(400, "the number of workers goes from 1 to 64 (got \(workers))")
        }
        var desired = spool.desired()
        desired.workers = workers
        try spoolCall { () throws(SpoolError) in try spool.setDesired(desired) }
        let running = spool.processes().contains { $0.role == .supervisor }
        return running ? "scaling to \(workers) workers" : "farm is not running; `farm start` will start \(workers) workers"
    }

    func pause(_ paused: Bool) throws(ServeError) -> String {
        try spoolCall { () throws(SpoolError) in try spool.setPaused(paused) }
        return paused ? "paused" : "resumed"
    }

    func reset() throws(ServeError) -> String {
        let report = try spoolCall { () throws(SpoolError) in try Shutdown.stopAll(spool) }
        try spoolCall { () throws(SpoolError) in try spool.erase() }
        // Back as on first launch, folders included, so the watches (and `farm start`) find them.
        _ = try? Spool(root: spool.root)
        return "farm reset: the spool is empty" + (report.stopped > 0 ? " (stopped \(report.stopped) process(es))" : "")
    }

    func reload(_ list: String) throws(ServeError) -> String {
        guard ListID.isValid(list), let record = spool.list(list) else { throw ServeError(404, "no list \(list) in the spool") }
        let count = try spoolCall { () throws(SpoolError) in try spool.reload(list: list) }
        return "reloading \(record.name): \(count) resource(s) queued again"
    }

    /// Runs `farm add SOURCE --spool …`; its last line on stderr is the refusal, as the CLI says it.
    func add(_ source: String) throws(ServeError) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: farm)
        // "--" ends the options: a source that starts with "-" stays a source.
        process.arguments = ["add", "--spool", spool.root] + (source.isEmpty ? [] : ["--", source])
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw ServeError(500, "cannot run \(farm) add: \(error)")
        }
        // Both pipes are read to the end together, so a chatty child never blocks on a full one.
        let said = ReadToEnd(errors.fileHandleForReading)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = { (data: Data) in
            String(decoding: data, as: UTF8.self).split(separator: "\n").map { String($0) }.filter { !$0.isEmpty }
        }
        guard process.terminationStatus == 0 else {
            let reason = lines(said.data).last.map { $0.hasPrefix("Error: ") ? String($0.dropFirst(7)) : $0 }
            throw ServeError(400, reason ?? "farm add failed (exit \(process.terminationStatus))")
        }
        return lines(printed).joined(separator: "; ")
    }

    private func spoolCall<Value>(_ call: () throws(SpoolError) -> Value) throws(ServeError) -> Value {
        do { return try call() } catch { throw ServeError(500, error.description) }
    }
}

/// A pipe read to its end on a thread of its own. `data` waits for the end.
private final class ReadToEnd: @unchecked Sendable {
    private var read = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            read = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// The semaphore orders the thread's write before this read.
    var data: Data {
        done.wait()
        done.signal()
        return read
    }
}
