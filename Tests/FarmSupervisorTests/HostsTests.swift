import FarmHooks
import FarmJSON
import FarmRegistry
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Two hosts on one spool (SPEC §11), each a UTS namespace with its own host name (`OtherHost`):
/// each runs its own supervisor and workers, scales on its own, revives only its own supervisor, and
/// one watcher serves the whole spool while the other stands by.
@Suite(.serialized) struct HostsTests {
    @Test func twoHostsRunTheirOwnWorkersAndOneWatcherServes() throws {
        if let why = OtherHost.unavailable {
            print("HostsTests.twoHostsRunTheirOwnWorkersAndOneWatcherServes skipped: \(why)")
            return
        }
        let farm = try RunningFarm()
        let paths = try farm.addList("Hosts", count: 30, size: 300_000, rate: 100_000)
        try farm.must(on: "h1", ["start", "--workers", "2", "--lease", "3"])
        try farm.must(on: "h2", ["start", "--workers", "2", "--lease", "3"])

        var rows = try ps(farm)
        #expect(Set(rows.map(\.host)) == ["h1", "h2"])
        for host in ["h1", "h2"] {
            #expect(rows.filter { $0.host == host && $0.role == "supervisor" }.count == 1, "\(host): \(rows)")
            #expect(rows.filter { $0.host == host && $0.role == "worker" }.count == 2, "\(host): \(rows)")
            #expect(rows.filter { $0.host == host && $0.role == "watcher" }.count == 1, "\(host): \(rows)")
        }
        #expect(rows.filter { $0.role == "watcher" && !$0.standby }.count == 1, "one watcher serves: \(rows)")
        #expect(poll(timeout: 10) { (try? workers(farm)) ?? [] == [4, 4] }, "the status sums both hosts")

        // Scaling one host leaves the other's processes as they were.
        let h2Processes = pids(farm, on: "h2")
        try farm.must(on: "h1", ["scale", "3"])
        #expect(poll(timeout: 10) { pids(farm, on: "h1", .worker).count == 3 })
        #expect(pids(farm, on: "h2") == h2Processes)
        try farm.must(["scale", "1", "--host", "h2"])
        #expect(poll(timeout: 15) { pids(farm, on: "h2", .worker).count == 1 })
        #expect(pids(farm, on: "h1", .worker).count == 3)
        #expect(poll(timeout: 10) { (try? workers(farm)) ?? [] == [4, 4] })

        // h1's supervisor killed: h1 revives it, and adopts its workers; nothing of h2 is touched.
        let h1Supervisor = try #require(pids(farm, on: "h1", .supervisor).first)
        let h1Workers = pids(farm, on: "h1", .worker)
        let h2Now = pids(farm, on: "h2")
        kill(h1Supervisor, SIGKILL)
        #expect(poll(timeout: 10) {
            let supervisors = pids(farm, on: "h1", .supervisor)
            return supervisors.count == 1 && !supervisors.contains(h1Supervisor)
        }, "h1's supervisor was not revived")
        Thread.sleep(forTimeInterval: 1)  // the new supervisor's first ticks: nothing may change
        #expect(pids(farm, on: "h1", .worker) == h1Workers, "h1's workers were adopted as they were")
        #expect(pids(farm, on: "h2") == h2Now, "h2's processes were untouched")
        #expect(h2Now.allSatisfy { !isGone($0) })
        #expect(pids(farm, on: "h2", .supervisor).count == 1)

        // The serving watcher killed: the standby serves, and its host gets a standby again.
        rows = try ps(farm)
        let serving = try #require(rows.first { $0.role == "watcher" && !$0.standby })
        kill(serving.pid, SIGKILL)
        #expect(poll(timeout: 10) {
            let now = (try? ps(farm)) ?? []
            let watchers = now.filter { $0.role == "watcher" }
            return watchers.count == 2 && watchers.filter { !$0.standby }.count == 1
                && !watchers.contains { $0.pid == serving.pid }
        }, "no single watcher took over")

        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Hosts")
        // Only one watcher served all along: one summary writer, never two at once (checked at each look).
        #expect(try ps(farm).filter { $0.role == "watcher" && !$0.standby }.count == 1)

        // `farm stop` from a third host stops both through their supervisors.
        let stopped = try farm.must(["stop"])
        #expect(stopped.contains("farm stopped"), "\(stopped)")
        #expect(farm.processes().isEmpty)
    }

    /// A host that dies whole while its worker runs a hook (SPEC §15, §11): the hook's claim comes back as the
    /// host's jobs do, once the host is known dead (`farm stop` from another host finds none of its processes),
    /// not a lease later; its next run is another host's.
    @Test func aDeadHostsHooksComeBackWithItsJobsOnceItIsKnownDead() throws {
        if let why = OtherHost.unavailable {
            print("HostsTests.aDeadHostsHooksComeBackWithItsJobsOnceItIsKnownDead skipped: \(why)")
            return
        }
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let records = farm.dir.appending("records")
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
        // A hook that notes its pid (the leader of its group) and runs until it is killed.
        let hook = farm.dir.appending("hook.sh")
        try Data("#!/bin/sh\necho $$ > \"$1/$FARM_INDEX.$$.pid\"\nexec sleep 600\n".utf8)
            .write(to: URL(fileURLWithPath: hook))
        chmod(hook, 0o755)
        let files = (0..<2).map { n in ("/hooked/\(n).png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                                        + (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ n) }) }
        for (path, body) in files { farm.origin.serve(path: path, bytes: body) }
        let manifest = farm.dir.appending("Hooked.json")
        try Data(JSON.encode(files.map { farm.origin.url(for: $0.0) })).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--on-done", hook, "--on-done-arg", records])
        // A lease far longer than the test's waits: what comes back sooner came back by the host's death.
        try farm.must(on: "h2", ["start", "--workers", "1", "--lease", "120"])
        let h2Tag = FarmHost(name: "h2").tag
        let running = { FileSystem.names(farm.spool.hooks.active).compactMap(ActiveName.init).filter { $0.owner.hostTag == h2Tag } }
        #expect(poll(timeout: 120, every: 0.05) { running().count == 2 && groups(records).count == 2 },
                "h2 runs no hook: \(FileSystem.names(farm.spool.hooks.active))")

        // h2 dies whole: its farm processes and the programs they ran.
        // (Its supervisor first, so that it starts nobody; killed again until none is registered.)
        #expect(poll(timeout: 30) {
            let h2 = farm.processes().filter { $0.host.description == "h2" }.sorted { $0.role == .supervisor && $1.role != .supervisor }
            for process in h2 { kill(process.pid, SIGKILL) }
            return h2.isEmpty
        })
        for group in groups(records) { kill(-group, SIGKILL) }
        #expect(running().count == 2, "nothing of h2's came back before its death was known")

        let stopped = Date()
        let stop = try farm.must(on: "h1", ["stop"])
        #expect(running().isEmpty, "h2's hooks are still claimed after farm stop: \(stop)")
        let due = Set(farm.spool.hooks.due())
        #expect(due == Set((0..<2).map { JobName(list: ListID.of(name: "Hooked.json"), index: $0) }), "\(due)")
        #expect(Date().timeIntervalSince(stopped) < 60, "came back by the lease, not by the host's death")
    }

    /// The process groups of the hooks that ran (each noted its pid in `records`).
    private func groups(_ records: String) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).compactMap { name in
            name.hasSuffix(".pid") ? pid_t(name.split(separator: ".")[1]) : nil
        }
    }

    /// One row of `farm ps --json` (`standby` is written only when true).
    private struct PsRow: CustomStringConvertible, JSONReadable {
        let role: String
        let pid: pid_t
        let host: String
        let standby: Bool

        init(json: JSONValue) throws(JSONMismatch) {
            role = try json.decode("role")
            pid = pid_t(truncatingIfNeeded: try json.decode("pid") as Int)
            host = try json.decode("host")
            standby = try json.decodeIfPresent("standby") ?? false
        }

        var description: String { "\(role) \(pid)@\(host)\(standby ? " (standby)" : "")" }
    }

    private func ps(_ farm: RunningFarm) throws -> [PsRow] {
        let output = try farm.must(["ps", "--json"])
        let rows = try #require(JSON.decode([PsRow].self, from: Array(output.utf8)), "\(output)")
        _ = farm.processes()  // remembers the pids for the clean-up
        return rows
    }

    /// The pids of the processes of `host` registered now, of `role` (any when nil).
    private func pids(_ farm: RunningFarm, on host: String, _ role: Role? = nil) -> Set<pid_t> {
        Set(farm.processes().filter { $0.host.description == host && (role == nil || $0.role == role) }.map(\.pid))
    }

    /// `farm status --json`'s workers: [desired, running].
    private func workers(_ farm: RunningFarm) throws -> [Int] {
        let output = try farm.must(["status", "--json"])
        let document = try #require(JSON.decode(StatusDocument.self, from: Array(output.utf8)), "\(output)")
        return [document.workers.desired, document.workers.running]
    }
}
