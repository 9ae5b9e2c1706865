import Foundation
import Glibc
import SystemPackage

/// A list's resource table, `lists/<list>.resources`: its job records in index order, one JSON line
/// each, so the URL and id of resource N are line N whatever directory the job is in. Written once,
/// with the batch that adds the list (see "Add"), and published before the list record.
struct ResourceTables {
    private let directory: String
    private var open: [String: (fd: Int32, buffer: [UInt8])] = [:]

    init(directory: String) {
        self.directory = directory
    }

    /// Appends the next record of `job`'s list; records must come in index order.
    mutating func append(_ record: [UInt8], for job: JobName) throws(Errno) {
        if open[job.list] == nil {
            let fd = try Sys.open(directory + "/" + job.list + ".resources",
                                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
            open[job.list] = (fd, [])
        }
        open[job.list]!.buffer += record
        if open[job.list]!.buffer.count >= 1 << 16 { try flush(job.list) }
    }

    /// Writes what is still buffered.
    mutating func finish() throws(Errno) {
        for list in open.keys { try flush(list) }
    }

    mutating func close() {
        for (_, table) in open { Glibc.close(table.fd) }
        open = [:]
    }

    private mutating func flush(_ list: String) throws(Errno) {
        guard let table = open[list], !table.buffer.isEmpty else { return }
        try Sys.writeAll(table.fd, table.buffer)
        open[list]!.buffer.removeAll(keepingCapacity: true)
    }
}

extension Spool {
    /// The resources of list `id` in index order, or nil when the list has no table (not published,
    /// or added by a farm older than the table).
    public func resources(ofList id: String) -> [JobRecord]? {
        guard let bytes = try? Sys.readFile(lists + "/" + id + ".resources", limit: 1 << 34) else { return nil }
        var records: [JobRecord] = []
        for line in bytes.split(separator: 0x0A) {
            guard let record = JobRecord.decode(line) else { return nil }
            records.append(record)
        }
        return records
    }
}
