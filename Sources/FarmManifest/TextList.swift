import FarmSystem

/// A list written as text, one URL a line (SPEC §15): what `wget -i`, `aria2c -i` and `gallery-dl -g` read
/// and write, so that a user need not write JSON first.
///
/// ```
/// # comments and blank lines are skipped
/// https://a.example/1.jpg
/// https://a.example/big.iso<TAB>https://b.example/big.iso
///   out=ubuntu.iso
///   sha256=<64 hex digits>
/// ```
///
/// - A line with several URLs separated by TAB is one resource with mirrors (SPEC §14), the first its URL:
///   the same resource as an object with `"urls"`.
/// - An indented `name=value` line gives the resource of the URL line above it an option, as aria2's input
///   file does: `out=` the name it is delivered under (an object's `"out"`), `sha256=` the checksum its
///   download must have (an object's `"sha256"`).
/// - Any other line is refused with its number, and so the whole list: a list half read would add the
///   resources before a typo and silently drop those after it.
///
/// Stateless; any thread may call it. URLs are spans of the text, as in a JSON list, so a million-line list
/// costs what the same list in JSON does.
enum TextList {
    /// The options an indented line may give.
    private static let options = "out= and sha256="

    /// Parsed pages are handed back in steps of this many bytes (see `ManifestText.release`).
    private static let releaseStep = 4 << 20

