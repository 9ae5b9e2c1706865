/// A URI reference split into RFC 3986's five components (its Appendix B), resolved against a base as §5.2
/// says and put back together as §5.3 does. Strings are kept exactly as written: no case folding, no
/// percent-decoding; `WebURL` normalizes.
public struct URIReference: Hashable, Sendable {
    public var scheme: String?
    public var authority: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    public init(scheme: String? = nil, authority: String? = nil, path: String, query: String? = nil,
                fragment: String? = nil) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Appendix B's regular expression, by hand: every string is a reference (possibly of an empty path).
    public init(parsing text: String) {
        // Over UTF-8 views: the delimiters are ASCII, and a page may hold many thousands of links.
        var rest = Substring(text)
        if let hash = rest.utf8.firstIndex(of: 0x23) {
            fragment = String(rest[rest.utf8.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let mark = rest.utf8.firstIndex(of: 0x3F) {
            query = String(rest[rest.utf8.index(after: mark)...])
            rest = rest[..<mark]
        }
        // A scheme is the text before the first ":" if no "/" comes first and it is a scheme's characters.
        if let colon = rest.utf8.firstIndex(of: 0x3A), !rest[..<colon].utf8.contains(0x2F), Self.isScheme(rest[..<colon]) {
            scheme = String(rest[..<colon])
            rest = rest[rest.utf8.index(after: colon)...]
        }
        if rest.utf8.starts(with: [0x2F, 0x2F]) {
            let afterSlashes = rest.utf8.index(rest.startIndex, offsetBy: 2)
            let end = rest.utf8[afterSlashes...].firstIndex(of: 0x2F) ?? rest.endIndex
            authority = String(rest[afterSlashes..<end])
            rest = rest[end...]
        }
        path = String(rest)
    }

    /// ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
    static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, isAlpha(first) else { return false }
        return text.utf8.allSatisfy { isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// §5.2.2, strict: the target of this reference against `base` (which should have a scheme).
    public func resolved(against base: URIReference) -> URIReference {
        var target = URIReference(path: "")
        if let scheme {
            target.scheme = scheme
            target.authority = authority
            target.path = Self.removingDotSegments(path)
            target.query = query
        } else {
            if authority != nil {
                target.authority = authority
                target.path = Self.removingDotSegments(path)
                target.query = query
            } else {
                if path.isEmpty {
                    target.path = base.path
                    target.query = query ?? base.query
                } else {
                    target.path = Self.removingDotSegments(path.hasPrefix("/") ? path : Self.merge(base: base, path))
                    target.query = query
                }
                target.authority = base.authority
            }
            target.scheme = base.scheme
        }
        target.fragment = fragment
        return target
    }

    /// §5.2.3.
    static func merge(base: URIReference, _ reference: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + reference }
        guard let slash = base.path.lastIndex(of: "/") else { return reference }
        return String(base.path[...slash]) + reference
    }

    /// §5.2.4, over bytes: the input buffer consumed from the front, segments appended to or removed
    /// from the end of the output; linear in the path's length.
    public static func removingDotSegments(_ path: String) -> String {
        var input = Array(path.utf8)[...]
        var output: [UInt8] = []
        func starts(_ prefix: String) -> Bool { input.starts(with: prefix.utf8) }
        func isExactly(_ text: String) -> Bool { input.elementsEqual(text.utf8) }
        func dropLastSegment() {
            if let slash = output.lastIndex(of: 0x2F) { output.removeSubrange(slash...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if starts("../") {
                input = input.dropFirst(3)
            } else if starts("./") {
                input = input.dropFirst(2)
            } else if starts("/./") {
                input = input.dropFirst(2)
            } else if isExactly("/.") {
                input = [0x2F][...]
            } else if starts("/../") {
                input = input.dropFirst(3)
                dropLastSegment()
            } else if isExactly("/..") {
                input = [0x2F][...]
                dropLastSegment()
            } else if isExactly(".") || isExactly("..") {
                input = [][...]
            } else {
                // The first segment, with its leading "/" if any, up to the next "/".
                let start = input.startIndex
                let searchFrom = input.first == 0x2F ? input.index(after: start) : start
                let end = input[searchFrom...].firstIndex(of: 0x2F) ?? input.endIndex
                output.append(contentsOf: input[start..<end])
                input = input[end...]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// §5.3.
    public var string: String {
        var result = ""
        if let scheme { result += scheme + ":" }
        if let authority { result += "//" + authority }
        result += path
        if let query { result += "?" + query }
        if let fragment { result += "#" + fragment }
        return result
    }
}
