import FarmDesired
import FarmRegistry
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm top` driven for real: a running farm against a throttled origin, top in a tmux pane, keys
/// typed with send-keys, the screen read with capture-pane, and the spool checked for the effect.
@Suite(.serialized) struct TopTerminalTests {
    private static let environment = ["LANG": "C.UTF-8"]

    @Test func screensKeysResizeAndQuit() throws {
        let farm = try RunningFarm()
        // 400 kB at 80 kB/s: five seconds each, so both lists stay in progress for the whole test.
        try farm.addList("Alpha", count: 12, size: 400_000, rate: 80_000)
        try farm.addList("Beta", count: 12, size: 400_000, rate: 80_000)
        try farm.start(workers: 2)
        let screen = try TmuxScreen(topCommand(spool: farm.spool.root), environment: Self.environment)

        // Screen 1: every list with its state, under the header, with the key hints on row 24.
        #expect(screen.waitFor { lines in
            lines.contains { $0.contains("Alpha.json") && $0.contains("Downloading...") }
                && lines.contains { $0.hasPrefix(" Beta.json") } && lines.first?.contains("2 at once: 2 workers × 1") == true
        }, "\(screen.text)")
        var lists = screen.capture()
        #expect(lists.count == 24)
        #expect(lists.first?.hasPrefix("farm top") == true)
        #expect(lists.contains { $0.contains("LIST") && $0.contains("STATE") && $0.contains("PROGRESS") })
        #expect(lists.last?.contains("q quit") == true, "the footer is not on row 24: \(lists)")
        #expect(lists.allSatisfy { $0.count <= 80 })
        #expect(screen.waitFor { lines in
            lines.count > 1 && ["files/s", "MB/s", "ETA"].allSatisfy { lines[1].contains($0) }
        })
        #expect(screen.display("#{alternate_on}") == "1", "top should draw on the alternate screen")
        // Wait for a measured rate, so the capture shows one.
        screen.waitFor(timeout: 10) { $0.count > 1 && !$0[1].contains("--") }
        lists = screen.capture()
        keepCapture(lists, as: "screen1")

        // Screen 2: Enter opens the selected (first) list, one row per resource.
        try screen.send("Enter")
        #expect(screen.waitFor { lines in
            lines.count > 4 && lines[1].hasPrefix("Alpha.json")
                && ["#", "KIND", "STATUS"].allSatisfy { lines[3].contains($0) }
                && lines.contains { $0.contains("Downloading") && $0.contains("kB /") }
                && lines.contains { $0.contains("Queueing") }
        }, "\(screen.text)")
        let resourceRows = screen.capture().filter { $0.range(of: #"^ +[0-9]+  "#, options: .regularExpression) != nil }
        #expect(resourceRows.count == 12, "\(resourceRows)")
        screen.waitFor(timeout: 5) { $0.contains { $0.contains("Downloading 2") || $0.contains("Downloading 3") } }
        keepCapture(screen.capture(), as: "screen2")

        // Esc goes back; Down selects the next list, which Enter opens; Backspace goes back too.
        try screen.send("Escape")
        #expect(screen.waitFor { $0.count > 3 && $0[3].contains("LIST") }, "\(screen.text)")
        try screen.send("Down")
        try screen.send("Enter")
        #expect(screen.waitFor { $0.count > 1 && $0[1].hasPrefix("Beta.json") }, "\(screen.text)")
        try screen.send("BSpace")
        #expect(screen.waitFor { $0.count > 3 && $0[3].contains("LIST") }, "\(screen.text)")

        // `+`: one worker more, seen in the spool's process registry and in the header.
        try screen.send("+")
        #expect(poll(timeout: 20) { farm.pids(.worker).count == 3 }, "workers: \(farm.pids(.worker).count)")
        #expect(farm.spool.control.desired().workers == 3)
        #expect(screen.waitFor { $0.first?.contains("3 at once: 3 workers × 1") == true }, "\(screen.text)")

        // `p` pauses, `p` again resumes.
        try screen.send("p")
        #expect(poll(timeout: 10) { farm.spool.control.isPaused })
        #expect(screen.waitFor { $0.first?.hasSuffix("PAUSED") == true }, "\(screen.text)")
        try screen.send("p")
        #expect(poll(timeout: 10) { !farm.spool.control.isPaused })
        #expect(screen.waitFor { $0.first?.hasSuffix("running") == true }, "\(screen.text)")

        // A resize is followed: the footer moves to the new last row, the header to the new width.
        try screen.resize(width: 100, height: 30)
        #expect(screen.waitFor { lines in
            lines.count == 30 && lines[29].contains("q quit") && (lines.first?.count ?? 0) == 100
        }, "\(screen.text)")
        try screen.resize(width: 80, height: 24)
        #expect(screen.waitFor { $0.count == 24 && $0[23].contains("q quit") && ($0.first?.count ?? 0) == 80 })

        // `q` quits with status 0 and leaves the terminal as it found it.
        try screen.send("q")
        #expect(screen.waitFor("top exited: 0"), "\(screen.text)")
        let after = screen.capture()
        #expect(after.contains("before top"))
        #expect(!after.contains { $0.contains("farm top") || $0.contains("3 at once") }, "\(after)")
        #expect(screen.display("#{alternate_on}") == "0")
        #expect(screen.display("#{cursor_flag}") == "1")
        #expect(screen.display("#{keypad_cursor_flag}") == "0")
        // Top changes nothing by leaving: the farm still runs.
        #expect(farm.pids(.worker).count == 3)
    }

    @Test func controlCAndSigtermRestoreTheTerminal() throws {
        let farm = try RunningFarm()
        try farm.addList("Idle", count: 3, size: 10_000)
        // Two runs of top, one after the other, in the same pane.
        let screen = try TmuxScreen(topCommand(spool: farm.spool.root, runs: 2), environment: Self.environment)
        #expect(screen.waitFor { $0.contains { $0.contains("Idle.json") && $0.contains("Queuing...") } },
                "\(screen.text)")
        try screen.send("C-c")
        #expect(screen.waitFor("top exited: 0"), "\(screen.text)")
        #expect(screen.display("#{alternate_on}") == "0")

        try screen.send("Enter")
        #expect(screen.waitFor { $0.contains { $0.contains("Idle.json") } && $0.first?.hasPrefix("farm top") == true })
        let top = try #require(children(of: screen.shellPID).first)
        kill(top, SIGTERM)
        #expect(screen.waitFor { $0.filter { $0 == "top exited: 0" }.count == 2 }, "\(screen.text)")
        #expect(!screen.capture().contains { $0.contains("Idle.json") })
        #expect(screen.display("#{alternate_on}") == "0")
        #expect(screen.display("#{cursor_flag}") == "1")
    }

    @Test func aTerminalNcursesDoesNotKnowGetsPlainLines() throws {
        let farm = try RunningFarm()
        try farm.addList("Dumb", count: 2, size: 10_000)
        let command = topCommand(spool: farm.spool.root)
            .replacingOccurrences(of: "echo 'before top'; ", with: "echo 'before top'; TERM=no-such-term ")
        let screen = try TmuxScreen(command, environment: Self.environment)
        #expect(screen.waitFor("ncurses does not know TERM=no-such-term"), "\(screen.text)")
        #expect(screen.waitFor { $0.contains { $0.contains("0/2 done, 0 failed, 0 active, 2 queued") } },
                "\(screen.text)")
        #expect(screen.display("#{alternate_on}") == "0")
        try screen.send("C-c")
        #expect(screen.waitFor("top exited: 0"), "\(screen.text)")
    }

    @Test func aCrashOfTheViewRestoresTheTerminal() throws {
        let farm = try RunningFarm()
        try farm.addList("Crash", count: 2, size: 10_000)
        // A Swift trap after the third frame; no backtracer, so the process dies of the signal.
        let screen = try TmuxScreen(topCommand(spool: farm.spool.root, crashAfterFrames: 3),
                                    environment: Self.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 })
        #expect(screen.waitFor { $0.contains { $0.hasPrefix("top exited: ") } }, "\(screen.text)")
        let after = screen.capture()
        let status = after.first { $0.hasPrefix("top exited: ") }.flatMap { Int($0.dropFirst("top exited: ".count)) }
        #expect(status.map { $0 > 128 } == true, "top should have died of a signal: \(after)")
        #expect(after.contains("before top"))
        #expect(!after.contains { $0.contains("Crash.json") })
        #expect(screen.display("#{alternate_on}") == "0")
        #expect(screen.display("#{cursor_flag}") == "1")
    }

    @Test func reloadAndResetFromTheKeyboard() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Small", count: 3, size: 20_000)
        try farm.start(workers: 1)
        #expect(poll(timeout: 60, every: 0.1) { farm.counts == [.done: 3] })
        let screen = try TmuxScreen(topCommand(spool: farm.spool.root), environment: Self.environment)
        #expect(screen.waitFor { $0.contains { $0.contains("Small.json") && $0.contains("Finished") } },
                "\(screen.text)")

        // `r` downloads the selected list again.
        try screen.send("r")
        #expect(screen.waitFor("reloading Small.json: 3 resource(s) queued again"), "\(screen.text)")
        #expect(poll(timeout: 60) { paths.allSatisfy { farm.origin.requests(for: $0).count == 2 } })
        #expect(poll(timeout: 60, every: 0.1) { farm.counts == [.done: 3] })

        // `R` asks first; anything but y keeps everything.
        try screen.send("R")
        #expect(screen.waitFor { $0.last?.hasPrefix("Reset: stop every process") == true }, "\(screen.text)")
        try screen.send("n")
        #expect(screen.waitFor("reset cancelled"), "\(screen.text)")
        #expect(farm.spool.lists.ids().count == 1)
        #expect(!farm.processes().isEmpty)

        // `R`, `y`: every process stopped, every list gone, and top goes on showing the empty spool.
        try screen.send("R")
        #expect(screen.waitFor { $0.last?.hasPrefix("Reset:") == true })
        let pids = farm.processes().map(\.pid)
        try screen.send("y")
        #expect(screen.waitFor(timeout: 40) { $0.contains { $0.contains("no lists yet") } }, "\(screen.text)")
        #expect(screen.waitFor("reset: the spool is empty"), "\(screen.text)")
        #expect(farm.spool.registry.processes().isEmpty)
        #expect(farm.spool.lists.ids().isEmpty)
        #expect(pids.allSatisfy { kill($0, 0) != 0 || isZombie($0) })
        try screen.send("q")
        #expect(screen.waitFor("top exited: 0"), "\(screen.text)")
    }
}

/// A recursive list's hosts on its resources screen (issue 64), in a real terminal during a real crawl of a
/// site on two hosts: a row per host above the resources, growing with the list, ending on what the crawl found.
@Suite(.serialized) struct TopHostsTerminalTests {
    @Test func aRecursiveListsHostsAboveItsResources() throws {
        let farm = try RunningFarm()
        TwoHostSite.serve(farm.origin, pageRate: 200)
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--span-hosts", "--level", "3",
                       "--name", "site"])
        let screen = try TmuxScreen(topCommand(spool: farm.spool.root), environment: ["LANG": "C.UTF-8"])
        #expect(screen.waitFor { $0.contains { $0.hasPrefix(" site") } }, "\(screen.text)")
        try screen.send("Enter")
        let port = farm.origin.port
        // A host's row ends with its four counts, each right-aligned in 7 cells after a gap of 2.
        func counts(_ values: Int...) -> String {
            values.map { "  " + String(repeating: " ", count: max(0, 7 - String($0).count)) + String($0) }.joined()
        }
        // The start page alone, queued, on its host; the resources' heading under the hosts.
        #expect(screen.waitFor { lines in
            lines.count > 6 && lines[3].hasPrefix(" HOST") && lines[3].contains("FOUND  FETCHED   ACTIVE   QUEUED")
                && lines[4].hasPrefix(" 127.0.0.1:\(port) ") && lines[4].hasSuffix(counts(1, 0, 0, 1))
                && lines[5].contains("STATUS")
        }, "\(screen.text)")
        try farm.start(workers: 2, transfers: 2)
        // Finished: each host with all it found fetched, then the resources.
        let rows = TwoHostSite.expected(farm.origin).map { (" \($0.host) ", counts($0.found, $0.found, 0, 0)) }
        #expect(screen.waitFor(timeout: 180) { lines in
            lines.count > 6 && zip(lines[4...5], rows).allSatisfy { $0.hasPrefix($1.0) && $0.hasSuffix($1.1) }
                && lines[6].contains("STATUS")
        }, "\(screen.text)")
        #expect(screen.capture().allSatisfy { $0.count <= 80 })
        keepCapture(screen.capture(), as: "screen2-hosts")
        try screen.send("q")
        #expect(screen.waitFor("top exited: 0"), "\(screen.text)")
    }
}

/// True when `pid` is a zombie (dead, waiting for a parent that is not us to reap it).
private func isZombie(_ pid: pid_t) -> Bool {
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    guard let close = stat.lastIndex(of: ")"), stat.index(close, offsetBy: 2) < stat.endIndex else { return true }
    return stat[stat.index(close, offsetBy: 2)] == "Z"
}
