/// A 256-bit digest of bytes that is fast to compute and says nothing about how hard it is to collide:
/// what names small stored files apart (FarmDedup's BlobSlots.swift), where the verdict "these bytes are
/// equal" is still the SHA-256's. Bytes that differ have different digests but for chance or intent,
/// and both only cost a comparison; bytes that are equal always have the same one.
///
/// XXH64's four lanes (Yann Collet's xxHash, the 64-bit variant's stripes of 32 bytes and its primes),
/// each lane finished with the whole input's merged hash so that every word of the digest depends on
/// every byte. Swapped in for SHA-256 as a small download's name, it took about 8 µs a file off a worker's CPU
/// (RESULTS.md, issue 62's seventh look).
/// Fed in pieces of any length; one thread at a time.
public struct QuickDigest: Sendable {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (Self.p1 &+ Self.p2, Self.p2, 0, 0 &- Self.p1)
    /// Bytes of an unfinished stripe, and how many.
    private var carry: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var carried = 0
    public private(set) var count = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var start = bytes.baseAddress, bytes.count > 0 else { return }
        var left = bytes.count
        count += left
        if carried > 0 {
            let taken = min(left, 32 - carried)
            withUnsafeMutableBytes(of: &carry) { $0.baseAddress!.advanced(by: carried).copyMemory(from: start, byteCount: taken) }
            carried += taken
            start += taken
            left -= taken
            guard carried == 32 else { return }
            let stripe = carry
            withUnsafeBytes(of: stripe) { round($0.baseAddress!) }
            carried = 0
        }
        while left >= 32 {
            round(start)
            start += 32
            left -= 32
        }
        if left > 0 {
            withUnsafeMutableBytes(of: &carry) { $0.baseAddress!.copyMemory(from: start, byteCount: left) }
            carried = left
        }
    }

    /// The digest as 64 lowercase hex digits (the form of a SHA-256 in the spool).
    public func finalize() -> String {
        var (v1, v2, v3, v4) = lanes
        // The unfinished stripe's whole words go to the lanes in turn, its last bytes to the next lane.
        withUnsafeBytes(of: carry) { tail in
            var index = 0
            var offset = 0
            while offset + 8 <= carried {
                let word = tail.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                switch index {
                case 0: v1 = Self.round(v1, word)
                case 1: v2 = Self.round(v2, word)
                default: v3 = Self.round(v3, word)
                }
                index += 1
                offset += 8
            }
            if offset < carried {
                var word: UInt64 = 0
                for byte in offset..<carried { word |= UInt64(tail[byte]) << (8 * UInt64(byte - offset)) }
                v4 = Self.round(v4, word ^ UInt64(carried - offset))
            }
        }
        var merged = v1.rotated(1) &+ v2.rotated(7) &+ v3.rotated(12) &+ v4.rotated(18)
        merged = Self.merge(Self.merge(Self.merge(Self.merge(merged, v1), v2), v3), v4)
        merged = Self.avalanche(merged &+ UInt64(count))
        let words = (Self.avalanche(v1 ^ (merged &* Self.p1)).bigEndian, Self.avalanche(v2 ^ (merged &* Self.p2)).bigEndian,
                     Self.avalanche(v3 ^ (merged &* Self.p3)).bigEndian, Self.avalanche(v4 ^ (merged &* Self.p5)).bigEndian)
        return withUnsafeBytes(of: words, Hex.lowercase)
    }

    private static func merge(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
        (hash ^ round(0, lane)) &* p1 &+ p4
    }

    private mutating func round(_ stripe: UnsafeRawPointer) {
        lanes.0 = Self.round(lanes.0, stripe.loadUnaligned(as: UInt64.self))
        lanes.1 = Self.round(lanes.1, stripe.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        lanes.2 = Self.round(lanes.2, stripe.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        lanes.3 = Self.round(lanes.3, stripe.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    private static func round(_ lane: UInt64, _ input: UInt64) -> UInt64 {
        (lane &+ input &* p2).rotated(31) &* p1
    }

    private static func avalanche(_ value: UInt64) -> UInt64 {
        var h = value
        h ^= h >> 33
        h = h &* p2
        h ^= h >> 29
        h = h &* p3
        return h ^ (h >> 32)
    }

    private static let p1: UInt64 = 11_400_714_785_074_694_791
    private static let p2: UInt64 = 14_029_467_366_897_019_727
    private static let p3: UInt64 = 1_609_587_929_392_839_161
    private static let p4: UInt64 = 9_650_029_242_287_828_579
    private static let p5: UInt64 = 2_870_177_450_012_600_261
}

extension UInt64 {
    fileprivate func rotated(_ bits: UInt64) -> UInt64 { (self << bits) | (self >> (64 - bits)) }
}
