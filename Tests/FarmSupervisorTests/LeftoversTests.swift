import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// SPEC §11, "nothing left behind": what a process killed half-way leaves in tmp/ is swept by its host's
/// supervisor while the farm runs, and by `farm stop` whichever host made it. Files named as the farm's
/// processes name their scratch files (`<prefix>-<pid>.<host tag>-<nonce>`), after a pid that was a real
/// process of this machine and is gone.
@Suite struct LeftoversTests {
    /// A pid that was a process of this machine a moment ago.
    private func deadPid() throws -> pid_t {
        let child = try ChildProcess("/bin/true", [])
        _ = child.wait(timeout: 30)
        return child.pid
    }

    /// A scratch name of tmp/ for a file of process `pid` of the host tagged `tag`, made as a second name
    /// of `bytes` (as a served download's is a name of its stored bytes) or as a file of its own.
    private func leave(_ spool: Spool, _ prefix: String, pid: pid_t, tag: String, nameOf bytes: String? = nil)
        throws -> String {
        let path = spool.tmp + "/\(prefix)-\(pid).\(tag)-\(String(UInt64.random(in: 1 << 60 ..< UInt64.max), radix: 16))"
        if let bytes {
            try #require(link(bytes, path) == 0, "link: \(errno)")
        } else {
            try Data("half a page".utf8).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    @Test func deadProcessesScratchFilesAreSweptByTheirSupervisorAndByStop() throws {
        let farm = try RunningFarm()
        try farm.addList("Few", count: 2, size: 20_000)
        try farm.start(workers: 1)
        try #require(farm.waitUntilAllDone(2))
        let list = ListID.of(name: "Few.json")
        let download = try #require(try FileManager.default.contentsOfDirectory(atPath: farm.spool.files + "/" + list)
            .first { $0.hasSuffix(".png") && !$0.contains(".thumb") })
        let stored = farm.spool.files + "/" + list + "/" + download

        let dead = try deadPid()
        let shared = try leave(farm.spool, "shared", pid: dead, tag: FarmHost.local.tag, nameOf: stored)
        let page = try leave(farm.spool, "page", pid: dead, tag: FarmHost.local.tag)
        // Another host's: its pid means nothing here, so this host's supervisor leaves it alone.
        let elsewhere = try leave(farm.spool, "shared", pid: dead, tag: "0badc0de", nameOf: stored)
        let swept = poll(timeout: 40, every: 0.1) {
            !FileManager.default.fileExists(atPath: shared) && !FileManager.default.fileExists(atPath: page)
        }
        #expect(swept, "left in tmp/: \((try? FileManager.default.contentsOfDirectory(atPath: farm.spool.tmp)) ?? [])")
        #expect(FileManager.default.fileExists(atPath: elsewhere))

        // `farm stop` right after the stored bytes got a new name (which renews the inode's ctime, as a
        // download served from them does): every process of every host is gone, and so is the file.
        try #require(poll(timeout: 10) { (try? Self.age(stored)) ?? 0 >= 2.5 })
        let renew = farm.spool.tmp + "/renew"
        try #require(link(stored, renew) == 0 && unlink(renew) == 0)
        // A worker that transferred a job by itself and lost the claim (its host cut off, then killed) leaves
        // the job's own partial; the job, done by another, has no next run to take it.
        let stale = farm.spool.partialPath(JobName(list: list, index: 0))
        try Data("bytes of a transfer that lost its claim".utf8).write(to: URL(fileURLWithPath: stale))
        try farm.must(["stop"])
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
        #expect(!FileManager.default.fileExists(atPath: stale), "farm stop left the partial of a done job")
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }

    /// Seconds since the file at `path` was last written.
    private static func age(_ path: String) throws -> Double {
        var st = stat()
        guard stat(path, &st) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return Date().timeIntervalSince1970 - (Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    }
}
