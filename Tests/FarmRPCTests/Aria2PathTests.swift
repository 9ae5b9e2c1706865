import FarmControl
import FarmRPC
import FarmTestSupport
import Testing

/// SPEC §16: before a download is delivered, aria2's `path` (in `getFiles`, `tellStatus`'s `files`) is where
/// it will be: its folder and the name its list's `{name}` template gives its URL, the same name the delivery
/// uses.
@Suite struct Aria2PathTests {
    @Test(arguments: [
        // A folder's page is index.html, as wget and the delivery name it.
        ("http://127.0.0.1:1/docs/", "index.html"),
        ("http://127.0.0.1:1", "index.html"),
        // Decoded once: %25 is a per cent sign.
        ("http://127.0.0.1:1/a%2541.jpg", "a%41.jpg"),
        ("http://127.0.0.1:1/pics/b%20c.jpg?size=2#top", "b c.jpg"),
    ])
    func aQueuedDownloadsPathIsWhereItsTemplatePutsIt(url: String, name: String) throws {
        let fixture = try StatusFixture(inMemory: true)
        let folder = fixture.path + "/out"
        let added = try Control(spool: fixture.spool).addDownload(Control.Download(urls: [url], folder: folder))
        let download = try #require(Aria2Downloads.read(fixture.spool).first { $0.listID == added.listID })
        #expect(download.path == folder + "/" + name)
    }
}
