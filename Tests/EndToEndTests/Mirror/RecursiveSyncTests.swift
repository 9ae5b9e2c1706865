import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// `farm sync` of a mirrored site (SPEC §7 and §18): its source is its crawl, so sync revalidates the list's
/// resources where they are, fetching again what changed at the origin, instead of reading the start page
/// as a manifest (which `bin/chaos` found failing `farm sync --all` on any spool holding a mirror).
@Suite(.serialized) struct RecursiveSyncTests {
    @Test func syncFetchesAgainWhatChangedOnAMirroredSite() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        func page(_ text: String) -> [UInt8] { Array("<html><body><a href=\"b.html\">b</a> \(text)</body></html>".utf8) }
        farm.origin.serve(path: "/robots.txt", bytes: Array("User-agent: *\n".utf8), contentType: "text/plain")
        farm.origin.serve(path: "/a.html", bytes: page("first"), contentType: "text/html")
        farm.origin.serve(path: "/b.html", bytes: Array("<html>b</html>".utf8), contentType: "text/html")
        try farm.must(["add", farm.origin.url(for: "/a.html"), "--recursive", "--name", "site"])
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(2))

        farm.origin.serve(path: "/a.html", bytes: page("second"), contentType: "text/html")
        let synced = try farm.farm(["sync", "--all"])
        #expect(synced.status == 0, "\(synced.output)\(synced.error)")
        #expect(synced.output.contains("site"), "\(synced.output)")
        let id = ListID.of(name: "site")
        let file = try #require(farm.spool.sidecars.last(JobName(list: id, index: 0))?.file)
        #expect(FileManager.default.contents(atPath: file).map(Array.init) == page("second"))
        // Nothing added, nothing removed: the list is still its two pages.
        #expect(farm.spool.lists.resources(ofList: id)?.count == 2)
        let again = try farm.farm(["sync", "site"])
        #expect(again.status == 0, "\(again.output)\(again.error)")
    }
}
