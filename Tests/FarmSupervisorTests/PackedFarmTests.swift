import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Packs in a running farm (PROTOCOL.md, "Packs"): a deep queue is claimed a shard at a time, views count only
/// the transfers at work, a killed worker's pack comes back whole and is finished by others, and the rest of a
/// pack does not wait behind one long transfer.
@Suite struct PackedFarmTests {
    private func status(_ farm: RunningFarm, _ list: String) throws -> ListStatus {
        let output = try farm.must(["status", list, "--json"])
        return try #require(JSON.decode(ListStatus.self, from: Array(output.utf8)), "\(output)")
    }

    /// The pack folders in active/ now, `<pack>@<owner>`.
    private func packs(_ spool: Spool) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool.active)) ?? []).filter { $0.hasPrefix("k") }
    }

    @Test func packsAreClaimedWholeAndAKilledWorkersPackIsFinishedByOthers() throws {
        let farm = try RunningFarm()
        // 400 files of 3 KB at 15 KB/s: a fifth of a second each, about 15 s for six transfers.
        let paths = try farm.addList("Packs", count: 400, size: 3_000, rate: 15_000)
        try farm.start(workers: 3, transfers: 2, lease: 3)
        #expect(poll(timeout: 30) { !packs(farm.spool).isEmpty }, "a deep queue is claimed in packs")

        // However many jobs the packs hold, the views count the six transfers at work, no more; and a job
        // shown waiting, then downloading, changed when it started, not when its pack was claimed.
        var most = 0
        var seenQueued: [Int: Date] = [:]
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for _ in 0..<20 {
            let asked = Date()
            let list = try status(farm, "Packs.json")
            most = max(most, list.active)
            #expect(list.queued + list.active + list.done + list.failed == list.total)
            for resource in list.resources ?? [] {
                if resource.status == .queued, seenQueued[resource.index] == nil { seenQueued[resource.index] = asked }
                if resource.status == .downloading, let queued = seenQueued[resource.index],
                   let changed = resource.changed.flatMap(iso.date(from:)) {
                    #expect(changed >= queued.addingTimeInterval(-0.05), "\(resource.index): \(changed) < \(queued)")
                }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(most >= 1 && most <= 6, "\(most) active with 3 workers of 2 transfers")

        // A worker killed with a pack: its folder goes back whole, its jobs are done by the others.
        var victim: pid_t?
        #expect(poll(timeout: 30) {
            victim = packs(farm.spool).compactMap { LeasedQueue.Claim($0)?.owner.pid }
                .first { farm.pids(.worker).contains($0) }
            return victim != nil
        })
        let pid = try #require(victim)
        kill(pid, SIGKILL)
        #expect(farm.waitUntilAllDone(paths.count, timeout: 180), "\(farm.counts)")
        let list = ListID.of(name: "Packs.json")
        for (index, path) in paths.enumerated() {
            let file = farm.spool.outputBase(JobName(list: list, index: index)) + ".png"
            #expect(FileManager.default.contents(atPath: file).map(Array.init) == farm.bodies[path], "\(file)")
        }
        #expect(SpoolFixtures.duplicates(in: farm.spool).isEmpty)
        // Every pack folder goes: the killed worker's back to the queue and emptied, the others at their last
        // member's end.
        #expect(poll(timeout: 30) { packs(farm.spool).isEmpty }, "\(packs(farm.spool))")
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output) \(fsck.error)")
    }

    @Test func theRestOfAPackIsHandedBackWhileOneTransferRunsLong() throws {
        let farm = try RunningFarm()
        // The first job is slow (40 KB at 10 KB/s: 4 s); the 299 others are quick. The first pack holds it
        // and 15 quick ones.
        var files = (0..<300).map { n -> (path: String, body: [UInt8]) in
            ("/Long/\(n).png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<1_992).map { UInt8(truncatingIfNeeded: $0 &+ n) })
        }
        files[0].body += [UInt8](repeating: 7, count: 38_000)
        try farm.addList("Long", serving: files)
        farm.origin.inject(.throttle(bytesPerSecond: 10_000), at: "/Long/0.png")
        try farm.start(workers: 2, transfers: 1, lease: 3)
        #expect(farm.waitUntilAllDone(300, timeout: 120), "\(farm.counts)")
        let resources = try #require(try status(farm, "Long.json").resources)
        let slow = try #require(resources.first { $0.index == 0 }?.changed)
        // Its pack's other members were done by then: handed back after a second, taken by the other worker.
        let late = resources.filter { (1..<16).contains($0.index) && ($0.changed ?? "") > slow }.map(\.index)
        #expect(late == [], "done after the slow one, at \(slow)")
    }
}
