import Glibc
import SystemPackage

extension FileSystem {
    /// Up to `limit` names of directory `path` in directory order (never "." or ".."), read with as few
    /// getdents calls as that takes: a claim never reads a whole large directory.
    public static func listDirectory(_ path: String, limit: Int = .max) throws(Errno) -> [String] {
        var names: [String] = []
        try readDirectory(path, limit: limit) { name, _ in names.append(name) }
        return names
    }

    /// The names in `path`, or none when it cannot be read (gone, not a directory): for readers to whom a
    /// missing directory means an empty one.
    public static func names(_ path: String) -> [String] {
        (try? listDirectory(path)) ?? []
    }

    /// The entries of directory `path` with whether each is a directory (a symbolic link is not), from
    /// the directory itself where the file system says (no stat per entry).
    public static func listEntries(_ path: String) throws(Errno) -> [(name: String, isDirectory: Bool)] {
        var entries: [(name: String, isDirectory: Bool)] = []
        try readDirectory(path, limit: .max) { name, type in
            let isDirectory = type == DT_UNKNOWN ? (try? lstat(path + "/" + name))?.isDirectory == true
                : type == DT_DIR
            entries.append((name, isDirectory))
        }
        return entries
    }

    /// The one directory reader of farm: calls `body` with up to `limit` names (never "." or "..") and
    /// their d_type.
    private static func readDirectory(_ path: String, limit: Int,
                                      _ body: (String, Int) -> Void) throws(Errno) {
        guard let dir = opendir(path) else { throw Errno.current }
        defer { closedir(dir) }
        var count = 0
        while count < limit {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw Errno.current }
                break
            }
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." {
                body(name, Int(entry.pointee.d_type))
                count += 1
            }
        }
    }
}
