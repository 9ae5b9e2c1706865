import FarmTestSupport
import Foundation
import Testing
@testable import FarmZip

/// Byte surgery on written archives and file-tree checks, shared by the zip tests.
enum ZipFixtures {
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The offset of the first entry's data: after its local header (30 bytes), name and extra field.
    static func firstDataOffset(_ zip: [UInt8]) -> Int {
        precondition(Array(zip[0..<4]) == [0x50, 0x4B, 3, 4], "not a local file header")
        let nameLength = Int(zip[26]) | Int(zip[27]) << 8
        let extraLength = Int(zip[28]) | Int(zip[29]) << 8
        return 30 + nameLength + extraLength
    }

    /// Sets the declared uncompressed size of the first entry, in its local header and in the central
    /// directory: an archive that lies about its size.
    static func declareUncompressedSize(_ size: UInt32, in zip: inout [UInt8]) {
        putUInt32(size, at: 22, in: &zip)
        let central = offset(of: [0x50, 0x4B, 1, 2], in: zip)!
        putUInt32(size, at: central + 24, in: &zip)
    }

    static func offset(of signature: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= signature.count else { return nil }
        return (0...(bytes.count - signature.count)).first { Array(bytes[$0..<$0 + signature.count]) == signature }
    }

    private static func putUInt32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    /// Every path below `directory` (hidden ones included), relative to it, without following links.
    static func tree(_ directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        return (enumerator.allObjects as? [String] ?? []).sorted()
    }

    /// The largest regular file below `directory`, in bytes (0 when there is none).
    static func largestFile(_ directory: String) -> Int {
        tree(directory).compactMap { path -> Int? in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + path)
            return attributes?[.type] as? FileAttributeType == .typeRegular ? attributes?[.size] as? Int : nil
        }.max() ?? 0
    }

    static func entry(_ reader: ZipReader, _ name: String) throws -> ZipEntry {
        guard let entry = try reader.entries().first(where: { $0.name == name }) else {
            throw FixtureError("no entry \(name)")
        }
        return entry
    }

    static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}

/// Runs `body` and returns the `ZipError` it threw, or nil when it threw nothing (another error fails the test).
func zipError(_ body: () throws -> Void) -> ZipError? {
    do {
        try body()
        return nil
    } catch let error as ZipError {
        return error
    } catch {
        Issue.record("not a ZipError: \(error)")
        return nil
    }
}
