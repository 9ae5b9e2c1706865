import FarmRegistry
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm demo` in a real terminal: it opens `farm top`, and however the terminal goes away, the
/// farm the demo started goes with it.
@Suite(.serialized) struct DemoTerminalTests {
    @Test func closingTheTerminalStopsTheDemosFarm() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        var pids: Set<pid_t> = []
        defer { for pid in pids.union(spool.registry.processes().map(\.pid)) { kill(pid, SIGKILL) } }
        let command = "\"\(Executables.path("farm"))\" demo --spool \"\(spool.root)\" --port 0; exec sleep 600"
        var screen: TmuxScreen? = try TmuxScreen(command, environment: ["LANG": "C.UTF-8"])
        #expect(screen!.waitFor(timeout: 120) { lines in
            lines.first?.hasPrefix("farm top") == true && lines.contains { $0.contains("Photos.json") }
        }, "\(screen!.text)")
        #expect(poll(timeout: 60) { spool.registry.processes().contains { $0.role == .supervisor } })
        pids = Set(spool.registry.processes().map(\.pid))
        #expect(pids.count >= 3, "supervisor, workers and watcher: \(pids)")
        // The terminal closes: tmux's server dies and the pane's processes get SIGHUP.
        screen = nil
        #expect(poll(timeout: 60) { pids.allSatisfy(isGone) && spool.registry.processes().isEmpty },
                "still running after the terminal closed: \(spool.registry.processes().map(\.pid))")
    }
}
