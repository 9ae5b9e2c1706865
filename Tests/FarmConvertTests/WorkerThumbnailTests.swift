import FarmConvert
import FarmFixtures
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// The worker makes a thumbnail of every done resource's display image (real `farm add` and `farm work`
/// processes against a real origin on 127.0.0.1), and a thumbnail that cannot be made fails nothing.
@Suite struct WorkerThumbnailTests {
    let origin = Origin()
    let dir = TemporaryDirectory()
    var spoolPath: String { dir.appending("spool") }

    init() throws {
        try origin.start()
    }

    @Test func everyDoneResourceGetsAThumbnailOrALogLine() throws {
        let noise: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let fixtures: [String: [UInt8]] = [
            "/photo.jpg": try JPEGFixture.quadrants(width: 2000, height: 1500),
            "/doc.pdf": PDFFixture.make(pages: 2),
            "/noise.jpg": noise,
        ]
        for (path, body) in fixtures { origin.serve(path: path, bytes: body) }
        let paths = ["/photo.jpg", "/doc.pdf", "/noise.jpg"]
        let manifest = dir.appending("Grid.json")
        try Data(JSON.encode(paths.map { origin.url(for: $0) }))
            .write(to: URL(fileURLWithPath: manifest))
        let added = try run("farm", ["add", manifest, "--spool", spoolPath])
        try #require(added.status == 0, "\(added.error)")
        let worked = try run("farm", ["work", "--exit-when-idle", "--spool", spoolPath], timeout: 180)
        #expect(worked.status == 0, "\(worked.error)")

        let spool = try Spool(root: spoolPath)
        #expect(SpoolFixtures.counts(spool) == [.done: 3])
        func sidecar(_ index: Int) throws -> Sidecar {
            try #require(spool.sidecars.last(JobName(list: ListID.of(name: "Grid.json"), index: index)))
        }
        for index in 0..<2 {
            let result = try sidecar(index)
            #expect(result.status == .done)
            let thumb = try #require(result.thumb, "\(paths[index]) has no thumbnail")
            let file = try #require(result.file)
            // Next to the outputs: files/<list>/<index>.thumb.png beside files/<list>/<index>.<kind>.
            #expect(thumb == file.dropLast(Kind.allCases.first { file.hasSuffix("." + $0.rawValue) }
                .map { $0.rawValue.count + 1 } ?? 0) + ".thumb.png")
            #expect(thumb.hasPrefix(spool.root + "/files/"))
            let thumbnail = try PNGImage(path: thumb)
            #expect(max(thumbnail.width, thumbnail.height) == 256, "\(paths[index]): \(thumbnail.width)×\(thumbnail.height)")
            // Both are red at the top left (the photo's first quadrant, the page's left half).
            let pixel = thumbnail.pixel(x: thumbnail.width / 8, y: thumbnail.height / 4)
            #expect(pixel.red > 200 && pixel.green < 60 && pixel.blue < 60, "\(paths[index]): \(pixel)")
        }
        #expect(try sidecar(0).thumb?.hasSuffix("/0.thumb.png") == true)
        #expect(try PNGImage(path: try #require(try sidecar(0).thumb)).height == 192)
        // Noise that starts like a JPEG: still done (its bytes are what was asked for), no thumbnail,
        // and the reason in the log.
        let noisy = try sidecar(2)
        #expect(noisy.status == .done && noisy.thumb == nil && noisy.image != nil)
        #expect(SpoolFixtures.log(spool).contains("no thumbnail for"))
        let files = try FileManager.default.subpathsOfDirectory(atPath: spool.root + "/files")
        #expect(!files.contains { $0.contains(".tmp-") }, "\(files)")
        #expect(!files.contains { $0.hasSuffix("2.thumb.png") })
        origin.stop()
    }
}
