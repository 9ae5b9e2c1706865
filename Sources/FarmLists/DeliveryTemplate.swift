import FarmMirror
import FoundationEssentials

/// The name a done resource is delivered under, below the list's `--out` folder (SPEC §12): a template
/// such as `{list}/{index}-{stem}.{ext}`, whose fields are made safe as they are filled in (no `/`, no
/// `..`, no control character, at most 255 bytes a path segment). A value; any thread.
public struct DeliveryTemplate: Equatable, Sendable {
    public static let defaultText = "{list}/{name}"
    /// A recursive list's default (SPEC §18): wget's layout, `host[:port]/dir/file`.
    public static let mirrorText = "{host}/{path}"

    public enum Field: String, CaseIterable, Sendable {
        case list, index, id, name, stem, ext, title, sha256, host, path

        /// Whether it may differ between two resources of one list: a template needs one such.
        var tellsApart: Bool { self != .list && self != .ext && self != .host }
    }

    enum Part: Equatable, Sendable {
        case text(String)
        case field(Field)
    }

    let parts: [Part]
    public let text: String

    /// Parses `text`; throws one sentence for an unknown field, an unclosed brace, an absolute path, a
    /// `..` segment, or a template with no field that tells resources apart.
    public init(_ text: String) throws(DeliveryError) {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw DeliveryError("the name template \(text) has a { without its }")
            }
            let name = rest[rest.index(after: open)..<close]
            guard let field = Field(rawValue: String(name)) else {
                throw DeliveryError("the name template has an unknown field {\(name)}; the fields are "
                    + Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: " "))
            }
            parts.append(.field(field))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        let literal = parts.compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
        guard !text.hasPrefix("/"), !literal.contains("}") else {
            throw DeliveryError("the name template \(text) must be a relative path of text and {fields}")
        }
        let segments = parts.map { if case .text(let t) = $0 { t } else { "x" } }.joined().split(separator: "/")
        guard !segments.contains(where: { $0 == ".." || $0 == "." }) else {
            throw DeliveryError("the name template \(text) may not hold a . or .. folder")
        }
        guard parts.contains(where: { if case .field(let f) = $0 { f.tellsApart } else { false } }) else {
            throw DeliveryError("the name template \(text) has no field that tells resources apart "
                + "({index}, {id}, {name}, {stem}, {title}, {sha256} or {path})")
        }
        self.parts = parts
        self.text = text
    }

    /// What one resource fills the template with.
    public struct Values: Sendable {
        public var list: String
        /// Its position in the list, and how many digits every position gets.
        public var index: Int
        public var width: Int
        public var id: String
        public var url: String
        public var title: String?
        /// From the bytes' kind, and their SHA-256: known once downloaded (nil leaves a mark in `key`).
        public var ext: String?
        public var sha256: String?
        /// The name the list gave it (a text list's `out=`, SPEC §15), its `{name}` and `{stem}` rather than
        /// its URL's.
        public var name: String?

        public init(list: String, index: Int, width: Int, id: String, url: String, title: String?,
                    ext: String? = nil, sha256: String? = nil, name: String? = nil) {
            self.list = list
            self.index = index
            self.width = width
            self.id = id
            self.url = url
            self.title = title
            self.ext = ext
            self.sha256 = sha256
            self.name = name
        }
    }

    /// Whether the template names `field`.
    public func uses(_ field: Field) -> Bool { parts.contains(.field(field)) }

    /// The relative path for `values`, its `number`-th among the list's resources of the same path (1:
    /// the first, which gets no mark; then ` (2)`, ` (3)`… before the last segment's extension).
    public func path(_ values: Values, number: Int = 1) -> String {
        var segments = fill(values).split(separator: "/", omittingEmptySubsequences: false).map(Self.safeSegment)
        if number > 1, let last = segments.last {
            let dot = last.lastIndex(of: ".").flatMap { $0 == last.startIndex ? nil : $0 } ?? last.endIndex
            let mark = " (\(number))"
            let stem = Self.prefix(String(last[..<dot]), bytes: 255 - mark.utf8.count - last[dot...].utf8.count)
            segments[segments.count - 1] = stem + mark + last[dot...]
        }
        return segments.joined(separator: "/")
    }

    /// What tells whether two resources of a list take one path, before their bytes are known: the path
    /// with the kind and digest left as marks no field can hold.
    public func key(_ values: Values) -> String {
        var values = values
        values.ext = nil
        values.sha256 = nil
        return path(values)
    }

    private func fill(_ values: Values) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .text(let literal): text += literal
            case .field(.ext) where values.ext == nil: text += "\u{1}"
            case .field(.sha256) where values.sha256 == nil: text += "\u{2}"
            // The one field of several segments: each is made safe where the whole path is (`path(_:number:)`).
            case .field(.path):
                text += Self.mirrorPath(values.url).dropFirst().split(separator: "/", omittingEmptySubsequences: false)
                    .map { Self.safeField(String($0)) }.joined(separator: "/")
            case .field(let field): text += Self.safeField(value(of: field, values))
            }
        }
        return text
    }

    private func value(of field: Field, _ values: Values) -> String {
        switch field {
        case .list:
            // A text list's `.txt` goes as a JSON list's `.json` does (SPEC §15): a folder named `urls.txt` reads
            // as a file.
            for suffix in [".json", ".txt"] where values.list.hasSuffix(suffix) {
                return String(values.list.dropLast(suffix.count))
            }
            return values.list
        case .index:
            let digits = String(values.index)
            return String(repeating: "0", count: max(0, values.width - digits.count)) + digits
        case .id: return values.id
        case .name: return values.name ?? Self.name(of: values.url)
        case .stem:
            let name = values.name ?? Self.name(of: values.url)
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
            return String(name[..<dot])
        case .ext: return values.ext ?? ""
        case .title: return values.title ?? ""
        case .sha256: return values.sha256 ?? ""
        case .host: return WebURL(values.url).map { MirrorName.relativePath(for: $0) }.map(Self.firstSegment) ?? "_"
        case .path: return String(Self.mirrorPath(values.url).dropFirst())
        }
    }

    /// wget's name of `url` below its host's folder, from "/" on (FarmMirror's `MirrorName`: a query kept after
    /// a "?", `index.html` for a folder, a "/" or control byte within a segment as %XX, ".." defanged).
    static func mirrorPath(_ url: String) -> Substring {
        guard let parsed = WebURL(url) else { return "/" + name(of: url) }
        let relative = MirrorName.relativePath(for: parsed)
        return relative[(relative.firstIndex(of: "/") ?? relative.endIndex)...]
    }

    private static func firstSegment(_ path: String) -> String { String(path.prefix { $0 != "/" }) }

    /// The last segment of `url`'s path, percent-decoded (its query and fragment dropped); `index.html`
    /// for a host alone (`http://host`) or a folder (`http://host/docs/`), the page a server gives for it,
    /// as wget names it.
    public static func name(of url: String) -> String {
        var path = Substring(url)
        if let scheme = path.firstRange(of: "://") { path = path[scheme.upperBound...] }
        path = path.prefix { $0 != "?" && $0 != "#" }
        guard let slash = path.firstIndex(of: "/") else { return "index.html" }  // the host was all
        let last = path[slash...].split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let name = last.percentDecoded ?? last
        return name.isEmpty ? "index.html" : name
    }

    /// A field's value with nothing that would make a folder or hide a character: `/` and `\` become
    /// `_`, control characters go.
    static func safeField(_ value: String) -> String {
        var safe = ""
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0: continue
            case 0x2F, 0x5C: safe += "_"
            default: safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }

    /// A path segment that names a file or folder of its own: not empty, `.` or `..`, at most 255 bytes.
    static func safeSegment(_ segment: Substring) -> String {
        let trimmed = segment.trimmingSpaces()
        if trimmed.isEmpty || trimmed.allSatisfy({ $0 == "." }) { return "_" }
        guard trimmed.utf8.count > 255 else { return trimmed }
        // Cut in the middle of its stem, so that its extension stays.
        let dot = trimmed.lastIndex(of: ".").flatMap { $0 == trimmed.startIndex ? nil : $0 } ?? trimmed.endIndex
        let ext = trimmed[dot...].utf8.count <= 16 ? String(trimmed[dot...]) : ""
        return prefix(String(trimmed[..<(ext.isEmpty ? trimmed.endIndex : dot)]), bytes: 255 - ext.utf8.count) + ext
    }

    /// The longest prefix of `text` of at most `bytes` UTF-8 bytes that ends between two characters.
    static func prefix(_ text: String, bytes: Int) -> String {
        var count = 0
        var result = ""
        for character in text {
            count += character.utf8.count
            if count > bytes { break }
            result.append(character)
        }
        return result
    }
}

/// Why a delivery template, folder or delivery is refused or failed: one sentence.
public struct DeliveryError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
