/// A list record to publish with a batch: the bytes are the layer above's business.
public struct ListRecordFile: Sendable {
    public var id: String
    public var bytes: [UInt8]
    /// For a paged list (SPEC §7): the first line of its page log (FarmLists' `PageState`), published with
    /// the record (before it), with an empty resource table and an empty order.
    public var firstPage: [UInt8]?
    /// What the list's requests carry (SPEC §12), secrets included: published as `lists/<list>.request`,
    /// of mode 0600, before the record.
    public var request: [UInt8]?
    /// Its jobs marked own (FarmLists' URLSharing.swift), published as `lists/<list>.own`.
    public var owned: [UInt8]?

    public init(id: String, bytes: [UInt8], firstPage: [UInt8]? = nil, request: [UInt8]? = nil,
                owned: [UInt8]? = nil) {
        precondition(ListID.isValid(id), "invalid list id \(id)")
        self.id = id
        self.bytes = bytes
        self.firstPage = firstPage
        self.request = request
        self.owned = owned
    }
}
