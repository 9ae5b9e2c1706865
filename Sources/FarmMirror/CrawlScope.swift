/// The options of a recursive list, with wget's names and meanings (SPEC §18).
public struct CrawlOptions: Sendable, Equatable, Codable {
    /// `--level N`; nil is `inf`.
    public var level: Int?
    public var noParent: Bool
    public var spanHosts: Bool
    /// `--domains`: hosts equal to one of these or below it (wget's `sufmatch`); applies with or without
    /// `--span-hosts`, as in wget.
    public var domains: [String]
    /// `--accept`, `--reject`: a pattern with `*`, `?`, `[` or `]` is a glob on the file name, any other
    /// a suffix of it (case-sensitive).
    public var accept: [String]
    public var reject: [String]
    /// `--exclude-dirs`: a directory and everything below it, or a glob on the directory.
    public var excludeDirectories: [String]
    /// Off with `--no-robots`: neither robots.txt nor meta nofollow is obeyed.
    public var obeysRobots: Bool

    public static let defaultLevel = 5

    public init(level: Int? = CrawlOptions.defaultLevel, noParent: Bool = false, spanHosts: Bool = false,
                domains: [String] = [], accept: [String] = [], reject: [String] = [],
                excludeDirectories: [String] = [], obeysRobots: Bool = true) {
        self.level = level
        self.noParent = noParent
        self.spanHosts = spanHosts
        self.domains = domains
        self.accept = accept
        self.reject = reject
        self.excludeDirectories = excludeDirectories
        self.obeysRobots = obeysRobots
    }

    /// A comma-separated list as wget takes it ("jpg,png" or "*.jpg"), blanks trimmed, empties dropped.
    public static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmingBlanks() }.filter { !$0.isEmpty }
    }

    /// "inf" (or "0", which wget also reads as infinite) → nil, a number ≥ 1 → itself; nil for anything else.
    public static func level(_ text: String) -> Int?? {
        if text == "inf" || text == "0" { return .some(nil) }
        guard let number = Int(text), number > 0 else { return nil }
        return .some(number)
    }
}

/// The crawl's decisions, as GNU wget takes them with `-r -p` (recur.c: `retrieve_tree` and
/// `download_child`): which links of a fetched document are followed, which are fetched, what is read
/// for links, what is delivered. Pure: robots.txt is asked separately, after `admits` says yes (wget
/// fetches a host's robots.txt only for a link that passed every other test).
public struct CrawlScope: Sendable {
    public let start: WebURL
    public let options: CrawlOptions

    public init(start: WebURL, options: CrawlOptions) {
        self.start = start
        self.options = options
    }

    /// How a fetched document is read.
    public enum Reading: Equatable, Sendable {
        /// Not read for links.
        case none
        case html
        case css
    }

    /// Whether to read a fetched document at `depth` for links, from how it was found and what it answered
    /// (a 2xx with that Content-Type, parameters and case ignored). HTML is read only when its link expected
    /// HTML (the start URL does); CSS when it says text/css or its link was a stylesheet or `@import`,
    /// whatever it says. Past the level, wget's `-p` grants two more levels to the requisites of leaf pages.
    public func reading(depth: Int, contentType: String?, expectsHTML: Bool, expectsCSS: Bool) -> Reading {
        let type = contentType.map { Self.mediaType($0) }
        var reading = Reading.none
        if expectsHTML && (type == "text/html" || type == "application/xhtml+xml") { reading = .html }
        if type == "text/css" || expectsCSS { reading = .css }
        if reading != .none, let level = options.level, depth > level + 1 { return .none }
        return reading
    }

    /// Which links of a document read at `depth` are considered: all of them, or (at the level and one
    /// past it: wget's "leaf HTML" of `-p`) only the requisites.
    public func followsOnlyRequisites(depth: Int) -> Bool {
        guard let level = options.level else { return false }
        return depth >= level
    }

    /// Why a link is not fetched; nil in `admits` means fetch it (robots.txt allowing).
    public enum Refusal: Equatable, Sendable {
        case notRequisiteOfLeaf, domain, parent, excludedDirectory, rejectedName, otherHost
    }

    /// Whether a link found in a document fetched from `parent` and read at `parentDepth` is fetched (at
    /// `parentDepth + 1`). Duplicates are the caller's (each normalized URL once, the first link's flags).
    public func admits(_ link: FoundLink, parent: WebURL, parentDepth: Int) -> Refusal? {
        if followsOnlyRequisites(depth: parentDepth) && !link.isRequisite { return .notRequisiteOfLeaf }
        return admitsChild(link, parent: parent)
    }

