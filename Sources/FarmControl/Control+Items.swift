import FarmHosts
import FarmLists
import FarmSpool
import FarmStatus
import FoundationEssentials

extension Control {
    /// What an edit of a list did (SPEC §8).
    public struct ItemEdited: CustomStringConvertible, Sendable {
        /// The list's name.
        public let list: String
        public let resource: EditedResource

        /// `item add` prints the new resource's id alone, for scripts; the others say what moved.
        public var description: String {
            switch (resource.from, resource.to) {
            case (nil, _): resource.id
            case (let from?, nil): "removed \(resource.id) (index \(from)) from \(list)"
            case (let from?, let to?): "moved \(resource.id) in \(list) from index \(from) to \(to)"
            }
        }
    }

    /// `farm item add LIST URL [--id ID] [--at POS]`: a new resource, at the end or at `position`; its id
    /// is a new lowercase UUID v4 unless given.
    public func addItem(_ ref: ListRef, url: String, id: String? = nil, at position: Int? = nil)
        throws(ControlError) -> ItemEdited {
        let list = try findForEdit(ref)
        guard HostKey(url: url) != nil else {
            throw ControlError(.editRefused, "\(url) is not an http(s) URL")
        }
        if let id, id.isEmpty || id.contains(where: \.isNewline) {
            throw ControlError(.editRefused, "an id must be a non-empty line of text")
        }
        let record = JobRecord(url: url, id: id ?? UUID().uuidString.lowercased())
        return try edit(list) { () throws(SpoolError) in
            try Lists(spool).addResource(record, toList: list.id, at: position)
        }
    }

    /// `farm item rm LIST ID`: the resource goes, wherever its job is; the later ones move up by one.
    public func removeItem(_ ref: ListRef, id: String) throws(ControlError) -> ItemEdited {
        let list = try findForEdit(ref)
        return try edit(list) { () throws(SpoolError) in try Lists(spool).removeResource(id: id, fromList: list.id) }
    }

    /// `farm item move LIST ID POS`: the resource goes to `position`; the others shift.
    public func moveItem(_ ref: ListRef, id: String, to position: Int) throws(ControlError) -> ItemEdited {
        let list = try findForEdit(ref)
        return try edit(list) { () throws(SpoolError) in
            try Lists(spool).moveResource(id: id, inList: list.id, to: position)
        }
    }

    /// The list to edit: one that is not there is a refused edit too (SPEC §8).
    private func findForEdit(_ ref: ListRef) throws(ControlError) -> PublishedList {
        do { return try find(ref) } catch where error.code == .unknownList || error.code == .invalidListID {
            throw ControlError(.editRefused, error.subject, cause: error)
        }
    }

    private func edit(_ list: PublishedList, _ call: () throws(SpoolError) -> EditedResource) throws(ControlError)
        -> ItemEdited {
        do throws(SpoolError) {
            return ItemEdited(list: list.record.name, resource: try call())
        } catch where error.code == .refused {
            throw ControlError(.editRefused, list.record.name, cause: error)
        } catch {
            throw ControlError(.spoolFailed, spool.root, cause: error)
        }
    }
}
