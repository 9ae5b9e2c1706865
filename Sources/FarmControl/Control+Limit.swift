import FarmDesired
import FarmSpool

extension Control {
    /// What `farm limit` says: this host's bandwidth cap, as set now.
    public struct BandwidthLimit: CustomStringConvertible, Sendable {
        /// Bytes a second; nil: no cap.
        public let bytesPerSecond: Int?

        public var description: String {
            guard let bytesPerSecond else { return "no bandwidth cap on this host" }
            return "every transfer on this host together takes at most \(Self.written(bytesPerSecond)) a second"
        }

        /// `bytes` as a user would write it back: with the largest suffix that divides it.
        static func written(_ bytes: Int) -> String {
            for (suffix, unit) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes % unit == 0 {
                return "\(bytes / unit)\(suffix)"
            }
            return "\(bytes) bytes"
        }
    }

    /// A bandwidth as users write it (`--limit-rate`, `farm limit`): bytes a second, a whole or decimal
    /// number with an optional K, M or G (powers of 1024, as curl and wget read them); 0 for no cap.
    public static func bandwidth(_ text: String) throws(ControlError) -> Int {
        let units: [Character: Double] = ["K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024]
        var digits = Substring(text.trimmingSpaces())
        var unit = 1.0
        if let last = digits.last?.uppercased().first, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard let number = Double(digits), number.isFinite, number >= 0, number * unit < 0x1p50 else {
            throw ControlError(.badBandwidth, text)
        }
        return Int((number * unit).rounded())
    }

    /// This host's bandwidth cap now.
    public var bandwidthLimit: BandwidthLimit { BandwidthLimit(bytesPerSecond: spool.control.bandwidthLimit()) }

    /// `farm limit RATE`: caps the bytes a second of every transfer on this host together (0 lifts the cap),
    /// and returns once each of its workers follows it, so that a transfer that starts after is capped from
    /// its first byte (those running already too, from their next read).
    public func setBandwidthLimit(_ bytesPerSecond: Int) throws(ControlError) -> BandwidthLimit {
        try spoolCall { () throws(SpoolError) in try spool.control.setBandwidthLimit(bytesPerSecond) }
        _ = spool.control.awaitBandwidthLimit(bytesPerSecond)
        return bandwidthLimit
    }
}
