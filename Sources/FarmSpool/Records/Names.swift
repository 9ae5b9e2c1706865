import FarmSystem

/// Who holds a claim: `<pid>-<nonce>-<host tag>`, fresh for every claim, so a reclaimed and re-claimed
/// job never carries the name its earlier owner would try to complete. The pid and the host's tag
/// (`FarmHost.tag`) say whose process it is, for the one host that may judge it by its pid: its own.
/// The nonce is `t`, the time the name was made for its claim in milliseconds since the epoch (11 hex
/// digits), and a count of this process's claims (4 hex digits): the claim carries its time in its name,
/// so that the status tells when a job started `downloading` with no system call made at the claim. Two
/// claims of one job are parted by its return to the queue, by one owner's hand-back or a lease's end.
public struct Owner: Hashable, Sendable, CustomStringConvertible {
    public let pid: Int32
    /// The tag of the claimant's host.
    public let hostTag: String
    /// When the claim was made, to the millisecond, as its name says.
    public let claimedAt: Double
    public let raw: String

    /// A name for a claim made now (`now`, wall time). Its last 4 digits count this process's claims (from a
    /// random start): two names made in one millisecond differ, where 4 random digits would collide in 3 %
    /// of runs of 64 claims.
    public static func fresh(now: Double = Clock.wall()) -> Owner {
        let count = sequence.withLock { value in
            value &+= 1
            return value
        }
        let ms = UInt64(max(0, now * 1000)) & 0xFFF_FFFF_FFFF
        // The nonce's 15 digits are the 11 of the milliseconds then the 4 of the count.
        let nonce = Nonce.hex(ms << 16 | UInt64(count), digits: 15)
        return Owner(pid: processID, hostTag: FarmHost.localTag, claimedAt: Double(ms) / 1000,
                     raw: rawHead + nonce + rawTail)
    }

    /// Read at the first claim (glibc does not cache it). Copies (fork without exec) are made only by
    /// `farm start` and the supervisor, which never claim, so no copy inherits its parent's value.
    private static let processID = Processes.current()
    /// What every name this process makes starts and ends with.
    private static let rawHead = String(processID) + "-t"
    private static let rawTail = "-" + FarmHost.localTag
    private static let sequence = Locked(UInt16.random(in: .min ... .max))

    init(pid: Int32, hostTag: String, claimedAt: Double, raw: String) {
        self.pid = pid
        self.hostTag = hostTag
        self.claimedAt = claimedAt
        self.raw = raw
    }

    package init?(_ raw: String) {
        // <pid> "-" t<11 hex digits of milliseconds><4 hex digits> "-" <8 hex digits of tag>: the tail has a
        // fixed length, so it is read in place from the end (every reader of active/ parses one a claim;
        // a split into substrings was 1% of a worker's CPU on short jobs).
        var raw = raw
        let parsed: (pid: Int32, ms: UInt64)? = raw.withUTF8 { bytes in
            let tail = 1 + 16 + 1 + 8
            let digits = bytes.count - tail
            guard digits >= 1, digits <= 10, bytes[digits] == UInt8(ascii: "-"),
                  bytes[digits + 1] == UInt8(ascii: "t"), bytes[digits + 17] == UInt8(ascii: "-") else { return nil }
            var pid: Int64 = 0
            for byte in bytes[..<digits] {
                guard byte >= 48 && byte <= 57 else { return nil }
                pid = pid * 10 + Int64(byte - 48)
            }
            guard pid > 0, pid <= Int64(Int32.max) else { return nil }
            var ms: UInt64 = 0
            for (offset, byte) in bytes[(digits + 2)...].enumerated() where offset != 15 {
                guard let value = Self.hexValue(byte) else { return nil }
                if offset < 11 { ms = ms << 4 | UInt64(value) }
            }
            return (Int32(pid), ms)
        }
        guard let parsed else { return nil }
        self.init(pid: parsed.pid, hostTag: String(Substring(raw.utf8.suffix(8))), claimedAt: Double(parsed.ms) / 1000,
                  raw: raw)
    }

    /// A lowercase hex digit's value; nil for any other byte.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        default: nil
        }
    }

    /// Whether the claimant runs on this machine: only then may its pid be looked at.
    public var isLocal: Bool { hostTag == FarmHost.localTag }

    /// A claimant of this host that claimed before this boot began: gone with the power, whatever its pid.
    package var claimedBeforeThisBoot: Bool { isLocal && claimedAt < Durability.bootTime }

    public var description: String { raw }
}

/// An entry of active/: `<job>@<owner>`, or a member of a claimed pack, `<pack>@<owner>/<job>` (see `PackName`).
/// The one parse of a claimed name: every reader of active/ uses it, on names `Spool.claimedNames` lists.
public struct ActiveName: Sendable {
    public let job: JobName
    public let owner: Owner
    /// The pack it was claimed in; nil for a job claimed alone.
    public let pack: String?

    /// The name of `job` claimed by `owner` (in `pack`).
    package static func raw(_ job: JobName, _ owner: Owner, pack: String? = nil) -> String {
        guard let pack else { return job.raw + "@" + owner.raw }
        return pack + "@" + owner.raw + "/" + job.raw
    }

    /// Its name under active/: `raw(job, owner, pack:)`.
    public var raw: String { Self.raw(job, owner, pack: pack) }

    /// Nil when `raw` is not a claimed job's name (a foreign file).
    public init?(_ raw: String) {
        guard let at = raw.firstIndex(of: "@") else { return nil }
        let head = String(raw[..<at]), tail = raw[raw.index(after: at)...]
        if let slash = tail.firstIndex(of: "/") {
            guard PackName.isValid(head), let job = JobName(String(tail[tail.index(after: slash)...])),
                  let owner = Owner(String(tail[..<slash])) else { return nil }
            self.init(job: job, owner: owner, pack: head)
        } else {
            guard let job = JobName(head), let owner = Owner(String(tail)) else { return nil }
            self.init(job: job, owner: owner, pack: nil)
        }
    }

    package init(job: JobName, owner: Owner, pack: String?) {
        self.job = job
        self.owner = owner
        self.pack = pack
    }
}

/// A pack: the jobs of one shard of an add's batch, claimed together by one rename of the shard to
/// `active/<pack>@<owner>/` (PROTOCOL.md, "Packs"). `k<batch>.<shard>`: never a job's name.
public enum PackName {
    package static func of(batch: String, shard: String) -> String { "k" + batch + "." + shard }

    public static func isValid(_ name: String) -> Bool {
        name.utf8.first == UInt8(ascii: "k") && name.utf8.count > 3 && name.utf8.count < 64
            && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(UInt8(ascii: "@"))
    }
}

/// Batch names sort in creation order: `b<µs since epoch, 16 digits>-<nonce>`.
package enum BatchName {
    package static func fresh() -> String {
        let micros = UInt64(Clock.wall() * 1_000_000)
        let digits = String(micros)
        return "b" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits + "-"
            + String(Nonce.hex16(UInt64.random(in: .min ... .max)).prefix(8))
    }

    /// Whether `batch` is one an add or a reload made (not queue/0, nor a host's parked jobs): its jobs
    /// were never tried.
    package static func isAdded(_ batch: String) -> Bool { batch.hasPrefix("b") }

    package static func shard(_ number: Int) -> String {
        let digits = String(number)
        return "s" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
