import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// The read side of `farm serve` over HTTP: the page and its assets, the status, one list, the images,
/// and every refusal a reader can meet (unknown list, bad index, wrong method, paths that try to leave
/// the spool).
@Suite(.serialized) struct ServeReadTests {
    @Test func pageAndAssetsComeFromFarmAlone() throws {
        let dir = TemporaryDirectory()
        let serve = try ServeProcess(spool: dir.appending("spool"))
        let page = try serve.get("/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        #expect(serve.token.count == 64, "the page carries a 64-hex-digit token: \(page.text)")
        #expect(page.text.contains(#"src="/app.js""#) && page.text.contains(#"href="/app.css""#))
        for (path, type) in [("/app.js", "text/javascript"), ("/app.css", "text/css")] {
            let asset = try serve.get(path)
            #expect(asset.status == 200)
            #expect(asset.headers["content-type"]?.hasPrefix(type) == true)
            #expect(asset.body.count > 500)
            // Offline: nothing is loaded from anywhere else.
            #expect(!asset.text.contains("http://") && !asset.text.contains("https://"), "\(path) names another site")
        }
        #expect(!page.text.contains("http://") && !page.text.contains("https://"))
        // A second server has a token of its own.
        let other = try ServeProcess(spool: dir.appending("spool"))
        #expect(other.token.count == 64 && other.token != serve.token)
    }

    @Test func statusListImagesAndRefusals() throws {
        let farm = try RunningFarm()
        let images = try farm.addImages("Photos", count: 4, missing: [2])
        try farm.start(workers: 2)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 1, "one resource fails (404), the rest are done")
        let serve = try ServeProcess(spool: farm.spool.root)
        let id = ListID.of(name: "Photos.json")

        // The summary is the one `farm status --json` prints.
        let status = try serve.get("/api/status")
        #expect(status.status == 200 && status.headers["content-type"] == "application/json", "\(status.status) \(status.headers) \(status.text) \(status.curlError)")
        let lists = try #require(status.decode(StatusDocument.self)?.lists, "\(status.text)")
        #expect(lists.count == 1)
        #expect(lists.first?.name == "Photos.json" && lists.first?.id == id)
        #expect(lists.first?.state == .finished && lists.first?.done == 3)
        // The summary leaves the resources out: the key is not there.
        let inSummary = try JSONPointer("/lists/0/resources").values(in: try #require(status.json))
        #expect(lists.first?.failed == 1 && inSummary.isEmpty)

        let list = try serve.get("/api/lists/\(id)")
        #expect(list.status == 200)
        let resources = try #require(list.decode(ListStatus.self)?.resources, "\(list.text)")
        #expect(resources.map(\.text) == ["Done", "Done", "Error", "Done"])

        // Images by list and index: the bytes on disk, typed by their magic numbers.
        for index in [0, 1, 3] {
            let image = try serve.get("/api/lists/\(id)/\(index)/image")
            #expect(image.status == 200)
            #expect(image.headers["content-type"] == "image/jpeg")
            #expect(image.body == images[index], "resource \(index) is not the bytes served by the origin")
            let path = try #require(resources[index].thumb)
            let thumb = try serve.get("/api/lists/\(id)/\(index)/thumb")
            #expect(thumb.status == 200 && thumb.headers["content-type"]?.hasPrefix("image/") == true)
            #expect(thumb.body == FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        }

        // Refusals: each a 4xx with one sentence in {"error": …}.
        let failed = try serve.get("/api/lists/\(id)/2/image")
        #expect(failed.status == 404 && failed.error?.contains("failed: HTTP 404") == true, "\(failed.text)")
        let refusals: [(String, Int, String)] = [
            ("/api/lists/0123456789abcdef", 404, "no list"),
            ("/api/lists/Photos.json", 404, "no list"),
            ("/api/lists/\(id)/4/image", 404, "from 0 to 3"),
            ("/api/lists/\(id)/-1/thumb", 404, "from 0 to 3"),
            ("/api/lists/\(id)/x/image", 404, "from 0 to 3"),
            ("/api/events?list=0123456789abcdef", 404, "no list"),
            ("/api/nothing", 404, "nothing here"),
            ("/favicon.ico", 404, "nothing here"),
        ]
        for (path, code, words) in refusals {
            let reply = try serve.get(path)
            #expect(reply.status == code && reply.error?.contains(words) == true, "\(path): \(reply.status) \(reply.text)")
            #expect(reply.headers["content-type"] == "application/json")
        }
        let wrongMethod = try HTTP.send(serve.base + "/api/status", method: "POST")
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "GET" && wrongMethod.error != nil)
        let getOnAction = try serve.get("/api/pause")
        #expect(getOnAction.status == 405 && getOnAction.headers["allow"] == "POST")
        #expect(getOnAction.error?.contains("takes POST") == true)
    }

    @Test func nothingOutsideTheSpoolIsEverServed() throws {
        let farm = try RunningFarm()
        try farm.addImages("Photos", count: 2)
        try farm.start(workers: 1)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 0)
        let serve = try ServeProcess(spool: farm.spool.root)
        let id = ListID.of(name: "Photos.json")
        let secret = farm.dir.appending("secret.jpg")
        // A real JPEG outside the spool: only where it is makes it forbidden.
        try Data(try JPEGFixture.quadrants(width: 64, height: 64) + Array("SECRET".utf8)).write(to: URL(fileURLWithPath: secret))

        for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/lists/../../../etc/passwd",
                     "/api/lists/\(id)/..%2f..%2f..%2fetc%2fpasswd/image", "/app.js/../../etc/passwd",
                     "/api/lists/\(id)/0/../../../../../etc/passwd", "/api/lists/..%2f..%2f/0/image",
                     "/api/lists/\(id)/0/image/../../../../../../etc/passwd"] {
            let reply = try serve.get(path)
            #expect((400..<500).contains(reply.status), "\(path): \(reply.status)")
            #expect(!reply.text.contains("root:"), "\(path) served /etc/passwd")
        }

        // The spool's own file swapped for a symlink that leads out: refused once resolved.
        let list = try serve.get("/api/lists/\(id)").decode(ListStatus.self)?.resources ?? []
        let image = try #require(list.first?.image)
        let thumb = try #require(list.first?.thumb)
        for file in [image, thumb] {
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: secret)
        }
        for kind in ["image", "thumb"] {
            let reply = try serve.get("/api/lists/\(id)/0/\(kind)")
            #expect(reply.status == 403 && reply.error?.contains("outside the spool") == true, "\(kind): \(reply.text)")
            #expect(!reply.text.contains("SECRET"))
        }
        // The other resource is still served, typed by its first bytes.
        let served = try serve.get("/api/lists/\(id)/1/image")
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let isPNG = try Array(Data(contentsOf: URL(fileURLWithPath: try #require(list.last?.image))).prefix(8)) == pngSignature
        #expect(served.status == 200 && served.headers["content-type"] == (isPNG ? "image/png" : "image/jpeg"))
        // Bytes of any other kind in its place, a GIF say, are refused: the screens show JPGs and PNGs only.
        let thumbOfTheOther = try #require(list.last?.thumb)
        try Data("GIF89a-not-a-thumbnail".utf8).write(to: URL(fileURLWithPath: thumbOfTheOther))
        let gif = try serve.get("/api/lists/\(id)/1/thumb")
        #expect(gif.status == 415 && gif.error?.contains("not a JPG or PNG") == true, "\(gif.status): \(gif.text)")
    }
}
