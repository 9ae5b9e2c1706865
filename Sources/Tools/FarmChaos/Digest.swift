import Crypto
import FarmSystem

extension SHA256 {
    /// The digest of `bytes` as 64 lowercase hex digits: what proves a stored download is the origin's
    /// bytes exactly.
    static func hex(_ bytes: [UInt8]) -> String { hash(data: bytes).withUnsafeBytes(Hex.lowercase) }
}
