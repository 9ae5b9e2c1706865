import FarmRegistry
import FarmSpool
import FarmStatus
import FarmSystem
import Foundation
import Glibc

/// Makes the watcher's inotify queue overflow and times how long until its summary is exact again.
///
/// With the farm paused and settled, the watcher is frozen (SIGSTOP) while more events than
/// `fs.inotify.max_queued_events` pile up in a watched directory (files created and removed in
/// control/; no root and no global setting needed), then a real change follows that the lost events
/// would hide: a new list is added. The watcher is thawed (SIGCONT): the kernel hands it
/// IN_Q_OVERFLOW, and its status/summary.json must equal a fresh scan of the spool within 2 s.
struct Overflow {
    let farm: FarmCommand
    let spool: Spool
    let corpus: ChaosCorpus

    struct Round {
        /// Seconds from SIGCONT until the summary equals a scan; nil when it never did (within 30 s).
        var recovery: Double?
        /// Whether the watcher logged an overflow (else the flood was not enough: the round proves little).
        var overflowed: Bool
    }

    func round(_ number: Int) throws -> Round {
        try farm.must(["pause"])
        defer { _ = try? farm.run(["resume"]) }
        // Paused transfers stand still, but a conversion under way still completes: wait for quiet.
        var last = scan(), quietSince = Clock.monotonic()
        let settleDeadline = Clock.monotonic() + 60
        while Clock.monotonic() - quietSince < 0.5 && Clock.monotonic() < settleDeadline {
            usleep(50_000)
            let now = scan()
            if now != last { (last, quietSince) = (now, Clock.monotonic()) }
        }
        var watcher: pid_t?
        let watcherDeadline = Clock.monotonic() + 30
        while watcher == nil && Clock.monotonic() < watcherDeadline {
            watcher = spool.registry.processes().first { $0.role == .watcher }?.pid
            if watcher == nil { usleep(50_000) }
        }
        guard let watcher else { throw ChaosError("no watcher ran for the overflow round") }
        let before = overflowLines()
        guard kill(watcher, SIGSTOP) == 0 else { throw ChaosError("cannot freeze the watcher \(watcher)") }
        var thawed = false
        defer { if !thawed { kill(watcher, SIGCONT) } }
        flood()
        let manifest = try corpus.makeList("overflow-\(number).json", count: 20)
        try farm.must(["add", manifest])
        let thaw = Clock.monotonic()
        kill(watcher, SIGCONT)
        thawed = true
        var recovery: Double?
        while Clock.monotonic() - thaw < 30 {
            if let summary = SummaryFile.read(spool)?.document, same(summary, StatusScan.summary(spool)) {
                recovery = Clock.monotonic() - thaw
                break
            }
            usleep(5000)
        }
        // The watcher logs the overflow once its rescan is written: the summary may be exact a moment before.
        let logDeadline = Clock.monotonic() + 10
        while overflowLines() <= before && Clock.monotonic() < logDeadline { usleep(20_000) }
        return Round(recovery: recovery, overflowed: overflowLines() > before)
    }

    /// More create, close and delete events in control/ than the kernel queues for one instance.
    private func flood() {
        let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16384
        // Each file makes at least two events (create, delete), three with close-after-write.
        for n in 0..<(limit / 2 + 1000) {
            let path = spool.control.folder + "/.chaos-flood-\(n)"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
            unlink(path)
        }
    }

    /// The counts only: `updated` differs between any two documents, and so does a list's `progress` while
    /// bytes come in (the watcher counts its resources under way by their bytes once a second, a scan now).
    private func same(_ a: StatusDocument, _ b: StatusDocument) -> Bool {
        func counts(_ document: StatusDocument) -> StatusDocument {
            var document = document
            document.updated = ""
            for index in document.lists.indices { document.lists[index].progress = 0 }
            return document
        }
        return counts(a) == counts(b)
    }

    private func scan() -> StatusDocument {
        var document = StatusScan.summary(spool)
        document.updated = ""
        return document
    }

    private func overflowLines() -> Int {
        let log = (try? String(contentsOfFile: spool.logFile, encoding: .utf8)) ?? ""
        return log.components(separatedBy: "inotify queue overflowed").count - 1
    }
}
