import FarmJSON
import FarmSpool
import FarmSystem
import Glibc

/// A list's resource table as read once: its bytes and where each line starts, so that any resource
/// is decoded alone (a window of 500 resources of a list of 100,000 decodes 500 lines, not the
/// table). `ListWindows` keeps one per list while the table file stays the same. Immutable; shared
/// between threads.
final class ResourceLines: Sendable {
    /// The file as it was when read, to tell whether it changed since.
    let identity: FileIdentity
    private let bytes: [UInt8]
    /// Where each line starts, and one past the end of the last line.
    private let starts: [Int]

    /// How many lines (resources) the table has.
    var count: Int { starts.count - 1 }

    private init(identity: FileIdentity, bytes: [UInt8]) {
        self.identity = identity
        self.bytes = bytes
        starts = Self.lineStarts(bytes)
    }

    /// The table of list `listID`; none (no lines) when it cannot be read (a published list always has one:
    /// fsck finds one lost).
    static func read(_ spool: Spool, listID: String) -> ResourceLines {
        let path = spool.lists.resourceTablePath(ofList: listID)
        // Stated before the read: a change after it makes the identity differ at the next look.
        if let identity = FileIdentity(path), let bytes = try? FileSystem.readFile(path, limit: 1 << 34) {
            return ResourceLines(identity: identity, bytes: bytes)
        }
        return ResourceLines(identity: .missing, bytes: [])
    }

    /// The identity of what `read` would read now.
    static func identity(_ spool: Spool, listID: String) -> FileIdentity {
        FileIdentity(spool.lists.resourceTablePath(ofList: listID)) ?? .missing
    }


    /// Resource `index`, decoded from its line; nil when the line is missing or does not read.
    func record(_ index: Int) -> JobRecord? {
        guard index >= 0, index < count else { return nil }
        return JSON.decode(JobRecord.self, from: bytes[starts[index]..<max(starts[index], starts[index + 1] - 1)])
    }

    /// Line starts found with memchr: a byte loop costs ten times more in a debug build, and a table
    /// of 100,000 resources is read on a window's path.
    private static func lineStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var position = 0
            while position < buffer.count {
                guard let found = memchr(base + position, 0x0A, buffer.count - position) else {
                    starts.append(buffer.count + 1)  // a last line without its newline
                    return
                }
                position = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base + 1
                starts.append(position)
            }
        }
        return starts
    }
}

/// What tells a file apart from its earlier versions: device, inode, size and modification time. A
/// value.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Double

    static let missing = FileIdentity(device: 0, inode: 0, size: -1, modified: 0)

    init(device: UInt64, inode: UInt64, size: Int64, modified: Double) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
    }

    /// The file at `path` as it is now; nil when there is none.
    init?(_ path: String) {
        guard let stat = try? FileSystem.stat(path) else { return nil }
        self.init(device: UInt64(stat.rawValue.st_dev), inode: UInt64(stat.rawValue.st_ino), size: stat.size,
                  modified: stat.modificationTime)
    }

    /// Whether a copy read now can be kept: a file changed within a second may change again within
    /// the same tick of the file system's clock, which would leave its identity as it is.
    func isSettled(now: Double) -> Bool { now - modified > 1 }
}
