import FarmSystem
import SystemPackage

extension ZipReader {
    /// Writes `entry` below `directory` and returns the path written (a folder entry makes the folder).
    ///
    /// Never escapes `directory`: names that are absolute, hold a backslash or a `..` component are refused
    /// (`.unsafeEntry`), symbolic-link entries are refused, and every folder on the way is entered with
    /// O_NOFOLLOW, so a link planted in the tree is not followed either. The bytes go to a new hidden file
    /// (O_CREAT|O_EXCL|O_NOFOLLOW) renamed into place once complete and CRC-checked, replacing an earlier
    /// file of that name; on any error that file is removed, so no partial output is ever visible.
    /// Folders created on the way stay. Files are made 0644 whatever the archive says.
    @discardableResult
    public func extract(_ entry: ZipEntry, to directory: String,
                        limits: ZipLimits = .default) throws(ZipError) -> String {
        if entry.isSymlink { throw ZipError(.unsafeEntry, "unsafe entry \(entry.printableName): a symbolic link") }
        let components = try EntryPath.components(of: entry)
        let relative = components.joined(separator: "/")
        let target = directory.hasSuffix("/") ? directory + relative : directory + "/" + relative

        var parent = try FileCall.openRoot(directory)
        defer { parent.closeQuietly() }
        let folders = entry.isDirectory ? components[...] : components.dropLast()
        for (depth, folder) in folders.enumerated() {
            let shown = components.prefix(depth + 1).joined(separator: "/")
            let next = try FileCall.openOrMakeDirectory(parent, folder, shownAs: shown)
            parent.closeQuietly()
            parent = next
        }
        if entry.isDirectory { return target }

        let (fd, temporary) = try FileCall.createTemporary(in: parent, shownAs: relative)
        var isOpen = true
        do {
            try stream(entry, limits: limits) { chunk throws(ZipError) in
                try FileCall.writeAll(fd, chunk, shownAs: relative)
            }
            isOpen = false
            try FileCall.close(fd, shownAs: relative)
            try FileCall.rename(in: parent, temporary, components[components.count - 1], shownAs: relative)
        } catch {
            if isOpen { fd.closeQuietly() }
            FileCall.unlink(in: parent, temporary)
            throw error
        }
        return target
    }
}
