import FarmSystem

/// The name of one job: `<list>.<index>`, where <list> is a 16-hex-digit list id.
/// Validated on the way in: a name that does not parse is a foreign file.
public struct JobName: Hashable, Sendable, CustomStringConvertible {
    public let list: String
    /// The job's number in its list: the resource's index as the list was added, and its line in the
    /// resource table. Edits do not change it; the resource's index now is its place in `ListOrder`.
    public let index: Int
    public let raw: String

    public init(list: String, index: Int) {
        precondition(ListID.isValid(list) && index >= 0, "invalid job name \(list).\(index)")
        self.list = list
        self.index = index
        self.raw = list + "." + String(index)
    }

    public init?(_ raw: String) {
        let utf8 = raw.utf8
        guard utf8.count > 17, utf8.count <= 27 else { return nil }
        let dot = utf8.index(utf8.startIndex, offsetBy: 16)
        guard utf8[dot] == UInt8(ascii: "."), ListID.isValid(String(raw[..<dot])) else { return nil }
        let digits = raw[raw.index(after: dot)...]
        guard digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let index = Int(digits),
              String(index) == digits else { return nil }
        self.list = String(raw[..<dot])
        self.index = index
        self.raw = raw
    }

    public var description: String { raw }
}

/// List ids: 16 lowercase hex digits, derived from the list's name (see `ListID.of`).
public enum ListID {
    public static func isValid(_ id: String) -> Bool {
        id.utf8.count == 16 && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// FNV-1a 64 of the name: stable across runs and machines, so adding a list twice finds it again.
    public static func of(name: String) -> String {
        var hash = FNV1a()
        hash.add(name)
        return hash.hex
    }
}

/// FNV-1a, 64 bits: a fast, stable (not cryptographic) digest for ids and change detection.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(_ text: String) {
        for byte in text.utf8 { add(byte) }
    }

    public mutating func add(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01b3
    }

    /// 16 lowercase hex digits.
    public var hex: String { FarmSpool.hex(value) }
}

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
        let nonce = "t" + hex(ms).suffix(11) + hex(UInt64(count)).suffix(4)
        return Owner(pid: processID, hostTag: FarmHost.localTag, claimedAt: Double(ms) / 1000,
                     raw: String(processID) + "-" + nonce + "-" + FarmHost.localTag)
    }

    /// Read at the first claim (glibc does not cache it). Copies (fork without exec) are made only by
    /// `farm start` and the supervisor, which never claim, so no copy inherits its parent's value.
    private static let processID = Processes.current()
    private static let sequence = Locked(UInt16.random(in: .min ... .max))

    init(pid: Int32, hostTag: String, claimedAt: Double, raw: String) {
        self.pid = pid
        self.hostTag = hostTag
        self.claimedAt = claimedAt
        self.raw = raw
    }

    package init?(_ raw: String) {
        // <pid> "-" t<11 hex digits of milliseconds><4 hex digits> "-" <8 hex digits of tag>
        let parts = raw.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let pid = Int32(parts[0]), pid > 0, parts[1].utf8.count == 16,
              parts[1].first == "t", let ms = UInt64(parts[1].dropFirst().prefix(11), radix: 16),
              parts[1].dropFirst(12).utf8.allSatisfy(Self.isHexDigit),
              parts[2].utf8.count == 8, parts[2].utf8.allSatisfy(Self.isHexDigit) else { return nil }
        self.init(pid: pid, hostTag: String(parts[2]), claimedAt: Double(ms) / 1000, raw: raw)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool { (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102) }

    /// Whether the claimant runs on this machine: only then may its pid be looked at.
    public var isLocal: Bool { hostTag == FarmHost.localTag }

    /// A claimant of this host that claimed before this boot began: gone with the power, whatever its pid.
    package var claimedBeforeThisBoot: Bool { isLocal && claimedAt < Spool.bootTime }

    /// Whether `process` is the claimant: the same pid on the same host.
    public func isClaimant(_ process: FarmProcess) -> Bool {
        pid == process.pid && hostTag == process.host.tag
    }

    public var description: String { raw }
}

/// An entry of active/: `<job>@<owner>`. The one parse of a claimed name: every reader of active/ uses it.
public struct ActiveName: Sendable {
    public let job: JobName
    public let owner: Owner

    /// The name of `job` claimed by `owner`.
    package static func raw(_ job: JobName, _ owner: Owner) -> String { job.raw + "@" + owner.raw }

    /// Nil when `raw` is not a claimed job's name (a foreign file).
    public init?(_ raw: String) {
        guard let at = raw.firstIndex(of: "@"), let job = JobName(String(raw[..<at])),
              let owner = Owner(String(raw[raw.index(after: at)...])) else { return nil }
        self.job = job
        self.owner = owner
    }
}

/// Batch names sort in creation order: `b<µs since epoch, 16 digits>-<nonce>`.
package enum BatchName {
    package static func fresh() -> String {
        let micros = UInt64(Clock.wall() * 1_000_000)
        let digits = String(micros)
        return "b" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits + "-"
            + String(hex(UInt64.random(in: .min ... .max)).prefix(8))
    }

    /// Whether `batch` is one an add or a reload made (not queue/0, nor a host's parked jobs): its jobs
    /// were never tried.
    package static func isAdded(_ batch: String) -> Bool { batch.hasPrefix("b") }

    package static func shard(_ number: Int) -> String {
        let digits = String(number)
        return "s" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}

/// 16 lowercase hex digits.
func hex(_ value: UInt64) -> String { Nonce.hex16(value) }
