import FarmFixtures
import FarmTestSupport
import Foundation
import Testing
@testable import FarmZip

@Suite struct ZipSafetyTests {
    @Test func traversalNamesAreNeverWrittenOutsideTheTarget() throws {
        let dir = TemporaryDirectory("zip-traversal")
        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        let absolute = dir.appending("absolute-evil.txt")
        let hostile = ["../evil.txt", "/etc/evil", absolute, "a/../../evil2.txt", "a/b/../../../evil3.txt",
                       "..\\evil4.txt", "..", "./", "ok/..", ""]
        let path = dir.appending("hostile.zip")
        let writer = try ZipWriter(path: path)
        for name in hostile { try writer.add(name, Array("pwned".utf8)) }
        try writer.add("fine/./safe.txt", Array("safe".utf8))
        try writer.close()

        let reader = try ZipReader(path: path)
        let entries = try reader.entries()
        #expect(entries.map(\.name) == hostile + ["fine/./safe.txt"])
        for entry in entries.dropLast() {
            let error = zipError { try reader.extract(entry, to: out) }
            #expect(error?.code == .unsafeEntry, "\(entry.name) was not refused")
            #expect(error?.message == "unsafe entry name \(entry.name)")
        }
        #expect(try reader.extract(entries.last!, to: out) == out + "/fine/safe.txt")
        #expect(ZipFixtures.tree(dir.path) == ["hostile.zip", "out", "out/fine", "out/fine/safe.txt"])
        #expect(!FileManager.default.fileExists(atPath: absolute))
    }

    @Test func aSymlinkEntryIsRefusedAndNothingIsCreated() throws {
        let dir = TemporaryDirectory("zip-symlink")
        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        let outside = dir.appending("outside")
        try ZipFixtures.makeDirectory(outside)
        let path = dir.appending("link.zip")
        let writer = try ZipWriter(path: path)
        try writer.addSymlink("link", target: outside)
        try writer.add("link/evil.txt", Array("pwned".utf8))
        try writer.close()

        let reader = try ZipReader(path: path)
        let entries = try reader.entries()
        let error = zipError { try reader.extract(entries[0], to: out) }
        #expect(error?.code == .unsafeEntry)
        #expect(error?.message == "unsafe entry link: a symbolic link")
        // With no link made, the next entry lands in a real folder inside the target.
        try reader.extract(entries[1], to: out)
        #expect(ZipFixtures.tree(out) == ["link", "link/evil.txt"])
        #expect(ZipFixtures.tree(outside).isEmpty)
        let type = try FileManager.default.attributesOfItem(atPath: out + "/link")[.type] as? FileAttributeType
        #expect(type == .typeDirectory)
    }

