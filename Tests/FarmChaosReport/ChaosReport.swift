/// The figures of one chaos run (`bin/chaos`, `bin/cluster`) as farm-chaos's `--report` writes them in JSON:
/// one schema for the runner that writes them and the tests that read them. The runner adds the verdicts and
/// the printed table (Sources/Tools/FarmChaos/Report.swift).
public struct ChaosReport: Codable, Sendable {
    public var seconds = 0.0
    public var killsPerSecond = 0.0
    public var seed: UInt64 = 0
    public var lease = 0.0
    public var resources = 0
    /// Downloads and ZIP entries checked, and those whose SHA-256 is the origin's.
    public var digests = 0
    public var sameDigest = 0
    public var corpusBytes = 0
    public var bytesServed = 0
    /// SIGKILLs by role.
    public var kills: [String: Int] = [:]
    public var adds = 0
    public var scales = 0
    public var pauses = 0
    public var done = 0
    public var failed = 0
    public var lost = 0
    public var duplicated = 0
    public var corrupt = 0
    public var strays = 0
    public var leftovers = 0
    public var statusErrors = 0
    /// Findings of `farm fsck` on the final spool.
    public var fsck = 0
    /// Findings on the paged list beyond its resources (state, pages, ids and order, titles).
    public var pagedErrors = 0
    /// The paged list's pages and items (0 without one), and follower kills in the middle of a page.
    public var pages = 0
    public var pagedItems = 0
    public var followerMidPage = 0
    /// The URLs of the site mirrored with `farm add --recursive` (0 without one), and the findings on its list
    /// (a URL missing or twice, a resource not done, an output not the origin's bytes, a disallowed page asked).
    public var siteURLs = 0
    public var siteErrors = 0
    public var commandErrors = 0
    public var farmDown = 0
    /// Seconds from a worker's death to its jobs' return: seen by the supervisor, or by their lease alone.
    public var seenReclaims: [Double] = []
    public var unseenReclaims: [Double] = []
    public var pendingReclaims = 0
    public var overflowRecoveries: [Double?] = []
    public var overflowsTriggered = 0
    public var finished = false
    /// A run on several hosts' figures.
    public var cluster: Cluster?
    /// The sync round's, where there was one.
    public var sync: Sync?

    public init() {}

    /// What a run on a GlusterFS volume shared by hosts adds (SPEC §11).
    public struct Cluster: Codable, Sendable {
        /// The volume's name, which also starts the names of the network namespaces.
        public var volume: String
        public var hosts: Int
        public var workersPerHost: Int
        public var outages: [Outage]
        /// From a host going out to each of its jobs leaving it.
        public var outageReclaims: [Double]
        /// Jobs a cut-off host still held when it came back.
        public var heldAtReturn: Int
        /// Bytes the GlusterFS clients logged (a warning per failed claim).
        public var clientLogBytes: Int
        public var setUpSeconds: Double

        public init(volume: String, hosts: Int, workersPerHost: Int, outages: [Outage], outageReclaims: [Double],
                    heldAtReturn: Int, clientLogBytes: Int, setUpSeconds: Double) {
            self.volume = volume
            self.hosts = hosts
            self.workersPerHost = workersPerHost
            self.outages = outages
            self.outageReclaims = outageReclaims
            self.heldAtReturn = heldAtReturn
            self.clientLogBytes = clientLogBytes
            self.setUpSeconds = setUpSeconds
        }
    }

    /// One host out during a cluster's run.
    public struct Outage: Codable, Sendable {
        public enum Kind: String, Codable, Sendable {
            case cutOff = "cut off", death = "died"
        }

        public var host: String
        public var kind: Kind
        public var seconds: Double
        /// For a death: the processes killed.
        public var killed = 0
        /// For a cut-off: seconds from the link's return to the mount answering again.
        public var mountBack: Double?

        public init(host: String, kind: Kind, seconds: Double, killed: Int = 0, mountBack: Double? = nil) {
            self.host = host
            self.kind = kind
            self.seconds = seconds
            self.killed = killed
            self.mountBack = mountBack
        }
    }

    /// The sync round: resources whose bytes changed at the origin, syncs killed while they ran, and what
    /// went wrong.
    public struct Sync: Codable, Sendable {
        public var changed = 0
        public var kills = 0
        public var errors: [String] = []

        public init() {}
    }
}
