import FarmChaosReport
import Foundation

/// What a cluster run adds to the figures (FarmChaosReport's schema): its hosts, the outages, how soon the jobs
/// of a host that went out came back, and what GlusterFS itself cost.
typealias ClusterFigures = ChaosReport.Cluster

extension ChaosReport.Cluster {
    var cutOffs: [ChaosReport.Outage] { outages.filter { $0.kind == .cutOff } }

    /// A run on several hosts proves nothing about cut-offs unless one lasted longer than the lease.
    func sound(lease: Double) -> Bool {
        hosts < 2 || cutOffs.contains { $0.seconds > lease }
    }

    /// The jobs of a host that went out came back within the lease + 2 s (SPEC §11), every one of them
    /// before a cut-off host was linked again.
    func goalsMet(lease: Double) -> Bool {
        (outageReclaims.max() ?? 0) <= lease + 2 && heldAtReturn == 0
    }

    func rows(lease: Double) -> [(String, String, String)] {
        func list(_ outages: [ChaosReport.Outage]) -> String {
            outages.isEmpty ? "none" : outages.map { outage in
                String(format: "%@ %.1f s", outage.host, outage.seconds)
                    + (outage.kind == .death ? " (\(outage.killed) processes)" : "")
                    + (outage.mountBack.map { String(format: " (mount back %.1f s later)", $0) } ?? "")
            }.joined(separator: ", ")
        }
        return [
            ("hosts × workers", "\(hosts) × \(workersPerHost)", ""),
            ("hosts cut off, for", list(cutOffs), String(format: "longer than the lease (%.0f s)", lease)),
            ("hosts that died, back after", list(outages.filter { $0.kind == .death }), ""),
            ("reclaim, host out", Report.reclaim(outageReclaims), String(format: "≤ lease + 2 = %.0f s", lease + 2)),
            ("jobs a cut-off host still held when back", String(heldAtReturn), "0"),
            ("GlusterFS client logs", String(format: "%.1f kB", Double(clientLogBytes) / 1000), ""),
            ("cluster set up in", Report.time(setUpSeconds), ""),
        ]
    }
}
