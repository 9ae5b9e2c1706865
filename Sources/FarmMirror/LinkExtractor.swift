/// The links of HTML pages and stylesheets, as GNU wget finds them (html-url.c, css-url.c): the same tags
/// and attributes, the same requisites, `<base href>`, meta refresh and meta robots, `style` attributes and
/// `<style>` blocks read as CSS. Links come out resolved against the page (or its base) and normalized,
/// in the order of their place in the page; a link that is not an http(s) URL is left out.
public enum LinkExtractor {
    /// What wget reads from each tag it handles with `tag_find_urls`: attribute, requisite ("inline"), HTML.
    private static let urlAttributes: [String: [(attribute: String, requisite: Bool, html: Bool)]] = [
        "a": [("href", false, true)],
        "applet": [("code", true, false)],
        "area": [("href", false, true)],
        "bgsound": [("src", true, false)],
        "body": [("background", true, false)],
        "embed": [("href", false, true), ("src", true, true)],
        "fig": [("src", true, false)],
        "frame": [("src", true, true)],
        "iframe": [("src", true, true)],
        "img": [("href", true, false), ("lowsrc", true, false), ("src", true, false)],
        "input": [("src", true, false)],
        "layer": [("src", true, true)],
        "object": [("data", true, false)],
        "overlay": [("src", true, true)],
        "script": [("src", true, false)],
        "table": [("background", true, false)],
        "td": [("background", true, false)],
        "th": [("background", true, false)],
        "video": [("src", true, false), ("poster", true, false)],
        "audio": [("src", true, false), ("poster", true, false)],
        "source": [("src", true, false)],
    ]

    private static let interestingAttributes: Set<String> = Set(urlAttributes.values.flatMap { $0.map(\.attribute) })
        .union(["rel", "type", "http-equiv", "name", "content", "action", "style", "srcset", "href"])

    /// The links of an HTML page fetched from `url`.
    public static func html(_ bytes: [UInt8], url page: WebURL) -> PageLinks {
        let scan = scanHTML(bytes, url: page)
        return PageLinks(links: scan.found.compactMap(\.link), nofollow: scan.nofollow)
    }

    /// Where the links of an HTML page fetched from `url` are written in it, in page order, with its
    /// `<base href>`s: what `--convert-links` rewrites (LinkSpan).
    public static func spans(html bytes: [UInt8], url page: WebURL) -> [LinkSpan] {
        scanHTML(bytes, url: page).found.map(\.span)
    }

    /// Where the links of a stylesheet fetched from `url` are written in it.
    public static func spans(css bytes: [UInt8], url: WebURL) -> [LinkSpan] {
        CSSLinks.references(in: bytes, 0..<bytes.count).compactMap { reference in
            url.resolving(reference.text).map { resolved in
                LinkSpan(range: reference.position..<(reference.position + reference.text.utf8.count), url: resolved,
                         form: .plain(css: true), text: reference.text)
            }
        }
    }

