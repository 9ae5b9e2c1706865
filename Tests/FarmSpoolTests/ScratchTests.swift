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
        for file in [spool.status.summary, spool.sidecars.path(job), spool.tmp + "/a-name-with-dashes.json"] {
            let staged = spool.scratch.path(String(file.split(separator: "/").last!))
            let writer = ScratchFiles.writer(ofName: String(staged.split(separator: "/").last!))
            #expect(writer == ScratchFiles.Writer(pid: getpid(), isLocal: true), "\(staged)")
        }
    }

    @Test func aWholeWriteLeavesOnlyTheFile() throws {
        let spool = try Spool(root: dir.appending("spool"))
        try spool.scratch.writeWhole(Array("{\"a\":1}".utf8), to: spool.status.summary)
        try spool.scratch.writeWhole(Array("{\"a\":2}".utf8), to: spool.status.summary)
        #expect(try String(contentsOfFile: spool.status.summary, encoding: .utf8) == "{\"a\":2}")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.tmp).isEmpty)
    }

    /// The last host's `farm stop` sweeps what another host's processes left in tmp/, also a temporary written
    /// a moment before: it waits until the temporary is as old as a command's stage could be, then takes it.
    /// bin/cluster found a watcher's summary left so, written as its host stopped a second before the last.
    @Test func theLastStopTakesAnotherHostsFreshTemporaryOnceItIsOld() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let foreign = spool.tmp + "/summary.json-4242." + FarmHost(name: "elsewhere").tag + "-0123456789abcdef"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: foreign))
        // This process's own, alive: never taken.
        let own = spool.scratch.path("summary.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: own))
        #expect(spool.scratch.sweepTemporaries(tmpAge: 0.5) == 1)
        #expect(!FileManager.default.fileExists(atPath: foreign))
        #expect(FileManager.default.fileExists(atPath: own))
    }
}
