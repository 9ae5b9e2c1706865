/// wget's `--convert-links` on one file (convert.c's `convert_links`): each link of a page or stylesheet
/// to a URL that was fetched is written as the relative path from this file to that URL's file; a link to
/// what was not fetched is written as its absolute URL, unless it was written with its scheme already;
/// `<base href>` is emptied. Everything between the links is kept byte for byte. A pure function of the
/// original bytes: converting twice is converting from the original again, never a conversion of a
/// conversion.
public enum LinkRewrite {
    /// `bytes` with `spans` (in page order; one that overlaps the one before is left alone) rewritten.
    /// `file`: this file's path below the mirror's folder; `local`: the path there of a URL fetched, nil for
    /// one that was not.
    public static func rewrite(_ bytes: [UInt8], spans: [LinkSpan], file: String,
                               local: (WebURL) -> String?) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 8)
        var copied = 0
        for span in spans where span.range.lowerBound >= copied && !span.range.isEmpty
            && span.range.upperBound <= bytes.count {
            guard let replacement = replacement(for: span, in: bytes, file: file, local: local) else { continue }
            output += bytes[copied..<span.range.lowerBound]
            output += replacement
            copied = span.range.upperBound
        }
        output += bytes[copied...]
        return output
    }

    private static func replacement(for span: LinkSpan, in bytes: [UInt8], file: String,
                                    local: (WebURL) -> String?) -> [UInt8]? {
        let css: Bool
        if case .plain(let inCSS) = span.form { css = inCSS } else { css = false }
        let newText: String
        if span.form == .base {
            newText = ""
        } else if let target = local(span.url) {
            let quoted = localQuote(relative(from: file, to: target))
            newText = css ? quoted : htmlQuote(quoted)
        } else if !span.isComplete {
            newText = css ? span.url.description : htmlQuote(span.url.description)
        } else {
            return nil
        }
        let first = bytes[span.range.lowerBound]
        let quote: UInt8 = first == 0x22 || first == 0x27 ? first : 0x22
        switch span.form {
        case .plain: return Array(newText.utf8)
        case .base, .attribute:
            // replace_attr: the original fragment is kept after the new text.
            return [quote] + Array(newText.utf8) + (span.form == .base ? [] : Array(span.fragment.utf8)) + [quote]
        case .refresh(let timeout): return [quote] + Array("\(timeout); URL=\(newText)".utf8) + [quote]
        }
    }

    /// wget's `construct_relative`: the folders both paths share dropped, one "../" for each folder left in
    /// `file`'s path, then the rest of `target`'s.
    public static func relative(from file: String, to target: String) -> String {
        let a = Array(file.utf8), b = Array(target.utf8)
        var start = 0, i = 0
        while i < a.count && i < b.count && a[i] == b[i] {
            if a[i] == 0x2F { start = i + 1 }
            i += 1
        }
        let ups = a[start...].filter { $0 == 0x2F }.count
        return String(repeating: "../", count: ups) + String(decoding: b[start...], as: UTF8.self)
    }

    /// wget's `local_quote_string` without `--adjust-extension`: what a file name may hold but a link would
    /// read otherwise ("%", "#", ";") percent-encoded.
    static func localQuote(_ path: String) -> String { escaped(path, ["%": "%25", "#": "%23", ";": "%3B"]) }

    /// wget's `html_quote_string`.
    static func htmlQuote(_ text: String) -> String {
        escaped(text, ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", " ": "&#32;"])
    }

    /// `text` with each character of `table` replaced by its entry.
    private static func escaped(_ text: String, _ table: [Character: String]) -> String {
        var escaped = ""
        for character in text {
            if let replacement = table[character] { escaped += replacement } else { escaped.append(character) }
        }
        return escaped
    }
}