    /// One walk of the page: each link with its span (ordered by place, as wget orders them), the base
    /// tags' spans among them (no link), and whether meta robots says nofollow.
    private static func scanHTML(_ bytes: [UInt8], url page: WebURL)
        -> (found: [(link: FoundLink?, span: LinkSpan)], nofollow: Bool) {
        var found: [(position: Int, link: FoundLink?, span: LinkSpan)] = []
        var base: WebURL?
        var nofollow = false

        func add(_ text: String, at position: Int, span: Range<Int>, form: LinkSpan.Form, requisite: Bool, html: Bool,
                 css: Bool = false) {
            guard let resolved = (base ?? page).resolving(text) else { return }
            found.append((position, FoundLink(url: resolved, isRequisite: requisite, expectsHTML: html, expectsCSS: css),
                          LinkSpan(range: span, url: resolved, form: form, text: text)))
        }
        /// An attribute whose whole value is one link.
        func add(_ attribute: HTMLAttribute, requisite: Bool, html: Bool, css: Bool = false) {
            add(attribute.value, at: attribute.raw.lowerBound, span: attribute.raw, form: .attribute,
                requisite: requisite, html: html, css: css)
        }
        func addCSS(_ range: Range<Int>) {
            for reference in CSSLinks.references(in: bytes, range) {
                add(reference.text, at: reference.position,
                    span: reference.position..<(reference.position + reference.text.utf8.count), form: .plain(css: true),
                    requisite: true, html: false, css: reference.isImport)
            }
        }

        HTMLTagScanner(bytes: bytes, interesting: interestingAttributes).scan { tag in
            switch tag.name {
            case "base":
                // Every <base> replaces the one before, resolved against the page (wget's `tag_handle_base`);
                // the links before it keep the page's URL as their base.
                if let href = tag.first("href"), (base ?? page).resolving(href.value) != nil,
                   let newBase = page.resolving(href.value) {
                    base = newBase
                    found.append((href.raw.lowerBound, nil,
                                  LinkSpan(range: href.raw, url: newBase, form: .base, text: href.value)))
                }
            case "form":
                break  // wget marks `action` for conversion only: never fetched.
            case "link":
                guard let href = tag.first("href") else { break }
                let rel = tag.first("rel")?.value.lowercased()
                switch rel {
                case "stylesheet", "alternate stylesheet":
                    add(href, requisite: true, html: false, css: true)
                case "shortcut icon", "icon", "manifest":
                    add(href, requisite: true, html: false)
                case nil:
                    add(href, requisite: false, html: false)
                default:
                    let type = tag.first("type")?.value.lowercased()
                    add(href, requisite: false, html: type == nil || type == "text/html")
                }
            case "meta":
                let name = tag.first("name")?.value.lowercased()
                let httpEquiv = tag.first("http-equiv")?.value.lowercased()
                if httpEquiv == "refresh" {
                    if let content = tag.first("content"), let target = refreshTarget(content.value) {
                        add(target, at: content.raw.lowerBound, span: content.raw,
                            form: .refresh(timeout: refreshTimeout(content.value)), requisite: false, html: true)
                    }
                } else if httpEquiv == "content-type" {
                    break
                } else if name == "robots", let content = tag.first("content"), robotsSaysNofollow(content.value) {
                    nofollow = true
                }
            default:
                if let attributes = urlAttributes[tag.name] {
                    for attribute in tag.attributes {
                        for rule in attributes where rule.attribute == attribute.name {
                            add(attribute, requisite: rule.requisite, html: rule.html)
                        }
                    }
                }
                if tag.name == "img" || tag.name == "source", let srcset = tag.first("srcset") {
                    var start = srcset.raw.lowerBound
                    if bytes[start] == 0x22 || bytes[start] == 0x27 { start += 1 }
                    for candidate in srcsetURLs(srcset.value) {
                        // The offset is in the decoded value: a span only where the value is as written.
                        let at = start + candidate.offset, end = at + candidate.text.utf8.count
                        let asWritten = end <= bytes.count && bytes[at..<end].elementsEqual(candidate.text.utf8)
                        add(candidate.text, at: at, span: asWritten ? at..<end : at..<at,
                            form: .plain(css: false), requisite: true, html: false)
                    }
                }
            }
            if let style = tag.first("style") {
                var raw = style.raw
                if bytes[raw.lowerBound] == 0x22 || bytes[raw.lowerBound] == 0x27 {
                    raw = (raw.lowerBound + 1)..<(raw.upperBound - 1)
                }
                if !raw.isEmpty { addCSS(raw) }
            }
            if tag.isEnd && tag.name == "style", let contents = tag.contents { addCSS(contents) }
        }
        // wget keeps its list ordered by position (a stable insertion before equal positions).
        let ordered = found.enumerated().sorted { ($0.element.position, -$0.offset) < ($1.element.position, -$1.offset) }
        return (ordered.map { ($0.element.link, $0.element.span) }, nofollow)
    }

    /// The links of a stylesheet fetched from `url`: all requisites, `@import`s read as CSS.
    public static func css(_ bytes: [UInt8], url: WebURL) -> [FoundLink] {
        CSSLinks.references(in: bytes, 0..<bytes.count).compactMap { reference in
            url.resolving(reference.text).map {
                FoundLink(url: $0, isRequisite: true, expectsHTML: false, expectsCSS: reference.isImport)
            }
        }
    }

