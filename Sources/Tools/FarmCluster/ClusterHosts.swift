import Foundation
import Glibc

/// One farm host of the cluster: a network namespace whose link carries its own mount of the volume,
/// and a UTS namespace (kept in a file) that gives its processes its host name. Its farm processes
/// run in the machine's network, so they reach an origin on 127.0.0.1: only their spool goes through
/// the host's link.
public struct ClusterHost: Sendable {
    public let name: String
    public let namespace: String
    public let mount: String
    /// The spool, inside the mount.
    public let spool: String
    /// The UTS namespace's inode, nil for the control host (it keeps the machine's name).
    public let uts: UInt64?
    /// What runs a command on this host, under its host name (`nsenter --uts=…`, which execs the command
    /// in place); nothing for the control host.
    public let launcher: [String]

    /// Whether `pid` is one of this host's processes.
    public func owns(_ pid: pid_t) -> Bool { uts != nil && ProcessTable.utsNamespace(pid) == uts }
}

/// The cluster on this machine: a GlusterFS volume served from a namespace of its own, `count` farm
/// hosts each mounting it through its own link, and a control mount for whoever drives them (adds,
/// status, checks), which is never cut off. Everything is noted in the ledger before it is made.
public struct ClusterHosts: Sendable {
    public let network: NetworkNamespaces
    public let volume: GlusterVolume
    public let hosts: [ClusterHost]
    public let control: ClusterHost

    public static func make(count: Int, ledger: Ledger) throws -> ClusterHosts {
        let id = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let network = NetworkNamespaces(prefix: "farm-" + id)
        let volume = GlusterVolume(name: "farm-" + id, directory: ledger.directory + "/gluster", network: network)
        try network.makeServer(ledger)
        try volume.start(ledger)
        func make(_ name: String, number: Int, named: Bool) throws -> ClusterHost {
            let namespace = try network.makeHost(ledger, name: name, number: number)
            let mount = ledger.directory + "/mnt/" + name
            try volume.mount(at: mount, through: namespace, ledger)
            var uts: UInt64?
            var launcher: [String] = []
            if named {
                let file = ledger.directory + "/uts-" + name
                try ledger.note(.uts, file)
                guard FileManager.default.createFile(atPath: file, contents: nil) else {
                    throw ClusterError("cannot create \(file)")
                }
                try SystemCommand.must(["/usr/bin/unshare", "--uts=" + file, "/usr/bin/hostname", name])
                uts = ProcessTable.namespaceInode(file)
                launcher = ["/usr/bin/nsenter", "--uts=" + file]
            }
            return ClusterHost(name: name, namespace: namespace, mount: mount, spool: mount + "/spool", uts: uts,
                               launcher: launcher)
        }
        let hosts = try (1...count).map { try make("h\($0)", number: $0, named: true) }
        let control = try make("control", number: count + 1, named: false)
        return ClusterHosts(network: network, volume: volume, hosts: hosts, control: control)
    }

    /// The name of the host `pid` runs on, nil when it is none of them.
    public func host(of pid: pid_t) -> String? {
        guard let uts = ProcessTable.utsNamespace(pid) else { return nil }
        return hosts.first { $0.uts == uts }?.name
    }
}
