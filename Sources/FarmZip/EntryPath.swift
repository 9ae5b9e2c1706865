/// The rule for turning an entry name into a path below a folder. Stateless.
enum EntryPath {
    /// The components of `name` as a relative path that stays inside its folder: "" and "." components
    /// dropped. Throws `.unsafeEntry` for an absolute name, a backslash (a Windows separator some tools
    /// would honour), a `..` component, a NUL byte, or a name with nothing left.
    static func components(of entry: ZipEntry) throws(ZipError) -> [String] {
        let name = entry.name
        let unsafe = ZipError(.unsafeEntry, "unsafe entry name \(entry.printableName)")
        if name.hasPrefix("/") || name.contains("\\") || name.utf8.contains(0) { throw unsafe }
        var components: [String] = []
        for part in name.split(separator: "/", omittingEmptySubsequences: true) {
            if part == ".." { throw unsafe }
            if part != "." { components.append(String(part)) }
        }
        if components.isEmpty { throw unsafe }
        return components
    }
}