    /// Whether `bytes` are JSON rather than a text list: their first character other than white space (and a
    /// byte order mark) is `[` or `{`. Everything else is a text list, so a JSON file broken anywhere after
    /// its first character is still reported as JSON, with the position of its fault.
    static func isJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = bomLength(bytes)
        while index < bytes.count, isWhiteSpace(bytes[index]) { index += 1 }
        return index < bytes.count && (bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "{"))
    }

    /// Whether the `.txt` file of a zip that `bytes` are is meant as a list: its first line that is neither
    /// blank nor a comment starts with `http://` or `https://`. Zips of lists often carry a readme, which was
    /// skipped before text lists were read and still is; a list whose first URL has a typo is skipped too, the
    /// price of that (its lines after the first are checked as any list's).
    static func isList(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = bomLength(bytes)
        while index < bytes.count {
            while index < bytes.count, isWhiteSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "#") else { break }
            while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        }
        return WebScheme(bytes: bytes[index...]) != nil
    }

    /// The list named `name` that `text` holds; refused with `.badLine` (and its `line`) at the first line
    /// that is not a URL, a comment, a blank or an option of the URL above it, and with `.empty` when no
    /// line holds a URL.
    static func parse(_ text: ManifestText, name: String) throws(ManifestError) -> ManifestList {
        let bytes = text.bytes
        var resources = ManifestResources(source: text)
        var pending: Pending?
        var plain = true
        var released = 0
        var lineNumber = 0
        var start = bomLength(bytes)
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let next = end + 1
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }  // a list written on Windows
            defer { start = next }
            if start - released >= releaseStep {
                text.release(released..<start)
                released = start
            }
            var first = start
            while first < end, isWhiteSpace(bytes[first]) { first += 1 }
            if first == end || bytes[first] == UInt8(ascii: "#") { continue }
            let line = Line(bytes: bytes, number: lineNumber, name: name)
            if first > start {
                guard pending != nil else {
                    throw line.refused("an indented line gives an option to the URL above it, and there is none")
                }
                try line.option(first..<Self.trimmedEnd(bytes, first, end), to: &pending!)
                plain = false
                continue
            }
            if let done = pending { done.append(to: &resources) }
            pending = try line.urls(start..<end)
            if !pending!.mirrors.isEmpty { plain = false }
        }
        if let done = pending { done.append(to: &resources) }
        if resources.isEmpty {
            throw ManifestError(.empty, file: name, reason: "holds no URL (only blank lines and # comments)")
        }
        // A list that plain URL strings can hold is written back as one (`farm export`); mirrors and options
        // need objects.
        return ManifestList(name: name, resources: resources, form: plain ? .urls : .objects)
    }

    /// The resource of a URL line, gathering the options of the lines below it.
    private struct Pending {
        var url: Range<Int>
        var mirrors: [String]
        var line: Int
        var out: String?
        var sha256: String?

        func append(to resources: inout ManifestResources) {
            resources.append(url: .span(url), id: nil, sha256: sha256, mirrors: mirrors, out: out)
        }
    }

    /// One line of the list being read, for the checks and refusals of its kind.
    private struct Line {
        let bytes: UnsafeBufferPointer<UInt8>
        let number: Int
        let name: String

        /// A URL line: its URLs, separated by TAB (an empty field, as a trailing TAB makes, is nothing).
        func urls(_ range: Range<Int>) throws(ManifestError) -> Pending {
            var fields: [Range<Int>] = []
            var fieldStart = range.lowerBound
            for index in range.lowerBound...range.upperBound where index == range.upperBound || bytes[index] == 0x09 {
                var low = fieldStart, high = index
                while low < high, bytes[low] == 0x20 { low += 1 }
                while high > low, bytes[high - 1] == 0x20 { high -= 1 }
                if low < high { fields.append(low..<high) }
                fieldStart = index + 1
            }
            var urls: [Range<Int>] = []
            for field in fields { urls.append(try url(field)) }
            return Pending(url: urls[0], mirrors: urls.dropFirst().map(string), line: number)
        }

        /// One URL, checked as far as a list can check it: http or https, a host, and nothing a URL never
        /// holds (a space means a mirror was meant, which a TAB separates).
        private func url(_ range: Range<Int>) throws(ManifestError) -> Range<Int> {
            let field = UnsafeBufferPointer(rebasing: bytes[range])
            guard String(validating: field, as: UTF8.self) != nil else {
                throw refused("not UTF-8 text")
            }
            let scheme = WebScheme(bytes: field)
            let host = field.dropFirst(scheme?.prefixLength ?? 0)
                .prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            guard scheme != nil, !host.isEmpty else {
                throw refused("not an http(s) URL: \(quoted(range))")
            }
            if let bad = field.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) {
                throw refused(field[bad] == 0x20 ? "a URL holds no space (mirrors are separated by a TAB): \(quoted(range))"
                              : "a URL holds no control character: \(quoted(range))")
            }
            return range
        }

        /// An option line (its text without the indent), given to `resource`.
        func option(_ range: Range<Int>, to resource: inout Pending) throws(ManifestError) {
            guard String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) != nil else {
                throw refused("not UTF-8 text")
            }
            guard let equals = bytes[range].firstIndex(of: UInt8(ascii: "=")), equals > range.lowerBound else {
                throw refused("an indented line is an option, name=value (\(TextList.options)), not \(quoted(range))")
            }
            let option = string(range.lowerBound..<TextList.trimmedEnd(bytes, range.lowerBound, equals))
            var valueStart = equals + 1
            while valueStart < range.upperBound, TextList.isWhiteSpace(bytes[valueStart]) { valueStart += 1 }
            let value = string(valueStart..<range.upperBound)
            switch option {
            case "out":
                guard resource.out == nil else { throw refused("a second out= for the URL of line \(resource.line)") }
                guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
                else { throw refused("out= needs a file name") }
                resource.out = value
            case "sha256":
                guard resource.sha256 == nil else {
                    throw refused("a second sha256= for the URL of line \(resource.line)")
                }
                guard let digest = Hex.sha256(value) else { throw refused("sha256= is not 64 hex digits") }
                resource.sha256 = digest
            default:
                throw refused("unknown option \(quoted(range.lowerBound..<equals))= (the options are \(options))")
            }
        }

        /// The refusal of this line: its number, then why.
        func refused(_ reason: String) -> ManifestError {
            ManifestError(.badLine, file: name, reason: "line \(number): \(reason)", line: number)
        }

        private func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        /// `range`'s text in quotes, cut short: a refusal is one line, however long the line was.
        private func quoted(_ range: Range<Int>) -> String {
            let text = string(range)
            return "\"" + (text.count > 80 ? String(text.prefix(77)) + "..." : text) + "\""
        }
    }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Where `start..<end` ends without its trailing white space.
    private static func trimmedEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var end = end
        while end > start, isWhiteSpace(bytes[end - 1]) { end -= 1 }
        return end
    }

    /// 3 when `bytes` open with UTF-8's byte order mark, which some Windows editors write; else 0.
    private static func bomLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }
}
