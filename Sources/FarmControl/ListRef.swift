import FarmSpool
import FarmStatus

/// How a front end names a list: by what a user typed (the CLI: a name, a name without its ".json", or
/// an id), or by id alone (the page and `farm top`, which got it from the status). A value.
public enum ListRef: Sendable, Equatable {
    case typed(String)
    case id(String)
}

extension Control {
    /// The list `ref` names, or why there is none: every verb on one list finds it here.
    public func find(_ ref: ListRef) throws(ControlError) -> PublishedList {
        switch ref {
        case .typed(let query):
            do { return try ListLookup.find(spool, query) } catch {
                throw ControlError(.unknownList, query, cause: error)
            }
        case .id(let id):
            guard ListID.isValid(id) else { throw ControlError(.invalidListID, id) }
            guard let list = ListLookup.find(spool, id: id) else { throw ControlError(.unknownList, id) }
            return list
        }
    }
}
