import ArgumentParser
import FarmSystem
import Foundation
import Glibc

/// The mirror section's web site (issue 64's goals), drawn from a fixed seed and kept between runs like the
/// peers' corpus: an index and four levels of pages below it, each page `p<i>.html` with its children in the
/// folder `p<i>/` beside it. Every page has two images of its own (a JPEG and a stored PNG of 2–6 KB, named
/// after it), links to one stylesheet (`style.css`, whose `url()` names `img/bg.png`), to its children, to
/// the next two of its siblings, to its parent and to the index (loops a crawler must fetch once). The
/// index also links into `private/`, which `robots.txt` disallows. Served at the root of a server, so that
/// `robots.txt` is the site's.
struct MirrorSite {
    /// The generated files (paths relative to `directory`) and their bytes.
    let corpus: Corpus
    let directory: String
    /// Children of a page at each depth: a page at depth d has `fanouts[d]` children; the last level has none.
    let fanouts: [Int]

    /// The start page's path.
    static let start = "index.html"
    static let levels = 4

    /// The site of about `pages` pages under `root` (generated once): `fanouts` of b, b, b and c, with b the
    /// largest whose full tree (b children a page) stays within `pages`, and c what brings the last level to it
    /// (400 pages: 4, 4, 4, 5, 405 pages; 100,000: 17, 17, 17, 20, 103,480).
    static func make(pages: Int, root: String) throws -> MirrorSite {
        let tree = { (b: Int) in (0...levels).reduce(0) { total, depth in total + Int(pow(Double(b), Double(depth))) } }
        var branching = 1
        while tree(branching + 1) <= pages { branching += 1 }
        let above = tree(branching) - Int(pow(Double(branching), Double(levels)))
        let last = max(1, Int((Double(pages - above) / Double(branching * branching * branching)).rounded(.up)))
        let fanouts = [branching, branching, branching, last]
        let name = "site-\(fanouts.map(String.init).joined(separator: "x"))-v1"
        let site = MirrorSite(fanouts: fanouts)
        let corpus = try Corpus.cached(name, paths: site.files, root: root) { directory in
            try site.write(to: directory)
        }
        return MirrorSite(corpus: corpus, directory: root + "/" + name, fanouts: fanouts)
    }

    private init(fanouts: [Int]) {
        self.fanouts = fanouts
        corpus = Corpus(name: "", paths: [], bytes: 0)
        directory = ""
    }

    private init(corpus: Corpus, directory: String, fanouts: [Int]) {
        self.corpus = corpus
        self.directory = directory
        self.fanouts = fanouts
    }

    /// Every page, as the child indexes from the index down (the index is []), parents before children.
    var pages: [[Int]] {
        var all: [[Int]] = [[]]
        var level: [[Int]] = [[]]
        for fanout in fanouts {
            level = level.flatMap { page in (0..<fanout).map { page + [$0] } }
            all += level
        }
        return all
    }

    /// A page's path: `index.html`, else `p1/p0/p3.html`.
    static func path(_ page: [Int]) -> String {
        page.isEmpty ? start : page.map { "p\($0)" }.joined(separator: "/") + ".html"
    }

    /// A page's two images: its path with `.a.jpg` and `.b.png` for `.html`.
    static func images(_ page: [Int]) -> [String] {
        let stem = String(path(page).dropLast(".html".count))
        return [stem + ".a.jpg", stem + ".b.png"]
    }

    static let robots = "User-agent: *\nDisallow: /private/\n"
    static let fixed = ["robots.txt", "style.css", "img/bg.png", "private/secret.html", "private/secret.png"]

    var files: [String] { Self.fixed + pages.flatMap { [Self.path($0)] + Self.images($0) } }

    /// The paths (with their leading "/") that `wget -r -l level -p` asks of the server from the index:
    /// robots.txt, the pages `level` links deep or less, their images, the stylesheet and its image.
    func fetched(level: Int) -> Set<String> {
        let pages = self.pages.filter { $0.count <= level }
        return Set((["robots.txt", "style.css", "img/bg.png"] + pages.flatMap { [Self.path($0)] + Self.images($0) })
            .map { "/" + $0 })
    }

    /// A regular expression matching the URLs of the pages `depth` links deep, and no other file.
    static func pages(atDepth depth: Int) -> String {
        "/" + Array(repeating: "p[0-9]+", count: depth).joined(separator: "/") + "\\.html$"
    }

