import ArgumentParser
import FarmCluster
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `farm-chaos`: kills farm processes under load, then proves that nothing was lost or doubled; on this
/// machine alone (`bin/chaos`, the default) or on a GlusterFS cluster of hosts made on it
/// (`farm-chaos cluster`, run by `bin/cluster`).
@main
struct FarmChaos: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm-chaos",
        abstract: "Kill farm processes at random under load, then prove that nothing was lost or doubled.",
        subcommands: [Chaos.self, Cluster.self, Clean.self],
        defaultSubcommand: Chaos.self)

    /// The farm executable: `farm` when given, else the one next to this executable.
    static func farmExecutable(_ farm: String?) throws -> String {
        let executable = farm ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("farm").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ChaosError("no farm executable at \(executable); build it or pass --farm")
        }
        return executable
    }

    /// SIGINT and SIGTERM end the chaos early; the farm is still stopped and checked, and what was made removed.
    static func catchStopSignals() {
        for stop in [SIGINT, SIGTERM] { signal(stop) { _ in interrupted.store(true, ordering: .relaxed) } }
    }

    /// Stops the farm (`farm stop` on each of `farms`), then SIGKILLs every farm process of the spool
    /// still there, by pid, and waits until none is registered.
    static func stopFarm(_ farms: [FarmCommand], spool: Spool, observer: Observer) {
        for farm in farms { _ = try? farm.run(["stop"], timeout: 90) }
        var pids = observer.pids
        pids.formUnion(spool.registry.processes().map(\.pid))
        for pid in pids where farms.contains(where: { isFarm(pid, spool: $0.spool) }) { kill(pid, SIGKILL) }
        Clock.poll(every: 0.02, for: 10) { spool.registry.processes().isEmpty }
    }

    /// Whether `pid` still runs farm on this spool (a pid seen long ago may belong to someone else now).
    private static func isFarm(_ pid: pid_t, spool: String) -> Bool {
        let arguments = ProcessTable.arguments(pid)
        return arguments.contains(spool) && arguments.first.map { $0.hasSuffix("farm") } == true
    }

    static func makeTemporaryDirectory(_ name: String) throws -> String {
        var template = Array((NSTemporaryDirectory() + "/\(name)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ChaosError("cannot make a temporary directory") }
        return String(cString: made)
    }
}
