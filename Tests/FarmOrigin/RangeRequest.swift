/// What a request's `Range` (and `If-Range`) header asks of a body of `count` bytes (RFC 9110 §14).
/// Pure logic, used by the origin's responder and by `LoggedRequest.rangeStart`.
///
/// Only single byte ranges are honoured; a header the origin does not understand (another unit, several
/// ranges, bad syntax) is ignored and the whole body is sent, as the RFC lets a server do.
enum RangeRequest: Sendable, Equatable {
    /// No range, or one that is ignored: 200 with the whole body.
    case whole
    /// 206 with these bytes.
    case partial(Range<Int>)
    /// 416 with `Content-Range: bytes */count`.
    case unsatisfiable

    /// `range` is the Range header, `ifRange` the If-Range header, `etag` the current strong ETag.
    static func resolve(range: String?, ifRange: String?, etag: String, count: Int) -> RangeRequest {
        guard let range, let spec = parse(range) else { return .whole }
        // A validator that no longer matches means the client's copy is stale: it must get the whole body.
        if let ifRange, ifRange.trimmingSpaces != etag { return .whole }
        switch spec {
        case .from(let first, let last):
            guard first < count else { return .unsatisfiable }
            let end = min(last ?? (count - 1), count - 1)
            return .partial(first..<(end + 1))
        case .suffix(let length):
            guard length > 0, count > 0 else { return .unsatisfiable }
            return .partial(max(0, count - length)..<count)
        }
    }

    /// The K of `bytes=K-` or `bytes=K-L`; nil for no range, a suffix range or one that does not parse.
    static func firstByte(of header: String?) -> Int? {
        guard let header, case .from(let first, _)? = parse(header) else { return nil }
        return first
    }

    private enum Spec: Equatable {
        case from(Int, last: Int?)
        case suffix(Int)
    }

    private static func parse(_ header: String) -> Spec? {
        let header = header.trimmingSpaces
        guard header.lowercased().hasPrefix("bytes=") else { return nil }
        let set = header.dropFirst("bytes=".count)
        guard !set.contains(","), let dash = set.firstIndex(of: "-") else { return nil }
        let first = set[..<dash].trimmingSpaces, last = set[set.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            return number(last).map { .suffix($0) }
        }
        guard let from = number(first) else { return nil }
        if last.isEmpty { return .from(from, last: nil) }
        guard let to = number(last), to >= from else { return nil }
        return .from(from, last: to)
    }

    /// A run of ASCII digits; one too large for Int counts as Int.max (past the end of any body).
    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text) ?? Int.max
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
