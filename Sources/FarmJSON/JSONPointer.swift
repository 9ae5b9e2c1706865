/// An RFC 6901 JSON Pointer (`/metadata/cover/url`, `""` for the whole document), with one extension
/// for paged sources (SPEC §7): a `*` segment maps over every element of an array, so
/// `/metadata/authors/*/name` finds the name of each author. `~0` and `~1` stand for `~` and `/`.
/// RFC 6901 has no escape for `*`, so a segment that is exactly `*` always maps: an object member
/// named `*` cannot be pointed at. A value type; any thread.
public struct JSONPointer: Sendable, Equatable, CustomStringConvertible {
    /// One step down: a member name (or an array index, when it reads as one), or every element.
    enum Segment: Sendable, Equatable {
        case key(String)
        case every
    }

    let segments: [Segment]
    /// The pointer as the user wrote it.
    public let text: String

    /// Parses `text`; throws a reason when it is not a pointer (no leading `/`, a `~` not followed by
    /// 0 or 1).
    public init(_ text: String) throws(JSONMismatch) {
        self.text = text
        guard !text.isEmpty else {
            segments = []
            return
        }
        guard text.hasPrefix("/") else {
            throw JSONMismatch("\(text) is not a JSON Pointer: it must start with / (as in /items)")
        }
        var segments: [Segment] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if raw == "*" {
                segments.append(.every)
                continue
            }
            var key = ""
            var tilde = false
            for character in raw {
                if tilde {
                    guard character == "0" || character == "1" else {
                        throw JSONMismatch("\(text) is not a JSON Pointer: ~ must be followed by 0 or 1")
                    }
                    key.append(character == "0" ? "~" : "/")
                    tilde = false
                } else if character == "~" {
                    tilde = true
                } else {
                    key.append(character)
                }
            }
            if tilde { throw JSONMismatch("\(text) is not a JSON Pointer: ~ must be followed by 0 or 1") }
            segments.append(.key(key))
        }
        self.segments = segments
    }

    public var description: String { text }

    /// Every value the pointer finds in `document`, in document order: one at most without a `*`
    /// segment, one per element reached with them. Nothing for a member or index that is not there.
    public func values(in document: JSONValue) -> [JSONValue] {
        var found: [JSONValue] = []
        collect(document, from: segments[...], into: &found)
        return found
    }

    /// The text of what the pointer finds: strings as they are, numbers as written, booleans, joined
    /// with ", " when there are several; nulls, objects and arrays are left out. Nil when nothing is left.
    public func text(in document: JSONValue) -> String? {
        let parts = values(in: document).compactMap(Self.scalarText)
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    private func collect(_ value: JSONValue, from segments: ArraySlice<Segment>, into found: inout [JSONValue]) {
        guard let segment = segments.first else {
            found.append(value)
            return
        }
        let rest = segments.dropFirst()
        switch (segment, value) {
        case (.every, .array(let elements)):
            for element in elements { collect(element, from: rest, into: &found) }
        case (.key(let key), .object):
            if let member = value[key] { collect(member, from: rest, into: &found) }
        case (.key(let key), .array(let elements)):
            // RFC 6901: an index is digits without a leading zero ("0", "12").
            guard let index = Int(key), String(index) == key, index >= 0, index < elements.count else { return }
            collect(elements[index], from: rest, into: &found)
        default:
            return
        }
    }

    private static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let number): number.literal
        case .bool(let flag): flag ? "true" : "false"
        case .null, .span, .array, .object: nil
        }
    }
}

/// A text with `{PTR}` parts (`By: {/metadata/authors/*/name}`), each replaced by what its pointer
/// finds in one item (SPEC §7's `--caption`). `{` that does not open a pointer (`{x}`) and a lone `}`
/// are kept as they are. A value type; any thread.
public struct JSONTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case text(String)
        case pointer(JSONPointer)
    }

    let parts: [Part]
    public let text: String

    /// Parses `text`; throws a reason when a `{/…}` part is not a pointer or is not closed.
    public init(_ text: String) throws(JSONMismatch) {
        self.text = text
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let brace = rest.firstIndex(of: "{") {
            let after = rest.index(after: brace)
            literal += rest[..<brace]
            guard after < rest.endIndex, rest[after] == "/" else {
                literal.append("{")
                rest = rest[after...]
                continue
            }
            guard let close = rest[after...].firstIndex(of: "}") else {
                throw JSONMismatch("\(text): a {/… part is not closed with }")
            }
            if !literal.isEmpty { parts.append(.text(literal)) }
            literal = ""
            parts.append(.pointer(try JSONPointer(String(rest[after..<close]))))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
    }

    /// The text with every pointer replaced; nil when it has pointers and none of them finds anything
    /// (a caption "By: " with no author says nothing).
    public func render(_ item: JSONValue) -> String? {
        var result = ""
        var pointers = 0, found = 0
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .pointer(let pointer):
                pointers += 1
                if let text = pointer.text(in: item) {
                    found += 1
                    result += text
                }
            }
        }
        return pointers > 0 && found == 0 ? nil : result
    }
}
