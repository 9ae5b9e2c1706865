import FarmFixtures
import FarmFsck
import FarmHosts
import FarmJSON
import FarmOrigin
import FarmPieces
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// How the file at `path` differs from `expected` (its size, or the first byte that is not), nil when it does not:
/// a message short enough to read when a test fails on megabytes.
func difference(_ path: String, _ expected: [UInt8]) -> String? {
    guard let bytes = FileManager.default.contents(atPath: path).map([UInt8].init) else { return "no file at \(path)" }
    guard bytes.count == expected.count else { return "\(bytes.count) bytes, not \(expected.count)" }
    return bytes.indices.first { bytes[$0] != expected[$0] }.map { "byte \($0) differs" }
}

/// One resource over several connections (SPEC §14; FarmSpool's PieceBoard.swift): pieces taken by several
/// worker processes, written at their offsets into one partial, and a holder killed mid-piece. Real farms,
/// a real origin on 127.0.0.1 that caps each response's rate, bytes checked on disk.
@Suite(.serialized) struct PiecesTests {
    private static let size = 8 << 20
    private static let minPiece = 1 << 20

    /// A stored PNG of `size` bytes of noise, each response capped at `rate` bytes a second if given.
    private func picture(_ farm: RunningFarm, _ path: String, rate: Int?) -> [UInt8] {
        var random = SplitMix64(seed: 48)
        let body = StoredPNG.make(width: 16, height: 16, padTo: Self.size) { _ in
            (0..<48).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        farm.origin.serve(path: path, bytes: body, contentType: "image/png")
        if let rate { farm.origin.inject(.throttle(bytesPerSecond: rate), at: path) }
        return body
    }

    private func add(_ farm: RunningFarm, _ urls: [String], connections: Int) throws {
        let manifest = farm.dir.appending("big.json")
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--connections", String(connections), "--min-piece", "1M"])
    }

    private func expectStored(_ farm: RunningFarm, _ body: [UInt8]) throws {
        let output = try farm.must(["status", "big.json", "--json"])
        let rows = try #require(JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources, "\(output)")
        let file = try #require(rows.first?.file, "\(rows)")
        #expect(difference(file, body) == nil, "the pieces made other bytes than the origin's")
        #expect(!FileManager.default.fileExists(atPath: farm.spool.pieces + "/" + "x")
            && ((try? FileManager.default.contentsOfDirectory(atPath: farm.spool.pieces)) ?? []).isEmpty,
                "a board outlived its resource")
        let report = try SpoolCheck(farm.spool).run()
        #expect(report.isClean, "fsck: \(report.findings)")
    }

    /// Ranged GETs of the path that overlapped in time: how many were in flight together at most.
    private func mostAtOnce(_ requests: [LoggedRequest]) -> Int {
        let ranged = requests.filter { $0.method == "GET" && $0.range != nil && $0.status == 206 }
        return ranged.map { request in
            ranged.filter { other in
                other.arrived <= request.arrived && (other.ended ?? .infinity) > request.arrived
            }.count
        }.max() ?? 0
    }

    @Test func aResourceInPiecesIsFetchedByManyWorkersAndItsBytesAreRight() throws {
        let farm = try RunningFarm()
        // 2 MB/s a connection: 4 s over one, about 1 s over four.
        let body = picture(farm, "/big.png", rate: 2_000_000)
        try add(farm, [farm.origin.url(for: "/big.png")], connections: 4)
        try farm.start(workers: 4)
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        try expectStored(farm, body)
        let requests = farm.origin.requests(for: "/big.png")
        let ports = Set(requests.compactMap(\.clientPort))
        #expect(ports.count >= 3, "pieces came over \(ports.count) connections: \(requests)")
        #expect(mostAtOnce(requests) >= 3, "at most \(mostAtOnce(requests)) pieces at once: \(requests)")
        let served = requests.reduce(0) { $0 + $1.bodyBytes }
        #expect(served <= Self.size + Self.size / 4, "served \(served) bytes for \(Self.size): \(requests)")
        // The farm's order of connections: no more than asked.
        #expect(mostAtOnce(requests) <= 4, "\(requests)")
    }

    /// `--per-host 2` counts every piece's connection: eight asked for, never more than two at once.
    @Test func perHostLimitsCountEachPiecesConnection() throws {
        let farm = try RunningFarm()
        let body = picture(farm, "/big.png", rate: 2_000_000)
        try add(farm, [farm.origin.url(for: "/big.png")], connections: 8)
        try farm.must(["start", "--workers", "4", "--transfers", "2", "--lease", "3", "--per-host", "2"])
        farm.processes()
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        try expectStored(farm, body)
        let requests = farm.origin.requests(for: "/big.png")
        #expect(mostAtOnce(requests) == 2, "\(mostAtOnce(requests)) pieces at once under --per-host 2: \(requests)")
    }

