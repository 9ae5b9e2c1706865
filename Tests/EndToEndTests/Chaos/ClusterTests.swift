import FarmChaosReport
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Why this machine cannot make a GlusterFS cluster, nil when it can.
private let clusterMissing: String? = {
    if geteuid() != 0 { return "a GlusterFS cluster needs root" }
    if !FileManager.default.fileExists(atPath: "/dev/fuse") { return "a GlusterFS cluster needs /dev/fuse" }
    for tool in ["/usr/sbin/glusterd", "/usr/sbin/mount.glusterfs"] where !FileManager.default.fileExists(atPath: tool) {
        return "GlusterFS is not installed (no \(tool); bin/setup installs it)"
    }
    return nil
}()

extension ChaosTests {
    /// The short form of bin/cluster (SPEC §11): two hosts as network namespaces on a real one-brick
    /// GlusterFS volume, each with its own mount and host name; kills by role, a host cut off for longer
    /// than the lease; nothing lost, doubled or corrupt, every output's sha256 the origin's, fsck clean,
    /// and nothing the run made left behind (mounts, namespaces, processes, directories).
    @Test(.enabled(if: clusterMissing == nil, Comment(rawValue: clusterMissing ?? "")))
    func shortClusterRunLosesNothing() throws {
        let dir = TemporaryDirectory("farm-cluster-test")
        let runDir = dir.appending("run"), reportPath = dir.appending("report.json")
        let lease = 4.0
        let child = try ChildProcess(Executables.path("farm-chaos"), [
            "cluster", "--farm", Executables.path("farm"), "--hosts", "2", "--workers", "2", "--seconds", "35",
            "--kills-per-second", "1", "--resources", "40", "--lease", String(lease), "--drain-timeout", "300",
            "--seed", "11", "--dir", runDir, "--report", reportPath,
        ])
        var status = child.wait(timeout: 900)
        if status == nil {
            child.kill(SIGINT)  // farm-chaos then stops its farms and removes what it made
            status = child.wait(timeout: 120)
            child.kill()
        }
        // Whatever happened, remove what the run made, by its ledger (a no-op when it did so itself).
        let cleaned = try run(Executables.path("farm-chaos"), ["clean", runDir])
        #expect(status == 0, "farm-chaos cluster failed:\n\(child.standardOutput)\n\(child.standardError)")
        #expect(cleaned.status == 0 && cleaned.output.isEmpty, "left behind: \(cleaned.output)")

        let mounts = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        #expect(!mounts.contains(dir.path), "a mount is left under \(dir.path)")
        #expect(!FileManager.default.fileExists(atPath: runDir), "\(runDir) is left")
        let stray = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { entry in
            guard Int32(entry) != nil, let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else {
                return false
            }
            return String(decoding: raw, as: UTF8.self).contains(runDir)
        }
        #expect(stray.isEmpty, "processes of the run left: \(stray)")

        let figures = try JSONDecoder().decode(ChaosReport.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
        let cluster = try #require(figures.cluster, "the report has no cluster figures")
        let namespaces = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        #expect(!namespaces.contains { $0.hasPrefix(cluster.volume + "-") }, "namespaces left: \(namespaces)")
        #expect(figures.finished && cluster.hosts == 2)
        #expect(figures.lost == 0 && figures.duplicated == 0 && figures.corrupt == 0 && figures.strays == 0)
        #expect(figures.leftovers == 0 && figures.statusErrors == 0 && figures.pendingReclaims == 0)
        #expect(figures.fsck == 0, "farm fsck found faults in the final spool")
        #expect(figures.done + figures.failed == figures.resources)
        #expect(figures.sameDigest == figures.digests && figures.digests >= figures.done, "an output is not the origin's")
        #expect(figures.kills["worker", default: 0] > 0, "no worker was killed")
        #expect(cluster.outages.contains { $0.kind == .cutOff && $0.seconds > lease },
                "no host was cut off for longer than the lease")
        #expect(cluster.heldAtReturn == 0, "a cut-off host still held jobs when it came back")
        #expect((cluster.outageReclaims.max() ?? 0) < lease + 10)
    }
}
