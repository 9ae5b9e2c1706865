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

    /// The entries of directory `path` as the bytes of their names (never "." or "..", valid only during
    /// the call) with whether each is a directory as the folder says (d_type; nil where it does not say):
    /// for a reader of folders of 100k names that would rather not make a String of each.
    public static func forEachEntry(_ path: String, _ body: (UnsafeBufferPointer<UInt8>, Bool?) -> Void)
        throws(Errno) {
        try readRawDirectory(path, limit: .max) { name, type in body(name, type == DT_UNKNOWN ? nil : type == DT_DIR) }
    }

    /// Up to `limit` names and d_types of `path`, as Strings.
    private static func readDirectory(_ path: String, limit: Int, _ body: (String, Int) -> Void) throws(Errno) {
        try readRawDirectory(path, limit: limit) { name, type in body(String(decoding: name, as: UTF8.self), type) }
    }

    /// The one directory reader of farm: calls `body` with up to `limit` names (never "." or "..") and
    /// their d_type. A folder that another host is removing can answer ESTALE (GlusterFS, NFS): it is
    /// thrown as ENOENT, which every reader of a spool folder takes for "gone" (see `staleAsMissing`).
    private static func readRawDirectory(_ path: String, limit: Int,
                                         _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void) throws(Errno) {
        guard let dir = opendir(path) else { throw Errno.current.staleAsMissing }
        defer { closedir(dir) }
        var count = 0
        while count < limit {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw Errno.current.staleAsMissing }
                break
            }
            let type = Int(entry.pointee.d_type)
            let isEntry = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                let name = UnsafeBufferPointer(rebasing: bytes[..<length])
                // Not "." nor "..".
                guard !(length <= 2 && name.allSatisfy { $0 == UInt8(ascii: ".") }) else { return false }
                body(name, type)
                return true
            }
            if isEntry { count += 1 }
        }
    }
}
