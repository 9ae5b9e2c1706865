import FarmJSON

/// What makes a list recursive (SPEC §18, `farm add URL --recursive`): wget's options as given, and the
/// robots.txt of the start URL's origin as `farm add` fetched it. Kept with the list's request options,
/// in the file every worker reads (and caches) for the list already: a worker learns that a list crawls
/// at no cost, and a list without it pays nothing.
public struct CrawlSettings: Equatable, Sendable, JSONRecord {
    /// The start URL, normalized: level 0, and what `--no-parent` and the host scope are measured from.
    public var start: String
    /// `--level N`; nil: `inf`.
    public var level: Int?
    public var noParent: Bool
    public var spanHosts: Bool
    public var domains: [String]
    public var accept: [String]
    public var reject: [String]
    public var excludeDirectories: [String]
    /// False with `--no-robots`: robots.txt and meta nofollow are not obeyed.
    public var robots: Bool
    /// The start origin's robots.txt as fetched before any other request of the list: its status (nil: no
    /// answer) and body; nil with `--no-robots`.
    public var robotsStatus: Int?
    public var robotsBody: String?
    public var robotsFetched: Bool

    public init(start: String, level: Int?, noParent: Bool = false, spanHosts: Bool = false, domains: [String] = [],
                accept: [String] = [], reject: [String] = [], excludeDirectories: [String] = [], robots: Bool = true) {
        self.start = start
        self.level = level
        self.noParent = noParent
        self.spanHosts = spanHosts
        self.domains = domains
        self.accept = accept
        self.reject = reject
        self.excludeDirectories = excludeDirectories
        self.robots = robots
        robotsFetched = false
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}
