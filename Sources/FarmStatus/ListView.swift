import FarmHooks
import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem

/// The per-list view of SPEC §4 (the app's second screen): one list with every resource, built on
/// demand from the list's resource table, active/, done/<list>/, failed/<list>/ and the sidecars and
/// outcome records of the jobs that left the queue. Its cost is proportional to that list and paid
/// by the asker only: the watcher never builds it. Stateless; any process or thread.
public enum ListView {
    /// Where a job is, which decides its status (see `ResourceStatus`); an active job's name in
    /// active/ (`<job>@<owner>`).
    enum Place: Equatable {
        case queued, active(String), done, failed
    }

    /// List `listID` with its resources, or nil when no such list is published.
    public static func build(_ spool: Spool, listID: String) -> ListStatus? {
        guard let record = spool.shownList(listID) else { return nil }
        var active = JobSet()
        var activeNames: [Int: String] = [:]
        for name in spool.claimedNames(inFlight: true) {
            if let job = ActiveName(name)?.job, job.list == listID {
                active.insert(job.index)
                activeNames[job.index] = name
            }
        }
        let done = StatusScan.jobSet(spool, listID, .done)
        let failed = StatusScan.jobSet(spool, listID, .failed)
        // A published list always has its table (published before its record); one lost shows no records
        // (fsck finds it).
        let table: [JobRecord?] = spool.lists.resources(ofList: listID) ?? []
        // The job number of each index: the same but for an edited list. Read after the places, as the
        // table: an edit that commits meanwhile shows a resource it added as queued, for a moment.
        let order = Lists(spool).order(ofList: listID, total: record.total)
        // Read after the places: a job handed back meanwhile shows its new time once it shows queued.
        let handedBack = spool.handedBack(ofList: listID)
        // A job seen in two places (it moved during the readdirs) counts once, in the later place.
        let places: [Place] = order.numbers.map { number in
            done.contains(number) ? .done : failed.contains(number) ? .failed
                : active.contains(number) ? .active(activeNames[number] ?? "") : .queued
        }
        let labelled = record.paged != nil, delivers = record.delivery != nil
        let hooks = spool.hooks.results(ofList: listID)
        let resources = zip(order.numbers, places).enumerated().map { index, job in
            let (number, place) = job
            let queuedAt = handedBack[number].map(Timestamp.iso8601) ?? record.added
            var row = resource(spool, JobName(list: listID, index: number), at: index,
                               table: number < table.count ? table[number] : nil, place: place, queued: queuedAt)
            row.labelled = labelled
            row.delivers = delivers
            row.hook = hooks[number]
            return row
        }
        // Counted from the rows' statuses, not from the places: a row is read after the places (an owner's
        // sidecar, a job that moved on meanwhile), and the counts must say what the rows say (SPEC §4).
        var jobs = ListJobs()
        for (number, row) in zip(order.numbers, resources) { jobs.place(number, as: row.status) }
        var list = ListStatus(id: listID, name: record.name, total: order.count, active: jobs.active.count,
                              done: jobs.done.count, failed: jobs.failed.count, resources: resources,
                              paging: Paging.of(record, state: Lists(spool).pageState(ofList: listID)),
                              request: record.request)
        list.count(under: resources.reduce(0) { $0 + ListStatus.share(of: $1.status, bytes: $1.bytes, size: $1.size) })
        list.held = spool.held.contains(listID)
        if record.request?.recursive != nil { list.hosts = HostCounts.of(resources) }
        return list
    }

    /// Resource `index` of list `listID` alone (for `farm show`): reads one line of the table and
    /// looks for the one job, instead of building the whole list. Nil when out of range.
    public static func resource(_ spool: Spool, listID: String, index: Int) -> ResourceStatus? {
        guard let record = spool.list(listID), index >= 0, index < record.total else { return nil }
        let numbers = Lists(spool).order(ofList: listID, total: record.total).numbers
        guard index < numbers.count else { return nil }
        let job = JobName(list: listID, index: numbers[index])
        // In the order jobs move (active/, then done/ or failed/), so a job completing meanwhile is
        // seen in one place or the other, not missed.
        let place = self.place(spool, job, active: spool.claimedNames(inFlight: true).first { ActiveName($0)?.job == job })
        let table = ResourceLines.read(spool, listID: listID).record(job.index)
        let queuedAt = spool.handedBack(job).map(Timestamp.iso8601) ?? record.added
        var row = resource(spool, job, at: index, table: table, place: place, queued: queuedAt)
        row.labelled = record.paged != nil
        row.delivers = record.delivery != nil
        row.hook = spool.hooks.results(ofList: listID)[job.index]
        return row
    }