    /// After fetching `original` (read at `depth`) ended at `target` through redirects, whether `target` is
    /// read for links (wget's `descend_redirect`): it is tested as a page link found on `original`, but an
    /// excluded directory does not refuse it. The caller reads it only if it did not have `target` already
    /// (a URL the crawl has is read by its own fetch), asks robots.txt, and then has it.
    public func admitsRedirect(to target: WebURL, from original: WebURL, depth: Int) -> Refusal? {
        let refusal = admitsChild(FoundLink(url: target, isRequisite: false, expectsHTML: false, expectsCSS: false),
                                  parent: original)
        return refusal == .excludedDirectory ? nil : refusal
    }

    /// wget's `download_child` (the tests after its blacklist, robots.txt left to the caller).
    private func admitsChild(_ link: FoundLink, parent: WebURL) -> Refusal? {
        let url = link.url
        if !options.domains.isEmpty && !options.domains.contains(where: { Self.isDomain(url.host, of: $0) }) {
            return .domain
        }
        // --no-parent on the start URL's host only, and never for requisites (-p).
        if options.noParent && url.host == start.host && (url.scheme != start.scheme || url.port == start.port)
            && !link.isRequisite
            && !Self.isSubdirectory(url.directory, of: start.directory) {
            return .parent
        }
        if !options.excludeDirectories.isEmpty && options.excludeDirectories.contains(where: { pattern in
            let trimmed = pattern.hasPrefix("/") ? String(pattern.dropFirst()) : pattern
            return Self.hasWildcards(trimmed)
                ? Glob.matches(trimmed, url.directory, pathname: true) : Self.isSubdirectory(url.directory, of: trimmed)
        }) {
            return .excludedDirectory
        }
        // Names are tested but for directories and (with -p, always) HTML-named files, which are fetched
        // for their links and removed if not accepted (`delivers`).
        let name = url.fileName
        if !name.isEmpty && !Self.hasHTMLSuffix(name) && !acceptsName(name) { return .rejectedName }
        // wget compares the host alone (not the port), with the parent's, for http and https alike.
        if !options.spanHosts && url.host != parent.host { return .otherHost }
        return nil
    }

    /// Whether a fetched URL is kept in the mirror: `--accept`/`--reject` on its local file name (which for
    /// a URL with a query ends with "?query", as wget names it).
    public func delivers(_ url: WebURL) -> Bool {
        var name = url.fileName.isEmpty ? "index.html" : url.fileName
        if let query = url.query { name += "?" + WebURL.percentDecoded(Substring(query)) }
        return acceptsName(name.replacing("/", with: "%2F"))
    }

    /// wget's `acceptable`.
    func acceptsName(_ name: String) -> Bool {
        if !options.accept.isEmpty && !Self.inList(options.accept, name) { return false }
        if !options.reject.isEmpty && Self.inList(options.reject, name) { return false }
        return true
    }

    static func inList(_ patterns: [String], _ name: String) -> Bool {
        patterns.contains { hasWildcards($0) ? Glob.matches($0, name) : name.hasSuffix($0) }
    }

    static func hasWildcards(_ pattern: String) -> Bool { pattern.contains { "*?[]".contains($0) } }

    /// wget's `has_html_suffix_p`: .html, .htm, or one letter then "html" (.shtml, .xhtml), any case.
    static func hasHTMLSuffix(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        let suffix = name[name.index(after: dot)...].lowercased()
        return suffix == "html" || suffix == "htm" || (suffix.count == 5 && suffix.hasSuffix("html"))
    }

    /// wget's `subdir_p`: `directory` is `parent` or below it ("" is the root, above everything).
    static func isSubdirectory(_ directory: String, of parent: String) -> Bool {
        if parent.isEmpty { return true }
        guard directory.hasPrefix(parent) else { return false }
        let rest = directory.utf8.dropFirst(parent.utf8.count)
        return rest.isEmpty || rest.first == 0x2F
    }

    /// wget's `sufmatch`: `host` is `domain`, or ends with "." + `domain`, or `domain` starts with "." and
    /// ends it; any case.
    static func isDomain(_ host: String, of domain: String) -> Bool {
        let host = host.lowercased(), domain = domain.lowercased()
        guard host.hasSuffix(domain) else { return false }
        if host.count == domain.count || domain.hasPrefix(".") { return true }
        return host.dropLast(domain.count).hasSuffix(".")
    }

    static func mediaType(_ contentType: String) -> String {
        String(contentType.prefix { $0 != ";" }).trimmingBlanks().lowercased()
    }
}
