import Synchronization

/// The bytes of a resource one transfer fetches as a piece of it (SPEC §14): from `start` to `end`, both
/// offsets in the whole resource, asked for with a Range request and written at their own offsets in the
/// resource's one partial file, which other transfers write the other pieces of. The end may move closer
/// while the transfer runs: another transfer took over the rest (`shrink`), and this one stops there.
public final class PieceRange: Sendable {
    public let start: Int
    private let currentEnd: Atomic<Int>
    /// Sent as If-Range: the rest only if the resource is still the one the other pieces came from; any
    /// other answer than a 206 fails the piece instead of splicing two versions into one file.
    public let validator: String?
    /// The whole resource's size, when known: an answer for another (a mirror of other bytes) fails the
    /// piece before any byte is written.
    public let size: Int?

    public init(start: Int, end: Int, validator: String?, size: Int? = nil) {
        self.start = start
        currentEnd = Atomic(end)
        self.validator = validator
        self.size = size
    }

    public var end: Int { currentEnd.load(ordering: .acquiring) }

    /// Stops the transfer at `end` (never later than it was).
    public func shrink(to end: Int) {
        _ = currentEnd.min(end, ordering: .acquiringAndReleasing)
    }
}
