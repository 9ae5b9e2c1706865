import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmSync
import FarmTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// `farm sync` (SPEC §7): real processes, a real origin counting what it served, bytes checked on disk.
@Suite struct SyncTests {
    /// Twelve resources, all done; then the source gains 3, loses 1, changes the bytes of 2 and the URL of 1.
    private func changedBooks(_ books: SyncFarm) throws -> [(id: String, path: String)] {
        let first = (0..<12).map { n in (id: "r\(n)", path: books.serve("\(n)", seed: n)) }
        try books.farm.must(["add", try books.write("Books.json", first)])
        try books.farm.start(workers: 2)
        #expect(books.waitDone("Books.json", count: 12))

        var items = first
        items.remove(at: 5)  // r5
        books.origin.remove(path: "/r/5.png")
        books.serve("2", seed: 1002)
        books.serve("3", seed: 1003)
        items[6] = (id: "r7", path: books.serve("7b", seed: 1007))  // r7, at index 6 once r5 is gone
        items.insert((id: "r12", path: books.serve("12", seed: 12)), at: 0)
        items.insert((id: "r13", path: books.serve("13", seed: 13)), at: 6)
        items.append((id: "r14", path: books.serve("14", seed: 14)))
        try books.write("Books.json", items)
        return items
    }

    @Test func addedRemovedChangedAndUnchangedAreCountedByWhatTheOriginServed() throws {
        let books = try SyncFarm()
        let items = try changedBooks(books)
        let removedFile = try #require(try books.row("Books.json", id: "r5")?.file)
        let watched = try ["r2", "r3"].map { try #require(try books.row("Books.json", id: $0)?.image) }
        books.origin.clearRequests()

        // The old images stay visible until the new ones are in place: never missing meanwhile.
        let stop = Atomic<Bool>(false), looks = Atomic<Int>(0), missing = Atomic<Int>(0)
        let poller = Thread {
            while !stop.load(ordering: .relaxed) {
                for path in watched where access(path, F_OK) != 0 { missing.add(1, ordering: .relaxed) }
                looks.add(1, ordering: .relaxed)
            }
        }
        poller.start()
        let sync = try books.farm.farm(["sync", "Books.json"])
        stop.store(true, ordering: .relaxed)
        #expect(sync.status == 0, "\(sync.error)")
        #expect(sync.output == "Books.json: added 3, removed 1, changed 3, unchanged 8\n")
        #expect(looks.load(ordering: .relaxed) > 10 && missing.load(ordering: .relaxed) == 0)

        #expect(books.waitDone("Books.json", count: 14))
        #expect(try books.check("Books.json", against: items) == nil)
        #expect(!FileManager.default.fileExists(atPath: removedFile), "a removed resource leaves no file")
        // Bodies for the added (fetched by the workers), the changed and the moved ones only; 304 for the rest.
        for path in ["/r/12.png", "/r/13.png", "/r/14.png", "/r/2.png", "/r/3.png", "/r/7b.png"] {
            #expect(books.origin.served(path) == ServedCounts(bodies: 1, notModified: 0, bodyBytes: 1200), "\(path)")
        }
        for n in [0, 1, 4, 6, 8, 9, 10, 11] {
            #expect(books.origin.served("/r/\(n).png") == ServedCounts(notModified: 1), "/r/\(n).png")
        }
        #expect(books.origin.requests(for: "/r/5.png").isEmpty && books.origin.requests(for: "/r/7.png").isEmpty)

        books.origin.clearRequests()
        let again = try books.farm.farm(["sync", "Books.json", "--json"])
        #expect(again.status == 0, "\(again.error)")
        let counts = try JSONParser.parse(Array(again.output.utf8))
        let report = try SyncReport(json: counts)
        var settled = SyncReport(list: "Books.json")
        settled.unchanged = 14
        #expect(report == settled)
        if case .object(let members) = counts { #expect(members.count == 5, "\(members.map(\.key))") }
        #expect(books.origin.servedCounts == ServedCounts(notModified: 14), "a second sync moves no body")
        let fsck = try books.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }

    /// Syncs killed with SIGKILL at random points, then one run to its end: the state an uninterrupted sync
    /// reaches (every resource of the source, in its order, holding what the origin serves now, nothing
    /// else on disk), and the export is the source.
    @Test func aSyncKilledAtRandomPointsAndRunAgainEndsWhereOneUninterruptedSyncEnds() throws {
        let books = try SyncFarm()
        let items = try changedBooks(books)
        // More changed bytes, served slowly, so that kills land while their bodies arrive and are put in place.
        for n in [0, 1, 4, 8, 9] {
            books.serve("\(n)", seed: 2000 + n, size: 6000)
            books.origin.inject(.throttle(bytesPerSecond: 4_000), at: "/r/\(n).png")
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let child = try ChildProcess("farm", ["sync", "Books.json", "--spool", books.spool.root])
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...1.5, using: &generator))
            child.kill(SIGKILL)
            _ = child.wait(timeout: 10)
        }
        let last = try books.farm.farm(["sync", "Books.json"])
        #expect(last.status == 0, "\(last.error)")
        #expect(books.waitDone("Books.json", count: 14))
        let settled = try books.farm.farm(["sync", "Books.json"])
        #expect(settled.output == "Books.json: added 0, removed 0, changed 0, unchanged 14\n", "\(settled.error)")
        #expect(try books.check("Books.json", against: items) == nil)
        let export = try books.farm.must(["export", "Books.json"])
        #expect(try JSONParser.parse(Array(export.utf8)) == books.document(items))
        let stages = ((try? FileManager.default.contentsOfDirectory(atPath: books.spool.tmp)) ?? []).filter {
            $0.hasPrefix("sync-")
        }
        #expect(stages.isEmpty, "stages left: \(stages)")
        let fsck = try books.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }

    /// A source gone (a 404, a missing file) is one line naming the list, a non-zero exit, and nothing
    /// changed; with --all the other lists are synced all the same.
    @Test func aSourceGoneIsOneLineAndChangesNothing() throws {
        let books = try SyncFarm()
        let items = (0..<4).map { n in (id: "g\(n)", path: books.serve("g\(n)", seed: 300 + n)) }
        books.origin.serve(path: "/m/Gone.json", bytes: [UInt8](try books.manifest(items)))
        try books.farm.must(["add", books.origin.url(for: "/m/Gone.json")])
        let local = (0..<3).map { n in (id: "l\(n)", path: books.serve("l\(n)", seed: 400 + n)) }
        let localPath = try books.write("Local.json", local)
        try books.farm.must(["add", localPath])
        try books.farm.start(workers: 2)
        #expect(books.waitDone("Gone.json", count: 4) && books.waitDone("Local.json", count: 3))
        let before = try books.rows("Gone.json")

        books.origin.remove(path: "/m/Gone.json")
        let gone = try books.farm.farm(["sync", "Gone.json"])
        #expect(gone.status != 0 && gone.output.isEmpty)
        #expect(gone.error.split(separator: "\n").count == 1 && gone.error.contains("Gone.json") && gone.error.contains("404"),
                "\(gone.error)")
        #expect(try books.rows("Gone.json") == before)
        #expect(try books.check("Gone.json", against: items) == nil)

        // --all: the local list is synced from its file, the other fails on its own line.
        try books.write("Local.json", local + [(id: "l3", path: books.serve("l3", seed: 403))])
        let all = try books.farm.farm(["sync", "--all"])
        #expect(all.status == 1)
        #expect(all.output == "Local.json: added 1, removed 0, changed 0, unchanged 3\n", "\(all.error)")
        #expect(all.error.split(separator: "\n").count == 1 && all.error.contains("Gone.json"))

