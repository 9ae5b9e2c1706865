@testable import FarmMirror
import Testing

/// robots.txt as RFC 9309 says, checked with its own examples and the cases of Google's reference parser
/// (google/robotstxt's robots_test.cc) that the RFC settles.
@Suite struct RobotsTests {
    static func robots(_ text: String, agent: String = "farm") -> Robots {
        Robots(parsing: Array(text.utf8), userAgent: agent)
    }

    /// RFC 9309 §5.1's example file, for its agents.
    @Test func followsTheRFCsExampleGroups() {
        let text = """
            User-Agent: *
            Disallow: *.gif$
            Disallow: /example/
            Allow: /publications/

            User-Agent: foobot
            Disallow:/
            Allow:/example/page.html
            Allow:/example/allowed.gif

            User-Agent: barbot
            User-Agent: bazbot
            Disallow: /example/page.html

            User-Agent: quxbot
            """
        let star = Self.robots(text, agent: "farm")
        #expect(!star.allows("/x.gif") && !star.allows("/example/a") && star.allows("/publications/x") && star.allows("/x.gifs"))
        let foo = Self.robots(text, agent: "FooBot")
        #expect(!foo.allows("/") && foo.allows("/example/page.html") && foo.allows("/example/allowed.gif"))
        #expect(!foo.allows("/example/other.html"))
        for agent in ["barbot", "bazbot"] {
            let bar = Self.robots(text, agent: agent)
            #expect(!bar.allows("/example/page.html") && bar.allows("/example/other.html") && bar.allows("/x.gif"))
        }
        // A group of its own with no rules: everything allowed, the `*` group not used.
        #expect(Self.robots(text, agent: "quxbot").allows("/x.gif"))
    }

    /// §2.2.2: the longest match wins, Allow wins a tie; `*` and `$`.
    @Test func appliesTheLongestMatch() {
        #expect(Self.robots("user-agent: *\nallow: /x/page.html\ndisallow: /x/\n").allows("/x/page.html"))
        #expect(!Self.robots("user-agent: *\nallow: /x/page.html\ndisallow: /x/\n").allows("/x/other.html"))
        #expect(Self.robots("user-agent: *\nallow: /page\ndisallow: /page\n").allows("/page"))
        #expect(!Self.robots("user-agent: *\nallow: /page\ndisallow: /*.html\n").allows("/page.html"))
        #expect(Self.robots("user-agent: *\nallow: /x/page.\ndisallow: /*.html\n").allows("/x/page.html"))
        let dollar = Self.robots("user-agent: *\nallow: /$\ndisallow: /\n")
        #expect(dollar.allows("/") && !dollar.allows("/page.html"))
        let star = Self.robots("user-agent: *\ndisallow: /foo/*/bar$\ndisallow: /*q=\n")
        #expect(!star.allows("/foo/a/b/bar") && star.allows("/foo/a/bar/x") && !star.allows("/search?q=1") && star.allows("/search"))
        // "$" inside a pattern is a character.
        #expect(!Self.robots("user-agent: *\ndisallow: /a$b\n").allows("/a$bc"))
    }

    @Test func readsGroupsAsTheRFCSays() {
        // Several groups for the agent merge; case-insensitive names and keys; product token before "/".
        let text = """
            # comment
            USER-AGENT: Farm/1.0 # the agent
            disallow: /a
            user-agent: other
            disallow: /b
            User-agent: farm
            DISALLOW: /c   # trailing comment
            sitemap: http://x/sitemap.xml
            disallow: /d
            """
        let robots = Self.robots(text)
        #expect(!robots.allows("/a") && robots.allows("/b") && !robots.allows("/c") && !robots.allows("/d"))
        // Consecutive user-agent lines share a group; rules before any user-agent line belong to none.
        let shared = Self.robots("disallow: /early\nuser-agent: x\nuser-agent: farm\ndisallow: /s\n")
        #expect(!shared.allows("/s") && shared.allows("/early"))
        // Patterns are case-sensitive; an empty Disallow allows everything; unknown lines are ignored.
        #expect(Self.robots("user-agent: *\ndisallow: /Case\n").allows("/case"))
        #expect(Self.robots("user-agent: *\ndisallow:\nfoo: bar\nno colon here\n").allows("/anything"))
        // The specific group only, the `*` group left aside.
        #expect(Self.robots("user-agent: *\ndisallow: /\nuser-agent: farm\nallow: /x\n").allows("/y"))
        // CR and CRLF line ends, a byte-order mark.
        #expect(!Self.robots("\u{FEFF}user-agent: *\r\ndisallow: /p\rdisallow: /q\r\n").allows("/q"))
    }

