import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// `farm item add|rm|move` (SPEC §8): edits as spool operations, on real processes.
@Suite struct ItemTests {
    /// The resources of `list` as `farm status LIST --json` shows them.
    private func resources(_ farm: RunningFarm, _ list: String) throws -> [ResourceStatus] {
        let output = try farm.must(["status", list, "--json"])
        let document = try #require(JSON.decode(ListStatus.self, from: Array(output.utf8)), "\(output)")
        return try #require(document.resources)
    }

    private func ids(_ farm: RunningFarm, _ list: String) throws -> [String] {
        let rows = try resources(farm, list)
        #expect(rows.map(\.index) == Array(0..<rows.count), "indexes are 0..total-1 with no gap")
        return rows.map(\.id)
    }

    @Test func addRemoveAndMoveKeepIndexesWithoutGapsAndRefusedEditsChangeNothing() throws {
        let farm = try RunningFarm()
        try farm.addList("Edits", count: 3, size: 500)
        let start = try ids(farm, "Edits")
        #expect(start.count == 3)

        let made = try farm.must(["item", "add", "Edits", "https://example.com/new.jpg"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(made.range(of: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
                           options: .regularExpression) != nil, "a new lowercase UUID v4: \(made)")
        try farm.must(["item", "add", "Edits", "https://example.com/first.jpg", "--id", "first", "--at", "0"])
        #expect(try ids(farm, "Edits") == ["first"] + start + [made])
        try farm.must(["item", "move", "Edits", made, "1"])
        #expect(try ids(farm, "Edits") == ["first", made] + start)
        #expect(try farm.must(["item", "rm", "Edits", start[1]]).contains("removed \(start[1])"))
        let edited = ["first", made, start[0], start[2]]
        #expect(try ids(farm, "Edits") == edited)
        let rows = try resources(farm, "Edits")
        #expect(rows[1].url == "https://example.com/new.jpg")
        let summary = JSON.decode(StatusDocument.self, from: Array(try farm.must(["status", "--json"]).utf8))
        #expect(summary?.lists.first?.total == 4)

        // The export is the updated JSON, in the list's shape and order.
        let exported = try farm.must(["export", "Edits"])
        let urls = try #require(JSON.decode([String].self, from: Array(exported.utf8)), "\(exported)")
        #expect(urls == rows.map(\.url))

        // Refused: one line, exit 2, nothing changed.
        for arguments in [["item", "rm", "Edits", "nope"], ["item", "move", "Edits", "first", "4"],
                          ["item", "move", "Edits", "nope", "0"], ["item", "add", "Edits", "ftp://example.com/x.jpg"],
                          ["item", "add", "Edits", "https://example.com/x.jpg", "--id", "first"],
                          ["item", "add", "Edits", "https://example.com/x.jpg", "--at", "5"],
                          ["item", "add", "Nope", "https://example.com/x.jpg"]] {
            let result = try farm.farm(arguments)
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.error)")
            #expect(result.error.split(separator: "\n").count == 1, "\(arguments): \(result.error)")
            #expect(!result.error.contains("Fatal"), "\(result.error)")
        }
        #expect(try ids(farm, "Edits") == edited)
        #expect(try farm.must(["export", "Edits"]) == exported)
    }

    /// The job file `farm item add` queues is empty, as an add's: its record is its line of the list's resource
    /// table, synced before the job is queued, so the file needs no bytes (nor a sync of them) of its own. A
    /// worker claims it from that line and stores the origin's bytes.
    @Test func anAddedResourcesJobFileIsEmptyAndItsDownloadIsTheOrigins() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Added", count: 2, size: 500)
        let body = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        farm.origin.serve(path: "/Added/new.png", bytes: body)
        let url = farm.origin.url(for: "/Added/new.png")
        try farm.must(["item", "add", "Added", url, "--id", "new", "--at", "0"])
        try farm.must(["item", "add", "Added", farm.origin.url(for: "/Added/last.png"), "--id", "last"])
        // A PNG too (the list accepts images), with other bytes.
        let last = Array(body.prefix(8)) + body.dropFirst(8).reversed()
        farm.origin.serve(path: "/Added/last.png", bytes: last)

        // Both new jobs (numbers 2 and 3, one in a priority shard, one at the end) are queued, empty.
        let list = ListID.of(name: "Added.json")
        var queued: [String: Int] = [:]
        let walk = FileManager.default.enumerator(atPath: farm.spool.queue)
        while let relative = walk?.nextObject() as? String {
            let name = URL(fileURLWithPath: relative).lastPathComponent
            guard name == list + ".2" || name == list + ".3" else { continue }
            let size = try FileManager.default.attributesOfItem(atPath: farm.spool.queue + "/" + relative)[.size]
            queued[name] = (size as? NSNumber)?.intValue
        }
        #expect(queued == [list + ".2": 0, list + ".3": 0], "the new jobs' files as queued: \(queued)")

        try farm.start(workers: 1)
        #expect(farm.waitUntilAllDone(4))
        let rows = try resources(farm, "Added")
        #expect(rows.first?.id == "new" && rows.last?.id == "last", "\(rows.map(\.id))")
        #expect(rows.map(\.url) == [url] + paths.map { farm.origin.url(for: $0) } + [farm.origin.url(for: "/Added/last.png")])
        try #require(rows.count == 4)
        let stored = rows.map { row in row.file.flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) } }
        #expect(stored[0] == body, "the item added at 0: \(rows[0].file ?? "no file")")
        #expect(stored[3] == last, "the item added at the end: \(rows[3].file ?? "no file")")
        try farm.expectEverythingDownloadedOnce(paths, list: "Added")
        #expect(try farm.farm(["fsck"]).status == 0)
    }

    /// Four processes edit one list at once: every edit lands exactly once, and each process's edits in
    /// its own order (they serialize).
    @Test func editsFromFourProcessesAtOnceSerializeWithNoneLostNorDoubled() throws {
        let farm = try RunningFarm()
        try farm.addList("Race", count: 2, size: 500)
        let original = try ids(farm, "Race")
        // Each process: 150 adds (at the end or at 0), then removes 50 of its own and moves 50 of its own
        // to 0, the last of those moved ending first among its moved ones.
        var scripts: [String] = []
        for p in 0..<4 {
            var lines: [String] = []
            for i in 0..<150 {
                let at = i % 2 == 0 ? "" : " --at 0"
                lines.append("farm item add Race http://127.0.0.1:9/\(p)/\(i).jpg --id p\(p)-\(i)\(at)")
            }
            for i in stride(from: 0, to: 100, by: 2) { lines.append("farm item rm Race p\(p)-\(i)") }
            for i in stride(from: 101, to: 200, by: 2) where i < 150 { lines.append("farm item move Race p\(p)-\(i) 0") }
            for i in stride(from: 100, to: 150, by: 2) { lines.append("farm item move Race p\(p)-\(i) 0") }
            scripts.append(lines.map { $0 + " --spool '\(farm.spool.root)' >/dev/null || echo FAILED: $?" }
                .joined(separator: "\n"))
        }
        let bin = Executables.directory
        let processes = try scripts.map { script -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "PATH='\(bin)':$PATH\n" + script]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            return process
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let final = try ids(farm, "Race")
        #expect(Set(final).count == final.count, "no resource twice")
        var expected = Set(original)
        for p in 0..<4 { for i in 0..<150 where !(i < 100 && i % 2 == 0) { expected.insert("p\(p)-\(i)") } }
        #expect(Set(final) == expected)
        #expect(final.count == 2 + 4 * 100)
        for p in 0..<4 {
            // The moved ones are in front of everything else of that process, the last moved first.
            let moved = (stride(from: 101, to: 150, by: 2).map { $0 } + stride(from: 100, to: 150, by: 2).map { $0 })
                .reversed().map { "p\(p)-\($0)" }
            let positions = moved.compactMap { final.firstIndex(of: $0) }
            #expect(positions == positions.sorted(), "process \(p)'s moves keep their order")
        }
        #expect(try farm.farm(["fsck"]).status == 0)
    }

    /// `farm item` processes killed at random moments: the list is as before or as after each edit,
    /// never between, and once recovered fsck finds nothing.
    @Test func editsKilledAtRandomLeaveEachEditWholeOrUndone() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Killed", count: 20, size: 500)
        // What each URL serves: the list's, and those of the items added (their job files empty, SPEC §8).
        var served: [String: [UInt8]] = [:]
        for path in paths { served[farm.origin.url(for: path)] = farm.bodies[path] }
        for round in 0..<40 {
            let body = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, UInt8(round)] + [UInt8](repeating: UInt8(round), count: 700)
            farm.origin.serve(path: "/k/\(round).png", bytes: body)
            served[farm.origin.url(for: "/k/\(round).png")] = body
        }
        var attempted: Set<String> = []
        var removed: Set<String> = []
        let original = try ids(farm, "Killed")
        for round in 0..<40 {
            let arguments: [String]
            if round % 4 == 3, let victim = original.dropFirst(round / 4).first {
                arguments = ["item", "rm", "Killed", victim]
                removed.insert(victim)
            } else if round % 4 == 2 {
                arguments = ["item", "move", "Killed", original[19 - round / 4], "0"]
            } else {
                arguments = ["item", "add", "Killed", farm.origin.url(for: "/k/\(round).png"), "--id", "k\(round)",
                             "--at", String(round % 3)]
                attempted.insert("k\(round)")
            }
            let process = try ChildProcess("farm", arguments + ["--spool", farm.spool.root])
            usleep(useconds_t(Int.random(in: 0...40_000)))
            process.kill()
            _ = process.wait()
        }
        try farm.must(["recover"])
        let final = try ids(farm, "Killed")
        #expect(Set(final).count == final.count)
        #expect(Set(final).isSubset(of: Set(original).union(attempted)))
        #expect(Set(original).subtracting(removed).isSubset(of: Set(final)), "only removed ones can be gone")
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
        // What the edits left is downloaded, each resource's file the origin's bytes for its URL: a new
        // resource's job is read from its table line.
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(final.count))
        for row in try resources(farm, "Killed") {
            let bytes = row.file.flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) }
            #expect(bytes != nil && bytes == served[row.url], "\(row.id) (\(row.url)): \(row.file ?? "no file")")
        }
    }

    /// With one worker and 1,000 queued, a resource moved to 0 is the next to start.
    @Test func aResourceMovedToTheFrontStartsBeforeAnyOtherStillQueued() throws {
        let farm = try RunningFarm()
        // Each download takes a fifth of a second: few start while the move command runs.
        let paths = try farm.addList("Queue", count: 1000, size: 2000, rate: 10_000)
        let ids = try self.ids(farm, "Queue")
        try farm.start(workers: 1)
        #expect(poll(timeout: 60, every: 0.05) { farm.origin.requests.count >= 3 })
        let before = farm.origin.requests.count
        // The last resource not asked for yet: a worker walks a shard's names from a random place (see
        // Claimer), so the list's last one may have been among the first few.
        let moved = try #require(paths.indices.reversed().first { farm.origin.requests(for: paths[$0]).isEmpty })
        try farm.must(["item", "move", "Queue", ids[moved], "0"])
        #expect(poll(timeout: 60, every: 0.05) { farm.origin.requests(for: paths[moved]).count == 1 })
        let after = farm.origin.requests.dropFirst(before).map(\.path)
        // Only those that started while the move ran (the one in flight when it committed, and one that
        // started before the commit on a slow machine) may come first; none of the 990 others after it.
        #expect(after.firstIndex(of: paths[moved]).map { $0 <= 2 } == true, "\(after.prefix(5))")
    }

    /// A resource removed while a worker downloads it: the transfer ends and no file is left.
    @Test func removingAResourceBeingDownloadedEndsItsTransferAndLeavesNoFile() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Busy", count: 2, size: 400_000, rate: 40_000)
        let ids = try self.ids(farm, "Busy")
        try farm.start(workers: 2)
        #expect(poll(timeout: 60, every: 0.05) { farm.partialSizes().values.filter { $0 > 0 }.count == 2 })
        try farm.must(["item", "rm", "Busy", ids[0]])
        let list = ListID.of(name: "Busy.json")
        let job = list + ".0"
        #expect(poll(timeout: 30, every: 0.1) {
            farm.spool.activeJobs().allSatisfy { $0.job.raw != job } && farm.partialSizes()[job] == nil
        }, "the transfer ended")
        #expect(farm.waitUntilAllDone(1, timeout: 120))
        let outputs = (try? FileManager.default.contentsOfDirectory(atPath: farm.spool.outputDirectory(ofList: list))) ?? []
        #expect(!outputs.contains { $0.hasPrefix("0.") }, "\(outputs)")
        #expect(try self.ids(farm, "Busy") == [ids[1]])
        let requests = farm.origin.requests(for: paths[0])
        #expect(requests.count == 1 && requests.allSatisfy { !$0.complete }, "\(requests)")
        #expect(try farm.farm(["fsck"]).status == 0)
    }
}
