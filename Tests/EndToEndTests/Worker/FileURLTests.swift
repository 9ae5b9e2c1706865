import FarmFixtures
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// The second fetcher (FarmTransfer's Fetcher.swift): a list added with `--allow-file-urls` has its
/// `file:///` URLs copied from this machine's disk, beside its http(s) ones fetched by libcurl, through the
/// same job path (claim, store, convert, complete). Without the option SPEC §5 stands: `file:` is an error,
/// never read. Real `farm add`, a real farm, a real origin on 127.0.0.1; bytes checked on disk.
@Suite(.serialized) struct FileURLTests {
    private func sidecar(_ farm: RunningFarm, _ list: String, _ index: Int) throws -> Sidecar {
        try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: list), index: index)))
    }

    @Test func aListThatAllowsFileURLsCopiesThemAndOneThatDoesNotFailsThemUnread() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let web = try JPEGFixture.quadrants(width: 24, height: 16)
        let local = try JPEGFixture.quadrants(width: 40, height: 24)
        farm.origin.serve(path: "/web.jpg", bytes: web)
        let folder = farm.dir.appending("my files")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/local.jpg"
        try Data(local).write(to: URL(fileURLWithPath: file))
        let url = "file://" + file.replacingOccurrences(of: " ", with: "%20")
        let urls = [farm.origin.url(for: "/web.jpg"), url, "file://" + folder + "/missing.jpg", "file://" + folder,
                    "file://otherhost" + file]
        func manifest(_ name: String) throws -> String {
            let path = farm.dir.appending(name)
            try JSONSerialization.data(withJSONObject: urls).write(to: URL(fileURLWithPath: path))
            return path
        }
        _ = try farm.must(["add", try manifest("allowed.json"), "--allow-file-urls"])
        _ = try farm.must(["add", try manifest("refused.json")])
        try farm.start(workers: 2)
        #expect(poll(timeout: 120, every: 0.1) { farm.counts[.done, default: 0] + farm.counts[.failed, default: 0] == 10 },
                "\(farm.counts)")

        let copied = try sidecar(farm, "allowed.json", 1)
        #expect(copied.status == .done, "\(copied)")
        #expect(try FileManager.default.contents(atPath: #require(copied.file)).map(Array.init) == local)
        #expect(copied.kind == "jpg" && copied.image != nil, "converted as any download: \(copied)")
        #expect(try sidecar(farm, "allowed.json", 0).status == .done)
        #expect(try sidecar(farm, "allowed.json", 2).error?.hasPrefix("cannot open \(folder)/missing.jpg") == true)
        #expect(try sidecar(farm, "allowed.json", 3).error == "\(folder) is not a regular file")
        #expect(try sidecar(farm, "allowed.json", 4).error?.hasPrefix("not an http(s) URL") == true,
                "another host's file is no file of this machine")
        for index in 1..<5 {
            #expect(try sidecar(farm, "refused.json", index).error?.hasPrefix("not an http(s) URL") == true)
        }
        #expect(try sidecar(farm, "refused.json", 0).status == .done)
        // The origin served the web resource once: download once shares it between the lists.
        #expect(farm.origin.requests(for: "/web.jpg").count == 1)
    }
}
