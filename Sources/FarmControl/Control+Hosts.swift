import FarmHosts
import FarmJSON
import FarmSpool
import FarmStatus
import FarmSystem

extension Control {
    /// One host of `farm hosts`: its resources by state, and the hold on it.
    public struct HostCounts: Sendable {
        /// `scheme://host:port`.
        public let host: String
        public var active = 0, queued = 0, done = 0, failed = 0
        /// When (ISO 8601) the hold on it ends, if it is held now.
        public var heldUntil: String?
    }

    /// What `farm hosts` shows: every host the lists name, the busiest first.
    public struct Hosts: CustomStringConvertible, Sendable {
        public let hosts: [HostCounts]

        public var description: String {
            guard !hosts.isEmpty else { return "no hosts: the spool holds no list" }
            let width = max(4, hosts.map(\.host.count).max() ?? 0)
            let header = "HOST".padded(to: width)
                + "   ACTIVE   QUEUED     DONE   FAILED  HELD UNTIL"
            return ([header] + hosts.map { host in
                host.host.padded(to: width)
                    + [host.active, host.queued, host.done, host.failed].map { Self.column(String($0)) }.joined()
                    + "  " + (host.heldUntil ?? "-")
            }).joined(separator: "\n")
        }

        private static func column(_ text: String) -> String {
            String(repeating: " ", count: max(1, 9 - text.count)) + text
        }
    }

    /// `farm hosts`: each host with its active, queued, done and failed resources, from the lists'
    /// resource tables and where each job is, and the holds in force.
    public func hosts() -> Hosts {
        var tables: [String: [JobRecord]] = [:]
        var counts: [String: HostCounts] = [:]
        for (job, state) in spool.inventory() {
            if tables[job.list] == nil { tables[job.list] = spool.lists.resources(ofList: job.list) ?? [] }
            guard let table = tables[job.list], table.indices.contains(job.index),
                  let key = HostKey(url: table[job.index].url) else { continue }
            var host = counts[key.raw] ?? HostCounts(host: key.description)
            switch state {
            case .queued: host.queued += 1
            case .active: host.active += 1
            case .done: host.done += 1
            case .failed: host.failed += 1
            }
            counts[key.raw] = host
        }
        let now = Clock.wall()
        for (raw, until) in HostManners(spool).holds() where until > now {
            guard let key = HostKey(raw: raw) else { continue }
            counts[raw, default: HostCounts(host: key.description)].heldUntil = Timestamp.iso8601(until)
        }
        return Hosts(hosts: counts.values.sorted {
            ($0.active + $0.queued, $0.host) > ($1.active + $1.queued, $1.host)
        })
    }
}

/// `{"host", "active", "queued", "done", "failed", "heldUntil": ISO 8601 | null}`.
extension Control.HostCounts: JSONRecord {
    public static var writesNulls: Bool { true }
}
