import FarmLists
import FarmSpool

extension Control {
    /// What `reload` did.
    public struct Reloaded: CustomStringConvertible, Sendable {
        /// The list's name.
        public let list: String
        /// Its resources sent back to the queue (finished ones; those being worked on start afresh anyway).
        public let queued: Int

        public var description: String { "reloading \(list): \(queued) resource(s) queued again" }
    }

    /// `farm reload LIST`: a fresh download of every resource of one list; other lists are untouched.
    public func reload(_ ref: ListRef) throws(ControlError) -> Reloaded {
        let list = try find(ref)
        let queued = try spoolCall { () throws(SpoolError) in try Lists(spool).reload(list: list.id) }
        return Reloaded(list: list.record.name, queued: queued)
    }
}