    /// `content="5; url=next.html"`: wget's `strtol`, then ";" right after the number, blanks, "URL="
    /// (the "=" right after), blanks, and the rest as it is.
    static func refreshTarget(_ content: String) -> String? {
        let bytes = Array(content.utf8)
        var p = 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        while p < bytes.count && isSpace(bytes[p]) { p += 1 }
        var negative = false
        if p < bytes.count && (bytes[p] == 0x2B || bytes[p] == 0x2D) {
            negative = bytes[p] == 0x2D
            p += 1
        }
        let digitsStart = p
        var value = 0
        while p < bytes.count && bytes[p] >= 0x30 && bytes[p] <= 0x39 {
            value = min(value * 10 + Int(bytes[p] - 0x30), Int(Int32.max))
            p += 1
        }
        if p == digitsStart { p = 0 }  // no number: strtol leaves the pointer at the start
        guard !(negative && value > 0), p < bytes.count, bytes[p] == 0x3B else { return nil }
        p += 1
        while p < bytes.count && isSpace(bytes[p]) { p += 1 }
        guard p + 4 <= bytes.count, bytes[p] | 0x20 == 0x75, bytes[p + 1] | 0x20 == 0x72, bytes[p + 2] | 0x20 == 0x6C,
              bytes[p + 3] == 0x3D else { return nil }
        p += 4
        while p < bytes.count && isSpace(bytes[p]) { p += 1 }
        return String(decoding: bytes[p...], as: UTF8.self)
    }

    /// The seconds of a refresh's `content` (wget's `refresh_timeout`, written again by `-k`).
    static func refreshTimeout(_ content: String) -> Int {
        let digits = content.drop { $0 == " " || $0 == "\t" }.prefix { $0.isASCII && $0.isNumber }
        return Int(digits.prefix(9)) ?? 0
    }

    /// wget's meta robots test: `none` alone, or a comma-separated token that `nofollow` begins with,
    /// compared over the token's length, so an empty token (", index") and "no" count as nofollow too.
    static func robotsSaysNofollow(_ content: String) -> Bool {
        if content.lowercased() == "none" { return true }
        let bytes = Array(content.utf8)
        let nofollow = Array("nofollow".utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        var p = 0
        while p < bytes.count {
            while p < bytes.count && isSpace(bytes[p]) { p += 1 }
            var end = p
            while end < bytes.count && bytes[end] != 0x2C && !isSpace(bytes[end]) { end += 1 }
            let token = bytes[p..<end]
            // strncasecmp over the token's length (stopping at the end of "nofollow").
            var same = true
            for (offset, byte) in token.enumerated() {
                let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                if offset >= nofollow.count || lower != nofollow[offset] {
                    same = false
                    break
                }
            }
            if same { return true }
            if end < bytes.count && bytes[end] == 0x2C {
                end += 1
            } else if let comma = bytes[end...].firstIndex(of: 0x2C) {
                end = comma + 1
            } else {
                end = bytes.count
            }
            p = end
        }
        return false
    }

    /// The URLs of a `srcset` (wget's `tag_handle_img`): each candidate's URL runs to a blank, trailing
    /// commas cut off; its descriptor runs to the next comma outside parentheses.
    static func srcsetURLs(_ srcset: String) -> [(text: String, offset: Int)] {
        let bytes = Array(srcset.utf8)
        var result: [(String, Int)] = []
        var offset = 0
        func isSeparator(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0C || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        while offset < bytes.count {
            var start = offset
            while start < bytes.count && (isSeparator(bytes[start]) || bytes[start] == 0x2C) { start += 1 }
            if start == bytes.count { break }
            var end = start
            while end < bytes.count && !isSeparator(bytes[end]) { end += 1 }
            var hasDescriptor = true
            while end - 1 > start && bytes[end - 1] == 0x2C {
                hasDescriptor = false
                end -= 1
            }
            if end > start { result.append((String(decoding: bytes[start..<end], as: UTF8.self), start)) }
            if hasDescriptor {
                var inParentheses = false
                offset = end
                while offset < bytes.count {
                    let byte = bytes[offset]
                    if byte == 0x28 {
                        inParentheses = true
                    } else if byte == 0x29 && inParentheses {
                        inParentheses = false
                    } else if byte == 0x2C && !inParentheses {
                        break
                    }
                    offset += 1
                }
            } else {
                offset = end
            }
        }
        return result
    }
}
