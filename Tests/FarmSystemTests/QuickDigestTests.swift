import FarmSystem
import Testing

/// QuickDigest names small stored files apart (FarmDedup's BlobSlots.swift): it must not depend on how the
/// bytes were cut into writes, and must tell apart bytes that differ anywhere, in any lane or in the tail.
struct QuickDigestTests {
    private static func digest(_ bytes: [UInt8], pieces: [Int]) -> String {
        var digest = QuickDigest()
        var start = 0
        bytes.withUnsafeBytes { all in
            for piece in pieces where start < bytes.count {
                let end = min(bytes.count, start + piece)
                digest.update(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
            digest.update(UnsafeRawBufferPointer(rebasing: all[start...]))
        }
        return digest.finalize()
    }

    private static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test func theDigestOfBytesIsTheSameHoweverTheyAreCut() {
        for count in [0, 1, 7, 8, 31, 32, 33, 63, 64, 100, 16_384, 16_411] {
            let bytes = Self.bytes(count, seed: UInt64(count))
            let whole = Self.digest(bytes, pieces: [])
            #expect(whole.count == 64 && whole.allSatisfy(\.isHexDigit))
            for pieces in [[1], [3, 5, 7], [31, 1, 32], [16_384], [13, 29, 1000]] {
                #expect(Self.digest(bytes, pieces: Array(repeating: pieces, count: 40).flatMap { $0 }) == whole,
                        "\(count) bytes cut as \(pieces)")
            }
        }
    }

    @Test func bytesThatDifferAnywhereHaveDifferentDigests() {
        let bytes = Self.bytes(16_411, seed: 9)
        var seen = Set([Self.digest(bytes, pieces: [])])
        // One bit flipped at every offset of the first stripes, of a stripe in the middle and of the tail.
        for offset in Array(0..<64) + Array(8_000..<8_032) + Array(16_384..<16_411) {
            var changed = bytes
            changed[offset] ^= 1
            seen.insert(Self.digest(changed, pieces: []))
        }
        #expect(seen.count == 1 + 64 + 32 + 27)
        // A length apart: the same bytes with one zero more, or one less.
        #expect(Self.digest(bytes + [0], pieces: []) != Self.digest(bytes, pieces: []))
        #expect(Self.digest(Array(bytes.dropLast()), pieces: []) != Self.digest(bytes, pieces: []))
        #expect(Self.digest([], pieces: []) != Self.digest([0], pieces: []))
    }
}
