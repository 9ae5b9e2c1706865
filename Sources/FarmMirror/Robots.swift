/// robots.txt as RFC 9309 says, for one user agent: the rules of its group (or of `*`), longest match
/// winning, Allow winning a tie, `*` and `$` in patterns, and the non-standard `Crawl-delay` of that group.
public struct Robots: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        public var allows: Bool
        /// Normalized (see `normalized`), `*` and `$` kept as wildcards.
        public var pattern: String
    }

    public private(set) var rules: [Rule]
    /// Seconds between two requests to the host, from the chosen group (the first value), if any.
    public private(set) var crawlDelay: Double?

    /// RFC 9309 §2.5: at least 500 KiB are parsed; what follows is ignored.
    public static let parseLimit = 500 * 1024

    public static let allowAll = Robots(rules: [], crawlDelay: nil)
    public static let disallowAll = Robots(rules: [Rule(allows: false, pattern: "/")], crawlDelay: nil)

    init(rules: [Rule], crawlDelay: Double?) {
        self.rules = rules
        self.crawlDelay = crawlDelay
    }

    /// What to do after fetching robots.txt answered `status` (§2.3.1): 2xx parses the body; after
    /// redirects (followed up to 5 by the caller) the final status counts; 4xx allows everything; 5xx,
    /// or no answer at all (nil), disallows everything.
    public enum Outcome: Equatable, Sendable { case parse, allowAll, disallowAll }

    public static func outcome(forStatus status: Int?) -> Outcome {
        guard let status else { return .disallowAll }
        switch status {
        case 200..<300: return .parse
        case 400..<500: return .allowAll
        default: return .disallowAll  // 5xx, and a redirect still unresolved after 5 hops is "unreachable"
        }
    }

    /// The rules for `userAgent` (its product token, e.g. "farm") in a robots.txt body.
    public init(parsing body: [UInt8], userAgent: String) {
        let agent = userAgent.lowercased()
        var specific: [Rule] = [], global: [Rule] = []
        var specificDelay: Double?, globalDelay: Double?
        var foundSpecific = false
        // The group being read: does it name the agent, or `*`? A user-agent line after a rule starts a new one.
        var inSpecific = false, inGlobal = false, lastWasAgent = false
        let limited = body.count > Self.parseLimit ? Array(body[..<Self.parseLimit]) : body
        var bytes = limited[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        for line in Self.lines(bytes) {
            guard let (key, value) = Self.keyAndValue(line) else { continue }
            switch key {
            case "user-agent", "useragent", "user agent":
                if !lastWasAgent {
                    inSpecific = false
                    inGlobal = false
                }
                lastWasAgent = true
                if value.hasPrefix("*") && (value.count == 1 || value.dropFirst().first?.isWhitespace == true) {
                    inGlobal = true
                } else if Self.productToken(value) == agent {
                    inSpecific = true
                    foundSpecific = true
                }
            case "allow", "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw":
                lastWasAgent = false
                // An empty value is no rule: an empty Disallow allows everything.
                guard !value.isEmpty else { continue }
                let rule = Rule(allows: key == "allow", pattern: Self.normalized(value))
                if inSpecific { specific.append(rule) }
                if inGlobal { global.append(rule) }
            case "crawl-delay":
                lastWasAgent = false
                guard let seconds = Double(value), seconds >= 0, seconds.isFinite else { continue }
                if inSpecific && specificDelay == nil { specificDelay = seconds }
                if inGlobal && globalDelay == nil { globalDelay = seconds }
            default:
                // Sitemap and unknown lines belong to no group and end none.
                continue
            }
        }
        rules = foundSpecific ? specific : global
        crawlDelay = foundSpecific ? specificDelay : globalDelay
    }

    /// Whether `pathAndQuery` (as in the request line, e.g. "/a/b?c") may be fetched.
    public func allows(_ pathAndQuery: String) -> Bool {
        if pathAndQuery == "/robots.txt" { return true }
        let target = Array(Self.normalized(pathAndQuery).utf8)
        var best: (length: Int, allows: Bool)?
        for rule in rules {
            let pattern = Array(rule.pattern.utf8)
            guard Self.matches(pattern, target) else { continue }
            if let current = best {
                if pattern.count > current.length || (pattern.count == current.length && rule.allows) {
                    best = (pattern.count, rule.allows)
                }
            } else {
                best = (pattern.count, rule.allows)
            }
        }
        return best?.allows ?? true
    }

    /// Whether `pattern` matches a prefix of `path` (the whole of it when the pattern ends in `$`); `*`
    /// matches any run of bytes. The set of pattern positions reached so far is carried over the path.
    static func matches(_ pattern: [UInt8], _ path: [UInt8]) -> Bool {
        var reached = [Int](repeating: 0, count: 1)
        var mark = [Bool](repeating: false, count: pattern.count + 1)
        func close(_ positions: [Int]) -> [Int] {
            var result: [Int] = []
            for var index in positions {
                while true {
                    if !mark[index] {
                        mark[index] = true
                        result.append(index)
                    }
                    guard index < pattern.count, pattern[index] == 0x2A else { break }
                    index += 1
                }
            }
            for index in result { mark[index] = false }
            return result
        }
        reached = close(reached)
        for byte in path {
            if reached.contains(where: { $0 == pattern.count }) { return true }
            var next: [Int] = []
            for index in reached where index < pattern.count {
                let symbol = pattern[index]
                if symbol == 0x2A {
                    next.append(index)  // the star eats the byte and stays
                } else if symbol == 0x24 && index == pattern.count - 1 {
                    continue
                } else if symbol == byte {
                    next.append(index + 1)
                }
            }
            reached = close(next)
            if reached.isEmpty { return false }
        }
        return reached.contains { $0 == pattern.count || (pattern[$0] == 0x24 && $0 == pattern.count - 1) }
    }

    /// Patterns and paths compared in one form (§2.2.2): escapes of unreserved characters decoded, the hex of
    /// other escapes uppercased, bytes outside printable ASCII percent-encoded.
    static func normalized(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        let digits = WebURL.hexDigits
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x25, index + 2 < bytes.count, WebURL.isHex(bytes[index + 1]), WebURL.isHex(bytes[index + 2]) {
                let value = WebURL.hexValue(bytes[index + 1]) << 4 | WebURL.hexValue(bytes[index + 2])
                if isUnreserved(value) {
                    output.append(value)
                } else {
                    output.append(contentsOf: [0x25, digits[Int(value >> 4)], digits[Int(value & 0xF)]])
                }
                index += 3
            } else if byte <= 0x20 || byte >= 0x7F {
                output.append(contentsOf: [0x25, digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
                index += 1
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
            || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }

    /// The lines of the body, split at LF, CR or CRLF.
    static func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex, index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                result.append(bytes[start..<index])
                if byte == 0x0D && index + 1 < bytes.endIndex && bytes[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        if start < bytes.endIndex { result.append(bytes[start..<bytes.endIndex]) }
        return result
    }

    /// "Key: value # comment" as (lowercased key, value), blanks trimmed; nil for blank, comment-only and
    /// malformed lines.
    static func keyAndValue(_ line: ArraySlice<UInt8>) -> (String, String)? {
        var text = line
        if let hash = text.firstIndex(of: 0x23) { text = text[..<hash] }
        guard let colon = text.firstIndex(of: 0x3A) else { return nil }
        let key = String(decoding: text[..<colon], as: UTF8.self).trimmingBlanks().lowercased()
        let value = String(decoding: text[(colon + 1)...], as: UTF8.self).trimmingBlanks()
        guard !key.isEmpty else { return nil }
        return (key, value)
    }

    /// The product token of a user-agent value: its leading letters, "_" and "-" ("farm/1.0" → "farm").
    static func productToken(_ value: String) -> String {
        String(value.prefix { ($0.isASCII && $0.isLetter) || $0 == "_" || $0 == "-" }).lowercased()
    }
}

extension String {
    func trimmingBlanks() -> String {
        let blanks: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blanks($0) }) else { return "" }
        let last = lastIndex(where: { !blanks($0) })!
        return String(self[first...last])
    }
}
