import FarmFollower
import FarmProcess
import FarmSpool
import FarmSupervisor
import FarmWatcher
import FarmWorker

extension Roles {
    /// The farm's roles: made here, in the executable that links them all, and passed down to whatever
    /// starts processes (`farm start`, `farm get`, `farm demo`, the supervisor).
    static let farm = Roles(
        supervisor: { spool, lock, roles in RoleLife.exitStatus { try Supervisor.run(spool, lock: lock, roles: roles) } },
        worker: { spool, desired in
            RoleLife.exitStatus { try Worker.run(spool, WorkerOptions(desired), supervised: true) }
        },
        watcher: { spool in RoleLife.exitStatus { try Watcher.run(spool, supervised: true) } },
        follower: { spool, desired in
            RoleLife.exitStatus { try Follower.run(spool, FollowerOptions(desired), supervised: true) }
        })
}
