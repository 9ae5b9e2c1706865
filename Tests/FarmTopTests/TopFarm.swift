import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A farm for the `farm top` tests (after FarmSupervisorTests' RunningFarm): a real origin on
/// 127.0.0.1, a spool in a temporary directory, the real `farm` command. The supervisor is detached,
/// so it is not our child: on the way out we stop the farm, then kill by pid whatever is still
/// registered in procs/ (pids we caused to exist).
final class TopFarm {
    let origin = Origin()
    let dir = TemporaryDirectory("farm-top")
    let spool: Spool
    /// Every pid ever seen registered: all of them are ours to end.
    private var seen: Set<pid_t> = []

    init() throws {
        try origin.start()
        spool = try Spool(root: dir.appending("spool"))
    }

    deinit {
        _ = try? farm(["stop"], timeout: 60)
        for pid in seen.union(spool.processes().map(\.pid)) { kill(pid, SIGKILL) }
        origin.stop()
    }

    /// Runs `farm <arguments> --spool <spool>`.
    @discardableResult
    func farm(_ arguments: [String], timeout: Double = 120) throws -> (status: Int32, output: String, error: String) {
        try run("farm", arguments + ["--spool", spool.root], timeout: timeout)
    }

    @discardableResult
    func must(_ arguments: [String]) throws -> String {
        let result = try farm(arguments)
        try #require(result.status == 0, "farm \(arguments.joined(separator: " ")): \(result.error)")
        return result.output
    }

    /// Serves `count` PNG-looking resources of `size` bytes under /<list>/<n>.png, throttled to
    /// `rate` B/s each when given, and adds them as one list named `<list>.json`. Returns the paths.
    @discardableResult
    func addList(_ list: String, count: Int, size: Int, rate: Int? = nil) throws -> [String] {
        let paths = (0..<count).map { "/\(list)/\($0).png" }
        for (n, path) in paths.enumerated() {
            let body: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + (0..<size - 8).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n &* 7) }
            origin.serve(path: path, bytes: body)
            if let rate { origin.inject(.throttle(bytesPerSecond: rate), at: path) }
        }
        let manifest = dir.appending(list + ".json")
        try JSONSerialization.data(withJSONObject: paths.map { origin.url(for: $0) })
            .write(to: URL(fileURLWithPath: manifest))
        try must(["add", manifest])
        return paths
    }

    func start(workers: Int, lease: Double = 3) throws {
        try must(["start", "--workers", String(workers), "--lease", String(lease)])
        _ = processes()
    }

    /// The live farm processes (remembering their pids for the clean-up).
    @discardableResult
    func processes() -> [FarmProcess] {
        let live = spool.processes()
        seen.formUnion(live.map(\.pid))
        return live
    }

    func workers() -> Int { processes().filter { $0.role == .worker }.count }

    var counts: [JobState: Int] {
        var counts: [JobState: Int] = [:]
        for (_, state) in spool.inventory() { counts[state, default: 0] += 1 }
        return counts
    }
}