    /// Google's reference parser's case for groups: blank lines end nothing, consecutive user-agent lines
    /// share their rules even across blank lines, the same agent's groups merge, rules outside groups are
    /// dropped.
    @Test func groupsAcrossBlankLinesAndMergesAnAgentsGroups() {
        let text = """
            allow: /foo/bar/

            user-agent: FooBot
            disallow: /
            allow: /x/
            user-agent: BarBot
            disallow: /
            allow: /y/


            allow: /w/
            user-agent: BazBot

            user-agent: FooBot
            allow: /z/
            disallow: /
            """
        let foo = Self.robots(text, agent: "FooBot"), bar = Self.robots(text, agent: "BarBot"), baz = Self.robots(text, agent: "BazBot")
        #expect(foo.allows("/x/b") && foo.allows("/z/d") && !foo.allows("/y/c"))
        #expect(bar.allows("/y/c") && bar.allows("/w/a") && !bar.allows("/z/d"))
        #expect(baz.allows("/z/d"))
        #expect(!foo.allows("/foo/bar/") && !bar.allows("/foo/bar/") && !baz.allows("/foo/bar/"))
        // The agent's value up to its first blank: "FOO BAR" is the group of "foo".
        #expect(Self.robots("user-agent: FOO BAR\nallow: /x/\ndisallow: /\n", agent: "foo").allows("/x/y"))
        #expect(!Self.robots("user-agent: FOO BAR\nallow: /x/\ndisallow: /\n", agent: "foo").allows("/a/b"))
    }

    /// RFC 9309 §2.2.2's table: what each path is compared as.
    @Test func encodesAsTheRFCsTableSays() {
        #expect(Self.robots("user-agent: *\ndisallow: /\nallow: /foo/bar?baz=quz\n").allows("/foo/bar?baz=quz"))
        #expect(Self.robots("user-agent: *\ndisallow: /\nallow: /foo/bar/\u{30C4}\n").allows("/foo/bar/%E3%83%84"))
        #expect(Self.robots("user-agent: *\ndisallow: /\nallow: /foo/bar/%E3%83%84\n").allows("/foo/bar/%e3%83%84"))
        #expect(Self.robots("user-agent: *\ndisallow: /\nallow: /foo/bar/%62%61%7A\n").allows("/foo/bar/baz"))
        #expect(Self.robots("user-agent: *\ndisallow: /\nallow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n")
            .allows("/foo/bar?qux=taz&baz=http://foo.bar?tar&par"))
    }

    @Test func alwaysAllowsRobotsTxt() {
        #expect(Self.robots("user-agent: *\ndisallow: /\n").allows("/robots.txt"))
        #expect(!Robots.disallowAll.allows("/x") && Robots.disallowAll.allows("/robots.txt"))
    }

    @Test func comparesPercentEncodingNormalized() {
        // An escaped unreserved character is the character; other escapes compare case-insensitively;
        // bytes past ASCII compare encoded.
        #expect(!Self.robots("user-agent: *\ndisallow: /%7Ejoe/\n").allows("/~joe/index.html"))
        #expect(!Self.robots("user-agent: *\ndisallow: /~joe/\n").allows("/%7ejoe/index.html"))
        #expect(!Self.robots("user-agent: *\ndisallow: /a%2fb\n").allows("/a%2Fb"))
        #expect(Self.robots("user-agent: *\ndisallow: /a%2Fb\n").allows("/a/b"))
        #expect(!Self.robots("user-agent: *\ndisallow: /café\n").allows("/caf%C3%A9"))
    }

    @Test func readsCrawlDelayFromTheChosenGroup() {
        let text = "user-agent: *\ncrawl-delay: 7\nuser-agent: farm\ncrawl-delay: 2.5\ndisallow: /x\n"
        #expect(Self.robots(text).crawlDelay == 2.5)
        #expect(Self.robots(text, agent: "other").crawlDelay == 7)
        #expect(Self.robots("user-agent: *\ncrawl-delay: soon\n").crawlDelay == nil)
    }

    @Test func parsesOnly500KiB() {
        var text = "user-agent: *\n"
        while text.utf8.count < Robots.parseLimit { text += "allow: /padding-line-of-some-length\n" }
        text += "disallow: /late\n"
        #expect(Self.robots(text).allows("/late"))
        #expect(!Self.robots("user-agent: *\ndisallow: /late\n").allows("/late"))
    }

    @Test func followsTheStatusRules() {
        #expect(Robots.outcome(forStatus: 200) == .parse)
        #expect(Robots.outcome(forStatus: 404) == .allowAll && Robots.outcome(forStatus: 401) == .allowAll)
        #expect(Robots.outcome(forStatus: 503) == .disallowAll && Robots.outcome(forStatus: 500) == .disallowAll)
        #expect(Robots.outcome(forStatus: nil) == .disallowAll)
    }
}
