import ArgumentParser
import FarmSpool
import FarmSupervisor
import FarmWatcher

/// `farm watch`: the watcher process (FarmWatcher's `WatcherRole`), which keeps status/summary.json current
/// until SIGTERM. `ps` shows it as `farm watch`.
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
        try RoleLife.run(spool, as: .watcher, supervised: supervised) { life in
            try WatcherRole.run(spool, as: life.registration, poll: poll)
        }
    }

    /// `farm watch --supervised` in a copy of the supervisor (`SupervisedRoles`).
    static func supervised(_ spool: Spool) -> Int32 {
        Farm.exitStatus { try watch(spool, supervised: true) }
    }
}
