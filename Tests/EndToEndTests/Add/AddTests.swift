import FarmFixtures
import FarmLists
import FarmOrigin
import FarmSpool
import FarmTestSupport
import FarmZip
import Foundation
import Glibc
import Testing

/// `farm add`, run as a process: what it enqueues, what it refuses, and what a crash leaves.
@Suite struct AddTests {
    /// A manifest zip of three lists in the three shapes of SPEC §1, plus things to skip.
    private func writeManifest(_ path: String) throws {
        let entries: [(name: String, bytes: [UInt8])] = [
            ("lists/Set 1.json", Array(#"["http://127.0.0.1:1/a.jpg", "http://127.0.0.1:1/b.pdf"]"#.utf8)),
            ("lists/deeper/Set 2.json", Array(#"{"items": [{"uuid": "u-1", "imageUrlString": "http://127.0.0.1:1/c.png"}]}"#.utf8)),
            ("Set 3.json", Array(#"[{"url": "http://127.0.0.1:1/d.zip"}, {"url": "ftp://127.0.0.1/e.jpg"}, {"url": "http://127.0.0.1:1/f.jpg"}]"#.utf8)),
            ("__MACOSX/lists/._Set 1.json", [0, 1, 2]),
            ("lists/.hidden.json", Array("not json".utf8)),
        ]
        try ZipWriter.write(path: path, entries: entries)
    }

    private func farm(_ spool: String, _ arguments: [String], input: [UInt8]? = nil) throws
        -> (status: Int32, output: String, error: String) {
        try run("farm", arguments + ["--spool", spool], input: input)
    }

    @Test func addsEveryResourceOnceEvenWhenAddedTwice() throws {
        let dir = TemporaryDirectory()
        let manifest = dir.appending("manifest.zip")
        try writeManifest(manifest)
        let spoolPath = dir.appending("spool")

        let first = try farm(spoolPath, ["add", manifest])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("added 3 list(s), 6 resource(s)"))
        let spool = try Spool(root: spoolPath)
        #expect(SpoolFixtures.counts(spool) == [.queued: 6])
        let names = spool.lists.ids().compactMap { spool.list($0)?.name }.sorted()
        #expect(names == ["Set 1.json", "Set 2.json", "Set 3.json"])

        let again = try farm(spoolPath, ["add", manifest])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.output.contains("already in the spool"))
        #expect(SpoolFixtures.counts(spool) == [.queued: 6])

        // The items shape keeps its uuid as the resource id.
        let set2 = ListID.of(name: "Set 2.json")
        let claimer = Claimer(spool: spool)
        var ids: [String: String] = [:]
        while let claim = try claimer.claim() {
            ids[claim.job.raw] = claim.record.id
            try spool.complete(claim, .done)
        }
        #expect(ids[JobName(list: set2, index: 0).raw] == "u-1")
        #expect(ids.count == 6)
    }

    @Test func refusedManifestEnqueuesNothingAndSaysWhereInOneLine() throws {
        let dir = TemporaryDirectory()
        let manifest = dir.appending("broken.zip")
        try ZipWriter.write(path: manifest, entries: [
            ("Set 1.json", Array(#"["http://127.0.0.1:1/a.jpg"]"#.utf8)),
            ("Set 2.json", Array("[\n  \"http://127.0.0.1:1/b.jpg\",\n  oops\n]".utf8)),
        ])
        let spoolPath = dir.appending("spool")
        let result = try farm(spoolPath, ["add", manifest])
        #expect(result.status != 0)
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1, "\(result.error)")
        #expect(result.error.contains("Set 2.json") && result.error.contains("line 3"), "\(result.error)")
        let spool = try Spool(root: spoolPath)
        #expect(SpoolFixtures.counts(spool).isEmpty)
        #expect(spool.lists.ids().isEmpty)

        let missing = try farm(spoolPath, ["add", dir.appending("nowhere.zip")])
        #expect(missing.status != 0 && missing.error.contains("nowhere.zip"))
    }

    /// `farm add ''` (an unset variable in a script) says what to give, not "Error: : cannot read the
    /// manifest" (issue 66).
    @Test func anEmptySourceIsRefusedWithWhatToGive() throws {
        let dir = TemporaryDirectory()
        let result = try farm(dir.appending("spool"), ["add", ""])
        #expect(result.status == 1, "\(result)")
        #expect(result.error == "Error: the manifest is an empty argument: give a path, an http(s) URL, or - for "
            + "standard input\n", "\(result.error)")
    }

    /// A picture, a PDF or a zip of pictures given to `farm add` in place of a list is told by its first
    /// bytes, in one line that says what it is and what to run instead; not "line 1: not UTF-8 text"
    /// (issue 66).
    @Test func aPictureOrADocumentIsNoListAndTheRefusalSaysWhatToRun() throws {
        let dir = TemporaryDirectory()
        let spoolPath = dir.appending("spool")
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        origin.serve(path: "/photos/b.jpg", bytes: try JPEGFixture.quadrants(width: 16, height: 16))
        let url = origin.url(for: "/photos/b.jpg")
        let fetched = try farm(spoolPath, ["add", url])
        #expect(fetched.status == 2, "\(fetched)")
        #expect(fetched.error == "Error: b.jpg: a JPEG picture, not a list of URLs; to download it: farm get \(url), "
            + "or echo \(url) | farm add -\n", "\(fetched.error)")

        let pdf = dir.appending("report.pdf")
        try Data(PDFFixture.make()).write(to: URL(fileURLWithPath: pdf))
        let zip = dir.appending("holiday.zip")
        try ZipWriter.write(path: zip, entries: [("a.png", StoredPNG.make(width: 2, height: 2) { _ in [0, 0, 0, 9, 9, 9] }),
                                                 ("more/b.JPG", [0xFF, 0xD8, 0xFF, 0xE0])])
        for (file, what) in [(pdf, "report.pdf: a PDF document"), (zip, "holiday.zip: a zip of pictures or documents")] {
            let local = try farm(spoolPath, ["add", file])
            #expect(local.status == 2, "\(local)")
            #expect(local.error.split(separator: "\n").count == 1, "\(local.error)")
            #expect(local.error.hasPrefix("Error: \(what), not "), "\(local.error)")
            #expect(local.error.contains("farm get URL") && local.error.contains("echo URL | farm add -"), "\(local.error)")
        }
        let piped = try farm(spoolPath, ["add", "-"], input: try JPEGFixture.quadrants(width: 8, height: 8))
        #expect(piped.status == 2 && piped.error.contains("a JPEG picture, not a list of URLs"), "\(piped)")
        #expect(try Spool(root: spoolPath).lists.ids().isEmpty, "nothing added")
    }

    @Test(arguments: ["add.staging@3", "add.committed", "add.published-list@1"])
    func addKilledHalfWayIsFinishedByRunningItAgain(failpoint: String) throws {
        let dir = TemporaryDirectory()
        let manifest = dir.appending("manifest.zip")
        try writeManifest(manifest)
        let spoolPath = dir.appending("spool")
        // farm-probe's add is farm add's own code (Control.add), with the crash point armed.
        let killed = try run("farm-probe", ["add", manifest, "--spool", spoolPath],
                             environment: ["FARM_FAILPOINT": failpoint])
        #expect(killed.status == SIGKILL)
        let spool = try Spool(root: spoolPath)
        // Whatever lists are visible have all their jobs.
        for id in spool.lists.ids() {
            let total = try #require(spool.list(id)).total
            #expect(spool.inventory().filter { $0.job.list == id }.count == total)
        }

        let again = try farm(spoolPath, ["add", manifest])
        #expect(again.status == 0, "\(again.error)")
        #expect(SpoolFixtures.counts(spool) == [.queued: 6])
        #expect(spool.lists.ids().count == 3)
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
    }
}
