/// Why a manifest was refused, in one sentence that names the file: "Set 3.json: malformed JSON at line 4,
/// column 17 (expected ',' or ']')", "manifest.zip: holds no .json file".
///
/// `file` is the list name for a problem inside one JSON file, the manifest's own name otherwise. A type
/// of its own rather than a `DomainError`: it says where in the file (`line`, `column`) and keeps the
/// errno beside the reason. A value type; any thread may use it.
public struct ManifestError: Error, CustomStringConvertible, Sendable {
    /// What is wrong with the manifest.
    public enum Code: Sendable {
        /// The file cannot be opened or read (see `errno`).
        case unreadable
        /// An empty file, or a zip with no entries at all.
        case empty
        /// A JSON file beyond `Manifest.maxJSONBytes` (inside a zip, the limits make it `.badZip`).
        case tooLarge
        /// Not JSON: `line` and `column` say where.
        case malformedJSON
        /// Valid JSON, but none of the three list shapes (or a URL that is not a string).
        case unknownShape
        /// A corrupt zip, a CRC error, a zip bomb, an encrypted entry…
        case badZip
        /// A zip with files, none of them a `.json` list.
        case noLists
        /// Two lists of one zip would carry the same name.
        case duplicateName
    }

    public let code: Code
    /// The file the sentence names.
    public let file: String
    /// What is wrong with it, starting in lower case.
    public let reason: String
    /// For malformed JSON: where, 1-based, columns in characters.
    public let line: Int?
    public let column: Int?
    /// The system error behind an `.unreadable` file.
    public let errno: Int32?

    public init(_ code: Code, file: String, reason: String, line: Int? = nil, column: Int? = nil,
                errno: Int32? = nil) {
        self.code = code
        self.file = file
        self.reason = reason
        self.line = line
        self.column = column
        self.errno = errno
    }

    /// One line, whatever the names hold: control characters become '?'.
    public var description: String { Self.oneLine(file) + ": " + Self.oneLine(reason) }

    private static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
