import FarmFsck
import FarmJSON
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm fsck` on a real spool: a catalogue of planted faults, each reported on a line of its own,
/// repaired, and gone on the next run, done outputs untouched; and `--repair` on a running farm.
@Suite struct FsckTests {
    /// A pid no process can have (above the kernel's largest, 2^22).
    private static let deadPid = "99999999"

    /// `farm fsck --json`'s document.
    private func findings(_ farm: RunningFarm, _ arguments: [String] = []) throws
        -> (status: Int32, clean: Bool, findings: [FsckFinding]) {
        let result = try farm.farm(["fsck", "--json"] + arguments)
        let document = try #require(JSON.decode(FsckReport.self, from: Array(result.output.utf8)),
                                    "\(result.output) \(result.error)")
        return (result.status, document.isClean, document.findings)
    }

    /// Every path under the spool with its size and ctime: what a check that only reads leaves as it was.
    private func snapshot(_ spool: Spool) -> [String: [Double]] {
        var files: [String: [Double]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: spool.root)
        while let path = enumerator?.nextObject() as? String {
            var st = stat()
            guard lstat(spool.root + "/" + path, &st) == 0 else { continue }
            files[path] = [Double(st.st_size), Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec) / 1e9]
        }
        return files
    }

    /// Every done job's download is the origin's bytes and its thumbnail is there.
    private func expectDoneOutputsIntact(_ farm: RunningFarm, _ list: String, _ paths: [String],
                                         _ comment: Comment) {
        for (job, state) in farm.spool.inventory() where state == .done {
            let base = farm.spool.outputBase(job)
            #expect(FileManager.default.contents(atPath: base + ".jpg").map { [UInt8]($0) } == farm.bodies[paths[job.index]],
                    "\(comment): the download of done job \(job) changed")
            #expect(FileManager.default.fileExists(atPath: base + ".thumb.png"), "\(comment): \(job) lost its thumbnail")
        }
    }

    @Test func reportsRepairsAndClearsEachPlantedFault() throws {
        let farm = try RunningFarm()
        let count = 10
        let files = try (0..<count).map { n in
            ("/Set/\(n).jpg", try JPEGFixture.quadrants(width: 320 + 8 * n, height: 240))
        }
        let paths = try farm.addList("Set", serving: files)
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(count))
        try farm.must(["stop"])

        // A normal run leaves a sound spool.
        let clean = try farm.farm(["fsck"])
        #expect(clean.status == 0 && clean.output.hasPrefix("clean"), "\(clean.output) \(clean.error)")
        let cleanJSON = try findings(farm)
        #expect(cleanJSON.status == 0 && cleanJSON.clean && cleanJSON.findings.isEmpty)

        let spool = farm.spool
        let list = ListID.of(name: "Set.json")
        let fm = FileManager.default
        func job(_ index: Int) -> JobName { JobName(list: list, index: index) }
        func done(_ index: Int) -> String { spool.finishedPath(job(index), .done) }
        let table = spool.lists.resourceTablePath(ofList: list)
        let tableBytes = try Data(contentsOf: URL(fileURLWithPath: table))
        let returned = spool.queue + "/0/r"

        // Each fault: what it is, the kind of finding it makes, what that finding's line names, and how
        // to plant it (on a different job each).
        let faults: [(name: String, kind: String, names: String, plant: () throws -> Void)] = [
            ("a job in two states", "doubled", job(0).raw, {
                try fm.createDirectory(atPath: returned, withIntermediateDirectories: true)
                try fm.copyItem(atPath: done(0), toPath: returned + "/" + job(0).raw)
            }),
            ("a done resource without its file", "missing-output", job(1).raw, {
                try fm.removeItem(atPath: spool.outputBase(job(1)) + ".jpg")
            }),
            ("a claim of a dead owner past its lease", "dead-claim", job(2).raw, {
                try fm.moveItem(atPath: done(2), toPath: spool.active + "/\(job(2))@\(Self.deadPid)-t0123456789abcde-\(FarmHost.local.tag)")
                Thread.sleep(forTimeInterval: 3.5)  // the farm's lease is 3 s
            }),
            ("a stray temporary beside the outputs", "temporary", "3.thumb.png.tmp-\(Self.deadPid)", {
                let temporary = spool.outputBase(job(3)) + ".thumb.png.tmp-\(Self.deadPid)"
                try Data([1, 2, 3]).write(to: URL(fileURLWithPath: temporary))
            }),
            ("a stray temporary in tmp/", "temporary", "manifest-\(Self.deadPid).\(FarmHost.local.tag)-0123456789abcdef", {
                try Data([1]).write(to: URL(fileURLWithPath: spool.tmp + "/manifest-\(Self.deadPid).\(FarmHost.local.tag)-0123456789abcdef"))
            }),
            ("a partial download of a done job", "partial", job(4).raw, {
                try Data([1, 2]).write(to: URL(fileURLWithPath: spool.partialPath(job(4))))
            }),
            ("a damaged list table", "list-table", "lists/\(list).resources", {
                var lines = String(decoding: tableBytes, as: UTF8.self)
                    .split(separator: "\n", omittingEmptySubsequences: false)
                // The line is rebuilt from a job file that holds the record, as a page's do (an add's are empty).
                try Data((lines[5] + "\n").utf8).write(to: URL(fileURLWithPath: done(5)))
                lines[5] = "{\"id\": \"r5\", \"u"
                try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: table))
            }),
            ("a foreign file", "foreign", "done/\(list)/notes.txt", {
                try Data("mine".utf8).write(to: URL(fileURLWithPath: spool.done + "/\(list)/notes.txt"))
            }),
            ("a lost job", "lost", job(6).raw, {
                try fm.removeItem(atPath: done(6))
            }),
        ]
        for fault in faults {
            try fault.plant()
            let before = snapshot(spool)
            let plain = try farm.farm(["fsck"])
            #expect(plain.status == 1, "\(fault.name): \(plain.output) \(plain.error)")
            let lines = plain.output.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix(fault.kind + " ") && $0.contains(fault.names) },
                    "\(fault.name): no \(fault.kind) line names \(fault.names):\n\(plain.output)")
            #expect(snapshot(spool) == before, "\(fault.name): a plain fsck changed the spool")

            let repair = try findings(farm, ["--repair"])
            #expect(repair.status == 1 && !repair.findings.isEmpty, "\(fault.name)")
            for finding in repair.findings {
                #expect(finding.repaired, "\(fault.name): not repaired: \(finding)")
            }
            let again = try farm.farm(["fsck"])
            #expect(again.status == 0, "\(fault.name): still found after --repair:\n\(again.output)")
            expectDoneOutputsIntact(farm, list, paths, "after repairing \(fault.name)")
        }

        #expect(try Data(contentsOf: URL(fileURLWithPath: table)) == tableBytes, "the table was not rebuilt as it was")
        // A line whose job file is an add's, empty: the table is the record's one copy, and the damage is
        // reported, not repaired.
        var damaged = tableBytes
        let ninth = try #require(damaged.indices.filter { damaged[$0] == 0x0A }.dropFirst(8).first)
        damaged[ninth - 1] = UInt8(ascii: "x")
        try damaged.write(to: URL(fileURLWithPath: table))
        let unrepaired = try findings(farm, ["--repair"])
        #expect(unrepaired.findings.contains { $0.kind == .listTable && !$0.repaired
            && $0.detail.contains("no job file that holds its record") }, "\(unrepaired.findings)")
        try tableBytes.write(to: URL(fileURLWithPath: table))
        let corrupt = SpoolFixtures.corruptFiles(spool)
        #expect(corrupt.contains { $0.hasPrefix("notes.txt.") }, "the foreign file was not set aside: \(corrupt)")
        #expect(corrupt.contains { $0.hasPrefix(job(0).raw + ".") }, "the second copy was not set aside: \(corrupt)")
        #expect(SpoolFixtures.counts(spool) == [.done: count - 3, .queued: 3],
                "the vanished output, the dead claim and the lost job are queued again")

        // The farm finishes what the repairs queued again.
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(count))
        try farm.must(["stop"])
        expectDoneOutputsIntact(farm, list, paths, "after the farm ran again")
        #expect(try farm.farm(["fsck"]).status == 0)
    }

    /// `--repair` on a farm at work finds nothing to repair (jobs that move while it reads are not
    /// lost nor doubled to it) and takes nothing from the workers.
    @Test func repairOnARunningFarmFindsNothingAndLosesNothing() throws {
        let farm = try RunningFarm()
        let count = 24
        let paths = try farm.addList("Live", count: count, size: 40_000, rate: 80_000)
        try farm.start(workers: 3)
        var reports: [String] = []
        var runs = 0
        while farm.counts != [.done: count] && runs < 300 {
            let result = try farm.farm(["fsck", "--repair"])
            if result.status != 0 { reports.append(result.output + result.error) }
            runs += 1
        }
        #expect(runs > 3, "the farm finished before fsck could run on it")
        #expect(farm.waitUntilAllDone(count))
        #expect(reports.isEmpty, "fsck found faults on a sound farm:\n\(reports.joined(separator: "\n"))")
        for (job, state) in farm.spool.inventory() where state == .done {
            let file = try #require(farm.spool.sidecars.last(job)?.file)
            #expect(FileManager.default.contents(atPath: file).map { [UInt8]($0) } == farm.bodies[paths[job.index]])
        }
        #expect(SpoolFixtures.duplicates(in: farm.spool).isEmpty)
        #expect(SpoolFixtures.corruptFiles(farm.spool).isEmpty)
    }

    @Test func refusesAnUnknownFlagAndASpoolThatIsNot() throws {
        let dir = TemporaryDirectory()
        let missing = try run(Executables.path("farm"), ["fsck", "--spool", dir.appending("none")])
        #expect(missing.status != 0 && missing.output.isEmpty, "\(missing.output)")
        #expect(missing.error.split(separator: "\n").count == 1 && missing.error.contains("no spool"), "\(missing.error)")
        #expect(!FileManager.default.fileExists(atPath: dir.appending("none")), "fsck made a spool")
        let usage = try run(Executables.path("farm"), ["fsck", "--bogus", "--spool", dir.path])
        #expect(usage.status == 64, "a usage error exits as every command's does, not as a finding: \(usage.status)")
    }
}
