import FarmStatus

/// What the screens show at one instant: the whole-spool summary, the open list with its resources,
/// the rates, the clock and the footer's message. Assembled by the session for each frame; a value.
struct TopModel: Sendable {
    /// A line for the footer, shown for a few seconds after an action.
    struct Message: Equatable, Sendable {
        var text: String
        var style: Style = .normal
    }

    var spool: String
    var summary: StatusDocument
    /// The open list with its resources; nil while it is being read (or on the first screen).
    var list: ListStatus?
    var filesPerSecond: Double?
    var bytesPerSecond: Double?
    var eta: Double?
    /// Wall-clock seconds since the epoch, for the ages of resources.
    var now: Double
    var message: Message?

    /// Resources done, failed, active and queued over every list.
    var totals: (total: Int, done: Int, failed: Int, active: Int, queued: Int) {
        summary.lists.reduce((0, 0, 0, 0, 0)) {
            ($0.0 + $1.total, $0.1 + $1.done, $0.2 + $1.failed, $0.3 + $1.active, $0.4 + $1.queued)
        }
    }
}
