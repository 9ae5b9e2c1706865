import ArgumentParser
import FarmCluster
import FarmJSON
import FarmOrigin
import FarmPieces
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `pieces --mode cluster`: the file over 8 connections shared by two hosts on one GlusterFS spool
/// (FarmCluster; root, /dev/fuse), each host a worker of 4 transfers. Once both hosts' workers hold
/// pieces and a third of the bytes is in, every process of the first host is killed at once; the second
/// must finish the file alone, taking the dead host's pieces once their leases lapse. Each round is a
/// cluster of its own, removed after it.
extension PiecesBenchmark {
    func runOnCluster(file: String, size: Int) throws {
        if let missing = GlusterVolume.missing() { throw ValidationError("cannot make a cluster here: " + missing) }
        let farm = Spawned.sibling("farm")
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        origin.serve(path: "/big.jpg", bytes: try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))),
                     contentType: "image/jpeg")
        origin.inject(.throttle(bytesPerSecond: try Self.bytes(rate)), at: "/big.jpg")
        let scratch = NSTemporaryDirectory() + "/farm-pieces-cluster-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let manifest = scratch + "/big.json"
        try Data(JSON.encode([origin.url(for: "/big.jpg")])).write(to: URL(fileURLWithPath: manifest))
        print("\n## one file of \(mib) MiB from the test origin capped at \(rate) a connection, 8 connections, "
            + "on two hosts sharing one GlusterFS spool (a worker of 4 transfers each); the first host killed "
            + "whole (every process, SIGKILL) once both hold pieces and a third of the bytes is in; \(rounds.count) rounds")
        print("round   seconds   pieces held at the kill (h1, h2)   bytes served ÷ size   right bytes")
        for round in 1...rounds.count {
            let ledger = try Ledger(directory: scratch + "/run-\(round)")
            let outcome = Result {
                try clusterRound(try ClusterHosts.make(count: 2, ledger: ledger), farm: farm, manifest: manifest,
                                 origin: origin, file: file, size: size)
            }
            for problem in ledger.tearDown() { print("  left behind: " + problem) }
            let row = try outcome.get()
            print(String(round).padded(8) + String(format: "%.2f", row.seconds).padded(10)
                + "\(row.held.first) + \(row.held.second)".padded(35)
                + String(format: "%.3f×", Double(row.served) / Double(size)).padded(22) + "yes")
        }
    }

    private struct ClusterRow {
        var seconds: Double
        var held: (first: Int, second: Int)
        var served: Int
    }

    private func clusterRound(_ cluster: ClusterHosts, farm: String, manifest: String, origin: Origin,
                              file: String, size: Int) throws -> ClusterRow {
        let control = cluster.control
        let (first, second) = (cluster.hosts[0], cluster.hosts[1])
        func onHost(_ host: ClusterHost, _ arguments: [String]) throws {
            _ = try Child.run(host.launcher[0], Array(host.launcher.dropFirst()) + [farm] + arguments + ["--spool", host.spool])
        }
        _ = try Child.run(farm, ["add", manifest, "--connections", "8", "--spool", control.spool])
        let before = origin.bytesServed
        let start = Clock.monotonic()
        for host in cluster.hosts { try onHost(host, ["start", "--workers", "1", "--transfers", "4", "--no-convert"]) }
        let spool = try Spool(root: control.spool, create: false)
        // The hosts' names are their owners' tags: a piece's owner says which host holds it.
        var held = (first: 0, second: 0)
        let deadline = Clock.monotonic() + 120
        while Clock.monotonic() < deadline {
            let boards = spool.pieceBoards()
            let owners = boards.flatMap { $0.board.holders().map(\.owner.hostTag) }
            let counts = Dictionary(grouping: owners.compactMap { $0 }, by: { $0 }).mapValues(\.count)
            let bytes = boards.map { $0.board.bytesIn() }.reduce(0, +)
            if counts.count >= 2 && bytes >= size / 3 {
                let tags = counts.keys.sorted()
                held = (counts[tags[0]] ?? 0, counts[tags[1]] ?? 0)
                break
            }
            usleep(20_000)
        }
        guard held.first > 0 && held.second > 0 else {
            throw ValidationError("the two hosts did not both hold pieces of the file within 120 s")
        }
        let left = ProcessTable.end(ProcessTable.pids().filter(first.owns))
        guard left.isEmpty else { throw ValidationError("\(first.name)'s processes \(left) outlived SIGKILL") }
        _ = try Child.run(farm, ["wait", "--timeout", "600", "--spool", control.spool])
        let seconds = Clock.monotonic() - start
        try onHost(second, ["stop"])
        let stored = spool.outputBase(JobName(list: ListID.of(name: "big.json"), index: 0)) + ".jpg"
        guard FileManager.default.contentsEqual(atPath: stored, andPath: file) else {
            throw ValidationError("the file the second host finished is not the origin's")
        }
        return ClusterRow(seconds: seconds, held: held, served: origin.bytesServed - before)
    }
}
