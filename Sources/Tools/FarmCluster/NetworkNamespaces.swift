import Foundation

/// The cluster's network, made of namespaces only: nothing is added to the machine's own interfaces,
/// and no traffic leaves loopback and these namespaces. The server's namespace holds a bridge with
/// the server's address; each host's namespace holds one end of a veth pair (`eth0`, with the host's
/// address), whose other end is a port of the bridge. Both ends are created inside the namespaces, so
/// nothing appears in the machine's. Cutting a host off is setting its `eth0` down.
public struct NetworkNamespaces: Sendable {
    /// Namespace names start with this (and the run's id): `<prefix>-server`, `<prefix>-h1`…
    public let prefix: String
    public var server: String { prefix + "-server" }
    /// The server's address, on the bridge: GlusterFS refuses 127.x and localhost as a brick's host.
    public let serverAddress = "10.250.0.1"

    public init(prefix: String) {
        self.prefix = prefix
    }

    public static let ip = "/usr/sbin/ip"

    /// Makes the server's namespace and its bridge.
    public func makeServer(_ ledger: Ledger) throws {
        try ledger.note(.namespace, server)
        try SystemCommand.must([Self.ip, "netns", "add", server])
        try SystemCommand.must([Self.ip, "-n", server, "link", "set", "lo", "up"])
        try SystemCommand.must([Self.ip, "-n", server, "link", "add", "br0", "type", "bridge"])
        try SystemCommand.must([Self.ip, "-n", server, "addr", "add", serverAddress + "/24", "dev", "br0"])
        try SystemCommand.must([Self.ip, "-n", server, "link", "set", "br0", "up"])
    }

    /// Makes the namespace of host `name` (the `number`th, from 1) linked to the server's bridge;
    /// returns the namespace's name.
    public func makeHost(_ ledger: Ledger, name: String, number: Int) throws -> String {
        let namespace = prefix + "-" + name
        try ledger.note(.namespace, namespace)
        try SystemCommand.must([Self.ip, "netns", "add", namespace])
        try SystemCommand.must([Self.ip, "-n", namespace, "link", "set", "lo", "up"])
        try SystemCommand.must([Self.ip, "-n", namespace, "link", "add", "eth0", "type", "veth", "peer", "name", name,
                          "netns", server])
        try SystemCommand.must([Self.ip, "-n", server, "link", "set", name, "master", "br0", "up"])
        try SystemCommand.must([Self.ip, "-n", namespace, "addr", "add", "10.250.0.\(10 + number)/24", "dev", "eth0"])
        try SystemCommand.must([Self.ip, "-n", namespace, "link", "set", "eth0", "up"])
        return namespace
    }

    /// Cuts the host in `namespace` off the server (its mount blocks, then fails), or links it again.
    public func setLink(of namespace: String, up: Bool) throws {
        try SystemCommand.must([Self.ip, "-n", namespace, "link", "set", "eth0", up ? "up" : "down"])
    }

    /// Runs `arguments` in `namespace`'s network alone: a mount made so is the machine's, while its
    /// client talks through that namespace's link (`ip netns exec` would hide the mount from the rest).
    public static func inside(_ namespace: String, _ arguments: [String]) -> [String] {
        ["/usr/bin/nsenter", "--net=/run/netns/" + namespace] + arguments
    }
}
