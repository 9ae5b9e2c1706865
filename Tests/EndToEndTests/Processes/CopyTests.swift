import FarmRegistry
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm start` starts the supervisor, and the supervisor its workers and its watcher, as copies of
/// themselves (fork without exec, see Spawn.swift): each must show its own role in `ps`, and keep
/// none of the supervisor's descriptors, whose locks it would otherwise hold after the supervisor
/// died, but the supervisor must hold its lock.
@Suite(.serialized) struct CopyTests {
    @Test func workersAndWatcherShowTheirRoleAndHoldNothingOfTheSupervisors() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Copies", count: 6, size: 20_000)
        try farm.start(workers: 2)
        let root = farm.spool.root
        let supervisor = try #require(farm.pids(.supervisor).first)
        #expect(Self.arguments(supervisor) == ["farm", "supervise", "--spool", root])
        #expect(Self.openFiles(supervisor).contains(farm.spool.control.supervisorLock), "the supervisor lost its lock")
        let titles: [(Role, [String])] = [(.worker, ["farm", "work", "--spool", root, "--supervised"]),
                                          (.watcher, ["farm", "watch", "--spool", root, "--supervised"])]
        for (role, title) in titles {
            let pids = farm.pids(role)
            #expect(!pids.isEmpty, "no \(role.rawValue) runs")
            for pid in pids {
                #expect(Self.arguments(pid) == title, "\(role.rawValue) \(pid)")
                let held = Self.openFiles(pid)
                #expect(!held.isEmpty, "\(role.rawValue) \(pid): its descriptors could not be read")
                let theSupervisors = held.filter { $0 == farm.spool.control.supervisorLock || $0.contains("/procs/supervisor.") }
                #expect(theSupervisors.isEmpty, "\(role.rawValue) \(pid) holds \(theSupervisors)")
            }
        }
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Copies")
    }

    /// /proc/<pid>/cmdline split at its NULs (a rewritten title ends in a run of them).
    static func arguments(_ pid: pid_t) -> [String] {
        let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        return raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// What the descriptors of `pid` point at.
    static func openFiles(_ pid: pid_t) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
    }
}
