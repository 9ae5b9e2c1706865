import ArgumentParser
import FarmSpool
import FarmStatus
import FarmSupervisor
import FarmSystem
import Foundation

/// `farm watch`: the watcher process. Each host's supervisor starts one; one of them serves the whole
/// spool (it holds `control/watcher.lock`), following it through inotify, or by polling where inotify
/// cannot see other hosts (`Polling`), and keeping status/summary.json current until SIGTERM, while the
/// others wait as its standby and one takes over when it dies. `ps` shows it as `farm watch`.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Run the watcher: keep status/summary.json current (the supervisor starts it).",
        shouldDisplay: false)

    @OptionGroup var options: SpoolOptions

    @Flag(help: .hidden) var supervised = false

    @OptionGroup var polling: PollOption

    func run() throws {
        try Self.watch(try options.open(), supervised: supervised, poll: polling.poll)
    }

    static func watch(_ spool: Spool, supervised: Bool, poll: Bool = false) throws {
        StopSignal.install()
        // Runs last, after the registration has ended: see `handOver`.
        defer { if supervised { SupervisorGuard.handOver(spool) } }
        let registration = try spool.register(.watcher)
        defer { registration.end() }
        // Started by a supervisor: replace it if it dies (SPEC §2).
        if supervised { SupervisorGuard.start(spool) }
        guard let serving = try waitToServe(spool, as: registration) else { return }
        defer { serving.release() }
        FinishedSync.start(spool)
        var options = Watcher.Options()
        if let reason = Polling.reason(spool, forced: poll) {
            options.poll = true
            spool.log("watcher: polling the spool every \(Polling.interval) s (\(reason))")
        }
        try Watcher(spool: spool, options: options).run { StopSignal.received }
    }

    /// Waits as standby while another watcher (another host's) serves the spool, trying its lock every
    /// `standbyTry` seconds; nil when told to stop meanwhile, or the spool went away.
    private static func waitToServe(_ spool: Spool, as registration: Registration) throws -> ServingLock? {
        var waited = false
        while !StopSignal.received && !spool.isGone {
            if let lock = try spool.takeWatcherLock(for: registration) {
                if waited { spool.log("watcher: the serving watcher is gone; serving the spool") }
                return lock
            }
            if !waited { spool.log("watcher: another watcher serves the spool; standing by") }
            waited = true
            Thread.sleep(forTimeInterval: standbyTry)
        }
        return nil
    }

    static let standbyTry = 0.25

    /// `farm watch --supervised` in a copy of the supervisor (`SupervisedRoles`).
    static func supervised(_ spool: Spool) -> Int32 {
        Farm.exitStatus { try watch(spool, supervised: true) }
    }
}
