import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// Watches the spool from the side while the chaos runs, on a thread of its own: every few
/// milliseconds it lists active/ to time reclaims (from the SIGKILL of a worker holding a job to the
/// moment no `@<pid>-` entry is left), and every 50 ms it reads the registry, to remember every farm
/// pid (all of them are ended at the end) and since when each supervisor runs. On a cluster, where each
/// look goes over the network, it looks less often (`every`).
///
/// A death counts as seen when a supervisor of the worker's host had run for half a second at the kill
/// (so it knew the worker) and was not itself killed before the job came back; otherwise it is unseen
/// and only the lease brings the job back. A host that is out (cut off, or all its processes killed)
/// has its jobs timed from that moment until each one left it; a job still held when a cut-off host
/// comes back was not reclaimed while it was out. Shared between the chaos thread and its own; every
/// access takes the lock.
final class Observer: @unchecked Sendable {
    struct Reclaims {
        var seen: [Double] = []
        var unseen: [Double] = []
        /// From a host going out to each of its jobs leaving it.
        var outage: [Double] = []
        /// Jobs a cut-off host still held when it came back.
        var heldAtReturn = 0
        /// Jobs of killed workers or of hosts out still in active/ when the observer stopped.
        var pending = 0
    }

    /// The jobs (active/ entries) a host held when it went out, not yet gone.
    private struct Outage {
        let host: String
        let since: Double
        var jobs: Set<String>
    }

    private struct Sample {
        let pid: pid_t
        let killedAt: Double
        /// The supervisor that should see the death, nil when none could.
        let supervisor: pid_t?
    }

    private let spool: Spool
    private let hostOf: @Sendable (pid_t) -> String
    private let scanEvery: Double
    private let registryEvery: Double
    private let lock = NSLock()
    private var outages: [Outage] = []
    private var supervisorHost: [pid_t: String] = [:]
    private var samples: [Sample] = []
    private var reclaims = Reclaims()
    private var supervisorSince: [pid_t: Double] = [:]
    private var supervisorKilledAt: [pid_t: Double] = [:]
    private var everSeen: Set<pid_t> = []
    private var running = true
    private var finished = false

    /// `hostOf` names the host of a live process (one host for all on one machine); active/ is listed
    /// every `every` seconds, the registry every 25 times that.
    init(spool: Spool, hostOf: @escaping @Sendable (pid_t) -> String = { _ in "" }, every: Double = 0.002) {
        self.spool = spool
        self.hostOf = hostOf
        scanEvery = every
        registryEvery = every * 25
    }

    func start() {
        Thread.detachNewThread { [self] in
            var lastRegistry = 0.0
            while lock.withLock({ running }) {
                let now = Clock.monotonic()
                let names = Set(spool.claimedNames())
                let owners = Self.owners(names)
                lock.withLock {
                    for index in outages.indices {
                        for job in outages[index].jobs where !names.contains(job) {
                            reclaims.outage.append(now - outages[index].since)
                            outages[index].jobs.remove(job)
                        }
                    }
                    outages.removeAll { $0.jobs.isEmpty }
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
                if now - lastRegistry >= registryEvery {
                    lastRegistry = now
                    noteRegistry(now)
                }
                usleep(useconds_t(scanEvery * 1e6))
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
            result.pending = samples.count + outages.reduce(0) { $0 + $1.jobs.count }
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
    func workerKilled(_ pid: pid_t, on host: String, at killedAt: Double) {
        guard activeOwners().contains(pid) else { return }
        lock.withLock {
            let stable = supervisorSince.filter {
                $0.value <= killedAt - 0.5 && supervisorKilledAt[$0.key] == nil && supervisorHost[$0.key] == host
            }
            samples.append(Sample(pid: pid, killedAt: killedAt, supervisor: stable.keys.first))
        }
    }

    func supervisorKilled(_ pid: pid_t, at killedAt: Double) {
        lock.withLock { supervisorKilledAt[pid] = killedAt }
    }

    /// Call when `host` goes out (cut off, or all its processes `pids` killed): each job its processes
    /// hold is timed until it leaves them.
    func hostOut(_ host: String, pids: Set<pid_t>, at since: Double) {
        let jobs = spool.claimedNames().filter { ActiveName($0).map { pids.contains($0.owner.pid) } ?? false }
        lock.withLock { outages.append(Outage(host: host, since: since, jobs: Set(jobs))) }
    }

    /// Call when a cut-off `host` is linked again: the jobs it still holds were not reclaimed while it was
    /// out (its workers may now finish them), and are no longer timed.
    func hostBack(_ host: String) {
        lock.withLock {
            for outage in outages where outage.host == host { reclaims.heldAtReturn += outage.jobs.count }
            outages.removeAll { $0.host == host }
        }
    }

    private func noteRegistry(_ now: Double) {
        let live = spool.registry.processes()
        let known = lock.withLock { Set(supervisorSince.keys) }
        let new = live.filter { $0.role == .supervisor && !known.contains($0.pid) }
        let hosts = new.map { hostOf($0.pid) }
        lock.withLock {
            everSeen.formUnion(live.map(\.pid))
            for (process, host) in zip(new, hosts) {
                supervisorSince[process.pid] = now
                supervisorHost[process.pid] = host
            }
        }
    }

    /// The pids named by the entries of active/ (`<job>@<pid>-<nonce>`, a pack's members too), read with
    /// readdir and no stat: cheap enough to run hundreds of times a second.
    private func activeOwners() -> Set<pid_t> {
        Self.owners(spool.claimedNames())
    }

    private static func owners(_ names: some Sequence<String>) -> Set<pid_t> {
        Set(names.compactMap { ActiveName($0)?.owner.pid })
    }
}
