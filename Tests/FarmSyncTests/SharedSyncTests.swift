import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// Sync and download once together (SPEC §7): a URL shared by lists is revalidated in each, its new bytes
/// become the URL's result, and the old bytes' blob does not outlive its last name.
@Suite struct SharedSyncTests {
    @Test func aURLSharedByTwoListsIsSyncedInBothAndItsNewBytesServeTheNextList() throws {
        let books = try SyncFarm()
        let path = books.serve("s", seed: 1)
        try books.farm.must(["add", try books.write("A.json", [(id: "a", path: path)])])
        try books.farm.must(["add", try books.write("B.json", [(id: "b", path: path)])])
        try books.farm.start(workers: 2)
        #expect(books.waitDone("A.json", count: 1) && books.waitDone("B.json", count: 1))
        #expect(books.origin.served(path).bodies == 1, "one transfer for both lists")
        let shared = try [books.row("A.json", id: "a"), books.row("B.json", id: "b")].map { $0?.shared }
        #expect(shared.filter { $0 == true }.count == 1, "\(shared)")

        books.serve("s", seed: 2)
        books.origin.clearRequests()
        let sync = try books.farm.farm(["sync", "--all"])
        #expect(sync.status == 0, "\(sync.error)")
        #expect(sync.output.split(separator: "\n").sorted() == [
            "A.json: added 0, removed 0, changed 1, unchanged 0", "B.json: added 0, removed 0, changed 1, unchanged 0",
        ], "the shared one has its URL's validators, so it is revalidated too")
        #expect(try books.check("A.json", against: [(id: "a", path: path)]) == nil)
        #expect(try books.check("B.json", against: [(id: "b", path: path)]) == nil)
        // An empty file is the marker a collected blob of a compared size leaves (FarmDedup's BlobSlots.swift).
        let blobs = try FileManager.default.contentsOfDirectory(atPath: books.spool.blobs).filter {
            !$0.hasSuffix(".urls") && (try? FileManager.default.attributesOfItem(atPath: books.spool.blobs + "/" + $0)[.size] as? Int) != 0
        }
        #expect(blobs.count == 1, "the old bytes' blob went with their last name: \(blobs)")

        // The URL's result is now the new bytes: a third list is served them with no transfer.
        books.origin.clearRequests()
        try books.farm.must(["add", try books.write("C.json", [(id: "c", path: path)])])
        #expect(books.waitDone("C.json", count: 1))
        #expect(try books.check("C.json", against: [(id: "c", path: path)]) == nil)
        #expect(books.origin.requests(for: path).isEmpty)
        let fsck = try books.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }
}
