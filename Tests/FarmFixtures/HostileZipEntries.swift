import FarmZip
import Glibc

/// The entries of hostile and unusual archives, which farm never writes itself but must read safely:
/// folders, symbolic links (`pictures/look.png` → `/etc/passwd`), bombs of any size. Written through
/// the same `ZipWriter` as farm's own archives.
extension ZipWriter {
    /// Adds a regular file `name` holding `count` copies of `byte`, written in chunks so a bomb of any size
    /// costs no memory: 50 MiB of zeros deflate to about 50 KiB.
    public func add(_ name: String, repeating byte: UInt8, count: Int, method: Method = .deflate) throws(ZipError) {
        let chunk = [UInt8](repeating: byte, count: min(count, 1 << 20))
        try addEntry(name, size: count, method: method, unixMode: S_IFREG | 0o644) { write throws(ZipError) in
            var left = count
            while left > 0 {
                let n = min(left, chunk.count)
                try write(chunk[0..<n])
                left -= n
            }
        }
    }

    /// Adds a folder entry (`name` gets a trailing `/` if it has none).
    public func addDirectory(_ name: String) throws(ZipError) {
        let folder = name.hasSuffix("/") ? name : name + "/"
        // 0x10 is the MS-DOS directory attribute, which Windows tools look at instead of the Unix mode.
        try addEntry(folder, size: 0, method: .store, unixMode: S_IFDIR | 0o755, dosAttributes: 0x10) {
            _ throws(ZipError) in
        }
    }

    /// Adds a symbolic link `name` pointing at `target`, the way Info-ZIP stores one: the target as the
    /// bytes, `S_IFLNK|0777` as the Unix mode.
    public func addSymlink(_ name: String, target: String) throws(ZipError) {
        let bytes = Array(target.utf8)
        try addEntry(name, size: bytes.count, method: .store, unixMode: S_IFLNK | 0o777) { write throws(ZipError) in
            try write(bytes[...])
        }
    }
}
