import FarmJSON
import FarmMirror

/// What makes a list recursive (SPEC §18, `farm add URL --recursive`): its start URL, wget's options as
/// given (FarmMirror's `CrawlOptions`, which decide what a page's links add), and the robots.txt of the
/// start URL's origin as `farm add` fetched it. Kept with the list's request options, in the file every
/// worker reads (and caches) for the list already: a worker learns that a list crawls at no cost, and a
/// list without it pays nothing.
public struct CrawlSettings: Equatable, Sendable, JSONRecord {
    /// The start URL, normalized: level 0, and what `--no-parent` and the host scope are measured from.
    public var start: String
    public var options: CrawlOptions
    /// The start origin's robots.txt as fetched before any other request of the list: its status (nil: no
    /// answer) and body; nil with `--no-robots`.
    public var robotsStatus: Int?
    public var robotsBody: String?
    /// The seconds robots.txt asks between two requests to the start origin (its `Crawl-delay`), which every
    /// worker spaces that origin's requests by (SPEC §18: the host's interval of §10); nil: none asked.
    public var crawlDelay: Double?

    public init(start: String, options: CrawlOptions) {
        self.start = start
        self.options = options
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}
