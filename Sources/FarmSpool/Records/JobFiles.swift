import FarmSystem

// A job's record read from its job file wherever the file is, or from its list's table: the record (`JobRecord`)
// is FarmRecords'.
extension Spool {
    /// The record of the job whose file is at `path` (in queue/, active/, done/ or failed/): the file's bytes,
    /// or, when the file is empty (`farm add` and `farm item add` make their job files so), its line of the list's
    /// resource table, the same bytes (`records`: a reader of many jobs passes one, which reads the table a block
    /// at a time).
    /// Nil when the file is gone, or neither reads.
    package func jobRecord(atPath path: String, records: TableRecords? = nil) -> JobRecord? {
        guard let bytes = try? FileSystem.readFile(path, limit: 64 << 10) else { return nil }
        if !bytes.isEmpty { return JobRecord.decoded(from: bytes) }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let job = ActiveName(name)?.job ?? JobName(name) else { return nil }
        return (records ?? TableRecords(spool: self)).record(of: job)
    }

    /// The URL the job file at `path` holds, wherever the file is; nil when it is gone or does not read.
    package func jobURL(atPath path: String) -> String? { jobRecord(atPath: path)?.url }
}
