import FarmJSON
import FarmMirror

/// What makes a list recursive (SPEC §18, `farm add URL --recursive`): its start URL and wget's options as
/// given (FarmMirror's `CrawlOptions`, which decide what a page's links add). Kept with the list's request
/// options, in the file every worker reads (and caches) for the list already: a worker learns that a list
/// crawls at no cost, and a list without it pays nothing. The robots.txt of its origins are kept beside it,
/// fetched by the workers (FarmLists' HostRobots).
public struct CrawlSettings: Equatable, Sendable, JSONRecord {
    /// The start URL, normalized: level 0, and what `--no-parent` and the host scope are measured from.
    public var start: String
    public var options: CrawlOptions

    public init(start: String, options: CrawlOptions) {
        self.start = start
        self.options = options
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}
