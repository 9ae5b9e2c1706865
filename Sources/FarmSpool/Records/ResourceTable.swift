import FarmJSON
import FarmSystem
import FoundationEssentials
import SystemPackage

/// A list's resource table, `lists/<list>.resources`: its job records in index order, one JSON line
/// each, so the URL and id of resource N are line N whatever directory the job is in. Written once,
/// with the batch that adds the list (see "Add"), and published before the list record.
struct ResourceTables {
    private let directory: String
    private var open: [String: (fd: FileDescriptor, buffer: [UInt8])] = [:]

    init(directory: String) {
        self.directory = directory
    }

    /// Appends the next record of `job`'s list; records must come in index order.
    mutating func append(_ record: [UInt8], for job: JobName) throws(Errno) {
        if open[job.list] == nil {
            let fd = try FileDescriptor.open(directory + "/" + job.list + Spool.resourceTableSuffix, .writeOnly,
                                             options: [.create, .exclusiveCreate])
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
        for (_, table) in open { table.fd.closeQuietly() }
        open = [:]
    }

    private mutating func flush(_ list: String) throws(Errno) {
        guard let table = open[list], !table.buffer.isEmpty else { return }
        try table.fd.write(contentsOf: table.buffer)
        open[list]!.buffer.removeAll(keepingCapacity: true)
    }
}

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
