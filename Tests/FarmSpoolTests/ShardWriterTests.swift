@testable import FarmSpool
import FarmTestSupport
import Foundation
import SystemPackage
import Testing

/// `farm add` creates a batch's job files a shard at a time on other threads (ShardWriter).
@Suite struct ShardWriterTests {
    @Test func everyShardIsWrittenWhole() throws {
        let dir = TemporaryDirectory()
        let writer = ShardWriter(threads: 2)
        for shard in 0..<5 {
            let directory = dir.appending("s\(shard)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try writer.write((0..<300).map { ("\($0)", Array("\(shard)/\($0)".utf8)) }, in: directory)
        }
        try writer.finish()
        for shard in 0..<5 {
            let directory = dir.appending("s\(shard)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 300)
            #expect(try String(contentsOfFile: directory + "/299", encoding: .utf8) == "\(shard)/299")
        }
    }

    @Test func aShardThatCannotBeWrittenFailsOnlyOnceEveryWriteHasEnded() throws {
        let dir = TemporaryDirectory()
        let writer = ShardWriter(threads: 2)
        let good = dir.appending("s0")
        try FileManager.default.createDirectory(atPath: good, withIntermediateDirectories: false)
        try writer.write([("a", [1]), ("b", [2])], in: good)
        try writer.write([("c", [3])], in: dir.appending("missing"))
        #expect(throws: Errno.noSuchFileOrDirectory) { try writer.finish() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: good).sorted() == ["a", "b"])
        // Once a shard failed, no more are taken.
        #expect(throws: Errno.noSuchFileOrDirectory) { try writer.write([("d", [4])], in: good) }
    }
}
