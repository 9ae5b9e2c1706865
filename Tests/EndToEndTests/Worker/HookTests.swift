import FarmHooks
import FarmJSON
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// SPEC §15's hooks, end to end: `farm add --on-done PROGRAM --on-error PROGRAM`, a real farm downloading from a
/// real origin, and hooks that are shell scripts writing what they were given to files, one file a run (named
/// after the resource's index and the run's pid), so that every run is counted: once per resource in a quiet
/// run, at least once across SIGKILLs of the worker between a completion and its hook and during a hook (whose
/// programs its supervisor ends).
@Suite(.serialized) struct HookTests {
    /// A hook script at `dir/name`: it writes its arguments to `<records>/<index>.<pid>.args` (where `<records>`
    /// is its first argument) and, unless the gate named by its second argument (if any) is missing, waits for
    /// it first; then it writes its FARM_ variables to `<index>.<pid>.env` and exits with the status in the
    /// file `<records>/exit.<index>` if there is one (0 otherwise). `extra`: shell lines run before the end.
    private static func script(_ dir: TemporaryDirectory, _ name: String, extra: String = "") throws -> String {
        let path = dir.appending(name)
        let text = """
            #!/bin/sh
            out="$1/$FARM_INDEX.$$"
            printf '%s\\n' "$@" > "$out.args"
            : > "$out.start"
            if [ -n "$2" ]; then while [ ! -e "$2" ]; do sleep 0.05; done; fi
            \(extra)
            env | grep '^FARM_' | sort > "$out.tmp" && mv "$out.tmp" "$out.env"
            if [ -e "$1/exit.$FARM_INDEX" ]; then exit "$(cat "$1/exit.$FARM_INDEX")"; fi
            exit 0

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    /// The runs of each index's hook in `records` (files `<index>.<pid>.<suffix>`), by index.
    private static func runs(_ records: String, _ suffix: String) -> [Int: [String]] {
        var runs: [Int: [String]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: records)) ?? [] where name.hasSuffix("." + suffix) {
            let parts = name.split(separator: ".")
            guard parts.count == 3, let index = Int(parts[0]) else { continue }
            runs[index, default: []].append(records + "/" + name)
        }
        return runs
    }

    /// The `FARM_` variables a run wrote.
    private static func environment(_ path: String) throws -> [String: String] {
        var variables: [String: String] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return variables
    }

    /// The `"hook"` of every resource of `list` in `farm status LIST --json`, by index (nil: none shown).
    private static func hooks(_ farm: RunningFarm, _ list: String) throws -> [HookResult?] {
        let status = try JSONParser.parse(Array(try farm.must(["status", list, "--json"]).utf8))
        guard case .array(let rows)? = status["resources"] else { return [] }
        return try rows.map { row in try row["hook"].map { try HookResult(json: $0) } }
    }

    private static func files(_ farm: RunningFarm, _ list: String, _ count: Int) -> [(path: String, body: [UInt8])] {
        (0..<count).map { n in
            let body: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + (0..<(3000 + 100 * n)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n &* 7) }
            return ("/\(list)/\(n).png", body)
        }
    }

    @Test func eachResourceRunsItsHookOnceWithItselfInTheEnvironment() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let records = farm.dir.appending("records")
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
        // A hook that takes a moment: `farm wait` returns only once every hook has run.
        let done = try Self.script(farm.dir, "done.sh", extra: "sleep 0.3")
        let failed = try Self.script(farm.dir, "failed.sh")
        let errors = farm.dir.appending("errors")
        try FileManager.default.createDirectory(atPath: errors, withIntermediateDirectories: true)
        let served = Self.files(farm, "h", 3)
        for (path, body) in served { farm.origin.serve(path: path, bytes: body) }
        let checksum = "93c45c7a1e22d6ef3b5f21a2d3e0a1f7f4a6b9c0d1e2f3a4b5c6d7e8f9a0b1c2"
        var items: [[String: Any]] = served.map { ["url": farm.origin.url(for: $0.path)] }
        items[1]["id"] = "second"
        // A resource the origin does not have: it fails for good (HTTP 404), and runs the --on-error hook.
        items.append(["url": farm.origin.url(for: "/h/missing.png"), "sha256": checksum])
        let manifest = farm.dir.appending("Hooked.json")
        try JSONSerialization.data(withJSONObject: items).write(to: URL(fileURLWithPath: manifest))
        let out = farm.dir.appending("out")
        // Arguments are taken as given, one that starts with - too.
        try farm.must(["add", manifest, "--out", out, "--on-done", done, "--on-done-arg", records,
                       "--on-done-arg", "", "--on-done-arg", "-x y", "--on-error", failed, "--on-error-arg", errors])
        try farm.start(workers: 2)
        let waited = try farm.farm(["wait", "--timeout", "180"])
        #expect(waited.status == 1, "\(waited)")

        // Exactly once each, as soon as `farm wait` returns.
        let runs = Self.runs(records, "env")
        #expect(runs.keys.sorted() == [0, 1, 2] && runs.values.allSatisfy { $0.count == 1 }, "\(runs)")
        let list = ListID.of(name: "Hooked.json")
        for index in 0..<3 {
            let run = try #require(runs[index]?.first)
            let variables = try Self.environment(run)
            let sidecar = try #require(farm.spool.sidecars.last(JobName(list: list, index: index)))
            let expected: [String: String] = [
                "FARM_LIST": "Hooked.json", "FARM_INDEX": String(index),
                "FARM_ID": index == 1 ? "second" : JobName(list: list, index: index).raw,
                "FARM_URL": farm.origin.url(for: served[index].path), "FARM_STATUS": "done",
                "FARM_FILE": try #require(sidecar.file), "FARM_DELIVERED": try #require(sidecar.delivered),
                "FARM_KIND": "png", "FARM_SIZE": String(served[index].body.count), "FARM_SHA256": "", "FARM_ERROR": "",
                "FARM_SPOOL": farm.spool.root,
            ]
            #expect(variables == expected, "\(index)")
            let arguments = try String(contentsOfFile: run.replacingOccurrences(of: ".env", with: ".args"), encoding: .utf8)
            #expect(arguments == records + "\n\n-x y\n", "\(index): \(arguments)")
        }
        let errorRuns = Self.runs(errors, "env")
        #expect(errorRuns.keys.sorted() == [3] && errorRuns[3]?.count == 1, "\(errorRuns)")
        let failure = try Self.environment(try #require(errorRuns[3]?.first))
        #expect(failure["FARM_STATUS"] == "error" && failure["FARM_SHA256"] == checksum && failure["FARM_FILE"] == ""
                && failure["FARM_ERROR"]?.contains("404") == true, "\(failure)")
        #expect(try Self.hooks(farm, "Hooked.json") == Array(repeating: HookResult(exit: 0), count: 4))
        // A hook that exited 0 is kept as an empty file (its claim, once its process is no longer named in it).
        let ok = farm.spool.hooks.resultDirectory(ofList: list, ok: true)
        let kept = FileSystem.names(ok)
        #expect(kept.count == 4 && kept.allSatisfy { (try? FileSystem.lstat(ok + "/" + $0))?.size == 0 }, "\(kept)")
        let none = try farm.must(["failed", "--hooks"])
        #expect(none.contains("no failed resources"), "\(none)")
    }

    @Test func aHookKilledBeforeOrWhileItRunsRunsAgainAtLeastOnce() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let records = farm.dir.appending("records"), gate = farm.dir.appending("gate")
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
        let hook = try Self.script(farm.dir, "hook.sh")
        let count = 6
        for (path, body) in Self.files(farm, "k", count) { farm.origin.serve(path: path, bytes: body) }
        let manifest = farm.dir.appending("Killed.json")
        try Data(JSON.encode(Self.files(farm, "k", count).map { farm.origin.url(for: $0.path) }))
            .write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--on-done", hook, "--on-done-arg", records, "--on-done-arg", gate])
        // A lease far longer than the test's waits: a hook the killed worker ran comes back by its supervisor.
        try farm.start(workers: 1, lease: 60)
        let list = ListID.of(name: "Killed.json")
        // The worker's hook threads all wait at the gate, and a done resource's hook is due but not taken: a
        // kill now is one between a completion and its hook, and one during hooks.
        let window = poll(timeout: 120, every: 0.02) {
            Self.runs(records, "start").count >= 2
                && farm.spool.hooks.due().contains { FileManager.default.fileExists(atPath: farm.spool.finishedPath($0, .done)) }
        }
        try #require(window, "no hook due beside hooks running: \(Self.runs(records, "start"))")
        let worker = try #require(farm.pids(.worker).first)
        let orphans = Self.runs(records, "start").values.flatMap { $0 }
            .compactMap { Int32($0.split(separator: "/").last!.split(separator: ".")[1]) }
        kill(worker, SIGKILL)
        // What the kill caught: hooks started (running, or past their gate: none is) and hooks due.
        let running = Set(Self.runs(records, "start").keys)
        let due = Set(farm.spool.hooks.due().filter { FileManager.default.fileExists(atPath: farm.spool.finishedPath($0, .done)) }
            .map(\.index))
        #expect(!running.isEmpty && !due.isEmpty && running.isDisjoint(with: due), "\(running) \(due)")
        #expect(poll(timeout: 30) { isGone(worker) })
        // Its hooks' programs (waiting at the gate, in groups of their own) are ended by its supervisor, not left
        // running beside their next runs, and those are not left for the lease: started again at once.
        let killed = Date()
        #expect(orphans.count == running.count && poll(timeout: 20) { orphans.allSatisfy(isGone) },
                "hook processes \(orphans) left running")
        #expect(poll(timeout: 20) {
            !FileSystem.names(farm.spool.hooks.active).contains { ActiveName($0)?.owner.pid == worker }
        }, "the killed worker's hooks were not handed back: \(FileSystem.names(farm.spool.hooks.active))")
        #expect(Date().timeIntervalSince(killed) < 20)
        #expect(SpoolFixtures.log(farm.spool).contains("its worker is gone"))
        #expect(poll(timeout: 60, every: 0.05) { farm.pids(.worker).contains { $0 != worker } })
        FileManager.default.createFile(atPath: gate, contents: nil)
        let waited = try farm.farm(["wait", "--timeout", "180"])
        #expect(waited.status == 0, "\(waited)")
        // Those killed while they ran were started again, by the next worker.
        let starts = Self.runs(records, "start")
        #expect(running.allSatisfy { (starts[$0]?.count ?? 0) >= 2 }, "not run again: \(starts)")

        let runs = Self.runs(records, "env")
        #expect(runs.keys.sorted() == Array(0..<count), "every resource's hook ran: \(runs)")
        for (index, paths) in runs {
            let variables = try Self.environment(try #require(paths.first))
            #expect(variables["FARM_INDEX"] == String(index) && variables["FARM_LIST"] == "Killed.json")
            #expect(variables["FARM_FILE"] == farm.spool.sidecars.last(JobName(list: list, index: index))?.file)
        }
        // Recorded by the runs of the next worker; the killed one's were ended before their end.
        #expect(try Self.hooks(farm, "Killed.json") == Array(repeating: HookResult(exit: 0), count: count))
        #expect(runs.values.allSatisfy { $0.count == 1 }, "a run of the killed worker went on to its end: \(runs)")
        print("hooks: \(count) resources, \(running.count) killed while running, \(due.count) killed while due; "
            + "\(starts.values.reduce(0) { $0 + $1.count - 1 }) second start(s)")
    }

    @Test func aFailingHookIsShownListedAndRetriedAndOneTooLongIsKilled() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let records = farm.dir.appending("records")
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
        // Index 2 stays past its time-out, and so does a child it started: both are killed.
        let hook = try Self.script(farm.dir, "hook.sh", extra: """
            if [ "$FARM_INDEX" = 2 ] && [ ! -e "$1/quick" ]; then sleep 60 & echo $! > "$1/sleeper"; echo $$ > "$1/slow"; wait; fi
            """)
        try Data("3".utf8).write(to: URL(fileURLWithPath: records + "/exit.1"))
        let refused = try farm.farm(["add", farm.dir.appending("none.json"), "--on-done", "no-such-farm-hook"])
        #expect(refused.status == 2 && refused.error.contains("no program no-such-farm-hook in PATH"), "\(refused)")
        let timeout = try farm.farm(["add", farm.dir.appending("none.json"), "--on-done", hook, "--hook-timeout", "0"])
        #expect(timeout.status == 2 && timeout.error.contains("--hook-timeout"), "\(timeout)")
        let served = Self.files(farm, "f", 3)
        for (path, body) in served { farm.origin.serve(path: path, bytes: body) }
        let manifest = farm.dir.appending("Failing.json")
        try Data(JSON.encode(served.map { farm.origin.url(for: $0.path) })).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--on-done", hook, "--on-done-arg", records, "--hook-timeout", "2"])
        try farm.start(workers: 1)
        let failing = try farm.farm(["wait", "--timeout", "180"])
        #expect(failing.status == 0, "\(failing)")
        let shown = try Self.hooks(farm, "Failing.json")
        #expect(shown[0] == HookResult(exit: 0) && shown[1] == HookResult(exit: 3), "\(shown)")
        #expect(shown[2] == HookResult(signal: 9, error: "timed out after 2 s"), "\(shown)")
        for name in ["slow", "sleeper"] {
            let pid = try #require(Int32(String(contentsOfFile: records + "/" + name, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(poll(timeout: 30) { isGone(pid) }, "\(name) \(pid) outlived its time-out")
        }
        let listed = try JSONParser.parse(Array(try farm.must(["failed", "--hooks", "--json"]).utf8))
        #expect(listed["total"] == JSONValue.number(JSONNumber(2)), "\(listed)")
        let text = try farm.must(["failed", "--hooks", "Failing.json"])
        #expect(text.contains("exit 3") && text.contains("timed out after 2 s") && text.contains("/f/1.png"), "\(text)")

        // Fixed, then run again: only the failed ones.
        try FileManager.default.removeItem(atPath: records + "/exit.1")
        FileManager.default.createFile(atPath: records + "/quick", contents: nil)
        let retried = try farm.must(["retry", "--hooks"])
        #expect(retried.contains("queued 2 failed hook(s) again"), "\(retried)")
        let rerun = try farm.farm(["wait", "--timeout", "180"])
        #expect(rerun.status == 0, "\(rerun)")
        #expect(try Self.hooks(farm, "Failing.json") == Array(repeating: HookResult(exit: 0), count: 3))
        let runs = Self.runs(records, "env")
        #expect(runs[0]?.count == 1 && runs[1]?.count == 2 && runs[2]?.count == 1, "\(runs)")
        #expect(try farm.must(["failed", "--hooks"]).contains("no failed resources"))
    }
}
