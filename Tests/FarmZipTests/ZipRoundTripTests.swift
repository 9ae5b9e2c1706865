import FarmFixtures
import FarmTestSupport
import Foundation
import Testing
@testable import FarmZip

@Suite struct ZipRoundTripTests {
    @Test(arguments: [ZipWriter.Method.store, .deflate])
    func writtenEntriesReadBackIdentical(method: ZipWriter.Method) throws {
        let dir = TemporaryDirectory("zip-roundtrip")
        let path = dir.appending("fixture.zip")
        let files: [(name: String, bytes: [UInt8])] = [
            ("empty.txt", []),
            ("hello.txt", Array("hello, zip\n".utf8)),
            ("nested/deeper/random.bin", ZipFixtures.random(300_000)),
            ("café/ñandú.json", Array("[\"https://example.com/é.jpg\"]".utf8)),
        ]
        let writer = try ZipWriter(path: path)
        try writer.addDirectory("folder")
        for file in files { try writer.add(file.name, file.bytes, method: method) }
        try writer.close()

        let reader = try ZipReader(path: path)
        let entries = try reader.entries()
        #expect(entries.map(\.name) == ["folder/"] + files.map(\.name))
        #expect(entries.map(\.index) == Array(0..<5))
        #expect(entries[0].isDirectory)
        #expect(entries.dropFirst().allSatisfy { !$0.isDirectory && !$0.isSymlink && !$0.isEncrypted })
        #expect(entries.allSatisfy { $0.method == (method == .store ? 0 : 8) || $0.isDirectory })
        for (entry, file) in zip(entries.dropFirst(), files) {
            #expect(entry.uncompressedSize == UInt64(file.bytes.count))
            #expect(entry.mode == S_IFREG | 0o644)
            #expect(try reader.read(entry, limit: 1 << 20) == file.bytes)
        }

        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        for entry in entries {
            let written = try reader.extract(entry, to: out)
            #expect(written == out + "/" + entry.name.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
        }
        for file in files {
            #expect(try ZipFixtures.bytes(out + "/" + file.name) == file.bytes)
        }
        #expect(ZipFixtures.tree(out).contains("folder"))
        // No temporary (AtomicFile names the one each entry is written to) is left.
        #expect(!ZipFixtures.tree(out).contains { $0.contains(".tmp-") })
        #expect(reader.bytesProduced == Int64(files.map(\.bytes.count).reduce(0, +) * 2))
    }

    @Test func deflateActuallyCompresses() throws {
        let dir = TemporaryDirectory("zip-deflate")
        let path = dir.appending("zeros.zip")
        try ZipWriter.write(path: path, entries: [("zeros", [UInt8](repeating: 0, count: 100_000))])
        let entry = try ZipFixtures.entry(try ZipReader(path: path), "zeros")
        #expect(entry.compressedSize < 1_000)
        #expect(entry.uncompressedSize == 100_000)
    }

    @Test func fixturesAreReproducible() throws {
        let dir = TemporaryDirectory("zip-reproducible")
        let entries: [(name: String, bytes: [UInt8])] = [("a.txt", Array("a".utf8)), ("b/c.txt", Array("c".utf8))]
        try ZipWriter.write(path: dir.appending("1.zip"), entries: entries)
        try ZipWriter.write(path: dir.appending("2.zip"), entries: entries)
        #expect(try ZipFixtures.bytes(dir.appending("1.zip")) == ZipFixtures.bytes(dir.appending("2.zip")))
        #expect(ZipFixtures.tree(dir.path) == ["1.zip", "2.zip"])
    }

    @Test func readRefusesMoreThanTheLimitInsteadOfTruncating() throws {
        let dir = TemporaryDirectory("zip-readlimit")
        let path = dir.appending("big.zip")
        try ZipWriter.write(path: path, entries: [("big.bin", ZipFixtures.random(10_000))], method: .store)
        let reader = try ZipReader(path: path)
        let entry = try ZipFixtures.entry(reader, "big.bin")
        let error = zipError { _ = try reader.read(entry, limit: 9_999) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message == "zip bomb: entry big.bin expands beyond 9.8 KiB")
        #expect(try reader.read(entry, limit: 10_000).count == 10_000)
    }

    @Test func symlinkAndDirectoryEntriesAreRecognised() throws {
        let dir = TemporaryDirectory("zip-kinds")
        let path = dir.appending("kinds.zip")
        let writer = try ZipWriter(path: path)
        try writer.addSymlink("link", target: "/etc/passwd")
        try writer.addDirectory("dir/")
        try writer.add("file", [1, 2, 3])
        try writer.close()
        let entries = try ZipReader(path: path).entries()
        #expect(entries.map(\.isSymlink) == [true, false, false])
        #expect(entries.map(\.isDirectory) == [false, true, false])
        #expect(entries[0].mode == S_IFLNK | 0o777)
    }

    @Test func anEmptyArchiveHasNoEntries() throws {
        let dir = TemporaryDirectory("zip-empty")
        let path = dir.appending("empty.zip")
        try ZipWriter(path: path).close()
        #expect(try ZipFixtures.bytes(path).count == 22)
        #expect(try ZipReader(path: path).entries().isEmpty)
    }

    @Test func aDroppedWriterLeavesNothingBehind() throws {
        let dir = TemporaryDirectory("zip-dropped")
        do {
            let writer = try ZipWriter(path: dir.appending("never.zip"))
            try writer.add("a", [1])
        }
        #expect(ZipFixtures.tree(dir.path).isEmpty)
    }
}
