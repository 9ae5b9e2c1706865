/// Resolves a URL reference found in a page against the page's own URL (RFC 3986 §5.2), as a browser
/// does: APIs often give item and cover URLs as `/covers/1.jpg` or `1.jpg`. A reference with a scheme
/// is left as it is, whatever the scheme: the worker, not the reader, refuses what is not http(s).
enum RelativeURL {
    static func resolve(_ reference: String, against base: String) -> String {
        if hasScheme(reference) { return reference }
        let parts = Parts(base)
        guard let scheme = parts.scheme, let authority = parts.authority else { return reference }
        if reference.hasPrefix("//") { return scheme + ":" + reference }
        if reference.hasPrefix("/") { return scheme + "://" + authority + removingDotSegments(reference) }
        if reference.hasPrefix("?") { return scheme + "://" + authority + parts.path + reference }
        if reference.hasPrefix("#") { return scheme + "://" + authority + parts.path + parts.query + reference }
        if reference.isEmpty { return scheme + "://" + authority + parts.path + parts.query }
        let directory = parts.path.isEmpty ? "/" : String(parts.path[...parts.path.lastIndex(of: "/")!])
        var path = Substring(reference), tail = Substring("")
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            tail = path[cut...]
            path = path[..<cut]
        }
        return scheme + "://" + authority + removingDotSegments(directory + path) + tail
    }

    /// `scheme:` before any `/`, `?` or `#` (RFC 3986 §3.1: a letter, then letters, digits, + - .).
    private static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        return scheme.first!.isASCII && scheme.first!.isLetter
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// The pieces of an absolute URL a reference is resolved against.
    private struct Parts {
        var scheme: String?
        var authority: String?
        /// Always starts with `/` (empty when the URL has none); `query` starts with `?` or is empty.
        var path = ""
        var query = ""

        init(_ url: String) {
            guard RelativeURL.hasScheme(url), let colon = url.firstIndex(of: ":") else { return }
            var rest = url[url.index(after: colon)...]
            guard rest.hasPrefix("//") else { return }
            scheme = String(url[..<colon])
            rest = rest.dropFirst(2)
            if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[question...])
                rest = rest[..<question]
            }
            path = rest.isEmpty ? "/" : String(rest)
        }
    }

    /// `a/./b/../c` → `a/c` (RFC 3986 §5.2.4), on a path that starts with `/`.
    private static func removingDotSegments<S: StringProtocol>(_ path: S) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (position, segment) in segments.enumerated() {
            let last = position == segments.count - 1
            switch segment {
            case ".": if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default: output.append(Substring(segment))
            }
        }
        return "/" + output.joined(separator: "/")
    }
}
