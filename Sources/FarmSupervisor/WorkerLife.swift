/// One supervised worker's life as its host's supervisor sees it, driven by an explicit table of state and
/// event (as s6-supervise drives a service's): each tick turns what the supervisor saw (the registry, the
/// children it reaped, the clock) into events, and `next` says the worker's new state and what to do.
/// Adopted workers (a former supervisor's) enter as `running`. A value, owned by the supervisor's thread.
enum WorkerLife: Equatable {
    /// Spawned by this supervisor, not registered yet.
    case starting(since: Double)
    /// Registered: it claims and transfers.
    case running
    /// Told to hand back its jobs and exit (a scale-down), at `since`.
    case retiring(since: Double)

    enum Event {
        /// Its entry is in the registry.
        case registered
        /// Reaped, or its registry entry lost its lock: it is gone.
        case gone
        /// Starting for longer than `Supervisor.startupLimit`.
        case startupOverdue
        /// One worker too many: this one goes.
        case retire
        /// Retiring for longer than `Supervisor.graceful`.
        case graceOver
    }

    enum Action: Equatable {
        case none
        /// SIGTERM: hand back your jobs and exit.
        case terminate
        /// SIGKILL.
        case kill
        /// Its jobs go back to the queue now, not when their leases run out (`Supervisor.handleDeath`).
        case handBack
    }

    /// The table: the state after `event` (nil: the worker is no longer tracked), and the action.
    static func next(_ state: WorkerLife, on event: Event, at now: Double) -> (WorkerLife?, Action) {
        switch (state, event) {
        case (.starting, .registered): return (.running, .none)
        case (.starting, .startupOverdue): return (nil, .kill)  // its reaping hands back what it took
        case (.running, .retire): return (.retiring(since: now), .terminate)
        case (.retiring, .graceOver): return (state, .kill)  // again each tick until it is gone
        case (_, .gone): return (nil, .handBack)
        default: return (state, .none)
        }
    }

    /// Counts toward the desired workers: starting or running, not retiring.
    var counts: Bool {
        if case .retiring = self { return false }
        return true
    }
}
