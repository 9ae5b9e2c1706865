import ArgumentParser
import FarmSpool
import FarmStatus
import FarmSupervisor
import FarmSystem

/// `farm watch`: the watcher process. The supervisor starts it (one per spool); it follows the spool
/// through inotify, or by polling where inotify cannot see other hosts (`Polling`), and keeps
/// status/summary.json current until SIGTERM. `ps` shows it as `farm watch`.
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
        FinishedSync.start(spool)
        var options = Watcher.Options()
        if let reason = Polling.reason(spool, forced: poll) {
            options.poll = true
            spool.log("watcher: polling the spool every \(Polling.interval) s (\(reason))")
        }
        try Watcher(spool: spool, options: options).run { StopSignal.received }
    }

    /// `farm watch --supervised` in a copy of the supervisor (`SupervisedRoles`).
    static func supervised(_ spool: Spool) -> Int32 {
        Farm.exitStatus { try watch(spool, supervised: true) }
    }
}
