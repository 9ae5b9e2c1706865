import FarmSystem
import HTTPTypes

/// What a path demands of a request before it is served (`Origin.require`): a header holding a value,
/// as a site behind a login or an API behind a token does. Owned by one origin; the test's threads
/// write it and the event loops read it, under its lock.
final class Requirements: Sendable {
    private struct Requirement: Sendable {
        let field: String
        let value: String
        let status: Int
    }

    private let table = Locked<[String: [Requirement]]>([:])

    func add(field: String, containing value: String, status: Int, at path: String) {
        table.withLock { $0[path, default: []].append(Requirement(field: field, value: value, status: status)) }
    }

    /// The status to answer a request on `path` with `headers` that lacks what the path demands; nil
    /// when it has all of it (or the path demands nothing).
    func refusal(for path: String, headers: HTTPFields) -> Int? {
        let demands = table.withLock { $0[path] } ?? []
        for demand in demands {
            let values = HTTPField.Name(demand.field).map { headers[values: $0] } ?? []
            if !values.contains(where: { $0.contains(demand.value) }) { return demand.status }
        }
        return nil
    }
}
