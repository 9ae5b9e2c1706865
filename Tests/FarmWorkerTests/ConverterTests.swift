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

/// A worker hands each stored download to its converter thread and claims the next job at once: real
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
            let result = try #require(spool.sidecar(JobName(list: ListID.of(name: "Docs.json"), index: index)))
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

    @Test func transfersGoOnWhileConversionsWait() throws {
        let files = try addDocuments(6)
        let worked = try run("farm", ["work", "--exit-when-idle", "--spool", spoolPath], timeout: 180)
        #expect(worked.status == 0, "\(worked.error)")

        let spool = try Spool(root: spoolPath)
        try expectAllDoneWithOutputs(spool, files)
        #expect(origin.requests.map(\.path).sorted() == files.map(\.path).sorted(), "one request per resource")
        // Completed after the last request arrived: with conversions inline, only the last job could be
        // (each transfer waited for the conversion before it); here the transfers ran ahead of them.
        let lastRequest = try #require(origin.requests.map(\.arrived).max())
        let toMonotonic = Clock.monotonic() - Clock.wall()
        let done = spool.done + "/" + ListID.of(name: "Docs.json")
        let completions = try FileManager.default.contentsOfDirectory(atPath: done).map { name in
            var st = stat()
            #expect(lstat(done + "/" + name, &st) == 0)
            return Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec) / 1e9 + toMonotonic
        }
        let after = completions.filter { $0 > lastRequest }.count
        #expect(after >= 2, "\(after) job(s) completed after the last request")
        origin.stop()
    }

    @Test func aWorkerKilledWithConversionsWaitingLosesNothing() throws {
        let files = try addDocuments(10)
        let spool = try Spool(root: spoolPath)
        let first = try ChildProcess("farm", ["work", "--spool", spoolPath, "--lease", "1", "--transfers", "1"])
        // Several claims at once: the one transferring and stored ones waiting for the converter.
        let holding = poll(timeout: 60, every: 0.01) { spool.activeJobs().count >= 3 }
        first.kill(SIGKILL)
        first.wait()
        try #require(holding, "the worker never held several claims")

        // Each stored download waiting for its conversion says so, since it was queued (but the one
        // transferring, and one the kill may have caught between its store and its sidecar).
        let claimed = spool.activeJobs()
        let waiting = claimed.compactMap { spool.sidecar($0.job, finished: []) }
            .filter { $0.status == .rendering || $0.status == .unzipping }
        #expect(waiting.count >= claimed.count - 2, "\(claimed.count) claims, \(waiting.count) waiting")
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
