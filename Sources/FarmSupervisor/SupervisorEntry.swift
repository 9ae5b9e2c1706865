import FarmProcess
import FarmSpool
import FarmTransfer

extension Supervisor {
    /// The supervisor's life in this process, `lock` the descriptor of the supervisor lock it holds; the
    /// other roles are started from `roles`.
    public static func run(_ spool: Spool, lock: Int32, roles: Roles) throws {
        // Its workers are copies of this process: libcurl is loaded once here, not in each of them.
        // Where it cannot be, each worker says why in log/farm.log as it exits.
        EasyHandle.loadLibrary()
        try Supervisor(spool: spool, lock: lock, roles: roles).run()
    }
}