    /// Where `job` is, given its name in active/ if it was seen there (looked at first): one or two
    /// stats, so a window of a list finds its jobs without reading done/<list> whole.
    static func place(_ spool: Spool, _ job: JobName, active name: String?) -> Place {
        if let name { return .active(name) }
        if FileSystem.exists(spool.finishedPath(job, .done)) { return .done }
        if FileSystem.exists(spool.finishedPath(job, .failed)) { return .failed }
        return .queued
    }

    /// The row of `job`, at `index` of its list: identity from the table, status from the place, details
    /// from the sidecar. `queued` is when the job was last queued: the time of a resource that has never
    /// run since (SPEC §4). A claimed job that has left active/ by the time its row is read (completed or
    /// handed back) shows where it went: the caller counts the rows, not the places.
    static func resource(_ spool: Spool, _ job: JobName, at index: Int, table: JobRecord?, place: Place,
                         queued: String) -> ResourceStatus {
        let id = table?.id ?? job.raw, url = table?.url ?? ""
        // A queued job shows as queued even when an earlier owner left its sidecar behind.
        guard place != .queued else {
            return ResourceStatus(index: index, id: id, url: url, status: .queued, changed: queued,
                                  title: table?.title, caption: table?.caption)
        }
        let finished: Outcome? = place == .done ? .done : place == .failed ? .failed : nil
        var sidecar = spool.sidecars.last(job, finished: finished.map { [$0] } ?? [])
        let status: ResourceStatus.Status
        var error = sidecar?.error
        let changed: String
        switch place {
        case .queued: preconditionFailure("handled above")
        case .active(let name):
            // Another claim's sidecar (an earlier owner's, left behind) says nothing of this one's status; until
            // this one writes its own (at once when it resumes), its bytes and size are still the best count of
            // what the job holds, so a resumed file is not shown at 0%.
            var earlier: Sidecar?
            if let owner = sidecar?.owner, owner != ActiveName(name)?.owner.raw {
                earlier = sidecar
                sidecar = nil
            }
            if let sidecar {
                status = ownerStatus(sidecar.status)
                changed = sidecar.changed
            } else {
                // No sidecar yet (a claim younger than its owner's first tick): downloading since the
                // claim, which its owner's name says.
                guard let claimed = try? FileSystem.lstat(spool.path(.active, name)) else {
                    let now = self.place(spool, job, active: nil)
                    let requeued = now == .queued ? spool.handedBack(job).map(Timestamp.iso8601) ?? queued : queued
                    return resource(spool, job, at: index, table: table, place: now, queued: requeued)
                }
                status = .downloading
                // A pack's member started after the pack was claimed: when, its file's ctime says (Spool.startMember).
                let entry = ActiveName(name)
                let since = entry.map { $0.pack == nil ? $0.owner.claimedAt : max($0.owner.claimedAt, claimed.changeTime) }
                changed = Timestamp.iso8601(since ?? Clock.wall())
                if let earlier, earlier.status == .downloading {
                    sidecar = Sidecar(status: .downloading, bytes: earlier.bytes, size: earlier.size,
                                      attempts: earlier.attempts, changed: changed)
                }
            }
        case .done, .failed:
            status = place == .done ? .done : .error
            if place == .failed { error = error ?? "unknown" }
            // Without a record (none kept), the job file's ctime is when it last moved: its completion.
            let path = spool.finishedPath(job, finished ?? .done)
            changed = sidecar?.changed ?? (try? FileSystem.lstat(path)).map { Timestamp.iso8601($0.changeTime) }
                ?? queued
        }
        var row = ResourceStatus(index: index, id: id, url: url, status: status, bytes: sidecar?.bytes ?? 0,
                                 size: sidecar?.size, kind: sidecar?.kind, file: sidecar?.file, image: sidecar?.image,
                                 thumb: sidecar?.thumb, error: error, attempts: sidecar?.attempts ?? 1,
                                 changed: changed, title: table?.title, caption: table?.caption)
        row.shared = status == .done && sidecar?.shared == true
        if status == .done { row.delivered = sidecar?.delivered }
        if status == .downloading { row.pieces = sidecar?.pieces }
        row.note = status == .queued ? nil : sidecar?.note
        return row
    }

    /// The status a job's owner reports in its sidecar.
    private static func ownerStatus(_ owner: Sidecar.Status) -> ResourceStatus.Status {
        switch owner {
        case .downloading: .downloading
        case .unzipping: .unzipping
        case .rendering: .rendering
        case .done: .done
        case .error: .error
        }
    }
}
