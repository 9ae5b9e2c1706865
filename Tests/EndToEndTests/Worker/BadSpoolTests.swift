import FarmSpool
import FarmTestSupport
import FarmZip
import Foundation
import Testing

/// SPEC §5, the rows about what reaches the spool: refused manifests enqueue nothing, and a corrupt or
/// foreign file in the queue is set aside while the worker goes on. Real `farm add` and `farm work` processes.
@Suite struct BadSpoolTests {
    @Test func refusedManifestsSayWhichFileAndWhyAndEnqueueNothing() throws {
        let h = try BadInputHarness()
        let shapeless = h.dir.appending("Shapeless.json")
        try Data(#"{"pictures": ["http://127.0.0.1:1/a.jpg"]}"#.utf8).write(to: URL(fileURLWithPath: shapeless))
        let malformed = h.dir.appending("Malformed.json")
        try Data("[\"http://127.0.0.1:1/a.jpg\",\n  nope]".utf8).write(to: URL(fileURLWithPath: malformed))
        let empty = h.dir.appending("Empty.zip")
        try ZipWriter(path: empty).close()
        let notJSON = h.dir.appending("NotJSON.zip")
        try ZipWriter.write(path: notJSON, entries: [("readme.txt", Array("no lists".utf8))])

        for manifest in [shapeless, malformed, empty, notJSON] {
            let name = (manifest as NSString).lastPathComponent
            let added = try h.farm(["add", manifest])
            #expect(added.status != 0, "\(name) was accepted")
            let message = added.error.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(message.split(separator: "\n").count == 1, "\(name): \(added.error)")
            #expect(message.contains(name), "\(name): \(added.error)")
        }
        let spool = try h.spool()
        #expect(SpoolFixtures.counts(spool).isEmpty)
        #expect(spool.lists.ids().isEmpty)
    }

    @Test func corruptAndForeignFilesInTheQueueAreSetAsideAndTheWorkerGoesOn() throws {
        let h = try BadInputHarness()
        let good = try h.add([])
        let spool = try h.spool()
        let batches = try FileManager.default.contentsOfDirectory(atPath: spool.queue).filter { !$0.hasPrefix(".") }
        let shard = spool.queue + "/" + (try #require(batches.first)) + "/s000000"
        let garbled = JobName(list: h.list, index: 7).raw
        try Data("{\"url\": tru".utf8).write(to: URL(fileURLWithPath: shard + "/" + garbled))
        try Data("hello".utf8).write(to: URL(fileURLWithPath: shard + "/notes.txt"))

        try h.work()

        let corrupt = SpoolFixtures.corruptFiles(spool)
        #expect(corrupt.count == 2, "\(corrupt)")
        #expect(corrupt.contains { $0.hasPrefix(garbled) })
        #expect(corrupt.contains { $0.hasPrefix("notes.txt") })
        let log = SpoolFixtures.log(spool)
        #expect(log.contains(garbled) && log.contains("notes.txt"), "\(log)")
        try h.expectGoodDone(good)
    }
}