    /// While its pieces are fetched the resource is one row with one percentage and its pieces' counts,
    /// and `farm ps` names the piece each worker holds; once done, the counts are gone.
    @Test func theStatusAndPsShowOneResourceInPieces() throws {
        let farm = try RunningFarm()
        let body = picture(farm, "/big.png", rate: 700_000)
        try add(farm, [farm.origin.url(for: "/big.png")], connections: 4)
        try farm.start(workers: 4)
        var seen: ResourceStatus?
        #expect(poll(timeout: 60, every: 0.1) {
            guard let output = try? farm.must(["status", "big.json", "--json"]),
                  let row = JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources?.first,
                  let pieces = row.pieces, pieces.active >= 2, row.bytes > 0 else { return false }
            seen = row
            return true
        }, "no status showed the pieces")
        if let row = seen, let pieces = row.pieces {
            #expect(row.status == .downloading && row.size == body.count, "\(row)")
            #expect(row.text == "Downloading \(ResourceStatus.percent(bytes: row.bytes, size: row.size) ?? -1)%")
            #expect(pieces.total >= 4 && pieces.done + pieces.active <= pieces.total, "\(pieces)")
        }
        var holders = 0
        #expect(poll(timeout: 30, every: 0.1) {
            guard let output = try? farm.must(["ps", "--json"]),
                  let rows = JSON.decode([JSONValue].self, from: Array(output.utf8)) else { return false }
            holders = rows.filter { $0["pieces"] != nil }.count
            return holders >= 2
        }, "farm ps named pieces of \(holders) workers")
        let text = try farm.must(["ps"])
        #expect(text.contains("bytes ") && text.contains("/big.png"), "\(text)")
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let done = try farm.must(["status", "big.json", "--json"])
        let row = try #require(JSON.decode(ListStatus.self, from: Array(done.utf8))?.resources?.first)
        #expect(row.pieces == nil && row.status == .done, "\(row)")
        try expectStored(farm, body)
    }

    /// One of four connections crawls (its piece's range, alone, served at 150 KB/s): the transfers that
    /// finish their pieces take over the tail of what it has left, as much as their pace warrants, and it
    /// stops at each new end.
    @Test func theSlowestHoldersTailIsTakenOver() throws {
        let farm = try RunningFarm()
        let body = picture(farm, "/big.png", rate: nil)
        let slowFrom = 3 * Self.size / 4
        farm.origin.inject(.throttleRange(from: slowFrom, bytesPerSecond: 150_000), at: "/big.png")
        let manifest = farm.dir.appending("big.json")
        try Data(JSON.encode([farm.origin.url(for: "/big.png")])).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--connections", "4", "--min-piece", "256K"])
        try farm.start(workers: 4)
        // Alone, the slow piece would take 14 s.
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        try expectStored(farm, body)
        let requests = farm.origin.requests(for: "/big.png")
        let slow = try #require(requests.first { $0.rangeStart == slowFrom }, "\(requests)")
        #expect(slow.bodyBytes < Self.size / 4 / 2, "the slow holder sent \(slow.bodyBytes) bytes: \(requests)")
        let tails = requests.filter { ($0.rangeStart ?? 0) > slowFrom }
        #expect(tails.count >= 2, "taken over: \(tails)")
    }

    /// Paused mid-file, no piece transfers and every piece keeps its bytes; stopped, every piece goes back
    /// to the board's queue with them; started again, the file ends whole, its bytes fetched about once.
    @Test func pauseAndStopMidFileKeepEveryPiecesBytes() throws {
        let farm = try RunningFarm()
        let body = picture(farm, "/big.png", rate: 1_000_000)
        try add(farm, [farm.origin.url(for: "/big.png")], connections: 4)
        try farm.start(workers: 4)
        let board = farm.spool.pieces
        func pieces(_ state: String) -> [String] {
            let boards = (try? FileManager.default.contentsOfDirectory(atPath: board)) ?? []
            return boards.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: board + "/" + $0 + "/" + state)) ?? [] }
        }
        #expect(poll(timeout: 60, every: 0.05) { pieces("a").count >= 3 }, "pieces never held")
        Thread.sleep(forTimeInterval: 1)
        try farm.must(["pause"])
        // Within a second every transfer has stopped: the origin sends nothing more.
        Thread.sleep(forTimeInterval: 1.5)
        let paused = farm.origin.bytesServed
        Thread.sleep(forTimeInterval: 1.5)
        #expect(farm.origin.bytesServed == paused, "bytes flowed while paused")
        #expect(pieces("q").count + pieces("a").count >= 3, "the board lost its pieces: \(pieces("q")) \(pieces("a"))")
        try farm.must(["stop"])
        #expect(pieces("a").isEmpty, "pieces still held after stop: \(pieces("a"))")
        let kept = pieces("q").count
        #expect(kept >= 1, "no piece waits after stop")
        try farm.must(["resume"])
        try farm.start(workers: 4)
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        try expectStored(farm, body)
        let served = farm.origin.requests(for: "/big.png").reduce(0) { $0 + $1.bodyBytes }
        #expect(served <= Self.size + Self.size / 4, "served \(served) bytes for \(Self.size)")
    }

    @Test func aWorkerKilledMidPieceCostsAtMostItsPiece() throws {
        let farm = try RunningFarm()
        // 1 MB/s a connection: about 2 s a piece, so a kill lands in the middle of one.
        let body = picture(farm, "/big.png", rate: 1_000_000)
        try add(farm, [farm.origin.url(for: "/big.png")], connections: 4)
        try farm.start(workers: 2, lease: 2)
        let held = farm.spool.pieces
        var victim: pid_t?
        #expect(poll(timeout: 60, every: 0.05) {
            // A piece held by a worker that is not the lead (the lead holds the job in active/).
            guard let board = try? FileManager.default.contentsOfDirectory(atPath: held).first,
                  let names = try? FileManager.default.contentsOfDirectory(atPath: held + "/" + board + "/a")
            else { return false }
            let leads = Set(farm.spool.activeJobs().map(\.owner.pid))
            let holders = names.compactMap { name -> pid_t? in
                guard let at = name.firstIndex(of: "@") else { return nil }
                return pid_t(name[name.index(after: at)...].prefix { $0 != "-" })
            }
            victim = holders.first { !leads.contains($0) } ?? holders.first
            guard let pid = victim, let size = names.first(where: { $0.contains("@\(pid)-") })
                .flatMap({ try? FileManager.default.attributesOfItem(atPath: held + "/" + board + "/a/" + $0)[.size] as? Int })
            else { return false }
            return size > 200_000
        }, "no piece was held with bytes in it")
        let pid = try #require(victim)
        kill(pid, SIGKILL)
        #expect(poll(timeout: 10) { isGone(pid) })
        #expect(farm.waitUntilAllDone(1, timeout: 180), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        try expectStored(farm, body)
        let requests = farm.origin.requests(for: "/big.png")
        let served = requests.reduce(0) { $0 + $1.bodyBytes }
        // What the killed holder had fetched and not recorded (a quarter second of its transfer), and
        // what its lead may refetch of its own piece if the lead was the one killed: at most a piece.
        #expect(served <= Self.size + 2 * Self.size / 4, "served \(served) bytes for \(Self.size): \(requests)")
    }
}

