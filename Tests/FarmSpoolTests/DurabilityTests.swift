import FarmDedup
import FarmFsck
import FarmLists
import FarmPieces
@testable import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import SystemPackage
import Testing

/// Downloads are not fsynced one by one: finished jobs are synced in bulk, and after a reboot the ones
/// finished since the last sync are checked against their outcome records (Durability.swift).
@Suite struct DurabilityTests {
    let dir = TemporaryDirectory()

    /// Three jobs done, each with a 1,000-byte download, a display image and a thumbnail on disk.
    private func threeDone() throws -> (Spool, list: String) {
        let spool = try Spool(root: dir.appending("spool"))
        let (list, jobs) = SpoolFixtures.jobs(3)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let outputs = spool.files + "/" + list
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: true)
        let claimer = Claimer(spool: spool)
        while let claim = try claimer.claim() {
            let base = outputs + "/" + String(claim.job.index)
            try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: base + ".pdf"))
            try Data(repeating: 8, count: 300).write(to: URL(fileURLWithPath: base + ".page1.png"))
            try Data(repeating: 9, count: 100).write(to: URL(fileURLWithPath: base + ".thumb.png"))
            let record = Sidecar(status: .done, bytes: 1000, size: 1000, kind: "pdf", file: base + ".pdf",
                                 image: base + ".page1.png", thumb: base + ".thumb.png", changed: "t")
            #expect(try spool.complete(claim, .done, record: record))
        }
        #expect(SpoolFixtures.counts(spool) == [.done: 3])
        return (spool, list)
    }

    @Test func afterARebootTheJobsWhoseOutputsDidNotSurviveAreQueuedAgain() throws {
        let (spool, list) = try threeDone()
        let outputs = spool.files + "/" + list
        // What a power loss leaves of unsynced writes: a short download, an empty thumbnail.
        #expect(truncate(outputs + "/0.pdf", 400) == 0)
        #expect(truncate(outputs + "/2.thumb.png", 0) == 0)
        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: 0))

        let redone = try Lists(spool).recheckAfterReboot()
        #expect(redone.map(\.index).sorted() == [0, 2])
        #expect(SpoolFixtures.counts(spool) == [.queued: 2, .done: 1])
        // Their outputs went with them, as in a reload; the intact job kept its own.
        let left = try FileManager.default.contentsOfDirectory(atPath: outputs).sorted()
        #expect(left == ["1.page1.png", "1.pdf", "1.thumb.png"])
        // Queued again, a job file carries no outcome record.
        let again = try #require(try Claimer(spool: spool).claim())
        #expect(spool.sidecars.outcome(atPath: spool.activePath(again.job, again.owner)) == nil)
        // The mark now names this boot: the check is not made again.
        #expect(spool.durability.mark()?.boot == Durability.boot)
        #expect(truncate(outputs + "/1.pdf", 1) == 0)
        #expect(try Lists(spool).recheckAfterReboot().isEmpty)
    }

    @Test func onlyJobsFinishedSinceTheLastSyncAreChecked() throws {
        let (spool, list) = try threeDone()
        #expect(truncate(spool.files + "/" + list + "/0.pdf", 400) == 0)
        // Synced after these jobs finished, on this boot: nothing to check.
        try spool.durability.writeMark(Durability.SyncMark(boot: Durability.boot, time: Date().timeIntervalSince1970 + 5))
        #expect(try Lists(spool).recheckAfterReboot().isEmpty)
        // Another boot, but a sync after they finished: they were on disk before it.
        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: Date().timeIntervalSince1970 + 5))
        #expect(try Lists(spool).recheckAfterReboot().isEmpty)
        #expect(SpoolFixtures.counts(spool) == [.done: 3])
        // No mark at all (a spool from before marks): everything done is checked.
        try FileManager.default.removeItem(atPath: spool.durability.markPath)
        #expect(try Lists(spool).recheckAfterReboot().map(\.index) == [0])
    }

    @Test func aSyncIsMadeOnlyWhenAJobFinishedSinceTheLastOneOrAJobIsClaimed() throws {
        let spool = try Spool(root: dir.appending("spool"))
        // No mark yet: one sync starts the record.
        let before = Date().timeIntervalSince1970
        #expect(try spool.durability.syncFinished())
        let mark = try #require(spool.durability.mark())
        #expect(mark.boot == Durability.boot && mark.boot.count == 36)
        #expect(mark.time >= before - 0.01 && mark.time <= Date().timeIntervalSince1970 + 0.01)
        // Nothing finished since: no sync.
        #expect(try spool.durability.syncFinished() == false)
        #expect(spool.durability.mark() == mark)
        // A job reaches done/: the next call syncs and moves the mark.
        let (list, jobs) = SpoolFixtures.jobs(1)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let claim = try #require(try Claimer(spool: spool).claim())
        try spool.complete(claim, .done, record: Sidecar(status: .done, changed: "t"))
        #expect(try spool.durability.syncFinished())
        let afterDone = try #require(spool.durability.mark())
        #expect(afterDone.time > mark.time)
        // A job claimed (its transfer writing a partial): every call syncs while it is.
        let (more, others) = SpoolFixtures.jobs(1, listName: "List 2")
        try spool.enqueue(others, lists: [ListRecordFile(id: more, bytes: Array("{}".utf8))])
        let writing = try #require(try Claimer(spool: spool).claim())
        #expect(try spool.durability.syncFinished() && spool.durability.syncFinished())
        #expect(try #require(spool.durability.mark()).time > afterDone.time)
        try spool.complete(writing, .failed, record: Sidecar(status: .error, changed: "t"))
        // Nothing claimed, nothing done since (past the clock's slack): no sync.
        Thread.sleep(forTimeInterval: Durability.clockSlack + 0.2)
        _ = try spool.durability.syncFinished()
        #expect(try spool.durability.syncFinished() == false)
    }
}