    @Test func aLinkPlantedInTheTargetIsNotFollowed() throws {
        let dir = TemporaryDirectory("zip-planted")
        let out = dir.appending("out")
        let outside = dir.appending("outside")
        try ZipFixtures.makeDirectory(out)
        try ZipFixtures.makeDirectory(outside)
        try ZipFixtures.write(Array("original".utf8), to: outside + "/victim.txt")
        let files = FileManager.default
        try files.createSymbolicLink(atPath: out + "/folder", withDestinationPath: outside)
        try files.createSymbolicLink(atPath: out + "/victim.txt", withDestinationPath: outside + "/victim.txt")
        let path = dir.appending("planted.zip")
        try ZipWriter.write(path: path, entries: [("folder/evil.txt", Array("pwned".utf8)),
                                                  ("victim.txt", Array("replaced".utf8))])

        let reader = try ZipReader(path: path)
        let entries = try reader.entries()
        let error = zipError { try reader.extract(entries[0], to: out) }
        #expect(error?.code == .io)
        #expect(error?.errno == ELOOP || error?.errno == ENOTDIR)
        // A link where the file goes is replaced by the file, never written through.
        try reader.extract(entries[1], to: out)
        #expect(ZipFixtures.tree(outside) == ["victim.txt"])
        #expect(try ZipFixtures.bytes(outside + "/victim.txt") == Array("original".utf8))
        #expect(try ZipFixtures.bytes(out + "/victim.txt") == Array("replaced".utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: out + "/victim.txt")[.type] as? FileAttributeType
            == .typeRegular)
    }

    @Test func aBombIsStoppedBeforeWritingMoreThanTheLimit() throws {
        let dir = TemporaryDirectory("zip-bomb")
        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        let path = dir.appending("bomb.zip")
        let writer = try ZipWriter(path: path)
        try writer.add("bomb.bin", repeating: 0, count: 50 << 20)
        try writer.close()
        #expect(try ZipFixtures.bytes(path).count < 200_000)

        let reader = try ZipReader(path: path)
        let entry = try ZipFixtures.entry(reader, "bomb.bin")
        let bySize = zipError { try reader.extract(entry, to: out, limits: ZipLimits(maxEntryBytes: 1 << 20)) }
        #expect(bySize?.code == .limitExceeded)
        #expect(bySize?.message == "zip bomb: entry bomb.bin expands beyond 1 MiB")
        let byRatio = zipError { try reader.extract(entry, to: out) }
        #expect(byRatio?.code == .limitExceeded)
        #expect(byRatio?.message == "zip bomb: entry bomb.bin expands more than 100 times its compressed size")
        let totalOnly = ZipLimits(maxTotalBytes: 10 << 20, maxRatio: .max)
        let byTotal = zipError { try reader.extract(entry, to: out, limits: totalOnly) }
        #expect(byTotal?.code == .limitExceeded)
        #expect(ZipFixtures.tree(out).isEmpty)
        #expect(reader.bytesProduced == 0)
    }

    @Test func anEntryLyingAboutItsSizeIsCaughtAndLeavesNoOutput() throws {
        let dir = TemporaryDirectory("zip-liar")
        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        let path = dir.appending("liar.zip")
        let writer = try ZipWriter(path: path)
        try writer.add("liar.bin", repeating: 7, count: 5 << 20)
        try writer.close()
        var zip = try ZipFixtures.bytes(path)
        ZipFixtures.declareUncompressedSize(1_000, in: &zip)
        try ZipFixtures.write(zip, to: path)

        let reader = try ZipReader(path: path)
        let entry = try ZipFixtures.entry(reader, "liar.bin")
        #expect(entry.uncompressedSize == 1_000)
        let error = zipError { try reader.extract(entry, to: out, limits: ZipLimits(maxEntryBytes: 4_096)) }
        // minizip stops at the declared size, so the CRC (of the first 1,000 bytes) cannot match.
        #expect(error?.code == .crcMismatch || error?.code == .corrupt)
        #expect(ZipFixtures.largestFile(out) <= 4_096)
        #expect(ZipFixtures.tree(out).isEmpty)
        #expect(zipError { _ = try reader.read(entry, limit: 4_096) } != nil)
    }

    @Test func aCRCErrorIsReportedAndLeavesNoOutput() throws {
        let dir = TemporaryDirectory("zip-crc")
        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        let path = dir.appending("crc.zip")
        try ZipWriter.write(path: path, entries: [("data.bin", ZipFixtures.random(200_000))], method: .store)
        var zip = try ZipFixtures.bytes(path)
        zip[ZipFixtures.firstDataOffset(zip) + 100_000] ^= 0x01
        try ZipFixtures.write(zip, to: path)

        let reader = try ZipReader(path: path)
        let entry = try ZipFixtures.entry(reader, "data.bin")
        let error = zipError { try reader.extract(entry, to: out) }
        #expect(error?.code == .crcMismatch)
        #expect(error?.message == "CRC error in data.bin")
        #expect(error?.status == -105)
        #expect(ZipFixtures.tree(out).isEmpty)
        #expect(zipError { _ = try reader.read(entry, limit: 1 << 20) }?.code == .crcMismatch)
    }

    @Test func damagedCompressedDataIsReportedAndLeavesNoOutput() throws {
        let dir = TemporaryDirectory("zip-deflate-damage")
        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        let path = dir.appending("damaged.zip")
        let text = (0..<20_000).map { "line \($0) of some text\n" }.joined()
        try ZipWriter.write(path: path, entries: [("text.txt", Array(text.utf8))])
        var zip = try ZipFixtures.bytes(path)
        let start = ZipFixtures.firstDataOffset(zip)
        for offset in stride(from: start + 50, to: start + 2_000, by: 97) { zip[offset] ^= 0x5A }
        try ZipFixtures.write(zip, to: path)

        let reader = try ZipReader(path: path)
        let entry = try ZipFixtures.entry(reader, "text.txt")
        let error = zipError { try reader.extract(entry, to: out) }
        #expect(error?.code == .crcMismatch || error?.code == .corrupt)
        #expect(ZipFixtures.tree(out).isEmpty)
    }

    @Test func garbageTruncatedAndEmptyFilesAreCorruptZips() throws {
        let dir = TemporaryDirectory("zip-garbage")
        let good = dir.appending("good.zip")
        try ZipWriter.write(path: good, entries: [("a.bin", ZipFixtures.random(50_000))])
        let bytes = try ZipFixtures.bytes(good)
        let cases: [(String, [UInt8])] = [
            ("truncated.zip", Array(bytes.prefix(bytes.count / 2))),
            ("garbage.zip", ZipFixtures.random(10_000)),
            ("html.zip", Array("<html><body>Not found</body></html>".utf8)),
            ("header-only.zip", [0x50, 0x4B, 3, 4] + ZipFixtures.random(100)),
            ("empty.zip", []),
        ]
        for (name, content) in cases {
            try ZipFixtures.write(content, to: dir.appending(name))
            let error = zipError { _ = try ZipReader(path: dir.appending(name)) }
            #expect(error?.code == .corrupt, "\(name)")
            #expect(error?.message == "corrupt zip: not a zip archive, or truncated")
        }
        let missing = zipError { _ = try ZipReader(path: dir.appending("missing.zip")) }
        #expect(missing?.code == .io)
        #expect(missing?.errno == ENOENT)
        #expect(zipError { _ = try ZipReader(path: dir.path) }?.code == .corrupt)
    }

    @Test func tooManyEntriesAreRefused() throws {
        let dir = TemporaryDirectory("zip-many")
        let path = dir.appending("many.zip")
        try ZipWriter.write(path: path, entries: (0..<20).map { ("f\($0)", [UInt8($0)]) })
        let reader = try ZipReader(path: path)
        let error = zipError { _ = try reader.entries(limits: ZipLimits(maxEntries: 10)) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message == "zip bomb: more than 10 entries")
        #expect(try reader.entries(limits: ZipLimits(maxEntries: 20)).count == 20)
    }

    @Test func theTotalLimitSpansEntries() throws {
        let dir = TemporaryDirectory("zip-total")
        let out = dir.appending("out")
        try ZipFixtures.makeDirectory(out)
        let path = dir.appending("total.zip")
        try ZipWriter.write(path: path, entries: [("a", ZipFixtures.random(600_000)),
                                                  ("b", ZipFixtures.random(600_000))])
        let reader = try ZipReader(path: path)
        let entries = try reader.entries()
        let limits = ZipLimits(maxTotalBytes: 1 << 20)
        try reader.extract(entries[0], to: out, limits: limits)
        let error = zipError { try reader.extract(entries[1], to: out, limits: limits) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message == "zip bomb: the entries expand beyond 1 MiB in all")
        #expect(ZipFixtures.tree(out) == ["a"])
    }
}
