import FarmChaosReport
import FarmCluster
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// Hosts going out during a cluster's chaos, one at a time: a cut-off (the host's link set down for
/// longer than the lease, so its mount blocks, then fails, while its processes live on and come back
/// when the link does) or a death (all its processes SIGKILLed at once, the host started again a few
/// seconds later, as after a reboot). A cut-off host is out until its mount answers again, a few
/// seconds after its link is back. The first outage is a cut-off. Either way its jobs must be
/// reclaimed by the other hosts within the lease + 2 s (the observer times them), and a worker of a
/// cut-off host must never complete one of them once it is back. Runs on the chaos thread.
final class Outages {
    typealias Kind = ChaosReport.Outage.Kind
    /// One outage, as reported.
    typealias Outage = ChaosReport.Outage

    private struct Current {
        let host: ClusterHost
        let kind: Kind
        let since: Double
        let until: Double
        let killed: Int
        /// When a cut-off host's link came back (its mount does not answer yet).
        var linkedAt: Double?
    }

    private let cluster: ClusterHosts
    private let spool: Spool
    private let observer: Observer
    private let lease: Double
    /// Starts a dead host's farm again.
    private let start: (ClusterHost) throws -> Void
    private var random: SplitMix64
    private var current: Current?
    private var next: Double
    private(set) var done: [Outage] = []

    init(cluster: ClusterHosts, spool: Spool, observer: Observer, lease: Double,
         start: @escaping (ClusterHost) throws -> Void, seed: UInt64) {
        self.cluster = cluster
        self.spool = spool
        self.observer = observer
        self.lease = lease
        self.start = start
        random = SplitMix64(seed: seed)
        next = Clock.monotonic() + Double.random(in: 3...6, using: &random)
    }

    func isOut(_ host: String) -> Bool { current?.host.name == host }

    /// Starts the next outage when it is due and there is time for it (`remaining` seconds of chaos
    /// left), ends the current one when its time is up.
    func step(remaining: Double) throws {
        let now = Clock.monotonic()
        if let current {
            if let linkedAt = current.linkedAt {
                if Self.answers(current.host) || now - linkedAt > 60 { finish(current) }
            } else if now >= current.until {
                try end(current)
            }
            return
        }
        // Someone must be left to reclaim.
        guard now >= next, cluster.hosts.count > 1 else { return }
        let cutOff = done.isEmpty || Int.random(in: 0..<10, using: &random) < 7
        let seconds = cutOff ? lease + Double.random(in: 3...8, using: &random) : Double.random(in: 2...6, using: &random)
        // A cut-off shorter than the lease + 3 s proves little: wait for the next chaos instead.
        guard remaining >= seconds + 1 || (cutOff && remaining >= lease + 4) else { return }
        let host = cluster.hosts.randomElement(using: &random)!
        let length = min(seconds, remaining - 1)
        let pids = Set(spool.registry.processes().map(\.pid).filter(host.owns))
        if cutOff {
            observer.hostOut(host.name, pids: pids, at: now)
            try cluster.network.setLink(of: host.namespace, up: false)
            print(String(format: "chaos: %@ cut off for %.0f s", host.name, length))
            current = Current(host: host, kind: .cutOff, since: now, until: now + length, killed: 0)
        } else {
            // Killed in one sweep, and again until none is left: a supervisor may have started a worker meanwhile.
            var killed = 0
            var left = pids
            let deadline = now + 5
            while !left.isEmpty && Clock.monotonic() < deadline {
                for pid in left where kill(pid, SIGKILL) == 0 { killed += 1 }
                left = Set(spool.registry.processes().map(\.pid).filter(host.owns))
            }
            observer.hostOut(host.name, pids: pids, at: now)
            print(String(format: "chaos: %@ died (%d processes killed), back in %.0f s", host.name, killed, length))
            current = Current(host: host, kind: .death, since: now, until: now + length, killed: killed)
        }
    }

    /// Ends the outage under way, if any (the chaos is over), and waits for a cut-off host's mount.
    func endAll() throws {
        if let current, current.linkedAt == nil { try end(current) }
        while let current, let linkedAt = current.linkedAt {
            if Self.answers(current.host) || Clock.monotonic() - linkedAt > 60 { finish(current) } else { usleep(50_000) }
        }
    }

    private func end(_ outage: Current) throws {
        switch outage.kind {
        case .cutOff:
            try cluster.network.setLink(of: outage.host.namespace, up: true)
            observer.hostBack(outage.host.name)
            current?.linkedAt = Clock.monotonic()
        case .death:
            try start(outage.host)
            finish(outage)
        }
    }

    private func finish(_ outage: Current) {
        current = nil
        let now = Clock.monotonic()
        done.append(Outage(host: outage.host.name, kind: outage.kind, seconds: (outage.linkedAt ?? now) - outage.since,
                           killed: outage.killed, mountBack: outage.linkedAt.map { now - $0 }))
        next = now + Double.random(in: 4...10, using: &random)
    }

    /// Whether the host's mount answers (a cut-off one fails with ENOTCONN until it is back).
    private static func answers(_ host: ClusterHost) -> Bool {
        access(host.spool, F_OK) == 0
    }
}
