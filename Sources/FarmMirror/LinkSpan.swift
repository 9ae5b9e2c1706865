/// Where one link is written in a page or a stylesheet, and how GNU wget's `-k` writes it again
/// (convert.c): the bytes to replace, the URL they name (resolved, normalized), and the link as written.
public struct LinkSpan: Sendable {
    public enum Form: Sendable, Equatable {
        /// An attribute's whole value, its quotes included when it has them (wget's `replace_attr`).
        case attribute
        /// The URL alone, within a longer text: a `srcset` candidate or a CSS `url()`/`@import` (`css`: in a
        /// stylesheet, `<style>` or `style=`, where no HTML entity is written).
        case plain(css: Bool)
        /// A meta refresh's `content`, written again as "N; URL=…".
        case refresh(timeout: Int)
        /// A `<base href>`'s value, which `-k` empties: the links were resolved against it already.
        case base
    }

    public let range: Range<Int>
    public let url: WebURL
    public let form: Form
    /// The link as written (entities decoded).
    public let text: String

    /// Whether the link was written with its scheme: wget leaves such a link alone when it was not fetched.
    public var isComplete: Bool { URIReference(parsing: text).scheme != nil }

    /// The `#fragment` the link was written with, "#" included, or "".
    var fragment: Substring { text.firstIndex(of: "#").map { text[$0...] } ?? "" }
}
