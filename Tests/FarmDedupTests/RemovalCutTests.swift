import FarmDedup
import FarmFsck
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Synchronization
import SystemPackage
import Testing

/// A removal of an output that is a blob's last other name, cut between its two steps (the power cut
/// bin/powercut found: `farm sync` cut while it removed an item): what the disk holds at that step is a
/// spool fsck finds nothing in, the output left a file of its own rather than a blob no output names.
@Suite struct RemovalCutTests {
    @Test func aRemovalCutBetweenItsBlobAndItsOutputLeavesNoBlobThatNoOutputUses() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let bytes: [UInt8] = Array("the only bytes of this resource".utf8)
        let name = try {
            let path = dir.appending("bytes")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            return try Dedup.digest(ofFile: path)
        }()
        let blob = Dedup(spool).blobPath(name)
        #expect(FileManager.default.createFile(atPath: blob, contents: Data(bytes)))
        try FileManager.default.createDirectory(atPath: spool.files + "/list", withIntermediateDirectories: true)
        let output = spool.files + "/list/0.jpg"
        #expect(link(blob, output) == 0)
        let url = "http://127.0.0.1:1/only.jpg"
        let record = #"{"blob":"\#(name)","size":\#(bytes.count),"url":"\#(url)"}"#
        #expect(FileManager.default.createFile(atPath: spool.urls + "/" + Dedup.urlKey(url), contents: Data(record.utf8)))
        #expect(try SpoolCheck(spool).run().findings.filter { $0.kind == .blob }.isEmpty)

        // What the disk holds at the step: the spool copied there, hard links kept (cp -a), by this thread.
        let snapshot = dir.appending("at-the-cut")
        let me = pthread_self()
        let copied = Atomic<Int>(0)
        Failpoint.install { point in
            guard point == "remove.blob-collected", pthread_equal(pthread_self(), me) != 0 else { return }
            let copy = Process()
            copy.executableURL = URL(fileURLWithPath: "/bin/cp")
            copy.arguments = ["-a", spool.root, snapshot]
            if (try? copy.run()) != nil {
                copy.waitUntilExit()
                if copy.terminationStatus == 0 { copied.add(1, ordering: .relaxed) }
            }
        }
        try Dedup(spool).removeOutput(output, url: url)
        Failpoint.install { _ in }  // the process's other tests pass points too: nothing of this one stays
        #expect(copied.load(ordering: .relaxed) == 1, "the removal passes its step once")
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: blob))

        let cut = try Spool(root: snapshot)
        #expect(FileManager.default.fileExists(atPath: cut.files + "/list/0.jpg"), "the output is still there")
        let findings = try SpoolCheck(cut).run().findings.filter { $0.kind == .blob }
        #expect(findings.isEmpty, "\(findings)")
    }
}

/// A download a power cut kept the names of but not all the bytes (its output and its blob one short
/// inode): the redo after the reboot deletes the output, and the blob goes with it, though its bytes no
/// longer name it (bin/powercut found the blob left, no output using it).
@Suite struct LostBytesTests {
    @Test func anOutputWhoseBytesTheDiskLostTakesItsBlobWithIt() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let bytes = [UInt8](repeating: 0x5A, count: 40_000)
        let path = dir.appending("bytes")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let name = try Dedup.digest(ofFile: path)
        let blob = Dedup(spool).blobPath(name)
        #expect(link(path, blob) == 0)
        try FileManager.default.createDirectory(atPath: spool.files + "/list", withIntermediateDirectories: true)
        let output = spool.files + "/list/0.jpg"
        #expect(rename(path, output) == 0)
        #expect(truncate(output, 12_288) == 0)  // what the disk kept of the bytes

        try Dedup(spool).removeOutput(output, lost: true)
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!FileManager.default.fileExists(atPath: blob), "the blob of the lost bytes goes with its output")
        let findings = try SpoolCheck(spool).run().findings.filter { $0.kind == .blob }
        #expect(findings.isEmpty, "\(findings)")
    }
}

/// A completion a power cut kept the blob's name of but not its bytes (nor the job's outcome): its redo
/// stores the same bytes again, and the cut blob, which no output uses, must not stay behind (bin/crashstates
/// found fsck's "a stored blob that no output uses" after the redo: the walk went past it as other bytes).
@Suite struct CutBlobTests {
    @Test func aCutBlobNoOutputUsesIsCollectedWhenItsBytesAreStoredAgain() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let bytes = (0..<5385).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        try FileManager.default.createDirectory(atPath: spool.partial, withIntermediateDirectories: true)
        let path = spool.partial + "/download"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        // Its slot (level 2 for small bytes: their size and digest), as another spool names it, holding what
        // the disk kept.
        let other = try Spool(root: dir.appending("other"))
        let copy = dir.appending("copy")
        #expect(FileManager.default.createFile(atPath: copy, contents: Data(bytes)))
        let copyFD = try FileDescriptor.open(copy, .readOnly)
        let name = try #require(Dedup(other).storeBytes(copy, fd: copyFD, size: bytes.count))
        copyFD.closeQuietly()
        #expect(name.hasPrefix("s\(bytes.count)-"))
        let slot = Dedup(spool).blobPath(name)
        #expect(FileManager.default.createFile(atPath: slot, contents: Data(bytes[0..<3072])))
        #expect(try SpoolCheck(spool).run().findings.filter { $0.kind == .blob }.count == 1)

        let fd = try FileDescriptor.open(path, .readOnly)
        defer { fd.closeQuietly() }
        let stored = try #require(Dedup(spool).storeBytes(path, fd: fd, size: bytes.count))
        #expect(stored == name, "stored in its own slot, the cut bytes collected")
        let storedBytes = try Data(contentsOf: URL(fileURLWithPath: Dedup(spool).blobPath(stored)))
        #expect(storedBytes == Data(bytes))
        let findings = try SpoolCheck(spool).run().findings.filter { $0.kind == .blob }
        #expect(findings.isEmpty, "\(findings)")
    }
}
