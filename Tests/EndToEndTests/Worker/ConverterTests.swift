import FarmConvert
import FarmFixtures
import FarmFsck
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A worker hands each stored download to its converter thread (at a lower priority) and claims no other
/// job for that transfer until it is completed, so that it never holds more jobs than its transfers: real
/// `farm add` and `farm work` processes against a real origin on 127.0.0.1, PDFs to render and JPEGs to
/// make thumbnails of.
@Suite struct ConverterTests {
    let origin = Origin()
    let dir = TemporaryDirectory()
    var spoolPath: String { dir.appending("spool") }

    init() throws {
        try origin.start()
    }

    /// Serves `count` PDFs (each with its own number of pages, so their bytes differ) and `count` JPEGs,
    /// alternating, and adds them as one list. Returns the bodies by index.
    private func addDocuments(_ count: Int) throws -> [(path: String, body: [UInt8])] {
        var files: [(path: String, body: [UInt8])] = []
        for n in 0..<count {
            files.append(("/doc\(n).pdf", PDFFixture.make(pages: n + 1)))
            files.append(("/photo\(n).jpg", try JPEGFixture.quadrants(width: 1600 + n * 8, height: 1200)))
        }
        for (path, body) in files { origin.serve(path: path, bytes: body) }
        let manifest = dir.appending("Docs.json")
        try Data(JSON.encode(files.map { origin.url(for: $0.path) }))
            .write(to: URL(fileURLWithPath: manifest))
        let added = try run("farm", ["add", manifest, "--spool", spoolPath])
        try #require(added.status == 0, "\(added.error)")
        return files
    }

    /// Every job done once, its download the origin's bytes, with a display image and a thumbnail.
    private func expectAllDoneWithOutputs(_ spool: Spool, _ files: [(path: String, body: [UInt8])]) throws {
        #expect(SpoolFixtures.counts(spool) == [.done: files.count])
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
        for (index, file) in files.enumerated() {
            let result = try #require(spool.sidecars.last(JobName(list: ListID.of(name: "Docs.json"), index: index)))
            #expect(result.status == .done, "\(file.path): \(result)")
            let stored = try #require(result.file)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: stored))) == file.body, "\(file.path) differs")
            let image = try #require(result.image, "\(file.path) has no display image")
            #expect(FileManager.default.fileExists(atPath: image))
            let thumb = try #require(result.thumb, "\(file.path) has no thumbnail")
            #expect(try max(PNGImage(path: thumb).width, PNGImage(path: thumb).height) == 256)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.progress).isEmpty)
    }

    @Test func aWorkerHoldsNoMoreJobsThanItsTransfers() throws {
        let files = try addDocuments(6)
        let spool = try Spool(root: spoolPath)
        let worker = try ChildProcess("farm", ["work", "--exit-when-idle", "--transfers", "2", "--spool", spoolPath])
        // What every view counts as in progress: the claims, a transfer's and a conversion's alike.
        var most = 0, converting = false
        let deadline = Clock.monotonic() + 180
        while worker.wait(timeout: 0.005) == nil && Clock.monotonic() < deadline {
            let claimed = spool.activeJobs()
            most = max(most, claimed.count)
            converting = converting || claimed.contains { claim in
                spool.sidecars.last(claim.job, finished: []).map { $0.status == .rendering || $0.status == .unzipping } == true
            }
        }
        #expect(worker.wait(timeout: 1) == 0, "\(worker.standardError)")
        #expect(most <= 2, "\(most) jobs held at once by a worker of 2 transfers")
        #expect(converting, "a conversion was seen under way")
        try expectAllDoneWithOutputs(spool, files)
        #expect(origin.requests.map(\.path).sorted() == files.map(\.path).sorted(), "one request per resource")
        origin.stop()
    }

    @Test func aWorkerKilledWhileItConvertsLosesNothing() throws {
        let files = try addDocuments(10)
        let spool = try Spool(root: spoolPath)
        let first = try ChildProcess("farm", ["work", "--spool", spoolPath, "--lease", "1", "--transfers", "2"])
        // A stored download in its conversion, its claim held.
        let converting = poll(timeout: 60, every: 0.005) {
            spool.activeJobs().contains { claim in
                spool.sidecars.last(claim.job, finished: []).map { $0.status == .rendering || $0.status == .unzipping } == true
            }
        }
        first.kill(SIGKILL)
        first.wait()
        try #require(converting, "no conversion was seen under way")
        #expect(spool.activeJobs().count <= 2)
        let waiting = spool.activeJobs().compactMap { spool.sidecars.last($0.job, finished: []) }
            .filter { $0.status == .rendering || $0.status == .unzipping }
        #expect(waiting.allSatisfy { !$0.changed.isEmpty && $0.file != nil })
        // Outputs of claimed jobs are their owners' to finish: no fault (within the lease).
        let faultsOfClaims = try faults(spool, lease: 60)
        #expect(faultsOfClaims.isEmpty, "\(faultsOfClaims)")

        // The dead worker's claims expire and come back; every job ends done once, outputs whole.
        let second = try run("farm", ["work", "--lease", "1", "--exit-when-idle", "--spool", spoolPath], timeout: 180)
        #expect(second.status == 0, "\(second.error)")
        try expectAllDoneWithOutputs(spool, files)
        let faultsAfter = try faults(spool, lease: 1)
        #expect(faultsAfter.isEmpty, "\(faultsAfter)")
        origin.stop()
    }

    /// What fsck finds but what any SIGKILL leaves: the killed worker's registry entry (a supervisor's to
    /// clear, and none runs here) and a temporary it was writing (`farm stop` sweeps those).
    private func faults(_ spool: Spool, lease: Double) throws -> [String] {
        try SpoolCheck(spool).run(lease: lease).findings.filter { $0.kind != .deadRegistration && $0.kind != .temporary }
            .map { "\($0.kind) \($0.path): \($0.detail)" }
    }
}
