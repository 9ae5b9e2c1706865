import ArgumentParser
import FarmPages
import FarmSpool
import FarmSupervisor
import FarmSystem

/// `farm follow`: the follower process. The supervisor starts it while some paged list has pages to
/// follow (SPEC §7); it fetches them, adds their items to their lists, and exits once none is left.
struct Follow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow the pages of paged lists (the supervisor starts it).", shouldDisplay: false)

    @OptionGroup var options: SpoolOptions

    @Flag(help: .hidden) var supervised = false

    func run() throws {
        let spool = try options.open(create: false)
        try Self.follow(spool, FollowerOptions(spool.desired()), supervised: supervised)
    }

    static func follow(_ spool: Spool, _ options: FollowerOptions, supervised: Bool) throws {
        StopSignal.install()
        // Runs last, after the registration has ended: see `handOver`.
        defer { if supervised { SupervisorGuard.handOver(spool) } }
        let registration = try spool.register(.follower)
        defer { registration.end() }
        // Started by a supervisor: replace it if it dies (SPEC §2).
        if supervised { SupervisorGuard.start(spool) }
        _ = try Follower(spool: spool, options: options).run()
    }

    /// `farm follow --supervised` in a copy of the supervisor (`SupervisedRoles`).
    static func supervised(_ spool: Spool, _ desired: Desired) -> Int32 {
        Farm.exitStatus { try follow(spool, FollowerOptions(desired), supervised: true) }
    }
}
