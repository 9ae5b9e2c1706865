import Synchronization

/// SplitMix64, seeded once from the system generator: for choices where speed matters and secrecy does
/// not, such as which queued name to try first. The system generator costs a getrandom(2) system call
/// per number, and shuffling a shard window took hundreds of them per claim. One per owner.
public struct FastRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64 = UInt64.random(in: .min ... .max)) {
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

/// Nonces for owners and temporary names: one generator per process, seeded once (a getrandom(2)
/// per claim and per sidecar write showed in every job's trace), behind a lock for any thread.
enum Nonce {
    private static let generator = Mutex(FastRandom())

    static func next() -> UInt64 { generator.withLock { $0.next() } }
}
