import ArgumentParser
import FarmFollower
import FarmSpool
import FarmSupervisor

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
        try RoleLife.run(spool, as: .follower, supervised: supervised) { _ in
            _ = try Follower(spool: spool, options: options).run()
        }
    }

    /// `farm follow --supervised` in a copy of the supervisor (`SupervisedRoles`).
    static func supervised(_ spool: Spool, _ desired: Desired) -> Int32 {
        Farm.exitStatus { try follow(spool, FollowerOptions(desired), supervised: true) }
    }
}
