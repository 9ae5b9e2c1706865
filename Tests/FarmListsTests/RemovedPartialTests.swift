@testable import FarmDedup
import FarmFsck
import FarmLists
@testable import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import SystemPackage
import Testing

/// The partial download of a resource removed while its transfer held it (paused, say): the removal
/// cannot delete it, and the transfer that would have seen the removal and deleted it is gone (a power
/// cut, a kill). bin/powercut found one left for good, fsck's "partial download of a URL that no
/// unfinished job has". The recovery after a reboot and `farm stop` delete it; the partial of a resource
/// still queued stays, to be resumed.
@Suite struct RemovedPartialTests {
    let dir = TemporaryDirectory()

    /// Two queued resources, each with 5,000 bytes of its URL's partial; the second removed while a
    /// holder has its partial locked, the holder then gone. Returns the two partials' paths.
    private func removedWhileHeld() throws -> (Spool, kept: String, orphan: String) {
        let spool = try Spool(root: dir.appending("spool"))
        let list = try SpoolFixtures.publishList(spool, name: "List 1", count: 2)
        let records = try #require(spool.lists.resources(ofList: list))
        let paths = records.map { Dedup(spool).partialPath(url: $0.url) }
        for path in paths {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x42, count: 5000)))
        }
        let holder = try FileDescriptor.open(paths[1], .readWrite)
        #expect(try holder.tryLock())
        _ = try Lists(spool).removeResource(id: records[1].id, fromList: list)
        try holder.close()
        #expect(FileManager.default.fileExists(atPath: paths[1]), "its holder had it: the removal left it")
        return (spool, paths[0], paths[1])
    }

    @Test func theRecoveryAfterARebootDeletesIt() throws {
        let (spool, kept, orphan) = try removedWhileHeld()
        // fsck judges a partial only once it is 2 s old (a writer may be about to take it).
        Thread.sleep(forTimeInterval: 2.2)
        #expect(try SpoolCheck(spool).run().findings.contains { $0.kind == .partial }, "fsck sees the orphan")
        // On this boot, recovery leaves partials alone: a transfer may be about to take it.
        try spool.durability.writeMark(Durability.SyncMark(boot: Durability.boot, time: Date().timeIntervalSince1970))
        try Lists(spool).recover()
        #expect(FileManager.default.fileExists(atPath: orphan))

        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: 0))
        try Lists(spool).recover()
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect((try? FileManager.default.attributesOfItem(atPath: kept)[.size] as? Int) == 5000,
                "the queued resource's bytes are kept for its resume")
        let findings = try SpoolCheck(spool).run().findings
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test func aStopDeletesItThoughJobsAreQueued() throws {
        let (spool, kept, orphan) = try removedWhileHeld()
        #expect(Dedup(spool).sweepURLPartials() == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(FileManager.default.fileExists(atPath: kept))
        // One a writer holds stays, whatever its URL.
        #expect(FileManager.default.createFile(atPath: orphan, contents: Data(repeating: 1, count: 10)))
        let writer = try FileDescriptor.open(orphan, .readWrite)
        defer { try? writer.close() }
        #expect(try writer.tryLock())
        #expect(Dedup(spool).sweepURLPartials() == 0)
        #expect(FileManager.default.fileExists(atPath: orphan))
    }

    /// A power cut that kept a download's link into blobs/ (and its URL's record) but none of its bytes: its
    /// partial is empty, so the recovery removes it, and the blob, its other name, is then used by nothing (bin/crashstates
    /// found fsck's "a stored blob that no output uses" after such a recovery). The recovery collects it.
    @Test func theRecoveryAfterARebootCollectsTheBlobOfALostDownload() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let list = try SpoolFixtures.publishList(spool, name: "List 1", count: 1)
        let records = try #require(spool.lists.resources(ofList: list))
        let partial = Dedup(spool).partialPath(url: records[0].url)
        #expect(FileManager.default.createFile(atPath: partial, contents: Data()))
        let blob = Dedup(spool).blobPath(String(repeating: "ab", count: 32))
        try FileManager.default.linkItem(atPath: partial, toPath: blob)
        let record = URLRecord(url: records[0].url, blob: String(repeating: "ab", count: 32), size: 5000, kind: "jpg")
        try Dedup(spool).writeURLRecord(record)
        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: 0))
        try Lists(spool).recover()
        #expect(!FileManager.default.fileExists(atPath: partial), "an empty partial has nothing to resume")
        #expect(!FileManager.default.fileExists(atPath: blob), "a blob no output uses is collected")
        #expect(Dedup(spool).urlRecord(key: Dedup.urlKey(records[0].url)) == nil, "with the URL's record naming it")
        let findings = try SpoolCheck(spool).run().findings
        #expect(findings.isEmpty, "\(findings)")
    }

    /// A power cut that kept a download's link into blobs/ and its URL's record, but only the first 3,000 of
    /// its 5,000 bytes and not the store after them: the partial, still the blob's other name, is shorter than
    /// the record says. The blob and its record go (else fsck's "a URL record whose blob is gone" after the
    /// recovery: bin/crashstates found it), and the partial stays with its bytes, to be resumed.
    @Test func theRecoveryAfterARebootCollectsTheBlobOfADownloadKeptInPart() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let list = try SpoolFixtures.publishList(spool, name: "List 1", count: 1)
        let records = try #require(spool.lists.resources(ofList: list))
        let partial = Dedup(spool).partialPath(url: records[0].url)
        #expect(FileManager.default.createFile(atPath: partial, contents: Data(repeating: 0x42, count: 3000)))
        let name = String(repeating: "cd", count: 32)
        let blob = Dedup(spool).blobPath(name)
        try FileManager.default.linkItem(atPath: partial, toPath: blob)
        try Dedup(spool).writeURLRecord(URLRecord(url: records[0].url, blob: name, size: 5000, kind: "jpg"))
        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: 0))
        try Lists(spool).recover()
        #expect(!FileManager.default.fileExists(atPath: blob), "a blob the disk kept only in part is collected")
        #expect(Dedup(spool).urlRecord(key: Dedup.urlKey(records[0].url)) == nil, "with the URL's record naming it")
        #expect((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) == 3000,
                "the partial keeps its bytes for its resume")
        let findings = try SpoolCheck(spool).run().findings
        #expect(findings.isEmpty, "\(findings)")
    }
}
