import FarmJSON
import FarmOrigin
import FarmPieces
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A piece's record never reaches the disk ahead of its bytes (PieceBoard.record). A power cut cannot be made
/// in this process (bin/powercut makes them, in a guest), so this reads the system calls of real workers
/// fetching a resource in pieces (strace, attached to them) and checks the order a power cut depends on: each
/// record set (an ftruncate of a held piece's file) comes after the bytes it counts were written back
/// (sync_file_range of the partial, up to the piece's start plus the record). Without it, ext4 may keep the
/// record while a block of the partial rewritten in place is not, and a done resource has other bytes.
@Suite(.serialized) struct PieceRecordOrderTests {
    /// One traced system call: the file its descriptor names (strace -y), and its numbers.
    private struct Call {
        let name: String
        let path: String
        let numbers: [Int]

        init?(_ line: Substring) {
            // "1234  ftruncate(12</spool/pieces/…/a/0-1048576@owner>, 262144) = 0"
            guard line.hasSuffix(" = 0"), let open = line.firstIndex(of: "("), let lt = line.firstIndex(of: "<"),
                  let gt = line[lt...].firstIndex(of: ">") else { return nil }
            name = String(line[..<open].split(separator: " ").last ?? "")
            path = String(line[line.index(after: lt)..<gt])
            numbers = line[line.index(after: gt)...].split(whereSeparator: { !$0.isNumber }).dropLast().compactMap { Int($0) }
        }
    }

    @Test func aPieceIsRecordedOnlyOnceItsBytesWereWrittenBack() throws {
        let farm = try RunningFarm()
        var random = SplitMix64(seed: 61)
        let body = (0..<(4 << 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        farm.origin.serve(path: "/big.bin", bytes: body)
        farm.origin.inject(.throttle(bytesPerSecond: 1_000_000), at: "/big.bin")
        try farm.start(workers: 3)
        #expect(poll(timeout: 30) { farm.pids(.worker).count == 3 })
        let log = farm.dir.appending("trace")
        let strace = try ChildProcess("/usr/bin/strace", ["-f", "-qq", "-y", "-o", log, "-e", "trace=ftruncate,sync_file_range"]
            + farm.pids(.worker).flatMap { ["-p", String($0)] })
        defer {
            strace.kill(SIGTERM)
            _ = strace.wait(timeout: 30)
        }
        Thread.sleep(forTimeInterval: 1)  // attached to every thread of the three
        let list = farm.dir.appending("urls.txt")
        try (farm.origin.url(for: "/big.bin") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try farm.must(["add", list, "--accept", "any", "--connections", "3", "--min-piece", "1M"])
        #expect(farm.waitUntilAllDone(1, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")

        let calls = Self.joined(try String(contentsOfFile: log, encoding: .utf8)).compactMap(Call.init)
        // Per partial, where its bytes are written back up to, as ranges synced (start, end).
        var synced: [String: [Range<Int>]] = [:]
        var records = 0
        for call in calls {
            if call.name == "sync_file_range", call.numbers.count >= 2 {
                synced[call.path, default: []].append(call.numbers[0]..<call.numbers[0] + call.numbers[1])
                continue
            }
            // A held piece's file: …/pieces/<partial>/a/<start>-<end>@<owner>.
            guard call.name == "ftruncate", let size = call.numbers.last, size > 0,
                  case let parts = call.path.split(separator: "/"), parts.count >= 3, parts[parts.count - 2] == "a",
                  let start = parts.last?.split(separator: "-").first.flatMap({ Int($0) }) else { continue }
            records += 1
            let partial = farm.spool.partial + "/" + parts[parts.count - 3]
            let end = start + size
            // Every byte from the piece's start to its record's end was synced before (the first ones may
            // have been, by the request that planned the pieces, with the board).
            let reach = (synced[partial] ?? []).sorted { $0.lowerBound < $1.lowerBound }.reduce(start) { reach, range in
                range.lowerBound <= reach ? max(reach, range.upperBound) : reach
            }
            #expect(reach >= end, "\(call.path) recorded \(size) bytes, written back up to \(reach - start) of them")
        }
        #expect(records >= 3, "the pieces' records were seen: \(calls.count) calls")
        let file = try #require(try Self.file(farm))
        #expect(difference(file, body) == nil)
    }

    /// strace's lines with each call interrupted by another thread's (`… <unfinished ...>`, then
    /// `<... name resumed>…`) made whole, where it returned: a sync waits for the disk, and counts once done.
    private static func joined(_ trace: String) -> [Substring] {
        var begun: [Substring: Substring] = [:]
        var lines: [Substring] = []
        for line in trace.split(separator: "\n") {
            let pid = line.prefix { $0 != " " }
            if let cut = line.range(of: " <unfinished ...>") {
                begun[pid] = line[..<cut.lowerBound]
            } else if let resumed = line.range(of: " resumed>"), let start = begun.removeValue(forKey: pid) {
                lines.append(Substring(String(start) + String(line[resumed.upperBound...])))
            } else {
                lines.append(line)
            }
        }
        return lines
    }

    /// The one resource's file, from the status.
    private static func file(_ farm: RunningFarm) throws -> String? {
        let output = try farm.must(["status", "urls.txt", "--json"])
        guard case .array(let rows)? = try JSONParser.parse(Array(output.utf8))["resources"],
              case .string(let file)? = rows.first?["file"] else { return nil }
        return file
    }
}
