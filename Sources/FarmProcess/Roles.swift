import FarmDesired
import FarmSpool

/// The farm's long-running roles, each as the one entry point its target offers, run in a process of its
/// own (a copy of the starter made by `Spawn.copy`, or `farm supervise`, `farm work --supervised`, `farm
/// watch --supervised` and `farm follow --supervised` where a copy cannot be made) and returning its exit
/// status. The `farm` executable, which links every role, makes the one table and passes it down: a
/// supervisor starts the others from it, and `farm start` the supervisor. Nothing below the executable
/// names a role's target, so a front end (status, top, serve, the RPC) links none of them.
public struct Roles: Sendable {
    /// This host's supervisor, holding the supervisor lock `lock` (a descriptor).
    public let supervisor: @Sendable (_ spool: Spool, _ lock: Int32, _ roles: Roles) -> Int32
    public let worker: @Sendable (_ spool: Spool, _ desired: Desired) -> Int32
    public let watcher: @Sendable (_ spool: Spool) -> Int32
    public let follower: @Sendable (_ spool: Spool, _ desired: Desired) -> Int32

    public init(supervisor: @escaping @Sendable (_ spool: Spool, _ lock: Int32, _ roles: Roles) -> Int32,
                worker: @escaping @Sendable (_ spool: Spool, _ desired: Desired) -> Int32,
                watcher: @escaping @Sendable (_ spool: Spool) -> Int32,
                follower: @escaping @Sendable (_ spool: Spool, _ desired: Desired) -> Int32) {
        self.supervisor = supervisor
        self.worker = worker
        self.watcher = watcher
        self.follower = follower
    }
}
