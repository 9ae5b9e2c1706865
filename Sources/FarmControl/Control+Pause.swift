import FarmSpool

extension Control {
    /// What `setPaused` did.
    public struct Paused: CustomStringConvertible, Sendable {
        /// True when every transfer is now paused, false when they resume.
        public let paused: Bool

        public var description: String { paused ? "paused" : "resumed" }
    }

    /// Whether the farm is paused now.
    public var isPaused: Bool { spool.control.isPaused }

    /// `farm pause` (true) and `farm resume` (false). Paused, every transfer stops where it is, keeping
    /// its bytes and its lease, and nothing new is claimed; resumed, each goes on from the byte it reached.
    public func setPaused(_ paused: Bool) throws(ControlError) -> Paused {
        try spoolCall { () throws(SpoolError) in try spool.control.setPaused(paused) }
        return Paused(paused: paused)
    }
}
