import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// A kind farm will not keep is refused at its first bytes (issue 66): a large body of no kind its list takes
/// costs its first read, not its whole transfer, while a list added with `--accept any` keeps the same bytes
/// whole. And a list added again with other options is told that they were ignored.
@Suite(.serialized) struct EarlyRefusalTests {
    /// 24 MiB that start like a gzip stream, served at 4 MiB/s: six seconds whole.
    static let size = 24 << 20
    static let body: [UInt8] = [0x1F, 0x8B, 0x08, 0x00] + (4..<size).map { UInt8(truncatingIfNeeded: $0 >> 9) }

    private func record(_ farm: RunningFarm, _ list: String, _ index: Int) -> Sidecar? {
        farm.spool.sidecars.last(JobName(list: ListID.of(name: list), index: index))
    }

    @Test func aKindTheListDoesNotKeepFailsAtItsFirstBytes() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        farm.origin.serve(path: "/big/image.bin", bytes: Self.body)
        farm.origin.inject(.throttle(bytesPerSecond: 4 << 20), at: "/big/image.bin")
        let url = farm.origin.url(for: "/big/image.bin")
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: farm.dir.appending("strict.txt")))
        try farm.must(["add", farm.dir.appending("strict.txt")])
        try farm.start(workers: 1)
        #expect(poll(timeout: 60, every: 0.05) { farm.counts[.failed] == 1 }, "\(farm.counts)")
        let failed = try #require(record(farm, "strict.txt", 0))
        #expect(failed.status == .error && failed.error == "unsupported content" && failed.file == nil, "\(failed)")
        // The origin sent a small part of the body before the transfer ended: the first read, not 24 MiB.
        let requests = farm.origin.requests(for: "/big/image.bin")
        #expect(requests.count == 1 && !requests[0].complete && requests[0].bodyBytes < 4 << 20, "\(requests)")
        // The figure issue 66 asks the note for.
        if let request = requests.first { print("EarlyRefusalTests: refused after \(request.bodyBytes) bytes of \(Self.body.count)") }
        // Nothing of it stays in the spool.
        #expect(FileManager.default.subpaths(atPath: farm.spool.root + "/partial")?.isEmpty ?? true)
    }

    @Test func aListAddedAgainWithOtherOptionsSaysTheyWereIgnoredAndKeepsItsOwn() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        farm.origin.serve(path: "/any/archive.tar.gz", bytes: Array(Self.body.prefix(100_000)))
        let list = farm.dir.appending("any.txt")
        try Data((farm.origin.url(for: "/any/archive.tar.gz") + "\n").utf8).write(to: URL(fileURLWithPath: list))
        let first = try farm.must(["add", list, "--accept", "any"])
        #expect(first.contains("added 1 list(s)"), "\(first)")
        // The same options: already there, and nothing to say of them.
        let same = try farm.must(["add", list, "--accept", "any"])
        #expect(same.contains("already in the spool, nothing added: any.txt") && !same.contains("ignored"), "\(same)")
        // Other options: said once, and the list keeps its own.
        let other = try farm.must(["add", list, "--header", "X-Test: 1"])
        #expect(other.contains("already in the spool, nothing added: any.txt") && other.contains("were ignored: any.txt"),
                "\(other)")
        let none = try farm.must(["add", list])
        #expect(none.contains("were ignored: any.txt"), "\(none)")
        try farm.start(workers: 1)
        #expect(poll(timeout: 60, every: 0.05) { farm.counts[.done] == 1 }, "\(farm.counts)")
        let kept = try #require(record(farm, "any.txt", 0))
        #expect(kept.status == .done && kept.kind == "other", "\(kept)")
        #expect(farm.origin.requests(for: "/any/archive.tar.gz").allSatisfy { $0.header("X-Test").isEmpty })
    }
}
