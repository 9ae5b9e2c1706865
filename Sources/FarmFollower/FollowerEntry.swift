import FarmProcess
import FarmSpool

extension Follower {
    /// The follower's life in this process, until no paged list has pages left to fetch; `supervised`
    /// when a supervisor started it (see RoleLife).
    public static func run(_ spool: Spool, _ options: FollowerOptions, supervised: Bool) throws {
        try RoleLife.run(spool, as: .follower, supervised: supervised) { _ in
            _ = try Follower(spool: spool, options: options).run()
        }
    }
}
