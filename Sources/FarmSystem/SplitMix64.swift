/// SplitMix64: a fast generator for choices where speed matters and secrecy does not (which queued name
/// to try first, nonces), and, seeded, the same numbers on every run and machine (the benchmark's corpus,
/// the demo's pictures). The system generator costs a getrandom(2) system call per number. A value:
/// one per owner.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Seeded once from the system generator.
    public init() {
        state = UInt64.random(in: .min ... .max)
    }

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Nonces for owners and temporary names: one generator per process, seeded once (a getrandom(2) per
/// claim and per sidecar write showed in every job's trace), behind a lock for any thread: a `Locked`,
/// since the supervisor, which makes copies of itself, takes nonces too.
public enum Nonce {
    private static let generator = Locked(SplitMix64())

    public static func next() -> UInt64 { generator.withLock { $0.next() } }

    /// The next nonce as 16 lowercase hex digits.
    public static func nextHex() -> String { hex16(next()) }

    /// `value` as 16 lowercase hex digits.
    public static func hex16(_ value: UInt64) -> String { hex(value, digits: 16) }

    /// The last `digits` (1 to 16) hex digits of `value`, lowercase.
    public static func hex(_ value: UInt64, digits: Int) -> String {
        // Written digit by digit into the string's own storage: every claim names its owner with one.
        String(unsafeUninitializedCapacity: digits) { buffer in
            for index in 0..<digits {
                let nibble = UInt8(truncatingIfNeeded: value >> UInt64(4 * (digits - 1 - index))) & 0xF
                buffer[index] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
            }
            return digits
        }
    }
}
