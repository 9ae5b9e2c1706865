import FarmMetrics
import FarmRegistry
import FarmSpool
import FarmSystem
import FoundationEssentials

/// What every long-running role (worker, watcher, follower) does around its work, in one place: the stop
/// signals caught, its entry in the registry for its lifetime, its counters in metrics/ (a worker's), and,
/// when the supervisor started it, the guard that replaces a dead supervisor and the hand-over on the way
/// out (SPEC §2). The order matters and is the same for every role: the hand-over runs last, after the
/// registration has ended (see `SupervisorGuard.handOver`). Called on the process's main thread.
public enum RoleLife {
    /// What a role's work gets from its life.
    public struct Context {
        public let registration: Registration
        /// Where the role records its counters (kept in memory only for a role that writes none).
        public let metrics: SpoolMetricsFactory
    }

    /// Runs `work` as `role` on `spool`, registered for its whole length; `supervised` when a supervisor
    /// started this process; `metrics` when the role keeps counters (see FarmMetrics/MetricFiles.swift).
    public static func run(_ spool: Spool, as role: Role, supervised: Bool, metrics: Bool = false,
                           _ work: (Context) throws -> Void) throws {
        StopSignal.install()
        defer { if supervised { SupervisorGuard.handOver(spool) } }
        let registration = try spool.registry.register(role)
        defer { registration.end() }
        // Counters are written while the role is registered only.
        let recorder = metrics ? MetricsRecorder(spool: spool, registration: registration) : nil
        defer { recorder?.finish() }
        recorder?.flushEverySecond()
        // Started by a supervisor: replace it if it dies. A role run by hand has none to replace.
        if supervised { SupervisorGuard.start(spool) }
        try work(Context(registration: registration, metrics: recorder?.factory ?? SpoolMetricsFactory()))
    }

    /// Runs a role's body where no command line is parsed (a copy of the supervisor, see `Spawn.copy`): a
    /// thrown error is said on standard error (the spool's log, in a copy) as `farm` says one, and the
    /// status is 1; else 0.
    public static func exitStatus(_ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            Standard.error("Error: \(error)\n")
            return 1
        }
    }
}