/// A download stored and not yet completed when the power went (bin/powercut found it): the disk kept the
/// store's names and not all of its bytes. The supervisor's recovery hands the claim back with its output,
/// the output's blob and its URL's record deleted; a claim of this boot is its owner's.
@Suite struct ClaimsOfAnEarlierBootTests {
    @Test func aClaimOfAnEarlierBootGoesBackWithoutWhatItsOwnerStored() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let list = try SpoolFixtures.publishList(spool, name: "Cut.json", count: 2)
        let claimer = Claimer(spool: spool)
        let cut = try #require(try claimer.claim()), kept = try #require(try claimer.claim())
        // Its owner's name says when it claimed: before this boot.
        let earlier = Owner.fresh(now: Durability.bootTime - 60)
        #expect(rename(spool.activePath(cut.job, cut.owner), spool.activePath(cut.job, earlier)) == 0)

        let outputs = spool.outputDirectory(ofList: list)
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: true)
        let output = outputs + "/\(cut.job.index).jpg"
        #expect(FileManager.default.createFile(atPath: output, contents: Data(repeating: 0x5A, count: 40_000)))
        let fd = try FileDescriptor.open(output, .readOnly)
        let blob = try #require(Dedup(spool).publish(output, fd: fd, url: cut.record.url, size: 40_000, kind: "jpg"))
        try fd.close()
        #expect(truncate(output, 12_288) == 0)  // what the disk kept of the bytes
        let otherOutput = outputs + "/\(kept.job.index).jpg"
        #expect(FileManager.default.createFile(atPath: otherOutput, contents: Data(repeating: 1, count: 10)))

        let report = try Lists(spool).recover()
        #expect(report.claimsOfAnEarlierBoot == 1)
        #expect(SpoolFixtures.counts(spool) == [.queued: 1, .active: 1])
        #expect(spool.isClaimed(kept.job) && !spool.isClaimed(cut.job))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!FileManager.default.fileExists(atPath: Dedup(spool).blobPath(blob)), "its blob goes with it")
        #expect(Dedup(spool).urlRecord(key: Dedup.urlKey(cut.record.url)) == nil, "and its URL's record")
        #expect(FileManager.default.fileExists(atPath: otherOutput), "the claim of this boot keeps its own")
        try FileManager.default.removeItem(atPath: otherOutput)
        let findings = try SpoolCheck(spool).run().findings
        #expect(findings.isEmpty, "\(findings)")
        #expect(try Lists(spool).recover().claimsOfAnEarlierBoot == 0)
    }
}

/// What a power cut leaves of bytes written but not yet synced: a file's size on disk past blocks the disk
/// never got (a hole, read as zeros). The farm's checks after a reboot look for holes, not just sizes.
@Suite struct HolesAfterARebootTests {
    let dir = TemporaryDirectory()
    static let block = 64 << 10

