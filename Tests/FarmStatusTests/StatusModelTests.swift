import FarmDesired
import FarmJSON
@testable import FarmStatus
import FarmManifest
import FarmSpool
import FarmSystem
import Foundation
import Testing

/// The rules of SPEC §4 on values alone: list states, resource texts, the JSON shape.
@Suite struct StatusModelTests {
    @Test func listStateFollowsTheCounts() {
        func state(_ total: Int, active: Int = 0, done: Int = 0, failed: Int = 0) -> ListStatus {
            ListStatus(id: "0123456789abcdef", name: "L", total: total, active: active, done: done, failed: failed)
        }
        #expect(state(10).state == .queuing)
        #expect(state(10).queued == 10)
        #expect(state(10, active: 1).state == .downloading)
        #expect(state(10, failed: 1).state == .downloading)
        #expect(state(10, active: 2, done: 3).queued == 5)
        #expect(state(10, active: 2, done: 3).progress == 0.3)
        #expect(state(10, done: 7, failed: 3).state == .finished)
        #expect(state(10, done: 7, failed: 3).progress == 0.7)
        #expect(state(0).state == .finished)
        #expect(state(3, active: 2, done: 2).queued == 0)  // never negative, even mid-move
    }

    @Test func resourceTextIsTheAppsWording() {
        #expect(ResourceStatus.text(.queued, bytes: 0, size: nil) == "Queueing")
        #expect(ResourceStatus.text(.downloading, bytes: 4500, size: 10000) == "Downloading 45%")
        #expect(ResourceStatus.text(.downloading, bytes: 4500, size: nil) == "Downloading 0%")
        #expect(ResourceStatus.text(.downloading, bytes: 0, size: 0) == "Downloading 0%")
        #expect(ResourceStatus.text(.downloading, bytes: 20, size: 10) == "Downloading 100%")
        #expect(ResourceStatus.text(.unzipping, bytes: 1, size: 1) == "Unzipping")
        #expect(ResourceStatus.text(.rendering, bytes: 1, size: 1) == "Rendering")
        #expect(ResourceStatus.text(.done, bytes: 1, size: 1) == "Done")
        #expect(ResourceStatus.text(.error, bytes: 0, size: nil) == "Error")
    }