/// Mirrors (SPEC §14): one resource at several URLs, its pieces spread over them; a mirror that fails or
/// reports another size is dropped and its pieces go to the others; the resource fails only when every
/// mirror has, with each one's reason.
@Suite(.serialized) struct MirrorTests {
    private static let size = 4 << 20

    private func body(_ seed: UInt64, size: Int = MirrorTests.size) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return StoredPNG.make(width: 16, height: 16, padTo: size) { _ in
            (0..<48).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
    }

    private func add(_ farm: RunningFarm, _ urls: [String], connections: Int = 4) throws {
        let manifest = farm.dir.appending("mirrored.json")
        try Data(JSON.encode([JSONValue.object([JSONMember("id", .string("one")),
                                                JSONMember("urls", .array(urls.map(JSONValue.string)))])]))
            .write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--connections", String(connections), "--min-piece", "256K"])
    }

    private func row(_ farm: RunningFarm) throws -> ResourceStatus {
        let output = try farm.must(["status", "mirrored.json", "--json"])
        return try #require(JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources?.first, "\(output)")
    }

    @Test func aFailingMirrorIsDroppedAndTheOthersServeItsPieces() throws {
        let farm = try RunningFarm()
        let bytes = body(61)
        for path in ["/a.png", "/b.png", "/c.png"] { farm.origin.serve(path: path, bytes: bytes, contentType: "image/png") }
        farm.origin.inject(.status(503), at: "/b.png")
        farm.origin.inject(.throttle(bytesPerSecond: 200_000), at: "/c.png")
        farm.origin.inject(.throttle(bytesPerSecond: 2_000_000), at: "/a.png")
        try add(farm, ["/a.png", "/b.png", "/c.png"].map { farm.origin.url(for: $0) })
        try farm.start(workers: 4)
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let done = try row(farm)
        let file = try #require(done.file, "\(done)")
        #expect(difference(file, bytes) == nil)
        let failing = farm.origin.requests(for: "/b.png")
        #expect(!failing.isEmpty && failing.allSatisfy { $0.status == 503 }, "\(failing)")
        #expect(failing.count <= 4, "the dropped mirror was asked \(failing.count) times")
        #expect(farm.origin.requests(for: "/a.png").contains { $0.status == 206 })
        #expect(farm.origin.requests(for: "/c.png").contains { $0.status == 206 }, "the slow mirror took no piece")
        let report = try SpoolCheck(farm.spool).run()
        #expect(report.isClean, "fsck: \(report.findings)")
    }

