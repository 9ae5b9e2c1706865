import FarmSystem
import SystemPackage

/// The moves every leased claim of the protocol makes, whatever is claimed: a job, a piece of a download,
/// a hook. An item waits as `<waiting>/<name>` (a job waits in its batch's shards: it is claimed from
/// there by path); a claim renames it to `<active>/<name>@<owner>`, and of contenders one rename wins. The
/// claim's ctime is its lease: the rename set it, `renew` touches it. Its owner ends it by renaming it on
/// (to done/, d/, ok/: each caller its own) or back (`handBack`); any process may send it back once its
/// lease is older than the farm's (`reclaimExpired`) or its owner is known gone (`release(ownedBy:)`).
/// Since each of these is one rename of the claim's name, which carries its owner, an owner whose claim
/// went back finds nothing under its name: it can neither renew nor end what is now another's.
///
/// A claim may note the process group that works for it (`noteProcess`: a hook's program, which outlives
/// a runner killed): a release ends that group first, so that the next owner does not run beside it.
///
/// Names are opaque here: each caller parses its own (a job's name, a piece's range). One queue for every
/// kind is what lets the release of a dead owner's claims be one call (`Spool.releaseJobs(ownedBy:)`).
public struct LeasedQueue: Sendable {
    /// Where items wait, `<waiting>/<name>`, and where they are held, `<active>/<name>@<owner>`.
    public let waiting: String
    public let active: String
    /// How a claim goes back to `waiting` (a job's way keeps a second copy out of the queue: Moves.swift);
    /// nil: a rename, which replaces an item of that name waiting already (one is as good as the other).
    let returning: (@Sendable (_ source: String, _ name: String) -> Bool)?
    /// Whether claims may note a process (`noteProcess`), which a release then ends.
    let notesProcesses: Bool

    /// One item held by one owner, under a name fresh for the claim.
    public struct Claim: Sendable, Hashable {
        public let name: String
        public let owner: Owner

        public init(name: String, owner: Owner) {
            self.name = name
            self.owner = owner
        }

        /// `<name>@<owner>`, its name in `active`; nil when `raw` is no claim's name.
        public init?(_ raw: String) {
            guard let at = raw.lastIndex(of: "@"), let owner = Owner(String(raw[raw.index(after: at)...])) else {
                return nil
            }
            self.init(name: String(raw[..<at]), owner: owner)
        }

        public var raw: String { name + "@" + owner.raw }
    }

    public init(waiting: String, active: String, notesProcesses: Bool = false,
                returning: (@Sendable (_ source: String, _ name: String) -> Bool)? = nil) {
        self.waiting = waiting
        self.active = active
        self.notesProcesses = notesProcesses
        self.returning = returning
    }

    public func path(of claim: Claim) -> String { active + "/" + claim.raw }

    /// Claims the item `name` waiting at `source` (by default `<waiting>/<name>`) for `owner`: one rename;
    /// nil when another contender took it first. `active` exists (the spool makes jobs' and hooks' folders
    /// when it is opened, a board its own when it is published), so a lost race costs nothing more.
    public func claim(_ name: String, from source: String? = nil, owner: Owner = .fresh()) throws(Errno) -> Claim? {
        let claim = Claim(name: name, owner: owner)
        do { try FileSystem.rename(source ?? waiting + "/" + name, path(of: claim)) } catch where
            error == .noSuchFileOrDirectory {
            return nil
        }
        return claim
    }

    /// Renews the lease of `claim`; throws `.noSuchFileOrDirectory` when it is no longer its owner's.
    public func renew(_ claim: Claim) throws(Errno) { try FileSystem.touch(path(of: claim)) }

    /// Sends `claim` back to `waiting`; false when it was not there (gone on, or another's now).
    @discardableResult
    public func handBack(_ claim: Claim) -> Bool { giveBack(claim) }

    /// Every claim held now; names that are no claim's are left out (`leases` hands them over).
    public func claims() -> [Claim] { FileSystem.names(active).compactMap(Claim.init) }

    /// Every claim held now with the age of its lease in seconds; each name that is no claim's is given
    /// to `foreign` (to set aside).
    public func leases(now: Double = Clock.wall(), foreign: (String) -> Void = { _ in }) -> [(Claim, age: Double)] {
        FileSystem.names(active).compactMap { raw in
            guard let claim = Claim(raw) else {
                foreign(active + "/" + raw)
                return nil
            }
            guard let st = try? FileSystem.lstat(active + "/" + raw) else { return nil }
            return (claim, now - st.changeTime)
        }
    }

    /// Sends back every claim whose lease is older than `lease` seconds; safe from many processes at once
    /// (one rename wins). Returns those this process sent back.
    @discardableResult
    public func reclaimExpired(lease: Double, foreign: (String) -> Void = { _ in }) -> [Claim] {
        leases(foreign: foreign).compactMap { claim, age in age > lease && giveBack(claim) ? claim : nil }
    }

    /// Sends back every claim of the owners that `isGone` says are gone (the caller judges: a process of
    /// this host that is not running, a host known dead), after ending the process group each noted
    /// (`ended` is told of each). Returns those this process sent back.
    @discardableResult
    public func release(ownedBy isGone: (Owner) -> Bool,
                        ended: (Claim, _ group: Int32) -> Void = { _, _ in }) -> [Claim] {
        release(claims().filter { isGone($0.owner) }, ended: ended)
    }

    /// `release(ownedBy:)` of claims listed earlier (before the caller judged their owners).
    @discardableResult
    public func release(_ claims: [Claim], ended: (Claim, _ group: Int32) -> Void = { _, _ in }) -> [Claim] {
        claims.compactMap { claim in
            if let group = notedProcess(of: claim) {
                Processes.sendToGroup(.kill, group)
                ended(claim, group)
            }
            return giveBack(claim) ? claim : nil
        }
    }

    /// Notes in `claim` the process group that works for it, by its leader's pid and start time (a pid
    /// used again is someone else's); written in place. Unwritten (an owner killed just before), the
    /// claim is released without it.
    public func noteProcess(_ claim: Claim, pid: Int32) {
        guard notesProcesses, let started = Processes.groupAndStart(of: pid),
              let fd = try? FileDescriptor.open(path(of: claim), .writeOnly, options: [.truncate]) else { return }
        defer { fd.closeQuietly() }
        _ = try? fd.write(contentsOf: Array("\(pid) \(started.start)\n".utf8))
    }

    /// The process group `claim` noted, if it still runs as that one: a pid of another host's means
    /// nothing here (its process went with it).
    public func notedProcess(of claim: Claim) -> Int32? {
        guard notesProcesses, claim.owner.isLocal else { return nil }
        let fields = String(decoding: (try? FileSystem.readFile(path(of: claim), limit: 256)) ?? [], as: UTF8.self)
            .split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let pid = Int32(fields[0]), let start = UInt64(fields[1]),
              let now = Processes.groupAndStart(of: pid), now.start == start, now.group == pid else { return nil }
        return pid
    }

    private func giveBack(_ claim: Claim) -> Bool {
        let source = path(of: claim)
        if let returning { return returning(source, claim.name) }
        do { try FileSystem.rename(source, waiting + "/" + claim.name) } catch where error == .noSuchFileOrDirectory {
            guard FileSystem.exists(source), (try? FileSystem.ensureDirectory(waiting)) != nil else { return false }
            return (try? FileSystem.rename(source, waiting + "/" + claim.name)) != nil
        } catch {
            return false
        }
        return true
    }
}
