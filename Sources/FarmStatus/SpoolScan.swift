import FarmDesired
import FarmLists
import FarmSpool
import FarmSystem

/// Builds the status from the spool's directories: the whole-spool summary for `farm status` when
/// no watcher runs, and the watcher's starting point (and its rescan after an inotify overflow).
///
/// Cost: one readdir of active/, one of done/<list> and failed/<list> per list, one small read per
/// list record. The queue is never read: queued = total − active − done − failed.
/// Stateless; any process or thread.
public enum StatusScan {
    /// The whole-spool summary as the spool is now.
    public static func summary(_ spool: Spool) -> StatusDocument {
        let records = listRecords(spool)
        var jobs: [String: ListJobs] = [:]
        for (list, active) in activeJobs(spool) where records[list] != nil {
            jobs[list, default: ListJobs()].active = active
        }
        for id in records.keys {
            jobs[id, default: ListJobs()].done = jobSet(spool, id, .done)
            jobs[id, default: ListJobs()].failed = jobSet(spool, id, .failed)
        }
        let desired = spool.control.desired()
        return document(records: records, jobs: jobs, pages: pageStates(spool, records), held: spool.held.lists(),
                        shares: shares(ofActive: jobs, spool), workers: workers(spool), paused: spool.control.isPaused,
                        disk: spool.diskRoom(minFree: desired.minFree), updated: Timestamp.iso8601(Clock.wall()))
    }

    /// The last state of the page log of each paged list of `records`.
    package static func pageStates(_ spool: Spool, _ records: [String: ListRecord]) -> [String: PageState] {
        var states: [String: PageState] = [:]
        for (id, record) in records where record.paged != nil {
            states[id] = Lists(spool).pageState(ofList: id)
        }
        return states
    }

    /// The published lists by id. A record that does not parse is left out (it is being replaced,
    /// or it is foreign; the spool's writers deal with it).
    package static func listRecords(_ spool: Spool) -> [String: ListRecord] {
        var records: [String: ListRecord] = [:]
        for id in spool.lists.ids() {
            if let record = spool.shownList(id) { records[id] = record }
        }
        return records
    }

    /// The claimed jobs, by list id.
    package static func activeJobs(_ spool: Spool) -> [String: JobSet] {
        var sets: [String: JobSet] = [:]
        for name in spool.claimedNames(inFlight: true) {
            guard let job = ActiveName(name)?.job else { continue }
            sets[job.list, default: JobSet()].insert(job.index)
        }
        return sets
    }

    /// The jobs of `list` that ended with `outcome` (in done/<list> or failed/<list>); empty when there is
    /// no such folder.
    package static func jobSet(_ spool: Spool, _ list: String, _ outcome: Outcome) -> JobSet {
        var set = JobSet()
        for name in FileSystem.names(spool.finishedDirectory(list, outcome)) {
            if let job = JobName(name), job.list == list { set.insert(job.index) }
        }
        return set
    }

    /// Desired workers from control/, running ones from the process registry, summed over hosts.
    static func workers(_ spool: Spool) -> Workers {
        let counts = spool.control.workerCounts()
        return Workers(desired: counts.desired, running: counts.running, transfers: spool.control.desired().transfers,
                       limitRate: spool.control.bandwidthLimit())
    }

    /// The summary of `records` given where their jobs are; `paused` is the user's pause, `disk` the room
    /// the workers judge by (they pause themselves when it is short).
    /// `shares`: each list's resources under way as a share of resources (see `shares(ofActive:_:)`).
    package static func document(records: [String: ListRecord], jobs: [String: ListJobs], pages: [String: PageState] = [:],
                                 held: Set<String> = [], shares: [String: Double] = [:], workers: Workers, paused: Bool,
                                 disk: DiskRoom?, updated: String) -> StatusDocument {
        let lists = records.map { id, record in
            let jobs = (jobs[id] ?? ListJobs()).settled()
            var list = ListStatus(id: id, name: record.name, total: record.total, active: jobs.active.count,
                                  done: jobs.done.count, failed: jobs.failed.count,
                                  paging: Paging.of(record, state: pages[id]), request: record.request)
            list.count(under: shares[id] ?? 0)
            list.held = held.contains(id)
            return list
        }
        let pausedBy: PausedBy? = paused ? .user : disk?.isShort == true ? .disk : nil
        return StatusDocument(updated: updated, paused: pausedBy != nil, pausedBy: pausedBy, disk: disk,
                              workers: workers, lists: sorted(lists))
    }

    /// The resources under way of each list of `jobs` as a share of resources (`ListStatus.share`), from
    /// their owners' sidecars: one read a job under way, which a job shorter than a tick has none of.
    package static func shares(ofActive jobs: [String: ListJobs], _ spool: Spool) -> [String: Double] {
        var shares: [String: Double] = [:]
        for (list, jobs) in jobs where jobs.active.count > 0 {
            var names: [JobName] = []
            jobs.active.forEach { names.append(JobName(list: list, index: $0)) }
            shares[list] = share(of: names, spool)
        }
        return shares
    }

    /// What `jobs`, claimed, make as a share of resources, by their sidecars.
    package static func share(of jobs: [JobName], _ spool: Spool) -> Double {
        jobs.reduce(0) { sum, job in
            guard let sidecar = spool.sidecars.last(job, finished: []) else { return sum }
            let status: ResourceStatus.Status = switch sidecar.status {
            case .downloading: .downloading
            case .unzipping: .unzipping
            case .rendering: .rendering
            case .done, .error: .done
            }
            return sum + ListStatus.share(of: status, bytes: sidecar.bytes, size: sidecar.size)
        }
    }

    /// Lists in natural order of their names (ids break ties, so the order is stable).
    static func sorted(_ lists: [ListStatus]) -> [ListStatus] {
        lists.sorted { precedes(($0.name, $0.id), ($1.name, $1.id)) }
    }

    /// The published lists in the status's order, read from the spool now (not from the watcher's summary).
    package static func orderedListRecords(_ spool: Spool) -> [(id: String, record: ListRecord)] {
        listRecords(spool).map { (id: $0.key, record: $0.value) }
            .sorted { precedes(($0.record.name, $0.id), ($1.record.name, $1.id)) }
    }

    private static func precedes(_ a: (name: String, id: String), _ b: (name: String, id: String)) -> Bool {
        a.name == b.name ? a.id < b.id : NaturalOrder.areInIncreasingOrder(a.name, b.name)
    }
}
