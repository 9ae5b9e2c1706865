import FarmSystem
import FarmTestSupport
import Foundation
import SystemPackage
import Testing

/// `copyContents(of:)`: the copy is a file of its own (a write to it leaves the source as it was), a reflink
/// (FICLONE) where the file system has them, else the bytes copied, across file systems too.
@Suite struct FileCopyTests {
    @Test func aReflinkWhereTheFileSystemHasThemElseTheBytesEitherWayAFileOfItsOwn() throws {
        let body = (0..<(1 << 20) + 4097).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 10) }
        let plain = TemporaryDirectory()
        let source = plain.appending("source")
        try Data(body).write(to: URL(fileURLWithPath: source))
        // This machine's disk (ext4: no reflinks), and across to a tmpfs.
        var places = [plain.path]
        let tmpfs = TmpfsMount.isPossible ? try TmpfsMount(megabytes: 8) : nil
        defer { tmpfs?.unmount() }
        if let tmpfs { places.append(tmpfs.path) }
        let xfs = try XfsMount.make()
        defer { xfs?.unmount() }
        var made: [String: FileDescriptor.CopyMade] = [:]
        for place in places + (xfs.map { [$0.path] } ?? []) {
            var from = source
            if let xfs, place == xfs.path {
                // The source on the same XFS: a reflink is possible only within one file system.
                from = xfs.path + "/source"
                try Data(body).write(to: URL(fileURLWithPath: from))
            }
            let copy = place + "/copy"
            let input = try FileDescriptor.open(from, .readOnly)
            defer { input.closeQuietly() }
            let output = try FileDescriptor.open(copy, .writeOnly, options: [.create, .exclusiveCreate])
            made[place] = try output.copyContents(of: input)
            output.closeQuietly()
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: copy))) == body, "\(place)")
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: copy))
            try handle.write(contentsOf: Data("edited".utf8))
            try handle.close()
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: from))) == body, "\(place): the edit reached the source")
        }
        if let xfs { #expect(made[xfs.path] == .reflink, "\(made)") }
        if let tmpfs { #expect(made[tmpfs.path] == .copy, "\(made)") }
        print("FileCopyTests: \(made.map { "\($0.key): \($0.value)" }.sorted().joined(separator: ", "))")
    }
}
