import FarmOrigin

/// A small site on two hosts for a recursive list's per-host counts (issue 64): one origin on 127.0.0.1,
/// also reached as `localhost` (another host to farm, the same server). `farm add /index.html --recursive
/// --span-hosts` finds on 127.0.0.1 the home page, 2 pages and 3 images, and on localhost 4 pages, 4 images
/// and a broken link. Pages are served at `pageRate` bytes a second, so that a test sees the list grow.
public enum TwoHostSite {
    /// What each host ends with once the list is finished: host, then found (= fetched).
    public static func expected(_ origin: Origin) -> [(host: String, found: Int)] {
        [("127.0.0.1:\(origin.port)", 6), ("localhost:\(origin.port)", 9)]
    }

    public static func serve(_ origin: Origin, pageRate: Int? = nil) {
        let other = "http://localhost:\(origin.port)"
        func page(_ path: String, _ body: String) {
            origin.serve(path: path, bytes: Array("<!DOCTYPE html>\n<html><body>\n\(body)\n</body></html>\n".utf8),
                         contentType: "text/html")
            if let pageRate { origin.inject(.throttle(bytesPerSecond: pageRate), at: path) }
        }
        func image(_ path: String) { origin.serve(path: path, bytes: Array("IMG \(path)".utf8), contentType: "image/png") }
        origin.serve(path: "/robots.txt", bytes: Array("User-agent: *\nDisallow:\n".utf8), contentType: "text/plain")
        page("/index.html", """
            <img src="img/home.png"> <a href="a1.html">a1</a> <a href="a2.html">a2</a>
            <a href="\(other)/b/index.html">the other host</a>
            """)
        image("/img/home.png")
        for number in 1...2 {
            page("/a\(number).html", "<img src=\"img/a\(number).png\"> <a href=\"index.html\">home</a>")
            image("/img/a\(number).png")
        }
        page("/b/index.html", """
            <img src="img/b.png"> <a href="b1.html">1</a> <a href="b2.html">2</a> <a href="b3.html">3</a>
            <a href="missing.html">broken</a> <a href="\(origin.url(for: "/index.html"))">back</a>
            """)
        image("/b/img/b.png")
        for number in 1...3 {
            page("/b/b\(number).html", "<img src=\"img/b\(number).png\"> <a href=\"index.html\">up</a>")
            image("/b/img/b\(number).png")
        }
    }
}