    /// A file of `size` bytes holding data only in the blocks of `written` (the rest a hole).
    private func sparse(_ path: String, size: Int, written: [Range<Int>]) throws {
        let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: 0o644)
        defer { try? fd.close() }
        for range in written {
            _ = try fd.writeAll(toAbsoluteOffset: Int64(range.lowerBound), [UInt8](repeating: 0x5A, count: range.count))
        }
        try fd.resize(to: Int64(size))
    }

    @Test func aDoneDownloadWithAHoleOfTheRightSizeIsQueuedAgain() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let (list, jobs) = SpoolFixtures.jobs(2)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let outputs = spool.files + "/" + list
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: true)
        let claimer = Claimer(spool: spool)
        while let claim = try claimer.claim() {
            let file = outputs + "/\(claim.job.index).bin"
            // Job 0's last block never reached the disk, though its size did.
            try sparse(file, size: 3 * Self.block, written: claim.job.index == 0 ? [0..<Self.block] : [0..<3 * Self.block])
            let record = Sidecar(status: .done, bytes: 3 * Self.block, size: 3 * Self.block, kind: "other", file: file,
                                 changed: "t")
            #expect(try spool.complete(claim, .done, record: record))
        }
        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: 0))
        #expect(try Lists(spool).recheckAfterReboot().map(\.index) == [0])
        #expect(SpoolFixtures.counts(spool) == [.queued: 1, .done: 1])
    }

    @Test func partialsAndPiecesAreCutBackToTheBytesTheDiskKept() throws {
        let spool = try Spool(root: dir.appending("spool"))
        try FileManager.default.createDirectory(atPath: spool.partial, withIntermediateDirectories: true)
        let block = Self.block
        // A download in one piece: its first block on disk, its second's size only.
        let whole = spool.partial + "/one"
        try sparse(whole, size: 2 * block, written: [0..<block])
        // A download in three pieces: the first recorded whole but a hole, the second done and on disk, the
        // third done but a hole.
        let inPieces = spool.partial + "/three"
        try sparse(inPieces, size: 3 * block, written: [block..<2 * block])
        let board = spool.pieceBoard(ofPartial: inPieces)
        let plan = PieceBoard.Plan(url: "http://127.0.0.1:1/three", size: 3 * block, validator: nil, list: "l",
                                   connections: 3, minPiece: block)
        let pieces = plan.firstPieces
        #expect(pieces.count == 3)
        try board.publish(plan, pieces: [pieces[0]], written: [pieces[0]: block])
        for piece in pieces[1...] {
            #expect(FileManager.default.createFile(atPath: board.path + "/d/\(piece)", contents: Data()))
        }
        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: 0))

        #expect(try Lists(spool).recover().partialsCutBack == 3)
        #expect(try FileSystem.lstat(whole).size == block, "cut back to its first hole")
        #expect(try FileSystem.lstat(inPieces).size == 3 * block, "a partial in pieces keeps its size")
        #expect(FileSystem.names(board.path + "/d") == ["\(pieces[1])"])
        #expect(FileSystem.names(board.path + "/q").sorted() == ["\(pieces[0])", "\(pieces[2])"].sorted())
        for piece in [pieces[0], pieces[2]] {
            #expect(try FileSystem.lstat(board.path + "/q/\(piece)").size == 0, "\(piece): none of its bytes kept")
        }
        #expect(board.bytesIn() == block)

        // Checked once a boot: the mark says this one now.
        try spool.durability.markBootChecked()
        try sparse(whole, size: 2 * block, written: [0..<block])
        #expect(try Lists(spool).recover().partialsCutBack == 0)
    }

    /// bin/powercut (seed 7): a board's folder renamed into pieces/ reached the disk, its plan's bytes did
    /// not, and fsck found "not the pieces of a download (no plan)" for good. A board without one found after
    /// a reboot goes, with its partial (the plan is not synced: this is what keeps a power cut harmless).
    @Test func aBoardWhosePlanTheDiskLostGoesWithItsPartial() throws {
        let spool = try Spool(root: dir.appending("spool"))
        try FileManager.default.createDirectory(atPath: spool.partial, withIntermediateDirectories: true)
        let block = Self.block
        var boards: [(PieceBoard, String)] = []
        for name in ["lost", "kept"] {
            let partial = spool.partial + "/" + name
            try sparse(partial, size: 2 * block, written: [0..<2 * block])
            let board = spool.pieceBoard(ofPartial: partial)
            let plan = PieceBoard.Plan(url: "http://127.0.0.1:1/" + name, size: 2 * block, validator: nil, list: "l",
                                       connections: 2, minPiece: block)
            try board.publish(plan, pieces: plan.firstPieces)
            boards.append((board, partial))
        }
        let (lost, lostPartial) = boards[0]
        let plan = try FileDescriptor.open(lost.path + "/plan", .writeOnly, options: .truncate)
        try plan.close()
        #expect(lost.plan() == nil)
        #expect(try SpoolCheck(spool).run().findings.contains { lost.path.hasSuffix("/" + $0.path) },
                "fsck sees the board")
        try spool.durability.writeMark(Durability.SyncMark(boot: "an-earlier-boot", time: 0))

        #expect(try Lists(spool).recover().partialsCutBack == 1)
        #expect(!FileSystem.exists(lost.path) && !FileSystem.exists(lostPartial))
        let (kept, keptPartial) = boards[1]
        #expect(kept.plan() != nil && FileSystem.exists(keptPartial), "a board with its plan stays")
        let findings = try SpoolCheck(spool).run().findings.filter { $0.path.hasPrefix("pieces/") }
        #expect(findings.isEmpty, "\(findings)")
    }
}
