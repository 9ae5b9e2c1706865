/// FNV-1a, 64 bits: a fast, stable (not cryptographic) digest for ids and change detection.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(_ text: String) {
        for byte in text.utf8 { add(byte) }
    }

    public mutating func add(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01b3
    }

    /// 16 lowercase hex digits.
    public var hex: String { Nonce.hex16(value) }
}
