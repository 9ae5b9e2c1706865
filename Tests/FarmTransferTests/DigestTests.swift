import Crypto
import FarmOrigin
import FarmTestSupport
import FarmTransfer
import Foundation
import Glibc
import SystemPackage
import Testing

/// The SHA-256 a transfer reports when asked to hash bodies of its length: the bytes in the file exactly when
/// it wrote all of them from byte 0, none otherwise (the checker then reads the file back). Unasked, none.
@Suite struct DigestTests {
    let origin = Origin()
    let body: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    init() throws {
        try origin.start()
        origin.serve(path: "/data.bin", bytes: body)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    private func download(_ path: String, prefix: [UInt8] = [], hashLimit: Int = .max, handle: EasyHandle? = nil) throws
        -> DownloadResult {
        let dir = TemporaryDirectory()
        let file = dir.appending("partial")
        try Data(prefix).write(to: URL(fileURLWithPath: file))
        let fd = FileDescriptor(rawValue: open(file, O_RDWR))
        try #require(fd.rawValue >= 0)
        defer { try? fd.close() }
        var request = DownloadRequest(url: origin.url(for: path))
        request.hashLimit = hashLimit
        return try (handle ?? EasyHandle()).download(request, into: fd) { _ in true }
    }

    @Test func aBodyWrittenFromItsFirstByteIsHashedAsItLands() throws {
        #expect(try download("/data.bin").sha256 == Self.hex(body))
        // Larger than the write buffer: pieces written straight from curl's hands are hashed too.
        let big = (0..<(3 << 20) + 12_345).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 11) }
        origin.serve(path: "/big.bin", bytes: big)
        #expect(try download("/big.bin").sha256 == Self.hex(big))
        origin.serve(path: "/empty.bin", bytes: [])
        #expect(try download("/empty.bin").sha256 == Self.hex([]))
        // Not asked to, or longer than asked: nothing is hashed (SPEC §13, a hash only where one can matter).
        #expect(try download("/big.bin", hashLimit: 0).sha256 == nil)
        #expect(try download("/big.bin", hashLimit: big.count - 1).sha256 == nil)
        #expect(try download("/big.bin", hashLimit: big.count).sha256 == Self.hex(big))
        origin.stop()
    }

    @Test func aResumedBodyHasNoDigestAndARestartedOneIsHashedWhole() throws {
        let resumed = try download("/data.bin", prefix: Array(body[0..<70_000]))
        #expect(resumed.resumedFrom == 70_000 && resumed.sha256 == nil)
        origin.inject(.rangesOff, at: "/data.bin")
        let restarted = try download("/data.bin", prefix: Array(repeating: 0xEE, count: 5000))
        #expect(restarted.httpStatus == 200 && restarted.sha256 == Self.hex(body))
        origin.stop()
    }
}
