/// The host of each resource of a list's table, by job number (`HostCounts.host(of:)` of its URL), for the
/// per-host counts of a recursive list's windows (issue 64) without reading the table's JSON for every
/// count. Built from a table's lines once, then extended as the table grows: a crawl appends its links to
/// the table in place (CrawlAppend), so when the file is the same one, no shorter, only the lines past
/// those already read are decoded (the last of those again: a writer killed mid-append leaves a cut line,
/// which the next append replaces). Another file (an edit replaces the table) or a shorter one is read
/// whole. Kept by `ListWindows`; immutable, shared between threads.
final class HostTable: Sendable {
    /// The table as it was read.
    let identity: FileIdentity
    /// Each host once, in the order its first line comes.
    let names: [String]
    /// The index in `names` of each job number's host; -1 for a line that does not read.
    let hosts: [Int32]

    init(_ lines: ResourceLines, extending earlier: HostTable? = nil) {
        var names: [String] = [], hosts: [Int32] = []
        if let earlier, earlier.identity.device == lines.identity.device, earlier.identity.inode == lines.identity.inode,
           earlier.identity.size <= lines.identity.size, !earlier.hosts.isEmpty {
            names = earlier.names
            hosts = Array(earlier.hosts.dropLast())
        }
        var place = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, Int32($0)) })
        hosts.reserveCapacity(lines.count)
        for number in hosts.count..<lines.count {
            guard let url = lines.record(number)?.url else {
                hosts.append(-1)
                continue
            }
            let host = String(HostCounts.host(of: url))
            let at = place[host] ?? {
                names.append(host)
                place[host] = Int32(names.count - 1)
                return Int32(names.count - 1)
            }()
            hosts.append(at)
        }
        identity = lines.identity
        self.names = names
        self.hosts = hosts
    }

    /// The counts of each host of the jobs `numbers` (a list's order), where `jobs` puts them (a job in
    /// neither folder is queued), in the order each host's first resource comes in `numbers`.
    func counts(_ numbers: [Int], _ jobs: ListJobs) -> [HostCounts] {
        var counts: [HostCounts] = []
        var position = [Int](repeating: -1, count: names.count)
        for number in numbers {
            guard number >= 0, number < hosts.count, hosts[number] >= 0 else { continue }
            let host = Int(hosts[number])
            if position[host] < 0 {
                position[host] = counts.count
                counts.append(HostCounts(host: names[host], found: 0, fetched: 0, active: 0, queued: 0))
            }
            let at = position[host]
            counts[at].found += 1
            if jobs.done.contains(number) || jobs.failed.contains(number) {
                counts[at].fetched += 1
            } else if jobs.active.contains(number) {
                counts[at].active += 1
            } else {
                counts[at].queued += 1
            }
        }
        return counts
    }
}