    /// Writes every file under `directory`; returns their total bytes.
    private func write(to directory: String) throws -> Int {
        var random = SplitMix64(seed: 0x5EED_0064)
        var total = 0
        var folders: Set<String> = []
        // Written with plain write(2): Foundation's Data.write syncs each file, which on this machine's disk
        // made the 300,000 files of a 100,000-page site take most of an hour. The stamp, written last, is
        // what says the site is whole.
        func put(_ path: String, _ bytes: [UInt8]) throws {
            let file = directory + "/" + path
            let folder = (file as NSString).deletingLastPathComponent
            if folders.insert(folder).inserted {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw ValidationError("cannot write \(file): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard written == bytes.count else { throw ValidationError("cannot write \(file)") }
            total += bytes.count
        }
        let photos = try (0..<8).map { _ in
            try CorpusFormats.photoJPEG(width: 32, height: 24, quality: 90, random: &random,
                                        scratch: directory + "/.scratch.jpg")
        }
        func jpeg() -> [UInt8] {
            CorpusFormats.paddedJPEG(photos[random.below(photos.count)], to: 2048 + random.below(4096), random: &random)
        }
        func png() -> [UInt8] { CorpusFormats.png(width: 24, height: 24, size: 2048 + random.below(4096), random: &random) }
        try put("robots.txt", Array(Self.robots.utf8))
        try put("style.css", Array("body { font-family: sans-serif; background: #fff url(img/bg.png) repeat-x; }\n"
            .utf8))
        try put("img/bg.png", png())
        try put("private/secret.html", Array(Self.html(title: "Private", body: "<img src=\"secret.png\" alt=\"\">",
                                                       stylesheet: "../style.css").utf8))
        try put("private/secret.png", png())
        for page in pages {
            try put(Self.path(page), Array(markup(page, random: &random).utf8))
            let images = Self.images(page)
            try put(images[0], jpeg())
            try put(images[1], png())
        }
        return total
    }

    /// A page's HTML, its links relative to its own folder.
    private func markup(_ page: [Int], random: inout SplitMix64) -> String {
        let depth = page.count
        let up = String(repeating: "../", count: max(0, depth - 1))
        let name = depth == 0 ? "index" : "p\(page.last!)"
        let title = depth == 0 ? "Home" : "Page " + page.map(String.init).joined(separator: ".")
        var body = "<h1>\(title)</h1>\n<p><img src=\"\(name).a.jpg\" alt=\"photo\"> "
            + "<img src=\"\(name).b.png\" alt=\"pattern\"></p>\n<p>\(Self.words(60, random: &random))</p>\n<ul>\n"
        let children = depth < fanouts.count ? fanouts[depth] : 0
        for child in 0..<children {
            let folder = depth == 0 ? "" : name + "/"
            body += "<li><a href=\"\(folder)p\(child).html\">\(title) › \(child)</a></li>\n"
        }
        body += "</ul>\n"
        if depth == 0 {
            body += "<p><a href=\"private/secret.html\">private</a></p>\n"
        } else {
            let siblings = fanouts[depth - 1]
            let others = [1, 2].map { (page.last! + $0) % siblings }.filter { $0 != page.last! }
            body += "<p>See also " + Set(others).sorted().map { "<a href=\"p\($0).html\">p\($0)</a>" }
                .joined(separator: " ") + "</p>\n"
            let parent = depth == 1 ? "index.html" : "../p\(page[depth - 2]).html"
            body += "<p><a href=\"\(parent)\">up</a> <a href=\"\(up)index.html\">home</a></p>\n"
        }
        body += "<p>\(Self.words(120, random: &random))</p>\n"
        return Self.html(title: title, body: body, stylesheet: up + "style.css")
    }

    private static func html(title: String, body: String, stylesheet: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>\(title)</title><link rel="stylesheet" href="\(stylesheet)"></head>
        <body>
        \(body)</body>
        </html>

        """
    }

    /// `count` words of filler text, so that a page weighs what a small page does (a few KB).
    private static func words(_ count: Int, random: inout SplitMix64) -> String {
        let words = ["lorem", "ipsum", "dolor", "sit", "amet", "farm", "mirror", "level", "page", "link", "crawl",
                     "image", "style", "site", "index", "loop", "robots", "fetch", "spool", "worker"]
        return (0..<count).map { _ in words[random.below(words.count)] }.joined(separator: " ")
    }
}