    /// A mirror that fails mid-file (its connections cut after some of a piece's bytes): the bytes it
    /// wrote are kept, the mirror is dropped with why, and the other serves the rest of its piece.
    @Test func aMirrorFailingMidFileIsDroppedAndItsBytesKept() throws {
        let farm = try RunningFarm()
        let bytes = body(65)
        for path in ["/a.png", "/cut.png"] { farm.origin.serve(path: path, bytes: bytes, contentType: "image/png") }
        farm.origin.inject(.throttle(bytesPerSecond: 1_000_000), at: "/a.png")
        farm.origin.inject(.throttle(bytesPerSecond: 1_000_000), at: "/cut.png")
        farm.origin.inject(.reset(afterBytes: 300_000), at: "/cut.png")
        try add(farm, [farm.origin.url(for: "/a.png"), farm.origin.url(for: "/cut.png")])
        try farm.start(workers: 3)
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let file = try #require(try row(farm).file)
        #expect(difference(file, bytes) == nil)
        let cut = farm.origin.requests(for: "/cut.png").filter { $0.range != nil }
        #expect(!cut.isEmpty && cut.count <= 3, "the failing mirror was asked \(cut.count) times: \(cut)")
        #expect(cut.contains { $0.bodyBytes > 0 }, "the failing mirror served nothing before it failed: \(cut)")
        let served = (farm.origin.requests(for: "/a.png") + cut).reduce(0) { $0 + $1.bodyBytes }
        #expect(served < Self.size + Self.size / 4, "served \(served) bytes for \(Self.size)")
        #expect(SpoolFixtures.log(farm.spool).contains("/cut.png"), "no log line says why the mirror went")
    }

    /// A mirror whose host answers 503 with Retry-After is held for the whole farm, not dropped: its
    /// pieces go to the other mirror meanwhile, and it is not asked again while the hold lasts.
    @Test func aMirrorAskingToWaitIsHeldAndTheOtherServesItsPieces() throws {
        let farm = try RunningFarm()
        let bytes = body(64)
        let busy = Origin(host: "127.0.0.2")
        try busy.start()
        defer { busy.stop() }
        busy.inject(.status(503, retryAfter: 60), at: "/a.png")
        farm.origin.serve(path: "/a.png", bytes: bytes, contentType: "image/png")
        farm.origin.inject(.throttle(bytesPerSecond: 1_000_000), at: "/a.png")
        try add(farm, [farm.origin.url(for: "/a.png"), busy.url(for: "/a.png")])
        try farm.start(workers: 3)
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let file = try #require(try row(farm).file)
        #expect(difference(file, bytes) == nil)
        let asked = busy.requests(for: "/a.png")
        #expect(!asked.isEmpty && asked.count <= 3, "the held mirror was asked \(asked.count) times: \(asked)")
        let holds = HostManners(farm.spool).holds()
        #expect(holds.contains { $0.key.contains("127.0.0.2") && $0.value > Clock.wall() + 20 }, "holds: \(holds)")
    }

    @Test func aMirrorOfAnotherSizeIsDropped() throws {
        let farm = try RunningFarm()
        let bytes = body(62)
        farm.origin.serve(path: "/a.png", bytes: bytes, contentType: "image/png")
        farm.origin.serve(path: "/other.png", bytes: body(63, size: Self.size + 1000), contentType: "image/png")
        farm.origin.inject(.throttle(bytesPerSecond: 1_000_000), at: "/a.png")
        try add(farm, [farm.origin.url(for: "/a.png"), farm.origin.url(for: "/other.png")])
        try farm.start(workers: 3)
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let file = try #require(try row(farm).file)
        #expect(difference(file, bytes) == nil, "bytes of the mirror of another size made it into the file")
        #expect(farm.origin.requests(for: "/other.png").count <= 3)
    }

    @Test func whenEveryMirrorFailsTheResourceFailsWithEachReason() throws {
        let farm = try RunningFarm()
        farm.origin.inject(.status(404), at: "/gone.png")
        farm.origin.inject(.status(403), at: "/refused.png")
        try add(farm, [farm.origin.url(for: "/gone.png"), farm.origin.url(for: "/refused.png")])
        try farm.start(workers: 2)
        #expect(poll(timeout: 60) { farm.counts == [.failed: 1] }, "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let failed = try row(farm)
        let error = try #require(failed.error)
        #expect(error.hasPrefix("every mirror failed: "), "\(error)")
        #expect(error.contains("/gone.png: ") && error.contains("404"), "\(error)")
        #expect(error.contains("/refused.png: ") && error.contains("403"), "\(error)")
    }
}
