import FarmSystem

/// Why a manifest was refused, in one sentence that names the file: "Set 3.json: malformed JSON at line 4,
/// column 17 (expected ',' or ']')", "manifest.zip: holds no .json or .txt list".
///
/// The subject (`file`) is the list name for a problem inside one JSON file, the manifest's own name
/// otherwise; the cause is a `ManifestProblem`: the reason, where in the file (`line`, `column`) and the
/// errno beside it. A value type; any thread may use it.
public typealias ManifestError = DomainError<ManifestErrorCode>

/// What is wrong with the manifest.
public enum ManifestErrorCode: ErrorCode {
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
    /// A text list's line that is not a URL, a comment, a blank or an option (SPEC §15): `line` says which.
    case badLine
    /// A corrupt zip, a CRC error, a zip bomb, an encrypted entry…
    case badZip
    /// A zip with files, none of them a `.json` or `.txt` list.
    case noLists
    /// Two lists of one zip would carry the same name.
    case duplicateName
    /// A picture, a PDF, or a zip of them, given where a list of URLs goes (`farm add b.jpg`): the reason
    /// says what it is.
    case notAList

    /// The file, then the reason; one line, whatever the names hold: control characters become '?'.
    public func sentence(subject: String, cause: (any Error)?) -> String {
        Self.oneLine(subject) + ": " + Self.oneLine(cause.map { "\($0)" } ?? "")
    }

    private static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}

/// What is wrong inside a refused manifest: the reason (starting in lower case), where for malformed
/// JSON, and the system error behind an unreadable file. A value; any thread.
public struct ManifestProblem: Error, CustomStringConvertible, Sendable {
    public let reason: String
    /// For malformed JSON: where, 1-based, columns in characters; for a text list's bad line, its number.
    public let line: Int?
    public let column: Int?
    /// The system error behind an `.unreadable` file.
    public let errno: Int32?

    public var description: String { reason }
}

extension DomainError where Code == ManifestErrorCode {
    public init(_ code: Code, file: String, reason: String, line: Int? = nil, column: Int? = nil,
                errno: Int32? = nil) {
        self.init(code, file, cause: ManifestProblem(reason: reason, line: line, column: column, errno: errno))
    }

    /// The file the sentence names.
    public var file: String { subject }
    /// What is wrong with it, starting in lower case.
    public var reason: String { problem?.reason ?? "" }
    /// For malformed JSON: where, 1-based, columns in characters.
    public var line: Int? { problem?.line }
    public var column: Int? { problem?.column }
    /// The system error behind an `.unreadable` file.
    public var errno: Int32? { problem?.errno }

    private var problem: ManifestProblem? { cause as? ManifestProblem }
}
