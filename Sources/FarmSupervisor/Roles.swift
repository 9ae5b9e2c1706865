import FarmFollower
import FarmProcess
import FarmSpool
import FarmTransfer
import FarmWatcher
import FarmWorker

/// The farm's long-running roles, as `farm start` and the supervisor run them in copies of themselves
/// (`Spawn.copy`, with `farm supervise`, `farm work --supervised`, `farm watch --supervised` and `farm
/// follow --supervised` for when a copy cannot be made): each runs its target's one entry point and
/// returns its exit status.
enum Roles {
    static func supervisor(_ spool: Spool, lock: Int32) -> Int32 {
        RoleLife.exitStatus { try Supervisor.run(spool, lock: lock) }
    }

    static func worker(_ spool: Spool, _ desired: Desired) -> Int32 {
        RoleLife.exitStatus { try Worker.run(spool, WorkerOptions(desired), supervised: true) }
    }

    static func watcher(_ spool: Spool) -> Int32 {
        RoleLife.exitStatus { try Watcher.run(spool, supervised: true) }
    }

    static func follower(_ spool: Spool, _ desired: Desired) -> Int32 {
        RoleLife.exitStatus { try Follower.run(spool, FollowerOptions(desired), supervised: true) }
    }
}

extension Supervisor {
    /// The supervisor's life in this process, `lock` the descriptor of the supervisor lock it holds.
    public static func run(_ spool: Spool, lock: Int32) throws {
        // Its workers are copies of this process: libcurl is loaded once here, not in each of them.
        // Where it cannot be, each worker says why in log/farm.log as it exits.
        EasyHandle.loadLibrary()
        try Supervisor(spool: spool, lock: lock).run()
    }
}
