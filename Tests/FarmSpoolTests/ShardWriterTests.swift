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

    /// A crawled page's few links, or one URL's add: written by the caller, with no thread woken and waited for
    /// (under the add lock, every other worker's append waited for that hand-over too). A batch of more than a
    /// task hands over its whole tasks, and writes its rest itself.
    @Test func aBatchSmallerThanATaskIsWrittenWithNoHandOver() throws {
        let dir = TemporaryDirectory()
        let small = ShardWriter(threads: 2)
        let directory = dir.appending("s0")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try small.write((0..<6).map { ("\($0)", Array("\($0)".utf8)) }, in: directory)
        try small.finish()
        #expect(small.handed == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 6)

        let large = ShardWriter(threads: 2)
        for shard in 1...3 {
            let directory = dir.appending("s\(shard)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try large.write((0..<(ShardWriter.taskSize / 2 + 1)).map { ("\($0)", []) }, in: directory)
        }
        try large.finish()
        #expect(large.handed == 1)
        for shard in 1...3 {
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appending("s\(shard)")).count
                        == ShardWriter.taskSize / 2 + 1)
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
