import FarmConvert
import FarmDedup
import FarmFixtures
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmTestSupport
import FarmZip
import Foundation
import Glibc
import Testing

/// Real `farm add` and `farm work` processes against a real origin on 127.0.0.1.
@Suite struct WorkerTests {
    let origin = Origin()
    let dir = TemporaryDirectory()
    var spoolPath: String { dir.appending("spool") }

    init() throws {
        try origin.start()
    }

    /// Bytes that start like a JPEG (farm tells kinds by magic numbers and never decodes a JPEG).
    static func jpegLike(_ count: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0] + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
    }

    private func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    private func farm(_ arguments: [String], timeout: Double = 180) throws -> (status: Int32, output: String, error: String) {
        try run("farm", arguments + ["--spool", spoolPath], timeout: timeout)
    }

    private func addManifest(_ urls: [String]) throws {
        let manifest = dir.appending("Mixed.json")
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        let added = try farm(["add", manifest])
        try #require(added.status == 0, "\(added.error)")
    }

    @Test func mixedManifestEndsWithExactBytesAndDisplayableImages() throws {
        let pdf = PDFFixture.make(pages: 3)
        try Data(pdf).write(to: URL(fileURLWithPath: dir.appending("doc.pdf")))
        try PDFRenderer.renderFirstPage(pdf: dir.appending("doc.pdf"), to: dir.appending("b.png"), maxSide: 64)
        let png = try bytes(dir.appending("b.png"))
        try ZipWriter.write(path: dir.appending("d.zip"), entries: [("notes.txt", Array("hi".utf8)), ("img/b.png", png)])
        try ZipWriter.write(path: dir.appending("e.zip"), entries: [("doc.pdf", pdf)])
        try ZipWriter.write(path: dir.appending("evil.zip"), entries: [("../evil.png", png), ("good.png", png)])
        let fixtures: [String: [UInt8]] = [
            "/a.jpg": Self.jpegLike(20_000), "/b.png": png, "/c.pdf": pdf,
            "/d.zip": try bytes(dir.appending("d.zip")), "/e.zip": try bytes(dir.appending("e.zip")),
            "/evil.zip": try bytes(dir.appending("evil.zip")), "/flaky.png": png,
            "/page.jpg": Array("<!DOCTYPE html><html><body>not an image</body></html>".utf8),
        ]
        for (path, body) in fixtures { origin.serve(path: path, bytes: body) }
        origin.inject(.status(404), at: "/missing.jpg")
        origin.fail(1, with: 503, at: "/flaky.png")
        let paths = ["/a.jpg", "/b.png", "/c.pdf", "/d.zip", "/e.zip", "/evil.zip", "/flaky.png", "/page.jpg",
                     "/missing.jpg"]
        try addManifest(paths.map { origin.url(for: $0) } + ["ftp://127.0.0.1/x.jpg"])

        let worked = try farm(["work", "--exit-when-idle"])
        #expect(worked.status == 0, "\(worked.error)")

        let spool = try Spool(root: spoolPath)
        let list = ListID.of(name: "Mixed.json")
        #expect(SpoolFixtures.counts(spool) == [.done: 7, .failed: 3])
        func sidecar(_ index: Int) throws -> Sidecar { try #require(spool.sidecars.last(JobName(list: list, index: index))) }
        // Every outcome is recorded on its job file. progress/ is empty: short jobs never wrote a
        // sidecar, and the one retried after a 503 (past a tick) had its sidecar deleted at the end.
        for index in paths.indices {
            let job = JobName(list: list, index: index)
            #expect(spool.sidecars.outcome(atPath: spool.finishedPath(job, index < 7 ? .done : .failed)) != nil)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.progress).isEmpty)
        for (index, path) in paths.enumerated() where index < 7 {
            let result = try sidecar(index)
            #expect(result.status == .done, "\(path): \(result)")
            #expect(try bytes(try #require(result.file)) == fixtures[path], "\(path) bytes differ")
            let image = try #require(result.image)
            #expect(image.hasPrefix(spool.root + "/files/"))
            if path != "/a.jpg" { _ = try PNGImage(path: image) }  // decodable
        }
        #expect(try sidecar(0).kind == "jpg" && sidecar(3).kind == "zip" && sidecar(2).kind == "pdf")
        // A PDF's display image is its page 1: red on the left half.
        let page1 = try PNGImage(path: try #require(try sidecar(2).image))
        #expect(page1.pixel(x: page1.width / 4, y: page1.height / 2).red > 200)
        #expect(try sidecar(4).image?.hasSuffix(".page1.png") == true)
        #expect(try sidecar(5).image?.hasSuffix("good.png") == true)
        #expect(try sidecar(6).attempts == 2)
        #expect(try sidecar(7).error == "unsupported content")
        #expect(try sidecar(8).error == "HTTP 404")
        #expect(try sidecar(9).error?.hasPrefix("not an http(s) URL") == true)
        // The hostile entry was never written, inside or outside the spool.
        let everything = FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []
        #expect(!everything.contains { $0.hasSuffix("evil.png") })
        // 404s are not retried; ftp is never fetched.
        #expect(origin.requests(for: "/missing.jpg").count == 1)
        origin.stop()
    }

    @Test func killedMidTransferResumesFromTheByteItReached() throws {
        let body = Self.jpegLike(600_000)
        origin.serve(path: "/big.jpg", bytes: body)
        origin.inject(.throttle(bytesPerSecond: 200_000), at: "/big.jpg")
        try addManifest([origin.url(for: "/big.jpg")])
        let spool = try Spool(root: spoolPath)
        let job = JobName(list: ListID.of(name: "Mixed.json"), index: 0)

        let first = try ChildProcess("farm", ["work", "--spool", spoolPath, "--lease", "1"])
        let partial = Dedup(spool).partialPath(url: origin.url(for: "/big.jpg"))
        let reached = poll(timeout: 60) {
            ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) > 100_000
        }
        first.kill(SIGKILL)
        first.wait()
        try #require(reached)

        let second = try farm(["work", "--lease", "1", "--exit-when-idle"])
        #expect(second.status == 0, "\(second.error)")
        #expect(SpoolFixtures.counts(spool) == [.done: 1])
        let result = try #require(spool.sidecars.last(job))
        #expect(try bytes(try #require(result.file)) == body)
        let resumed = origin.requests(for: "/big.jpg").compactMap(\.rangeStart)
        #expect(resumed.count == 1 && resumed[0] > 100_000, "ranges asked: \(resumed)")
        origin.stop()
    }

    /// SPEC §13: a worker killed with eight transfers under way loses none of them. Each is a claim of
    /// its own with its own partial bytes: another process takes all eight once their leases run out, and
    /// each asks the origin only for the bytes it lacks.
    @Test func eightTransfersKilledAtOnceEachResumeByRangeInAnotherProcess() throws {
        let paths = (0..<8).map { "/eight/\($0).jpg" }
        var bodies: [String: [UInt8]] = [:]
        for (n, path) in paths.enumerated() {
            let body = Self.jpegLike(400_000 + n * 1_000)
            bodies[path] = body
            origin.serve(path: path, bytes: body)
            origin.inject(.throttle(bytesPerSecond: 100_000), at: path)
        }
        try addManifest(paths.map { origin.url(for: $0) })
        let spool = try Spool(root: spoolPath)
        let partials = paths.map { Dedup(spool).partialPath(url: origin.url(for: $0)) }
        func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }

        let first = try ChildProcess("farm", ["work", "--transfers", "8", "--lease", "1", "--no-convert",
                                              "--spool", spoolPath])
        let reached = poll(timeout: 60) { partials.allSatisfy { size($0) > 50_000 } }
        first.kill(SIGKILL)
        first.wait()
        try #require(reached, "sizes: \(partials.map(size))")
        #expect(spool.activeJobs().count == 8, "all eight were claimed by the killed worker")
        let before = Dictionary(uniqueKeysWithValues: zip(paths, partials.map(size)))

        let second = try farm(["work", "--transfers", "8", "--lease", "1", "--no-convert", "--exit-when-idle"])
        #expect(second.status == 0, "\(second.error)")
        #expect(SpoolFixtures.counts(spool) == [.done: 8])
        for (index, path) in paths.enumerated() {
            let job = JobName(list: ListID.of(name: "Mixed.json"), index: index)
            let file = try #require(spool.sidecars.last(job)?.file, "\(job)")
            #expect(try bytes(file) == bodies[path], "\(path)")
            // Asked twice: from its start by the killed worker, then from the byte it had reached (at
            // least what was seen on disk before the kill) by the second.
            let asked = origin.requests(for: path).map(\.rangeStart)
            #expect(asked.count == 2 && asked[0] == nil && (asked[1] ?? 0) >= before[path]!, "\(path): \(asked)")
        }
        origin.stop()
    }
}
