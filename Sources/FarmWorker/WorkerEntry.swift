import FarmProcess
import FarmSpool

extension Worker {
    /// A worker's life in this process, from its registration to its exit; `supervised` when a supervisor
    /// started it (see RoleLife).
    public static func run(_ spool: Spool, _ options: WorkerOptions, supervised: Bool) throws {
        try RoleLife.run(spool, as: .worker, supervised: supervised, metrics: true) { life in
            try Worker(spool: spool, options: options, metrics: life.metrics, registration: life.registration).run()
        }
    }
}
