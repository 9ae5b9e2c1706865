@testable import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// Whatever a process stages in tmp/ carries its writer in the name, so a writer killed between the
/// write and the rename leaves a file its host's sweep removes at once, not one judged by its age
/// (bin/cluster found a watcher's staged summary left after `farm stop` that way).
@Suite struct ScratchTests {
    let dir = TemporaryDirectory()

    @Test func stagedNamesSayTheirWriterWhateverTheFileIsCalled() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let job = JobName(list: String(repeating: "ab", count: 8), index: 12)
        for file in [spool.summaryFile, spool.sidecarPath(job), spool.tmp + "/a-name-with-dashes.json"] {
            let staged = spool.scratchPath(String(file.split(separator: "/").last!))
            let writer = Spool.scratchWriter(ofName: String(staged.split(separator: "/").last!))
            #expect(writer == Spool.ScratchWriter(pid: getpid(), isLocal: true), "\(staged)")
        }
    }

    @Test func aWholeWriteLeavesOnlyTheFile() throws {
        let spool = try Spool(root: dir.appending("spool"))
        try spool.writeWhole(Array("{\"a\":1}".utf8), to: spool.summaryFile)
        try spool.writeWhole(Array("{\"a\":2}".utf8), to: spool.summaryFile)
        #expect(try String(contentsOfFile: spool.summaryFile, encoding: .utf8) == "{\"a\":2}")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.tmp).isEmpty)
    }
}
