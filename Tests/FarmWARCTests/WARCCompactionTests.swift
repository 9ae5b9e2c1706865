import FarmTestSupport
import Foundation
import Glibc
import Testing
@testable import FarmWARC

/// WARCCompaction: responses dropped from a finished file with the requests that name them, the others kept
/// whole and in order (warcio reads the file), an open file left alone, and a compaction killed at either of
/// its failpoints leaving the file as it was or as it is to be, which the next compaction finishes.
@Suite struct WARCCompactionTests {
    /// A finished file of four exchanges (`/0` to `/3`); returns its name and their response IDs.
    static func fourExchanges(in folder: String) throws -> (file: String, ids: [String]) {
        let writer = try WARCWriter(directory: folder, software: "farm/test")
        var ids: [String] = []
        var file = ""
        for n in 0..<4 {
            let written = try writer.write(WARCTools.exchange("/\(n)", body: .bytes(WARCTools.random(3000 + n))))
            ids.append(written.responseID.text)
            file = written.file
        }
        try writer.close()
        return (file, ids)
    }

    static func expectKept(_ path: String, responses: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let check = try WARCTools.check([path])
        #expect(check.status == 0, "\(check.output)", sourceLocation: sourceLocation)
        let entries = try WARCTools.index(path)
        #expect(entries.first?.type == "warcinfo", sourceLocation: sourceLocation)
        #expect(entries.filter { $0.type == "response" }.map(\.id) == responses, sourceLocation: sourceLocation)
        #expect(entries.filter { $0.type == "request" }.compactMap(\.concurrentTo) == responses,
                sourceLocation: sourceLocation)
    }

    @Test func dropsTheResponsesAndTheirRequestsAndKeepsTheRest() throws {
        let dir = TemporaryDirectory("farm-warc")
        let folder = dir.appending("warc")
        let (file, ids) = try Self.fourExchanges(in: folder)
        #expect(try WARCCompaction.drop(responseIDs: [ids[1], ids[2]], from: file, in: folder) == .done(dropped: 4))
        try Self.expectKept(folder + "/" + file, responses: [ids[0], ids[3]])
        // Again: nothing left to drop. Each one left, then the last: a file of its warcinfo only goes.
        #expect(try WARCCompaction.drop(responseIDs: [ids[1]], from: file, in: folder) == .done(dropped: 0))
        #expect(try WARCCompaction.drop(responseIDs: [ids[0], ids[3]], from: file, in: folder) == .done(dropped: 4))
        #expect(WARCTools.finishedFiles(folder).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func leavesAFileStillOpenToItsWriter() throws {
        let dir = TemporaryDirectory("farm-warc")
        let folder = dir.appending("warc")
        let writer = try WARCWriter(directory: folder, software: "farm/test")
        let written = try writer.write(WARCTools.exchange("/0", body: .bytes([1, 2, 3])))
        let before = try WARCTools.bytes(folder + "/" + written.file + WARCWriter.openSuffix)
        #expect(try WARCCompaction.drop(responseIDs: [written.responseID.text], from: written.file, in: folder) == .open)
        #expect(try WARCTools.bytes(folder + "/" + written.file + WARCWriter.openSuffix) == before)
        try writer.close()
        #expect(try WARCCompaction.drop(responseIDs: [written.responseID.text], from: written.file, in: folder)
            == .done(dropped: 2))
    }

    @Test(arguments: ["warc.compact-written", "warc.compacted"])
    func aCompactionKilledLeavesTheOldFileOrTheNewOneAndIsDoneAgain(failpoint: String) throws {
        let dir = TemporaryDirectory("farm-warc")
        let folder = dir.appending("warc")
        let (file, ids) = try Self.fourExchanges(in: folder)
        let path = folder + "/" + file
        let killed = try ChildProcess("farm-warc-writer", ["compact", folder, file, ids[2]],
                                      environment: ["FARM_FAILPOINT": failpoint])
        killed.wait(timeout: 60)
        #expect(killed.process.terminationReason == .uncaughtSignal, "not killed at \(failpoint): \(killed.standardError)")
        // Before the rename: the file as it was, its copy beside it; after: the file as it is to be.
        try Self.expectKept(path, responses: failpoint == "warc.compacted" ? [ids[0], ids[1], ids[3]] : ids)
        #expect(FileManager.default.fileExists(atPath: path + WARCCompaction.temporarySuffix)
            == (failpoint == "warc.compact-written"))
        let again = try ChildProcess("farm-warc-writer", ["compact", folder, file, ids[2]])
        #expect(again.wait(timeout: 60) == 0, "\(again.standardError)")
        try Self.expectKept(path, responses: [ids[0], ids[1], ids[3]])
        #expect(WARCTools.finishedFiles(folder) == [file])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [file])
    }
}
