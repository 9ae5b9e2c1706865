// Hosts: fleet manners toward each host (SPEC §10)
// ================================================
//
// What per-host manners add to the spool's protocol (FarmSpool's PROTOCOL.md, read first). Shared by every
// worker of the spool, on every machine that shares it:
//
//     hosts/<host>/slot.<n>   n = 0..<perHost: a transfer to <host> holds an flock on one of them
//     hosts/<host>/bucket     the host's token bucket (tokens, wall time), rewritten under its flock
//     holds/<host>            the wall time until which no request may go to <host> (a 429 or 503
//                             with Retry-After), replaced by rename; it outlives every process
//     queue/h<host>/p/<job>   queued jobs parked because their host was full, held or out of tokens
//
// A slot is an flock, so a worker killed mid-transfer gives its slot back the instant it dies, as
// the kernel drops its locks; nothing is counted that could leak. A worker that claims a job whose
// host refuses it now parks the job (a rename into the host's batch) and claims another, so no
// worker waits on one host while others have work queued. Parked jobs are still queued jobs (every
// reader that walks queue/ sees them); ordinary claims skip the host batches, and a worker takes
// from one only after its host has let it in, so a full host's jobs are never claimed in a loop.
// A slot and a hold are asked at the claim; a token is taken just before each request (retries too),
// so that however many transfers were admitted in a row, their requests reach the host at its rate.
// Every transfer of a worker (SPEC §13) counts as a worker here: its own slot, its own token. A request
// goes to a host only under that host's leave: a redirect to another host moves the transfer's pass
// there (HostGate.move) before the worker, which follows redirects itself, asks it.

import FarmSpool
import FarmSystem
import SystemPackage

/// The hosts' part of a spool: slots, buckets, holds and parked jobs (the protocol above); `HostGate`
/// admits transfers through it. A value holding the spool's layout; any process or thread may use it.
public struct HostManners: Sendable {
    public let spool: Spool

    public init(_ spool: Spool) { self.spool = spool }
}

extension HostManners {
    func hostSlotPath(_ host: HostKey, _ slot: Int) -> String { spool.path(.hosts, host.raw, "slot." + String(slot)) }
    func hostBucketPath(_ host: HostKey) -> String { spool.path(.hosts, host.raw, "bucket") }
    func holdPath(_ host: HostKey) -> String { spool.path(.holdsDirectory, host.raw) }

    /// The hosts that have jobs parked in the queue.
    public func parkedHosts() -> [HostKey] {
        FileSystem.names(spool.queue).compactMap { Spool.parkedHost(ofBatch: $0).flatMap(HostKey.init(raw:)) }
    }

    /// Opens (creating it and its folder) a slot or bucket file of a host.
    func openHostFile(_ path: String) throws(Errno) -> FileDescriptor {
        do { return try FileDescriptor.open(path, .readWrite, options: .create, permissions: 0o600) } catch where
            error == .noSuchFileOrDirectory {
            try FileSystem.ensureDirectory(spool.hosts)
            try FileSystem.ensureDirectory(String(path[..<path.lastIndex(of: "/")!]))
            return try FileDescriptor.open(path, .readWrite, options: .create, permissions: 0o600)
        }
    }

    /// Every hold on record, in force or past, by host (raw key): wall time until which it holds.
    public func holds() -> [String: Double] {
        var holds: [String: Double] = [:]
        for name in FileSystem.names(spool.holdsDirectory) where !AtomicFile.isTemporary(name) {
            guard let bytes = try? FileSystem.readFile(spool.path(.holdsDirectory, name), limit: 64),
                  let until = Double(String(decoding: bytes, as: UTF8.self)) else { continue }
            holds[name] = until
        }
        return holds
    }

    /// Records that `host` is held until `until` (wall time). Not synced: no command waits on it, and a hold
    /// a power cut undoes is only a request the host answers with a 429 again.
    func setHold(_ host: HostKey, until: Double) throws(SpoolError) {
        try spool.scratch.replace(holdPath(host), with: Array(String(until).utf8), durable: false)
    }

    /// Parks the job `claim` holds in its host's batch, where it stays queued until a worker that the
    /// host lets in takes it (with whatever record its tries left on the job file: `recordBackOff`).
    /// Throws `.leaseLost` when the job was reclaimed meanwhile.
    public func park(_ claim: Claim, for host: HostKey) throws(SpoolError) {
        let claimed = spool.claimPath(claim)
        defer { spool.memberEnded(claim) }
        guard try spool.moveToQueue(claimed, job: claim.job, shard: spool.parkedShard(ofHost: host.raw)) else {
            throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed before it was parked")
        }
    }
}
