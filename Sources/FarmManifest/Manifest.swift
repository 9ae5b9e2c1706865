import FarmJSON
import FarmSystem
import FarmZip

/// Reads a manifest (a zip of JSON and text lists, or one JSON or text list) into lists of resources,
/// refusing anything else with a `ManifestError` that names the file and the reason.
///
/// Stateless: every call opens and reads its own file. Any thread may call it. Memory is bounded: a JSON
/// file or zip entry may hold at most `maxJSONBytes`, all of a zip's lists together `maxZipBytes`.
public enum Manifest {
    /// The most bytes one JSON list may hold: over 4 million URLs.
    public static let maxJSONBytes = 256 << 20
    /// The most bytes all the JSON lists of one zip may hold together.
    public static let maxZipBytes: Int64 = 1 << 30

    /// The limits a zip manifest is read under: no bomb, no flood of entries, no more JSON than memory allows.
    /// Real lists of distinct URLs deflate 10 to 50 times; 500 leaves room and still stops the ~1000:1 of a
    /// deflate bomb.
    private static let zipLimits = ZipLimits(maxEntryBytes: Int64(maxJSONBytes), maxTotalBytes: maxZipBytes,
                                             maxRatio: 500, ratioFloor: 1 << 20, maxEntries: 100_000)

    /// The lists of the manifest at `path`, sorted by name in natural order ("Set 2.json" before
    /// "Set 10.json"). Zip or JSON is decided by the first bytes, not the name. `displayName` (a path or a
    /// URL's file name) names the manifest in errors and, for a single JSON file, the list.
    ///
    /// A file that is not a zip is a JSON list when its first character other than white space is `[` or
    /// `{`, else a text list of one URL a line (SPEC §15, `TextList`).
    ///
    /// In a zip every `.json` and `.txt` file at any depth is a list named by its file name, or by its path in
    /// the zip when two share a file name; anything under `__MACOSX/` or a name starting with `.` is skipped.
    /// A `.json` file is read as JSON whatever it holds; a `.txt` one as a file outside a zip is, unless it is
    /// not a list at all (`TextList.isList`: a readme beside the lists), which is skipped as an image would be.
    ///
    /// With a `scratch` folder (the spool's tmp/), a big list is copied there and mapped rather than read
    /// into memory, and the lists keep only its pages in use: a million URLs of any length fit in a few
    /// tens of MB.
    public static func read(path: String, displayName: String,
                            scratch: String? = nil) throws(ManifestError) -> [ManifestList] {
        let file = baseName(displayName)
        let head = try ManifestFile.head(path, count: FileMagic.length, shownAs: file)
        if head.isEmpty { throw ManifestError(.empty, file: file, reason: "empty file") }
        if isZip(head) { return try readZip(path: path, file: file, scratch: scratch) }
        // Else a picture read as text fails at its first byte: "line 1: not UTF-8 text".
        if let magic = FileMagic.of(head) {
            throw ManifestError(.notAList, file: file, reason: magic.phrase + ", not a list of URLs")
        }
        let text = try ManifestFile.text(path, limit: maxJSONBytes, shownAs: file, scratch: scratch)
        return [try parseAnyList(text: text, name: file)]
    }

    /// The list named `name` held by `contents`: JSON in one of the three shapes of SPEC §1 when its first
    /// character other than white space is `[` or `{`, else a text list (SPEC §15).
    public static func parseList(contents: [UInt8], name: String) throws(ManifestError) -> ManifestList {
        try parseAnyList(text: ManifestText(contents), name: name)
    }

    static func parseAnyList(text: ManifestText, name: String) throws(ManifestError) -> ManifestList {
        if text.count == 0 { throw ManifestError(.empty, file: name, reason: "empty file") }
        return try TextList.isJSON(text.bytes) ? parseList(text: text, name: name) : TextList.parse(text, name: name)
    }

    /// The list named `name` held by the JSON text `json`, in one of the three shapes of SPEC §1.
    public static func parseList(json: [UInt8], name: String) throws(ManifestError) -> ManifestList {
        try parseList(text: ManifestText(json), name: name)
    }

    static func parseList(text: ManifestText, name: String) throws(ManifestError) -> ManifestList {
        if text.count == 0 { throw ManifestError(.empty, file: name, reason: "empty file") }
        var shape = ListShape(source: text)
        let document: JSONValue
        do {
            document = try JSONParser.stream(text.bytes) { shape.take($0) }
        } catch {
            let (line, column) = TextPosition.of(offset: error.offset, in: text.bytes)
            throw ManifestError(.malformedJSON, file: name,
                                reason: "malformed JSON at line \(line), column \(column) (\(error.reason))",
                                line: line, column: column)
        }
        do {
            return ManifestList(name: name, resources: try shape.resources(of: document), form: shape.form)
        } catch {
            throw ManifestError(.unknownShape, file: name, reason: error.reason)
        }
    }

