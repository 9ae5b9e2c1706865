import FarmLists
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

    private func farm(_ spool: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try run("farm", arguments + ["--spool", spool])
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
        let names = spool.listIDs().compactMap { spool.list($0)?.name }.sorted()
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
        #expect(spool.listIDs().isEmpty)

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
        for id in spool.listIDs() {
            let total = try #require(spool.list(id)).total
            #expect(spool.inventory().filter { $0.job.list == id }.count == total)
        }

        let again = try farm(spoolPath, ["add", manifest])
        #expect(again.status == 0, "\(again.error)")
        #expect(SpoolFixtures.counts(spool) == [.queued: 6])
        #expect(spool.listIDs().count == 3)
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
    }
}
