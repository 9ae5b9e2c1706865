// Where each list's resource table is: its format, writer and reader are FarmRecords' (ResourceTables.swift,
// TableRecords.swift); the spool names the path (`ListFiles.resourceTablePath(ofList:)`).
extension TableRecords {
    /// The records of `spool`'s lists, from their tables where the spool names them.
    public convenience init(spool: Spool) {
        let lists = spool.lists
        self.init(tablePath: { [lists] id in lists.resourceTablePath(ofList: id) })
    }
}
