import FarmFixtures
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// SPEC §15's kinds, end to end: the real `farm add` and a real farm downloading from a real origin on
/// 127.0.0.1. An animated GIF and a WebP get display images of their first frame, checked by decoding them; a
/// .tar.gz is kept as downloaded by a list added with `--accept any`, and fails as "unsupported content" in
/// one added without.
@Suite(.serialized) struct MoreKindsFarmTests {
    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    /// A real .tar.gz of one small file, made by tar(1).
    private func tarball(in dir: TemporaryDirectory) throws -> [UInt8] {
        let folder = dir.appending("tarred")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("not a picture\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-czf", dir.appending("archive.tar.gz"), "-C", folder, "notes.txt"]
        try tar.run()
        tar.waitUntilExit()
        try #require(tar.terminationStatus == 0)
        return try #require(contents(dir.appending("archive.tar.gz")))
    }

    private func rgb(_ pixel: (red: UInt8, green: UInt8, blue: UInt8)) -> [UInt8] { [pixel.red, pixel.green, pixel.blue] }

    private func record(_ farm: RunningFarm, _ list: String, _ index: Int) throws -> Sidecar {
        try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: list), index: index)))
    }

    @Test func gifWebPAndAnyKindAreKeptWithTheirDisplayImages() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        // Three frames: red on the left and transparent on the right, then green, then blue.
        let gif = try GIFFixture.animated(width: 600, height: 400, frames: 3) { frame, x, _ in
            frame == 0 ? (x < 300 ? (255, 0, 0) : nil) : frame == 1 ? (0, 255, 0) : (0, 0, 255)
        }
        let webp = try WebPFixture.lossless(width: 400, height: 300) { x, _ in x < 200 ? (0, 0, 255, 255) : (255, 255, 0, 255) }
        let tarGz = try tarball(in: farm.dir)
        for (path, bytes) in [("/p/anim.gif", gif), ("/p/photo.webp", webp), ("/p/archive.tar.gz", tarGz)] {
            farm.origin.serve(path: path, bytes: bytes)
        }
        let urls = ["/p/anim.gif", "/p/photo.webp", "/p/archive.tar.gz"].map { farm.origin.url(for: $0) }
        let text = urls.joined(separator: "\n") + "\n"
        for name in ["any.txt", "strict.txt"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: farm.dir.appending(name)))
        }
        let out = farm.dir.appending("out")
        try farm.must(["add", farm.dir.appending("any.txt"), "--accept", "any", "--out", out])
        // The same URLs without --accept: the tarball fails, whether transferred for this list or served from
        // the bytes the other list's transfer stored.
        try farm.must(["add", farm.dir.appending("strict.txt")])
        let refused = try farm.farm(["add", farm.dir.appending("any.txt"), "--accept", "everything"])
        #expect(refused.status == 2 && refused.error.contains("--accept"), "\(refused)")

        try farm.start(workers: 2)
        _ = poll(timeout: 180, every: 0.1) { (farm.counts[.done] ?? 0) + (farm.counts[.failed] ?? 0) == 6 }
        #expect(farm.counts == [.done: 5, .failed: 1], "\(farm.counts)")

        for list in ["any.txt", "strict.txt"] {
            let animated = try record(farm, list, 0)
            #expect(animated.status == .done && animated.kind == "gif", "\(animated)")
            #expect(contents(try #require(animated.file)) == gif)
            // The display image and the thumbnail are the first frame: red, then transparent; never green or blue.
            let image = try PNGImage(path: try #require(animated.image))
            #expect(image.width == 600 && image.height == 400)
            #expect(rgb(image.pixel(x: 100, y: 200)) == [255, 0, 0] && image.alpha(x: 100, y: 200) == 255)
            #expect(image.alpha(x: 500, y: 200) == 0)
            let thumbnail = try PNGImage(path: try #require(animated.thumb))
            #expect(thumbnail.width == 256 && thumbnail.height == 171)
            let left = thumbnail.pixel(x: 60, y: 85)
            #expect(left.red >= 250 && left.green <= 5 && left.blue <= 5 && thumbnail.alpha(x: 200, y: 85) == 0, "\(left)")

            let still = try record(farm, list, 1)
            #expect(still.status == .done && still.kind == "webp", "\(still)")
            #expect(contents(try #require(still.file)) == webp)
            let picture = try PNGImage(path: try #require(still.image))
            #expect(picture.width == 400 && picture.height == 300 && !picture.hasAlpha)
            #expect(rgb(picture.pixel(x: 100, y: 150)) == [0, 0, 255] && rgb(picture.pixel(x: 300, y: 150)) == [255, 255, 0])
            let small = try PNGImage(path: try #require(still.thumb))
            #expect(small.width == 256 && small.height == 192)
        }

        // Kept as downloaded, of kind other, with no display image; delivered by its name.
        let kept = try record(farm, "any.txt", 2)
        #expect(kept.status == .done && kept.kind == "other" && kept.image == nil && kept.thumb == nil, "\(kept)")
        let file = try #require(kept.file)
        #expect(file.hasSuffix("/2.gz") && contents(file) == tarGz, "\(file)")
        #expect(contents(out + "/any/archive.tar.gz") == tarGz)
        #expect(kept.delivered == out + "/any/archive.tar.gz")
        let status = try JSONSerialization.jsonObject(with: Data(try farm.must(["status", "any.txt", "--json"]).utf8))
        let resources = try #require((status as? [String: Any])?["resources"] as? [[String: Any]])
        #expect(resources.map { $0["kind"] as? String } == ["gif", "webp", "other"])
        #expect(resources[2]["image"] is NSNull && resources[2]["thumb"] is NSNull)

        let failed = try record(farm, "strict.txt", 2)
        #expect(failed.status == .error && failed.error == "unsupported content" && failed.file == nil, "\(failed)")

        // Every output of the new kinds is one fsck knows for its resource.
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck)")
    }
}
