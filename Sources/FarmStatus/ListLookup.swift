import FarmLists
import FarmSpool
import FarmSystem

/// A published list: its id and its record.
public struct PublishedList: Sendable, Equatable {
    public let id: String
    public let record: ListRecord
}

/// Finds the list a user named on the command line. Stateless.
public enum ListLookup {
    /// Every published list, in natural order of names.
    public static func all(_ spool: Spool) -> [PublishedList] {
        StatusScan.listRecords(spool).map { PublishedList(id: $0.key, record: $0.value) }.sorted {
            $0.record.name == $1.record.name ? $0.id < $1.id
                : NaturalOrder.areInIncreasingOrder($0.record.name, $1.record.name)
        }
    }

    /// The published list whose id is `id`; nil when there is none.
    public static func find(_ spool: Spool, id: String) -> PublishedList? {
        spool.list(id).map { PublishedList(id: id, record: $0) }
    }

    /// The list named `query`: by exact name, else by name without its ".json", else by id.
    public static func find(_ spool: Spool, _ query: String) throws(StatusError) -> PublishedList {
        // A list's id is derived from its name, so the first two tries are one read each.
        for name in [query, query + ".json"] {
            let id = ListID.of(name: name)
            if let record = spool.list(id), record.name == name { return PublishedList(id: id, record: record) }
        }
        let lists = all(spool)
        if let match = lists.first(where: { $0.record.name == query || $0.record.name == query + ".json" }) {
            return match
        }
        if ListID.isValid(query), let record = spool.list(query) { return PublishedList(id: query, record: record) }
        let hint = lists.isEmpty ? "the spool has no lists yet (add some with `farm add`)"
            : "`farm status` shows the \(lists.count) list(s)"
        throw StatusError(.unknownList, "no list named \"\(query)\" in \(spool.root): \(hint)")
    }
}
