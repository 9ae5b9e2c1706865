/// A link found in a page or a stylesheet, resolved and normalized, with what wget knows of it.
public struct FoundLink: Hashable, Sendable, CustomStringConvertible {
    public let url: WebURL
    /// Needed to show the page (an image, a stylesheet, a script, a frame, a `url()`): wget's "inline"
    /// links, fetched at any level with `-p` and exempt from `--no-parent`.
    public let isRequisite: Bool
    /// Read for links if it turns out to be HTML (`a`, `area`, frames, meta refresh, `link rel=next`…):
    /// wget's "expect HTML". An `img` that answers with HTML is never read.
    public let expectsHTML: Bool
    /// Read for links as CSS whatever its Content-Type (`link rel=stylesheet`, `@import`).
    public let expectsCSS: Bool

    public init(url: WebURL, isRequisite: Bool, expectsHTML: Bool, expectsCSS: Bool) {
        self.url = url
        self.isRequisite = isRequisite
        self.expectsHTML = expectsHTML
        self.expectsCSS = expectsCSS
    }

    public var description: String {
        "\(url)" + (isRequisite ? " requisite" : "") + (expectsHTML ? " html" : "") + (expectsCSS ? " css" : "")
    }
}

/// The links of one HTML page, in the order they appear, duplicates included (the crawl keeps the first).
public struct PageLinks: Sendable {
    public var links: [FoundLink]
    /// `<meta name="robots" content="nofollow">` (or `none`): obeyed unless robots are off.
    public var nofollow: Bool
}
