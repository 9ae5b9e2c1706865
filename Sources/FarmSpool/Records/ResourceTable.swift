import FarmSystem

// Where each list's resource table is: its format, writer and reader are FarmRecords' (ResourceTables.swift,
// TableRecords.swift); the spool names the path.
extension Spool {
    package static let resourceTableSuffix = ".resources"

    /// `lists/<list>.resources`.
    public func resourceTablePath(ofList id: String) -> String { lists + "/" + id + Self.resourceTableSuffix }

    /// The resources of list `id` in index order, or nil when the list has no table (not published,
    /// or added by a farm older than the table).
    public func resources(ofList id: String) -> [JobRecord]? {
        guard let bytes = try? FileSystem.readFile(resourceTablePath(ofList: id), limit: 1 << 34) else { return nil }
        var records: [JobRecord] = []
        for line in bytes.split(separator: 0x0A) {
            guard let record = JobRecord.decoded(from: line) else { return nil }
            records.append(record)
        }
        return records
    }
}

extension TableRecords {
    /// The records of `spool`'s lists, from their tables where the spool names them.
    public convenience init(spool: Spool) {
        self.init(tablePath: { [spool] id in spool.resourceTablePath(ofList: id) })
    }
}