        try FileManager.default.removeItem(atPath: localPath)
        let missing = try books.farm.farm(["sync", "Local.json"])
        #expect(missing.status != 0 && missing.error.split(separator: "\n").count == 1
                    && missing.error.contains("Local.json"), "\(missing.error)")
        #expect(books.waitDone("Local.json", count: 4))
    }

    /// A source without ids is matched by URL, each occurrence on its own: a URL twice in the list and once
    /// in its source is one resource kept (the first) and one removed.
    @Test func aURLTwiceInAListAndOnceInItsSourceIsOneResourceRemoved() throws {
        let books = try SyncFarm()
        let paths = ["a", "b", "c"].map { books.serve($0, seed: Int($0.unicodeScalars.first!.value)) }
        func write(_ order: [Int]) throws -> String {
            let urls = order.map { #"{"url":"\#(books.origin.url(for: paths[$0]))"}"# }
            let path = books.farm.dir.appending("Twice.json")
            try Data("[\(urls.joined(separator: ","))]".utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        try books.farm.must(["add", try write([0, 1, 0, 2])])
        try books.farm.start(workers: 2)
        #expect(books.waitDone("Twice.json", count: 4))
        let first = try #require(try books.rows("Twice.json").first)

        _ = try write([0, 1, 2])
        let sync = try books.farm.farm(["sync", "Twice.json"])
        #expect(sync.status == 0, "\(sync.error)")
        #expect(sync.output == "Twice.json: added 0, removed 1, changed 0, unchanged 3\n")
        let rows = try books.rows("Twice.json")
        #expect(rows.map(\.url) == paths.map { books.origin.url(for: $0) })
        #expect(rows.first?.id == first.id, "the first occurrence is the one kept")

        _ = try write([0, 1, 2, 0])
        let again = try books.farm.farm(["sync", "Twice.json"])
        #expect(again.output == "Twice.json: added 1, removed 0, changed 0, unchanged 3\n", "\(again.error)")
        #expect(books.waitDone("Twice.json", count: 4))
        let fsck = try books.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }

    /// A paged list is synced from every page of its API; one still being followed is refused (exit 2).
    @Test func aPagedListIsSyncedFromEveryPage() throws {
        let books = try SyncFarm()
        func item(_ n: Int) -> JSONValue {
            PagedAPI.item(id: "p\(n)", url: books.origin.url(for: "/r/p\(n).png"), title: "Page item \(n)")
        }
        for n in 0..<7 { books.serve("p\(n)", seed: 500 + n) }
        books.origin.servePages(at: "/api/Shelf", pages: PagedAPI.pages((0..<6).map(item), perPage: 2))
        let options = ["--items", "/consumables", "--url", "/metadata/cover/url", "--id", "/id",
                       "--title", "/metadata/title", "--next", "/nextPage"]
        try books.farm.must(["add", books.origin.url(for: "/api/Shelf"), "--name", "Shelf"] + options)
        // A second API whose second page takes seconds: still followed when synced.
        books.origin.servePages(at: "/api/Slow", pages: PagedAPI.pages((0..<4).map(item), perPage: 2))
        books.origin.inject(.throttle(bytesPerSecond: 40), at: "/api/Slow?page=2")
        try books.farm.start(workers: 2)
        #expect(books.waitDone("Shelf", count: 6))
        #expect(poll(timeout: 30) { FileManager.default.fileExists(atPath: Lists(books.spool).finishedPageLogPath(ofList: ListID.of(name: "Shelf"))) })

        try books.farm.must(["add", books.origin.url(for: "/api/Slow"), "--name", "Slow"] + options)
        #expect(poll(timeout: 30) { Lists(books.spool).pageState(ofList: ListID.of(name: "Slow"))?.fetched ?? 0 >= 1 })
        let refused = try books.farm.farm(["sync", "Slow"])
        #expect(refused.status == 2 && refused.error.contains("Slow") && refused.error.contains("followed"),
                "\(refused.error)")

        // p1 gone, p6 new (at the end), p2's bytes changed.
        books.serve("p2", seed: 1502)
        books.origin.servePages(at: "/api/Shelf", pages: PagedAPI.pages([0, 2, 3, 4, 5, 6].map(item), perPage: 2))
        let sync = try books.farm.farm(["sync", "Shelf"])
        #expect(sync.output == "Shelf: added 1, removed 1, changed 1, unchanged 4\n", "\(sync.error)")
        #expect(books.waitDone("Shelf", count: 6))
        #expect(try books.check("Shelf", against: [0, 2, 3, 4, 5, 6].map { (id: "p\($0)", path: "/r/p\($0).png") }) == nil)
        let added = try books.row("Shelf", id: "p6")
        #expect(added?.title == "Page item 6")
    }
}
