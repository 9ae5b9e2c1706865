import FarmSystem
import Foundation
import Glibc

/// A one-brick GlusterFS volume served from the server's namespace by a glusterd of its own: its state,
/// run files, logs and CLI socket are all under `directory` (none in /var/lib/glusterd or
/// /var/run/glusterd.socket, so another glusterd on the machine is not disturbed). The one file it
/// makes elsewhere, the brick's socket in /run/gluster, is noted in the ledger.
public struct GlusterVolume: Sendable {
    public let name: String
    /// Where glusterd keeps everything: `state/`, `run/`, `logs/`, `brick/`, `glusterd.vol`.
    public let directory: String
    public let network: NetworkNamespaces

    public var logs: String { directory + "/logs" }
    private var socket: String { directory + "/glusterd.socket" }
    private var brick: String { directory + "/brick" }

    /// The mount options: no attribute, entry or negative caching, so each mount sees the others' changes
    /// at once (claims, leases by ctime); no readdirplus, which makes listing a large folder five times
    /// slower (farm-start(1)'s advice, SEVERAL HOSTS).
    public static let mountOptions = "attribute-timeout=0,entry-timeout=0,negative-timeout=0,use-readdirp=no"
    /// Seconds a client waits for a silent server before its calls fail: a cut-off host's mount fails
    /// after about twice this, instead of after minutes.
    public static let pingTimeout = 5

    /// Whether this machine can run it; nil when it can, else why not (one line).
    public static func missing() -> String? {
        if geteuid() != 0 { return "a cluster needs root (network namespaces, FUSE mounts)" }
        if !FileManager.default.fileExists(atPath: "/dev/fuse") { return "no /dev/fuse: this machine cannot mount FUSE" }
        for tool in ["/usr/sbin/glusterd", "/usr/sbin/gluster", "/usr/sbin/mount.glusterfs"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "GlusterFS is not installed (no \(tool)): apt-get install glusterfs-server glusterfs-client fuse3"
        }
        for tool in [NetworkNamespaces.ip, "/usr/bin/nsenter", "/usr/bin/unshare"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "no \(tool) (iproute2, util-linux)"
        }
        return nil
    }

    /// Starts glusterd in the server's namespace, then creates and starts the volume.
    public func start(_ ledger: Ledger) throws {
        for sub in ["state", "run", "logs", "brick"] { try ledger.makeDirectory(directory + "/" + sub) }
        let configuration = """
            volume management
                type mgmt/glusterd
                option working-directory \(directory)/state
                option run-directory \(directory)/run
                option logging-directory \(logs)
                option glusterd-sockfile \(socket)
                option transport-type socket
                option transport.socket.listen-port 24007
                option ping-timeout 0
                option event-threads 1
            end-volume

            """
        try configuration.write(toFile: directory + "/glusterd.vol", atomically: true, encoding: .utf8)
        try SystemCommand.must(NetworkNamespaces.inside(network.server, [
            "/usr/sbin/glusterd", "-f", directory + "/glusterd.vol", "-p", directory + "/glusterd.pid",
            "-l", logs + "/glusterd.log",
        ]))
        try waitForGlusterd()
        try gluster(["volume", "create", name, "transport", "tcp", network.serverAddress + ":" + brick, "force"])
        try gluster(["volume", "set", name, "performance.stat-prefetch", "off"])
        try gluster(["volume", "set", name, "network.ping-timeout", String(Self.pingTimeout)])
        try gluster(["volume", "start", name])
        try noteBrickSocket(ledger)
    }

    /// Mounts the volume at `point` through `namespace`'s link (its client's log in `logs/`).
    public func mount(at point: String, through namespace: String, _ ledger: Ledger) throws {
        try ledger.makeDirectory(point)
        try ledger.note(.mount, point)
        let log = logs + "/client-" + (point.split(separator: "/").last.map(String.init) ?? "mount") + ".log"
        try SystemCommand.must(NetworkNamespaces.inside(namespace, [
            "/usr/bin/mount", "-t", "glusterfs", "-o", Self.mountOptions + ",log-file=" + log,
            network.serverAddress + ":/" + name, point,
        ]), timeout: 60)
        // The mount is made once the client has the volume's layout; its first calls may still fail
        // (ENOTCONN) until it has reached the brick.
        let deadline = Date().addingTimeInterval(30)
        while access(point + "/.", F_OK) != 0 {
            guard Date() < deadline else {
                throw ClusterError("the mount at \(point) does not answer (\(String(cString: strerror(errno)))); see \(log)")
            }
            usleep(50_000)
        }
    }

    /// Bytes written to the clients' logs so far (a warning per failed claim: they grow in long runs).
    public func clientLogBytes() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: logs)) ?? []
        return names.filter { $0.hasPrefix("client-") }.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: logs + "/" + name)[.size] as? Int) ?? 0)
        }
    }

    @discardableResult
    private func gluster(_ arguments: [String]) throws -> String {
        try SystemCommand.must(["/usr/sbin/gluster", "--mode=script", "--glusterd-sock=" + socket,
                          "--log-file=" + logs + "/cli.log"] + arguments, timeout: 120)
    }

    /// glusterd forks and returns before it listens: ask it until it answers (10 s at most).
    private func waitForGlusterd() throws {
        guard Clock.poll(every: 0.1, for: 10, until: { (try? gluster(["volume", "list"])) != nil }) == .ready else {
            throw ClusterError("glusterd did not answer within 10 s (see \(logs)/glusterd.log)")
        }
    }

    /// The brick's process listens on a socket in /run/gluster (run-directory does not move it): read its
    /// path from the process's arguments, so that the ledger removes it.
    private func noteBrickSocket(_ ledger: Ledger) throws {
        let pidFiles = directory + "/run/vols/" + name
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pidFiles)) ?? []
        for file in names where file.hasSuffix(".pid") {
            guard let text = try? String(contentsOfFile: pidFiles + "/" + file, encoding: .utf8),
                  let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
            let arguments = ProcessTable.arguments(pid)
            if let flag = arguments.firstIndex(of: "-S"), flag + 1 < arguments.count {
                try ledger.note(.socket, arguments[flag + 1])
            }
        }
    }
}
