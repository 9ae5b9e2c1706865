import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// Watches the spool from the side while the chaos runs, on a thread of its own: every few
/// milliseconds it lists active/ to time reclaims (from the SIGKILL of a worker holding a job to the
/// moment no `@<pid>-` entry is left), and every 50 ms it reads the registry, to remember every farm
/// pid (all of them are ended at the end) and since when each supervisor runs.
///
/// A death counts as seen when a supervisor had run for half a second at the kill (so it knew the
/// worker) and was not itself killed before the job came back; otherwise it is unseen and only the
/// lease brings the job back. Shared between the chaos thread and its own; every access takes the lock.
final class Observer: @unchecked Sendable {
    struct Reclaims {
        var seen: [Double] = []
        var unseen: [Double] = []
        /// Jobs of killed workers still in active/ when the observer stopped.
        var pending = 0
    }

    private struct Sample {
        let pid: pid_t
        let killedAt: Double
        /// The supervisor that should see the death, nil when none could.
        let supervisor: pid_t?
    }

    private let spool: Spool
    private let lock = NSLock()
    private var samples: [Sample] = []
    private var reclaims = Reclaims()
    private var supervisorSince: [pid_t: Double] = [:]
    private var supervisorKilledAt: [pid_t: Double] = [:]
    private var everSeen: Set<pid_t> = []
    private var running = true
    private var finished = false

    init(spool: Spool) {
        self.spool = spool
    }

    func start() {
        Thread.detachNewThread { [self] in
            var lastRegistry = 0.0
            while lock.withLock({ running }) {
                let now = Clock.monotonic()
                let owners = activeOwners()
                lock.withLock {
                    samples.removeAll { sample in
                        guard !owners.contains(sample.pid) else { return false }
                        let seen = sample.supervisor.map { supervisor in
                            supervisorKilledAt[supervisor].map { $0 > now } ?? true
                        } ?? false
                        if seen { reclaims.seen.append(now - sample.killedAt) } else {
                            reclaims.unseen.append(now - sample.killedAt)
                        }
                        return true
                    }
                }
                if now - lastRegistry >= 0.05 {
                    lastRegistry = now
                    noteRegistry(now)
                }
                usleep(2000)
            }
            lock.withLock { finished = true }
        }
    }

    /// Stops the thread and returns the reclaim times measured.
    func stop() -> Reclaims {
        lock.withLock { running = false }
        while !lock.withLock({ finished }) { usleep(1000) }
        return lock.withLock {
            var result = reclaims
            result.pending = samples.count
            return result
        }
    }

    /// Every farm pid seen registered during the run.
    var pids: Set<pid_t> {
        noteRegistry(Clock.monotonic())
        return lock.withLock { everSeen }
    }

    /// Pids of the workers that hold a job now.
    func busyWorkers() -> Set<pid_t> { activeOwners() }

    /// Call right after SIGKILL of a worker: when it still holds a job, the time until it is back is
    /// measured.
    func workerKilled(_ pid: pid_t, at killedAt: Double) {
        guard activeOwners().contains(pid) else { return }
        lock.withLock {
            let stable = supervisorSince.filter { $0.value <= killedAt - 0.5 && supervisorKilledAt[$0.key] == nil }
            samples.append(Sample(pid: pid, killedAt: killedAt, supervisor: stable.keys.first))
        }
    }

    func supervisorKilled(_ pid: pid_t, at killedAt: Double) {
        lock.withLock { supervisorKilledAt[pid] = killedAt }
    }

    private func noteRegistry(_ now: Double) {
        let live = spool.processes()
        lock.withLock {
            everSeen.formUnion(live.map(\.pid))
            for process in live where process.role == .supervisor && supervisorSince[process.pid] == nil {
                supervisorSince[process.pid] = now
            }
        }
    }

    /// The pids named by the entries of active/ (`<job>@<pid>-<nonce>`), read with readdir and no stat:
    /// cheap enough to run hundreds of times a second.
    private func activeOwners() -> Set<pid_t> {
        Set(FileSystem.names(spool.active).compactMap { ActiveName($0)?.owner.pid })
    }
}