    @Test func jsonHasEveryKeyWithExplicitNulls() throws {
        let resource = ResourceStatus(index: 0, id: "a", url: "https://x/a.pdf", status: .downloading, bytes: 4500,
                                      size: 10000, attempts: 1, changed: "2026-11-22T10:00:00.100Z")
        let list = ListStatus(id: "0123456789abcdef", name: "Set 1.json", total: 10, active: 2, done: 3, failed: 0,
                              resources: [resource])
        let json = String(decoding: JSON.encode(list), as: UTF8.self)
        for key in ["kind", "file", "image", "thumb", "error"] {
            #expect(json.contains("\"\(key)\":null"), "\(key) missing in \(json)")
        }
        #expect(json.contains("\"text\":\"Downloading 45%\""))
        #expect(json.contains("\"url\":\"https://x/a.pdf\""))  // slashes not escaped
        #expect(JSON.decode(ListStatus.self, from: JSON.encode(list)) == list)

        let document = StatusDocument(updated: "2026-11-22T10:00:00.120Z", paused: false,
                                      workers: Workers(desired: 6, running: 6), lists: [list])
        func keys(_ value: JSONValue?) -> [String] {
            guard case .object(let members)? = value else { return [] }
            return members.map(\.key)
        }
        let object = try JSONParser.parse(JSON.encode(document))
        // Sorted, as every document farm writes.
        #expect(keys(object) == ["disk", "lists", "paused", "pausedBy", "updated", "workers"])
        guard case .array(let lists)? = object["lists"] else { throw StatusError(.io, "no lists") }
        #expect(keys(lists.first) == ["active", "done", "failed", "id", "name", "progress", "queued", "resources",
                                      "state", "total"])
        // The summary leaves resources out: it must stay small.
        let summary = ListStatus(id: "0123456789abcdef", name: "Set 1.json", total: 10, active: 0, done: 0, failed: 0)
        #expect(!String(decoding: JSON.encode(summary), as: UTF8.self).contains("resources"))
    }

    @Test func aPagedListShowsItsPagesAndIsNotFinishedBeforeItsLastPage() throws {
        var resource = ResourceStatus(index: 0, id: "b0", url: "https://x/a.jpg", status: .done, bytes: 1, size: 1,
                                      attempts: 1, changed: "t")
        resource.title = "Dune"
        resource.labelled = true
        let paging = Paging(fetched: 2, done: false, skipped: 1, title: "Books", showsTitle: true, showsCover: true)
        let list = ListStatus(id: "0123456789abcdef", name: "Books", total: 1, active: 0, done: 1, failed: 0,
                              resources: [resource], paging: paging)
        #expect(list.state == .downloading, "every resource done, but pages are still to come")
        var last = paging
        last.done = true
        #expect(ListStatus(id: "0123456789abcdef", name: "Books", total: 1, active: 0, done: 1, failed: 0,
                           paging: last).state == .finished)
        let object = try JSONParser.parse(JSON.encode(list))
        guard case .object(let members) = object else { throw StatusError(.io, "not an object") }
        #expect(members.map(\.key) == ["active", "cover", "done", "error", "failed", "id", "name", "pages", "progress",
                                       "queued", "resources", "state", "title", "total"])
        #expect(String(decoding: JSON.encode(list), as: UTF8.self)
            .contains(#""pages":{"done":false,"fetched":2,"skipped":1}"#))
        #expect(JSON.decode(ListStatus.self, from: JSON.encode(list)) == list)
        let json = String(decoding: JSON.encode(resource), as: UTF8.self)
        #expect(json.contains(#""caption":null"#) && json.contains(#""title":"Dune""#))
        // Without --list-title and --list-cover, no title nor cover.
        let plain = ListStatus(id: "0123456789abcdef", name: "Books", total: 1, active: 0, done: 1, failed: 0,
                               paging: Paging(fetched: 1, done: true, error: "page 2: HTTP 404"))
        let text = String(decoding: JSON.encode(plain), as: UTF8.self)
        #expect(!text.contains("title") && !text.contains("cover") && text.contains(#""error":"page 2: HTTP 404""#))
        #expect(JSON.decode(ListStatus.self, from: JSON.encode(plain)) == plain)
    }

    @Test func pausedBySaysWhoAndTheDiskItsRoom() throws {
        let workers = Workers(desired: 2, running: 2)
        let room = DiskRoom(free: 3 << 20, minFree: 6 << 20)
        let byDisk = StatusScan.document(records: [:], jobs: [:], workers: workers, paused: false, disk: room,
                                         updated: "t")
        #expect(byDisk.paused && byDisk.pausedBy == .disk && byDisk.disk == room)
        #expect(String(decoding: JSON.encode(byDisk), as: UTF8.self).contains(#""pausedBy":"disk""#))
        #expect(JSON.decode(StatusDocument.self, from: JSON.encode(byDisk)) == byDisk)
        #expect(StatusText.summary(byDisk).contains("paused by the disk: 3.0 MiB free on the spool's file system, "
            + "under the 6.0 MiB minimum"))
        // The user's pause wins; room enough is no pause.
        let both = StatusScan.document(records: [:], jobs: [:], workers: workers, paused: true, disk: room,
                                       updated: "t")
        #expect(both.pausedBy == .user && StatusText.diskPause(both) == nil)
        let roomy = StatusScan.document(records: [:], jobs: [:], workers: workers, paused: false,
                                        disk: DiskRoom(free: 6 << 20, minFree: 6 << 20), updated: "t")
        #expect(!roomy.paused && roomy.pausedBy == nil)
        #expect(String(decoding: JSON.encode(roomy), as: UTF8.self).contains(#""pausedBy":null"#))
        // A summary without `pausedBy` and `disk`: paused was the user's.
        let old = #"{"lists":[],"paused":true,"updated":"t","workers":{"desired":1,"running":1,"transfers":1}}"#
        let read = try #require(JSON.decode(StatusDocument.self, from: Array(old.utf8)))
        #expect(read.pausedBy == .user && read.disk == nil)
        #expect(StatusText.size(512) == "512 B" && StatusText.size(1 << 30) == "1.0 GiB")
    }

    @Test func namesSortNaturally() {
        let names = ["Set 10.json", "set 2.json", "Set 1.json", "Alpha.json", "Set 02.json", "Set 1b.json"]
        #expect(names.sorted(by: NaturalOrder.areInIncreasingOrder)
            == ["Alpha.json", "Set 1.json", "Set 1b.json", "Set 02.json", "set 2.json", "Set 10.json"])
    }

    @Test func jobSetsAbsorbRepeatedEvents() {
        var set = JobSet()
        #expect(set.insert(5) && !set.insert(5))
        #expect(set.insert(1_000) && set.insert(1 << 40))  // an absurd index does not allocate a bitmap for it
        #expect(set.count == 3 && set.contains(1 << 40))
        #expect(set.remove(5) && !set.remove(5) && !set.remove(7) && !set.remove(-1))
        #expect(set.count == 2)
    }
}