    private static func isZip(_ head: [UInt8]) -> Bool {
        // A local file header, or the end-of-central-directory record that is all an empty zip holds.
        head.count >= 4 && head[0] == 0x50 && head[1] == 0x4B
            && ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6))
    }

    private static func readZip(path: String, file: String, scratch: String?) throws(ManifestError) -> [ManifestList] {
        let reader: ZipReader
        let entries: [ZipEntry]
        do {
            reader = try ZipReader(path: path)
            entries = try reader.entries(limits: zipLimits)
        } catch {
            throw badZip(error, file)
        }
        if entries.isEmpty { throw ManifestError(.empty, file: file, reason: "empty zip (it holds no file)") }

        let lists = entries.compactMap { entry -> (entry: ZipEntry, components: [Substring])? in
            guard !entry.isDirectory, !entry.isSymlink else { return nil }
            // Some Windows tools write backslashes: split on both so the file name is the last part.
            let components = entry.name.split { $0 == "/" || $0 == "\\" }
            guard let last = components.last, last.lowercased().hasSuffix(".json") || last.lowercased().hasSuffix(".txt"),
                  !components.contains(where: { $0 == "__MACOSX" || $0.hasPrefix(".") }) else { return nil }
            return (entry, components)
        }
        if lists.isEmpty { throw listless(entries, file) }

        var baseNameCounts: [Substring: Int] = [:]
        for list in lists { baseNameCounts[list.components.last!, default: 0] += 1 }
        var seen: Set<String> = []
        var result: [ManifestList] = []
        for list in lists {
            let base = list.components.last!
            let name = baseNameCounts[base]! > 1 ? list.components.joined(separator: "/") : String(base)
            guard seen.insert(name).inserted else {
                throw ManifestError(.duplicateName, file: file, reason: "holds two files named \(name)")
            }
            let text: ManifestText
            if let scratch, list.entry.uncompressedSize > ManifestText.mapAbove {
                text = try spill(list.entry, of: reader, to: scratch, shownAs: file)
            } else {
                do { text = ManifestText(try reader.read(list.entry, limits: zipLimits)) } catch {
                    throw badZip(error, file)
                }
            }
            if name.lowercased().hasSuffix(".txt") {
                guard TextList.isJSON(text.bytes) || TextList.isList(text.bytes) else { continue }
                result.append(try parseAnyList(text: text, name: name))
            } else {
                result.append(try parseList(text: text, name: name))
            }
        }
        if result.isEmpty { throw listless(entries, file) }
        return result.sorted { NaturalOrder.areInIncreasingOrder($0.name, $1.name) }
    }

    /// Why a zip of `entries` with no list in it is refused: one with a picture or a PDF was most likely
    /// given for the list of its URLs, and says so.
    private static func listless(_ entries: [ZipEntry], _ file: String) -> ManifestError {
        let documents = entries.contains { entry in
            let name = entry.name.lowercased()
            return [".jpg", ".jpeg", ".png", ".gif", ".webp", ".pdf"].contains { name.hasSuffix($0) }
        }
        return documents ? ManifestError(.notAList, file: file, reason: "a zip of pictures or documents, not of lists of URLs")
            : ManifestError(.noLists, file: file, reason: "holds no .json or .txt list")
    }

    /// A big zipped list, expanded into a mapped scratch file rather than into memory.
    private static func spill(_ entry: ZipEntry, of reader: ZipReader, to scratch: String,
                              shownAs file: String) throws(ManifestError) -> ManifestText {
        try ManifestText.spilled(in: scratch, shownAs: file) { fd throws(ManifestError) in
            var failedWrite: ManifestError?
            do throws(ZipError) {
                try reader.stream(entry, limits: zipLimits) { chunk throws(ZipError) in
                    do throws(ManifestError) { try ManifestFile.writeAll(fd, chunk, shownAs: file) } catch {
                        failedWrite = error
                        throw ZipError(.io, error.reason, errno: error.errno)
                    }
                }
            } catch {
                throw failedWrite ?? badZip(error, file)
            }
        }
    }

    private static func badZip(_ error: ZipError, _ file: String) -> ManifestError {
        ManifestError(error.code == .io ? .unreadable : .badZip, file: file, reason: error.description,
                      errno: error.errno)
    }

    /// The last path component of `displayName` ("a/b/Set 1.json" → "Set 1.json"), or all of it when that
    /// is empty.
    private static func baseName(_ displayName: String) -> String {
        let last = displayName.split(separator: "/").last.map(String.init) ?? ""
        return last.isEmpty ? displayName : last
    }
}
