import FarmSpool
import FarmSystem
import FoundationEssentials

/// Runs in every supervised worker and watcher: when the supervisor lock is free and the farm is not
/// being stopped, the supervisor has died, and this process starts a new one (which adopts the
/// running workers). The lock is handed down to the new supervisor, so however many processes
/// notice at once, exactly one supervisor starts. Checks every second, with jitter.
public enum SupervisorGuard {
    /// For a supervised process on its way out, once it has handed back its job and left the registry:
    /// it may be the last process of the farm (the supervisor that told it to retire died meanwhile,
    /// along with the rest), so unless the farm is being stopped it makes sure a supervisor runs. A
    /// supervisor killed a moment ago still holds its lock until the kernel has torn it down, so a
    /// held lock is tried again for up to a second before it counts as a live supervisor's.
    public static func handOver(_ spool: Spool) {
        Clock.poll(every: 0.05, for: 1) {
            guard !spool.control.isStopping, !spool.isGone else { return true }
            do {
                guard let pid = try SupervisorLock.launchSupervisor(spool) else { return false }
                spool.log("leaving a farm without a supervisor; started one (pid \(pid))")
            } catch {
                spool.log("cannot start a supervisor on the way out: \(error)")
            }
            return true
        }
    }

    public static func start(_ spool: Spool) {
        Threads.detach {
            while true {
                // A removed spool has no supervisor to replace: its process stops on its own.
                let jittered = 0.8 + Double.random(in: 0...0.4)
                if !Clock.pause(jittered, every: jittered, unless: { spool.isGone }) { return }
                guard !spool.control.isStopping else { continue }
                do {
                    if let pid = try SupervisorLock.launchSupervisor(spool) {
                        spool.log("the supervisor was gone; started a new one (pid \(pid))")
                    }
                } catch {
                    spool.log("cannot replace the supervisor: \(error)")
                }
            }
        }
    }
}
