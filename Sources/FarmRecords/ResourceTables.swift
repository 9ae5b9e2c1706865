import FarmSystem
import SystemPackage

/// A list's resource table, `lists/<list>.resources`: its job records in index order, one JSON line
/// each, so the URL and id of resource N are line N whatever directory the job is in. Written once,
/// with the batch that adds the list (see "Add"), and published before the list record. The spool names
/// where each table is staged (`path`: the file of a list id), as it names every path. One writer's.
package struct ResourceTables {
    private let path: (String) -> String
    private var open: [String: (fd: FileDescriptor, buffer: [UInt8])] = [:]

    package init(path: @escaping (String) -> String) {
        self.path = path
    }

    /// Appends the next record of `job`'s list; records must come in index order.
    package mutating func append(_ record: [UInt8], for job: JobName) throws(Errno) {
        if open[job.list] == nil {
            let fd = try FileDescriptor.open(path(job.list), .writeOnly, options: [.create, .exclusiveCreate])
            open[job.list] = (fd, [])
        }
        open[job.list]!.buffer += record
        if open[job.list]!.buffer.count >= 1 << 16 { try flush(job.list) }
    }

    /// Writes what is still buffered.
    package mutating func finish() throws(Errno) {
        for list in open.keys { try flush(list) }
    }

    package mutating func close() {
        for (_, table) in open { table.fd.closeQuietly() }
        open = [:]
    }

    private mutating func flush(_ list: String) throws(Errno) {
        guard let table = open[list], !table.buffer.isEmpty else { return }
        try table.fd.write(contentsOf: table.buffer)
        open[list]!.buffer.removeAll(keepingCapacity: true)
    }
}
