import FarmSpool
import FarmStatus
import Hummingbird

/// `?offset=O&limit=L&q=TEXT` of `GET /api/lists/<id>` and of a list's event stream: which window of
/// the list's resources to answer with (SPEC §9). A value.
struct WindowQuery: Equatable, Sendable {
    var offset = 0
    var limit = ListWindows.maxLimit
    var query: String?

    /// The window the parameters ask for; nil when they name none (no offset, limit nor q): then the
    /// list is answered whole, as `farm status LIST --json` prints it. A limit above
    /// `ListWindows.maxLimit` is answered with that many.
    init?(_ parameters: Parameters) throws(ServeError) {
        let offset = parameters.get("offset"), limit = parameters.get("limit"), query = parameters.get("q")
        guard offset != nil || limit != nil || query != nil else { return nil }
        if let offset { self.offset = try Self.count(offset, "offset") }
        if let limit { self.limit = min(try Self.count(limit, "limit"), ListWindows.maxLimit) }
        self.query = query
    }

    init(offset: Int = 0, limit: Int = ListWindows.maxLimit, query: String? = nil) {
        self.offset = offset
        self.limit = limit
        self.query = query
    }

    /// The window of list `id`, counted as `summary` has it; nil once the list is gone.
    func view(_ windows: ListWindows, _ spool: Spool, id: String, summary: StatusDocument?) -> ListStatus? {
        windows.window(spool, listID: id, offset: offset, limit: limit, query: query, counts: summary?.list(id: id))
    }

    private static func count(_ text: String, _ name: String) throws(ServeError) -> Int {
        guard let value = Int(text), value >= 0 else {
            throw ServeError(.badRequest, "\(name) must be a whole number from 0 on, not \"\(text)\"")
        }
        return value
    }
}
