import FarmJSON

/// How far a resource in pieces is: its pieces done, held and in all (SPEC §14's `"pieces"`).
public struct PieceCounts: JSONRecord, Sendable, Equatable {
    public var done: Int
    public var active: Int
    public var total: Int

    public init(done: Int, active: Int, total: Int) {
        self.done = done
        self.active = active
        self.total = total
    }
}
