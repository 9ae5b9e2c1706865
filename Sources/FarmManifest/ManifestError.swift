import FarmSystem

/// Why a manifest was refused, in one sentence that names the file: "Set 3.json: malformed JSON at line 4,
/// column 17 (expected ',' or ']')", "manifest.zip: holds no .json file".
///
/// `file` is the list name for a problem inside one JSON file, the manifest's own name otherwise. A value
/// type; any thread may use it.
public struct ManifestError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<ManifestError>

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

extension ErrorCode where Domain == ManifestError {
    /// The file cannot be opened or read (see `errno`).
    public static var unreadable: Self { Self("unreadable") }
    /// An empty file, or a zip with no entries at all.
    public static var empty: Self { Self("empty") }
    /// A JSON file beyond `Manifest.maxJSONBytes` (inside a zip, the limits make it `.badZip`).
    public static var tooLarge: Self { Self("tooLarge") }
    /// Not JSON: `line` and `column` say where.
    public static var malformedJSON: Self { Self("malformedJSON") }
    /// Valid JSON, but none of the three list shapes (or a URL that is not a string).
    public static var unknownShape: Self { Self("unknownShape") }
    /// A corrupt zip, a CRC error, a zip bomb, an encrypted entry…
    public static var badZip: Self { Self("badZip") }
    /// A zip with files, none of them a `.json` list.
    public static var noLists: Self { Self("noLists") }
    /// Two lists of one zip would carry the same name.
    public static var duplicateName: Self { Self("duplicateName") }
}
