import FarmOrigin

/// A small static site for the comparison with GNU wget, served by two origins on 127.0.0.1: 4 sections
/// of pages over 5 levels, images (srcset among them), stylesheets with `url()` and `@import` (one
/// imported two levels past the leaves), a `<style>` block and `style=` attributes, a `<base>`, loops, a
/// broken link and a broken image, a page outside the first section, a link to another host, one to the
/// same host on another port, robots.txt disallowing /private/, a page with meta nofollow, a meta refresh,
/// an iframe on a leaf page, a link inside a comment and one inside a script, a page named .html that is
/// text/plain, a query with an entity, names with spaces, two <base>s, a meta robots wget misreads; redirects to a URL already found, to a new
/// page, to an image and into the directory robots.txt disallows.
struct GeneratedSite {
    var files: [(path: String, body: String, type: String)] = []
    var redirects: [(path: String, location: String)] = []

    init(mainPort: Int, otherPort: Int) {
        func page(_ path: String, _ body: String) { files.append((path, "<!DOCTYPE html>\n<html><body>\n\(body)\n</body></html>\n", "text/html")) }
        func image(_ path: String) { files.append((path, "PNG " + path, "image/png")) }
        files.append(("/robots.txt", "User-agent: *\nDisallow: /private/\n", "text/plain"))
        page("/index.html", """
            <head><link rel="stylesheet" href="/css/site.css"><link rel="icon" href="/favicon.ico">
            <style>body { background: url(img/inline-bg.png) }</style><script src="js/app.js"></script>
            <script>var s = '<a href="fromscript.html">x</a>';</script></head>
            <div style="background-image: url('img/div-bg.png')">
            <!-- <a href="commented.html">commented</a> -->
            <img src="img/logo.png" srcset="img/logo-2x.png 2x, img/logo-3x.png 3x">
            <a href="s1/index.html">S1</a> <a href="s2/">S2</a> <a href="s3/index.html#top">S3</a>
            <a href="/s4/index.html">S4</a> <a href="private/secret.html">private</a>
            <a href="missing.html">broken</a> <img src="img/missing.png">
            <a href="http://other.invalid/page.html">other host</a>
            <a href="http://127.0.0.1:\(otherPort)/elsewhere.html">other port</a>
            <a href="notreally.html">not HTML</a> <a href="with%20space.html">escaped</a> <a href="sp ace.html">raw space</a>
            <a href='query.html?a=1&amp;b=2'>query</a> <A HREF=Upper.html>upper</A> <a href="index.html">self</a>
            <a href="moved.html">moved</a> <a href="/go/new.html">new</a> <img src="img/redirected.png">
            <a href="to-private.html">into private</a>
            """)
        redirects = [("/moved.html", "/s1/p1.html"), ("/go/new.html", "/fresh/new.html"),
                     ("/img/redirected.png", "logo.png"), ("/to-private.html", "http://127.0.0.1:\(mainPort)/private/secret.html")]
        page("/fresh/new.html", "<img src=\"fresh.png\"> <a href=\"../s2/p2.html\">p2</a>")
        image("/fresh/fresh.png")
        files.append(("/css/site.css", """
            @import "print.css"; @import url(theme.css);
            body { background: url(../img/bg.png) } /* url(../img/commented.png) */
            .q { background: url('../img/quoted.png') }
            """, "text/css"))
        files.append(("/css/print.css", ".p { background: url(\"../img/print-bg.png\") }", "text/css"))
        files.append(("/css/theme.css", ".t { background: url(../img/theme.png) }", "text/css"))
        files.append(("/css/deep.css", "@import \"deep-import.css\"; .d { background: url(../img/deep-bg.png) }", "text/css"))
        files.append(("/css/deep-import.css", ".di { background: url(../img/deep-import-bg.png) }", "text/css"))
        files.append(("/js/app.js", "var x = 'url(../img/not-css.png)'; // <a href=\"not-html.html\">", "application/javascript"))
        for name in ["inline-bg", "div-bg", "logo", "logo-2x", "logo-3x", "bg", "quoted", "print-bg", "theme", "deep-bg",
                     "deep-import-bg", "commented", "not-css"] {
            image("/img/\(name).png")
        }
        image("/favicon.ico")
        for section in 1...4 {
            let index = """
                <img src="../img/s\(section).png"> <a href="p1.html">1</a> <a href="p2.html">2</a> <a href="p3.html">3</a>
                <a href="../index.html">home</a>
                \(section == 1 ? "<a href=\"/outside/o1.html\">outside</a>" : "")
                \(section == 2 ? "<a href=\"base.html\">base</a>" : "")
                \(section == 4 ? "<a href=\"nofollow.html\">nofollow</a> <a href=\"typo.html\">typo</a>" : "")
                """
            page("/s\(section)/index.html", index)
            if section == 2 { page("/s2/", index) }
            image("/img/s\(section).png")
            for number in 1...3 {
                page("/s\(section)/p\(number).html", """
                    <img src="img/p\(number).png"> <a href="deep/d\(number).html">deep</a>
                    <a href="p\(number % 3 + 1).html">next</a> <a href="../index.html">home</a>
                    """)
                image("/s\(section)/img/p\(number).png")
                var deep = """
                    <img src="../img/d\(number).png"> <a href="deeper/e\(number).html">deeper</a>
                    <a href="../p\(number).html">up</a>
                    """
                if section == 1 && number == 1 { deep += "<link rel=\"stylesheet\" href=\"/css/deep.css\">" }
                if section == 1 && number == 2 { deep += "<iframe src=\"frame.html\"></iframe>" }
                if section == 3 && number == 3 { deep += "<meta http-equiv=\"refresh\" content=\"0; url=refreshed.html\">" }
                page("/s\(section)/deep/d\(number).html", deep)
                image("/s\(section)/img/d\(number).png")
                page("/s\(section)/deep/deeper/e\(number).html", "<img src=\"e\(number).png\"> <a href=\"f.html\">f</a>")
                image("/s\(section)/deep/deeper/e\(number).png")
            }
        }
        page("/s1/deep/frame.html", "<img src=\"frame.png\"> <a href=\"framelink.html\">link</a>")
        image("/s1/deep/frame.png")
        page("/s1/deep/framelink.html", "framelink")
        page("/s3/deep/refreshed.html", "<img src=\"refreshed.png\">")
        // wget resolves the links before a <base> against the page, and each <base> replaces the one before.
        page("/s2/base.html", """
            <a href="before.html">before</a><head><base href="/s3/"></head><a href="p1.html">p1 of s3</a>
            <img src="based.png"><base href="/s4/"><img src="second.png">
            """)
        page("/s2/before.html", "before")
        image("/s3/based.png")
        image("/s4/second.png")
        // wget's meta robots test takes the empty token between two commas for "nofollow".
        page("/s4/typo.html", "<meta name=\"robots\" content=\"index, , follow\"><a href=\"typo-child.html\">child</a>")
        page("/s4/typo-child.html", "child")
        page("/s4/nofollow.html", "<meta name=\"robots\" content=\"noindex, nofollow\"><a href=\"hidden.html\">h</a><img src=\"nofollow.png\">")
        page("/s4/hidden.html", "hidden")
        image("/s4/nofollow.png")
        page("/private/secret.html", "<img src=\"secret.png\">")
        files.append(("/notreally.html", "<a href=\"should-not-follow.html\">x</a>", "text/plain"))
        page("/should-not-follow.html", "no")
        page("/outside/o1.html", "<img src=\"o1.png\"> <a href=\"../s1/p1.html\">back</a>")
        image("/outside/o1.png")
        for name in ["fromscript", "commented", "with%20space", "sp%20ace", "query", "Upper"] { page("/\(name).html", name) }
        // The same host on another port: wget's scope (the host alone) takes it in.
        files.append(("other:/elsewhere.html", "<img src=\"elsewhere.png\"> <a href=\"http://127.0.0.1:\(mainPort)/s1/p1.html\">back</a>", "text/html"))
        files.append(("other:/elsewhere.png", "PNG elsewhere", "image/png"))
    }

    func serve(main: Origin, other: Origin) {
        for file in files {
            if file.path.hasPrefix("other:") {
                other.serve(path: String(file.path.dropFirst(6)), bytes: Array(file.body.utf8), contentType: file.type)
            } else {
                main.serve(path: file.path, bytes: Array(file.body.utf8), contentType: file.type)
            }
        }
        for redirect in redirects { main.inject(.redirect(to: redirect.location), at: redirect.path) }
    }
}
