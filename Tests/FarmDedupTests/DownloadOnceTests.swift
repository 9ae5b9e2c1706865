import FarmDedup
import FarmFixtures
import FarmFsck
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import FarmZip
import Foundation
import Glibc
import Testing

/// Download once (SPEC §7): within a spool a URL is transferred at most once while its result is
/// valid, equal bytes are stored once, and `--fresh` and `reload` download again. Real farms, a real
/// origin on 127.0.0.1, bytes checked on disk, counted by what the origin served.
@Suite(.serialized) struct DownloadOnceTests {
    /// A small PNG whose bytes differ for every `n` (and `salt`).
    private static func picture(_ n: Int, salt: Int = 0) -> [UInt8] {
        StoredPNG.make(width: 4, height: 2) { y in
            [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(truncatingIfNeeded: salt)]
                + (0..<9).map { UInt8(truncatingIfNeeded: n &* 7 &+ $0 &* 13 &+ y) }
        }
    }

    /// Writes `urls` as the JSON list `<name>.json` and adds it (with `extra` arguments).
    private func add(_ farm: RunningFarm, _ name: String, _ urls: [String], _ extra: [String] = []) throws {
        let manifest = farm.dir.appending(name + ".json")
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest] + extra)
    }

    private func resources(_ farm: RunningFarm, _ list: String) throws -> [ResourceStatus] {
        let output = try farm.must(["status", list, "--json"])
        let document = try #require(JSON.decode(ListStatus.self, from: Array(output.utf8)), "\(output)")
        return try #require(document.resources)
    }

    private func fileSize(_ path: String) -> Int? {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : nil
    }

    private func inode(_ path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    /// The entries of blobs/ that are blobs (not their URL lists, nor the empty markers collected blobs of
    /// a compared size leave: FarmDedup's BlobSlots.swift), and of urls/ that are records.
    private func stored(_ farm: RunningFarm) -> (blobs: [String], records: [String]) {
        let blobs = ((try? FileManager.default.contentsOfDirectory(atPath: farm.spool.blobs)) ?? []).filter {
            !$0.contains(".") && fileSize(farm.spool.blobs + "/" + $0) != 0
        }
        let records = ((try? FileManager.default.contentsOfDirectory(atPath: farm.spool.urls)) ?? []).filter { !$0.contains(".") }
        return (blobs, records)
    }

    /// The SHA-256 of the file at `path`, as coreutils' sha256sum tells it.
    private func quickDigest(_ path: String) throws -> String {
        var digest = QuickDigest()
        try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { digest.update($0) }
        return digest.finalize()
    }

    private func sha256sum(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output.prefix(64), as: UTF8.self)
    }

    private func expectClean(_ farm: RunningFarm) throws {
        let report = try SpoolCheck(farm.spool).run()
        #expect(report.isClean, "fsck: \(report.findings)")
    }

    /// Every output of `list` is there and holds the bytes its URL's path serves.
    private func expectOutputs(_ farm: RunningFarm, _ list: String, _ bodies: [String: [UInt8]]) throws -> Int {
        var shared = 0
        for row in try resources(farm, list) {
            let url = row.url
            let path = String(url.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
            let file = try #require(row.file, "\(row)")
            #expect(FileManager.default.contents(atPath: file).map([UInt8].init) == bodies[path], "\(file)")
            if row.shared { shared += 1 }
        }
        return shared
    }

    /// The measurement of issue 22: a zip of 2 lists × 2,000 resources, every URL in both lists,
    /// 6 workers: all done with the origin's bytes, and each URL served exactly once.
    @Test func aManifestWhoseEveryURLIsInTwoListsIsServedOncePerURL() throws {
        let farm = try RunningFarm()
        let count = 2_000
        var bodies: [String: [UInt8]] = [:]
        var urls: [String] = []
        for n in 0..<count {
            let path = "/pic/\(n).png"
            bodies[path] = Self.picture(n)
            farm.origin.serve(path: path, bytes: bodies[path]!, contentType: "image/png")
            urls.append(farm.origin.url(for: path))
        }
        let manifest = farm.dir.appending("Twice.zip")
        try ZipWriter.write(path: manifest, entries: [
            ("lists/First.json", JSON.encode(urls)),
            ("lists/Second.json", JSON.encode(Array(urls.reversed()))),
        ])
        try farm.must(["add", manifest])
        let started = Date()
        try farm.start(workers: 6)
        #expect(farm.waitUntilAllDone(2 * count, timeout: 600))
        let seconds = Date().timeIntervalSince(started)
        let served = Dictionary(grouping: farm.origin.requests, by: \.path).mapValues(\.count)
        #expect(served.count == count)
        #expect(served.values.allSatisfy { $0 == 1 }, "\(served.filter { $0.value != 1 }.prefix(5))")
        let shared = try expectOutputs(farm, "First", bodies) + expectOutputs(farm, "Second", bodies)
        #expect(shared == count)
        print("download once: \(2 * count) resources of \(count) URLs in \(String(format: "%.1f", seconds)) s, "
              + "\(farm.origin.requests.count) requests, \(farm.origin.bytesServed) body bytes served, "
              + "\(shared) shared, \(stored(farm).blobs.count) blobs")
        try expectClean(farm)
    }

    /// One URL twice in a list and added again later: one transfer. Two URLs with equal bytes: one
    /// blob, and their outputs are one inode.
    @Test func aURLTwiceOrAddedAgainIsNotTransferredAgainAndEqualBytesAreStoredOnce() throws {
        let farm = try RunningFarm()
        let twin = Self.picture(7, salt: 1)
        let bodies = ["/a.png": Self.picture(1), "/b.png": twin, "/c.png": twin]
        for (path, body) in bodies { farm.origin.serve(path: path, bytes: body, contentType: "image/png") }
        let (a, b, c) = (farm.origin.url(for: "/a.png"), farm.origin.url(for: "/b.png"), farm.origin.url(for: "/c.png"))
        try add(farm, "Dup", [a, a, b, c])
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(4))
        #expect(farm.origin.requests(for: "/a.png").count == 1)
        #expect(farm.origin.requests(for: "/b.png").count == 1)
        #expect(farm.origin.requests(for: "/c.png").count == 1)
        let rows = try resources(farm, "Dup")
        let files = rows.compactMap(\.file)
        #expect(files.count == 4)
        #expect(inode(files[2]) != nil && inode(files[2]) == inode(files[3]), "equal bytes, one inode")
        #expect(inode(files[0]) == inode(files[1]))
        #expect(stored(farm).blobs.count == 2, "\(stored(farm))")
        // Small bytes are named by their size and QuickDigest at once (hashed as they were written); a SHA-256
        // is paid only for the twin that met its equal there, and kept on the stored copy.
        let named = { (file: String) throws in "s\(try #require(fileSize(file)))-\(try quickDigest(file))" }
        #expect(try Set(stored(farm).blobs) == Set([named(files[0]), named(files[2])]))
        let kept = { (file: String) in
            (try? FileSystem.attribute(farm.spool.blobs + "/" + named(file), "user.farm.sha256")).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(kept(files[0]) == nil, "bytes met by no other of their size: no SHA-256")
        #expect(try kept(files[2]) == sha256sum(files[2]))
        #expect(rows.filter(\.shared).count == 1)
        _ = try expectOutputs(farm, "Dup", bodies)

        try add(farm, "Again", [c, a])
        #expect(farm.waitUntilAllDone(6))
        #expect(farm.origin.requests.count == 3, "\(farm.origin.requests)")
        #expect(try resources(farm, "Again").allSatisfy(\.shared))
        _ = try expectOutputs(farm, "Again", bodies)
        try expectClean(farm)
    }

    /// Equal bytes are found by size first (SPEC §13): a download of a size nobody stored is hashed not at
    /// all, one of a size stored already is told apart by its first and last 64 KiB, and only one that
    /// shares those too is hashed whole. Equal bytes still end as one inode, under every URL, and still
    /// after the first of their size has gone (its slot keeps a marker, so the walk is the same).
    @Test func equalSizesAreComparedAndOnlyEqualSamplesAreHashedWhole() throws {
        let farm = try RunningFarm()
        let size = 400 << 10
        // The kind is told by the first bytes; the rest is whatever each case needs (no conversion).
        let base = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (8..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        var endDiffers = base
        endDiffers[size - 10] ^= 0xFF
        var middleDiffers = base
        middleDiffers[size / 2] ^= 0xFF
        var otherMiddle = base
        otherMiddle[size / 3] ^= 0xFF
        let bodies = ["/base.png": base, "/end.png": endDiffers, "/middle.png": middleDiffers, "/other.png": otherMiddle,
                      "/twin.png": otherMiddle, "/late.png": endDiffers]
        for (path, body) in bodies { farm.origin.serve(path: path, bytes: body, contentType: "image/png") }
        try farm.must(["start", "--workers", "1", "--lease", "3", "--no-convert"])
        _ = farm.processes()
        func added(_ list: String, _ path: String, total: Int) throws -> String {
            try add(farm, list, [farm.origin.url(for: path)])
            #expect(farm.waitUntilAllDone(total, timeout: 60))
            return try #require(resources(farm, list).first?.file)
        }
        func hashedWhole(_ blob: String) -> Bool {
            (try? FileSystem.attribute(farm.spool.blobs + "/" + blob, "user.farm.sha256")) != nil
        }
        let first = try added("Base", "/base.png", total: 1)
        #expect(stored(farm).blobs == ["s\(size)"], "a size nobody stored: its slot, no hash")
        let second = try added("End", "/end.png", total: 2)
        let endSlot = try #require(stored(farm).blobs.first { $0.hasPrefix("s\(size)-") }, "\(stored(farm))")
        #expect(stored(farm).blobs.count == 2)
        #expect(!stored(farm).blobs.contains(where: hashedWhole), "told apart by their ends: nothing hashed whole")
        // The same ends as the first: both hashed whole, and this one takes the slot of its sample.
        let third = try added("Middle", "/middle.png", total: 3)
        let middleSlot = try #require(stored(farm).blobs.first { $0.hasPrefix("s\(size)-") && $0 != endSlot })
        #expect(stored(farm).blobs.count == 3 && hashedWhole("s\(size)") && hashedWhole(middleSlot) && !hashedWhole(endSlot))
        // The same ends again, but other bytes than both: named by its SHA-256; its twin under another URL meets it.
        let fourth = try added("Other", "/other.png", total: 4)
        let digest = try sha256sum(fourth)
        #expect(Set(stored(farm).blobs) == Set(["s\(size)", endSlot, middleSlot, digest]), "\(stored(farm))")
        let fifth = try added("Twin", "/twin.png", total: 5)
        #expect(inode(fifth) != nil && inode(fifth) == inode(fourth), "equal bytes under two URLs: one inode")
        #expect(Set([first, second, third, fourth].map(inode)).count == 4, "equal sizes, other bytes: each kept")
        #expect(stored(farm).blobs.count == 4)

        // The first of the size goes: its slot keeps a marker, and bytes that went past it are still met.
        let id = try #require(resources(farm, "Base").first?.id)
        try farm.must(["item", "rm", "Base", id])
        #expect(fileSize(farm.spool.blobs + "/s\(size)") == 0, "a marker")
        let sixth = try added("Late", "/late.png", total: 5)
        #expect(inode(sixth) == inode(second), "the marker kept the walk: equal bytes are one inode")
        for list in ["End", "Middle", "Other", "Twin", "Late"] { _ = try expectOutputs(farm, list, bodies) }
        try expectClean(farm)
    }

    /// The worker transferring a URL others wait for is killed half-way: the transfer resumes once, by
    /// range from where it was, and every job of the URL ends done.
    @Test func aSharedDownloadKilledHalfWayResumesOnceForAllWhoWait() throws {
        let farm = try RunningFarm()
        let size = 600_000
        let (url, body) = slowPNG(farm, size: size, bytesPerSecond: 150_000)
        try add(farm, "Wait", [url, url, url])
        try add(farm, "Also", [url])
        try farm.start(workers: 3)
        // The holder is the claim the URL's partial download names, once it has a third of the bytes on disk.
        var holder: ActiveName?
        #expect(poll(timeout: 30, every: 0.05) {
            holder = URLPartial.holder(farm.spool, url: url)
            guard holder != nil else { return false }
            let bytes = try? FileManager.default.attributesOfItem(atPath: Dedup(farm.spool).partialPath(url: url))[.size] as? Int
            return (bytes ?? 0) >= size / 3
        })
        let victim = try #require(holder)
        kill(victim.owner.pid, SIGKILL)
        #expect(farm.waitUntilAllDone(4, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let requests = farm.origin.requests(for: "/slow.png")
        print("shared download killed half-way: \(requests.map(\.description))")
        #expect(requests.count == 2, "one full request, then one resumed: \(requests)")
        if requests.count == 2 {
            #expect(requests[0].range == nil && !requests[0].complete)
            let start = try #require(requests[1].rangeStart)
            #expect(start >= size / 3 && start <= requests[0].bodyBytes, "resumed from the byte reached: \(start)")
            #expect(requests[1].status == 206 && requests[1].bodyBytes == size - start)
        }
        _ = try expectOutputs(farm, "Wait", ["/slow.png": body])
        _ = try expectOutputs(farm, "Also", ["/slow.png": body])
        try expectClean(farm)
    }

    /// A job waiting for another worker's transfer of its URL is not stuck in its wait when the farm pauses:
    /// it goes back to the queue (it has not started), while the paused transfer keeps its claim and bytes.
    /// After the resume both end done, the URL fetched by one transfer.
    @Test func aJobWaitingForAnotherTransferGoesBackToTheQueueWhenTheFarmPauses() throws {
        let farm = try RunningFarm()
        let size = 600_000
        let (url, body) = slowPNG(farm, size: size, bytesPerSecond: 60_000)
        try add(farm, "First", [url])
        try add(farm, "Second", [url])
        try farm.start(workers: 2)
        // Both claimed, one transferring with bytes on disk: the other waits for it.
        var holder: ActiveName?
        #expect(poll(timeout: 30, every: 0.05) {
            holder = URLPartial.holder(farm.spool, url: url)
            return holder != nil && farm.spool.activeJobs().count == 2 && farm.partialSize(url: url) > 0
        }, "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let transferring = try #require(holder).job
        try farm.must(["pause"])
        // The waiter's claim goes back within moments (bounded generously: no speed is asserted); the
        // transfer's stays, paused.
        #expect(poll(timeout: 20, every: 0.05) { farm.spool.activeJobs().map(\.job) == [transferring] },
                "still claimed while paused: \(farm.spool.activeJobs().map(\.job.raw)), holder \(transferring)")
        #expect(farm.counts[.queued] == 1, "\(farm.counts)")
        try farm.must(["resume"])
        #expect(farm.waitUntilAllDone(2, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        _ = try expectOutputs(farm, "First", ["/slow.png": body])
        _ = try expectOutputs(farm, "Second", ["/slow.png": body])
        try expectClean(farm)
    }

    /// fsck finds what no output uses (a blob whose only name is blobs/, a record whose blob is gone) and
    /// `--repair` removes it; a blob with an output is left alone.
    @Test func fsckFindsAndRepairsStoredResultsNoOutputUses() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let used = String(repeating: "a", count: 64), unused = String(repeating: "b", count: 64)
        #expect(FileManager.default.createFile(atPath: Dedup(spool).blobPath(used), contents: Data([1, 2, 3])))
        try FileManager.default.createDirectory(atPath: spool.files, withIntermediateDirectories: true)
        #expect(link(Dedup(spool).blobPath(used), spool.files + "/kept") == 0)
        #expect(FileManager.default.createFile(atPath: Dedup(spool).blobPath(unused), contents: Data([4])))
        let gone = #"{"blob":"\#(String(repeating: "c", count: 64))","size":1,"url":"http://x/y"}"#
        #expect(FileManager.default.createFile(atPath: spool.urls + "/" + Dedup.urlKey("http://x/y"), contents: Data(gone.utf8)))
        let found = try SpoolCheck(spool).run().findings.filter { $0.kind == .blob }.map(\.path).sorted()
        #expect(found == ["blobs/" + unused, "urls/" + Dedup.urlKey("http://x/y")].sorted(), "\(found)")
        _ = try SpoolCheck(spool).run(repair: true)
        let report = try SpoolCheck(spool).run()
        #expect(report.findings.filter { $0.kind == .blob }.isEmpty, "\(report.findings)")
        #expect(FileManager.default.fileExists(atPath: Dedup(spool).blobPath(used)))
    }

    /// `farm add --fresh` and `farm reload` transfer again; removing the last user of a blob leaves no
    /// blob and no URL record.
    @Test func freshAndReloadTransferAgainAndRemovingTheLastUserLeavesNothing() throws {
        let farm = try RunningFarm()
        let body = Self.picture(3)
        farm.origin.serve(path: "/u.png", bytes: body, contentType: "image/png")
        let url = farm.origin.url(for: "/u.png")
        try add(farm, "One", [url])
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(1))
        #expect(farm.origin.requests(for: "/u.png").count == 1)

        try add(farm, "Two", [url], ["--fresh"])
        #expect(farm.waitUntilAllDone(2))
        #expect(farm.origin.requests(for: "/u.png").count == 2, "--fresh transfers again")
        #expect(try resources(farm, "Two").first?.shared == false)

        try farm.must(["reload", "One"])
        #expect(farm.waitUntilAllDone(2))
        #expect(farm.origin.requests(for: "/u.png").count == 3, "reload transfers again")
        let one = try resources(farm, "One"), two = try resources(farm, "Two")
        #expect(one.first?.shared == false)
        _ = try expectOutputs(farm, "One", ["/u.png": body])
        _ = try expectOutputs(farm, "Two", ["/u.png": body])
        #expect(stored(farm).blobs.count == 1)
        #expect(stored(farm).records.count == 1)
        try expectClean(farm)

        // An add that is not fresh is served from the blob.
        try add(farm, "Three", [url])
        #expect(farm.waitUntilAllDone(3))
        #expect(farm.origin.requests(for: "/u.png").count == 3)
        let three = try resources(farm, "Three")
        #expect(three.first?.shared == true)

        for (list, rows) in [("One", one), ("Two", two), ("Three", three)] {
            let id = try #require(rows.first?.id)
            try farm.must(["item", "rm", list, id])
        }
        #expect(stored(farm).blobs.isEmpty && stored(farm).records.isEmpty, "\(stored(farm))")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: farm.spool.blobs)) ?? []
        #expect(left.allSatisfy { fileSize(farm.spool.blobs + "/" + $0) == 0 }, "markers at most: \(left)")
        try expectClean(farm)
    }

    /// A PNG of `size` bytes the origin serves at /slow.png, `bytesPerSecond` at most: its URL and bytes.
    private func slowPNG(_ farm: RunningFarm, size: Int, bytesPerSecond: Int) -> (url: String, body: [UInt8]) {
        let body = StoredPNG.make(width: 16, height: 16, padTo: size) { y in (0..<48).map { UInt8(truncatingIfNeeded: $0 &+ y) } }
        farm.origin.serve(path: "/slow.png", bytes: body, contentType: "image/png")
        farm.origin.inject(.throttle(bytesPerSecond: bytesPerSecond), at: "/slow.png")
        return (farm.origin.url(for: "/slow.png"), body)
    }
}
