/// Why a manifest was refused, in one sentence that names the file: "Set 3.json: malformed JSON at line 4,
/// column 17 (expected ',' or ']')", "manifest.zip: holds no .json file".
///
/// `file` is the list name for a problem inside one JSON file, the manifest's own name otherwise. A value
/// type; any thread may use it.
public struct ManifestError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, as a set that can grow without breaking callers' `switch` statements.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case unreadable, empty, tooLarge, malformedJSON, unknownShape, badZip, noLists, duplicateName
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file cannot be opened or read (see `errno`).
        public static let unreadable = Code(.unreadable)
        /// An empty file, or a zip with no entries at all.
        public static let empty = Code(.empty)
        /// A JSON file beyond `Manifest.maxJSONBytes` (inside a zip, the limits make it `.badZip`).
        public static let tooLarge = Code(.tooLarge)
        /// Not JSON: `line` and `column` say where.
        public static let malformedJSON = Code(.malformedJSON)
        /// Valid JSON, but none of the three list shapes (or a URL that is not a string).
        public static let unknownShape = Code(.unknownShape)
        /// A corrupt zip, a CRC error, a zip bomb, an encrypted entry…
        public static let badZip = Code(.badZip)
        /// A zip with files, none of them a `.json` list.
        public static let noLists = Code(.noLists)
        /// Two lists of one zip would carry the same name.
        public static let duplicateName = Code(.duplicateName)

        public var description: String { value.rawValue }
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
