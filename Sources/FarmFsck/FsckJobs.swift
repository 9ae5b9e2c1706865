import FarmLists
import FarmSpool
import FarmSystem

// The jobs of fsck (see SpoolCheck.swift): each job of each list in exactly one place, no job of no list,
// no claim of a dead owner past its lease.
extension FsckRun {
    /// Walks queue/, active/, done/ and failed/ once, noting where each job is; then, when some job
    /// looked lost or doubled, walks them again for those jobs alone and reports those the second walk
    /// agrees about (a job moving between two places can be missed, or seen twice, by one walk).
    func walkForJobs() throws(SpoolError) {
        for list in lists.values {
            if let total = list.total { list.seen = [UInt8](repeating: 0, count: total) }
        }
        try walkJobs({ job, state, directory, name in self.sight(job, state, directory, name) },
                     foreign: { path, reason in self.foreign(path, reason) })
        var looked: Set<JobName> = []
        for list in lists.values where list.total != nil {
            for index in list.seen.indices where list.isSuspect(index) {
                looked.insert(JobName(list: list.id, index: index))
            }
            // A damaged table is rebuilt from the job files: where they are.
            for index in list.badLines { looked.insert(JobName(list: list.id, index: index)) }
        }
        guard !looked.isEmpty else { return }
        try walkJobs({ job, state, directory, name in
            if looked.contains(job) { self.locations[job, default: []].append((state, directory + "/" + name)) }
        }, foreign: { _, _ in })
        for list in lists.values where list.total != nil {
            for index in list.seen.indices where list.isSuspect(index) {
                let job = JobName(list: list.id, index: index)
                let places = locations[job] ?? []
                if list.removed?.contains(index) == true {
                    if !places.isEmpty {
                        found(.removed, places[0].1, job: job, "job \(job) is of a resource removed from its list") {
                            () throws(SpoolError) in
                            try Lists(self.spool).purge(job)
                            return .made
                        }
                    }
                } else if list.seen[index] == 0 && places.isEmpty {
                    found(.lost, spool.lists.resourceTablePath(ofList: list.id), job: job,
                          "job \(job) is in no state: not queued, active, done nor failed") { () throws(SpoolError) in
                        try self.requeue(job, of: list)
                    }
                } else if list.seen[index] != 0 && places.count > 1 {
                    doubled.insert(job)
                    reportDoubled(job, places)
                }
            }
        }
    }

    /// Lost (seen nowhere) or doubled (seen in two states, or twice in one).
    static func isSuspect(_ seen: UInt8) -> Bool {
        seen == 0 || seen & FsckList.again != 0 || seen.nonzeroBitCount > 1
    }

    /// Calls `sighting` with each job file of queue/ (every batch and shard, parked ones included),
    /// active/, done/ and failed/: its job, state, folder and name; and `foreign` with each name there
    /// that is no job where it is, and why.
    private func walkJobs(_ sighting: (JobName, JobState, String, String) -> Void,
                          foreign: (String, String) -> Void) throws(SpoolError) {
        for batch in try entries(spool.queue) {
            let batchPath = spool.path(.queue, batch.name)
            guard batch.isDirectory else {
                foreign(batchPath, "a file where a queue batch should be")
                continue
            }
            for shard in try entries(batchPath) where shard.name != ListFiles.pendingName {
                let shardPath = spool.path(.queue, batch.name, shard.name)
                guard shard.isDirectory, !shard.name.hasPrefix(".") else {
                    foreign(shardPath, "not a queue shard")
                    continue
                }
                for name in try names(shardPath) {
                    if let job = JobName(name) { sighting(job, .queued, shardPath, name) } else {
                        foreign(spool.path(.queue, batch.name, shard.name, name), "not a job name")
                    }
                }
            }
        }
        for name in try names(spool.active) {
            if let entry = ActiveName(name) { sighting(entry.job, .active, spool.active, name); continue }
            guard let pack = LeasedQueue.Claim(name), PackName.isValid(pack.name) else {
                foreign(spool.path(.active, name), "not a claimed job's name")
                continue
            }
            // A claimed pack: each member is a claim of its owner (PROTOCOL.md, "Packs").
            let members = try names(spool.path(.active, name))
            for member in members {
                if let entry = ActiveName(name + "/" + member) {
                    sighting(entry.job, .active, spool.active, name + "/" + member)
                } else {
                    foreign(spool.path(.active, name, member), "not a job name")
                }
            }
            if members.isEmpty && isDeadClaim(at: spool.path(.active, name), pack.owner) {
                found(.deadClaim, spool.path(.active, name), job: nil,
                      "the pack \(pack.name) of pid \(pack.owner.pid) is empty and past its lease") {
                    () throws(SpoolError) in
                    (try? FileSystem.rmdir(self.spool.path(.active, name))) != nil ? .made : .skipped("it is gone or not empty")
                }
            }
        }
        for (folder, state) in [(Spool.Folder.done, JobState.done), (.failed, .failed)] {
            for list in try entries(spool.path(of: folder)) {
                let directory = spool.path(folder, list.name)
                guard list.isDirectory, ListID.isValid(list.name) else {
                    foreign(directory, "not a list's folder")
                    continue
                }
                for name in try names(directory) {
                    if let job = JobName(name), job.list == list.name { sighting(job, state, directory, name) } else {
                        foreign(directory + "/" + name, "not a job of list \(list.name)")
                    }
                }
            }
        }
    }

    /// Notes where the first walk saw `job`.
    private func sight(_ job: JobName, _ state: JobState, _ directory: String, _ name: String) {
        let path = directory + "/" + name
        guard let list = lists[job.list] else {
            unknown[job.list, default: []].append(
                (path, job, "a job of list \(job.list), which the spool does not have"))
            return
        }
        guard let total = list.total else { return }
        guard job.index < total else {
            found(.foreign, path, job: job, "job \(job) is past the end of its list (\(total) resource(s))",
                  repair: setAside(path, claimed: state == .active, reason: "past the end of its list"))
            return
        }
        let bit = FsckList.bit(state)
        if list.seen[job.index] & bit != 0 { list.seen[job.index] |= FsckList.again }
        list.seen[job.index] |= bit
        if state == .active, let entry = ActiveName(name) { claims.append((name, entry)) }
    }

    /// The repair that sets the file at `path` aside; a claim only once its owner is dead.
    func setAside(_ path: String, claimed: Bool, reason: String) -> Action {
        { [self] () throws(SpoolError) in
            let name = String(path[path.index(after: path.lastIndex(of: "/")!)...])
            if claimed && !isDeadClaim(name) { return .skipped("its owner is alive, or its lease still runs") }
            return spool.setAside(path, reason: "fsck: " + reason) ? .made : .skipped("it is gone")
        }
    }

    /// Reports the claims whose owner is gone and whose lease ran out (a doubled job's are settled
    /// with its other copies).
    func checkClaims() {
        for (name, entry) in claims where !doubled.contains(entry.job) && isDeadClaim(name) {
            found(.deadClaim, spool.path(.active, name), job: entry.job,
                  "the claim of \(entry.job) by pid \(entry.owner.pid)"
                    + (entry.owner.isLocal ? ", which is gone," : " of another host") + " is past its lease") {
                () throws(SpoolError) in try self.handBack(name, entry.job)
            }
        }
    }

    /// Sends the dead claim `active/<name>` back to the queue, after deleting what its owner made of
    /// it (its partial bytes stay, for the next owner to resume from), unless the job is also finished.
    private func handBack(_ name: String, _ job: JobName) throws(SpoolError) -> FsckRepair {
        guard FileSystem.exists(spool.path(.active, name)) else { return .skipped("it is gone") }
        if !FileSystem.exists(spool.finishedPath(job, .done)) && !FileSystem.exists(spool.finishedPath(job, .failed)) {
            try deleteOutputs(of: job, url: spool.jobURL(atPath: spool.path(.active, name)))
        }
        return try spool.returnToQueue(activeName: name, job: job) ? .made : .skipped("it was handed back meanwhile")
    }

    /// Reports a job found in more than one place, with the repair that keeps the most advanced copy.
    private func reportDoubled(_ job: JobName, _ places: [(state: JobState, path: String)]) {
        let rank: [JobState: Int] = [.done: 0, .failed: 1, .active: 2, .queued: 3]
        let sorted = places.sorted { rank[$0.state]! < rank[$1.state]! }
        let where_ = sorted.map { "\($0.state.rawValue) (\(relative($0.path)))" }.joined(separator: ", ")
        found(.doubled, sorted[1].path, job: job, "job \(job) is in \(places.count) places: \(where_)") {
            [self] () throws(SpoolError) in
            var skipped: [String] = []
            for copy in sorted.dropFirst() {
                // A second name of the kept file, left by a completion by link (see the protocol): not a copy.
                if spool.dropSecondName(copy.path, of: sorted[0].path) { continue }
                if copy.state == .active && !isDeadClaim(String(copy.path.dropFirst(spool.active.count + 1))) {
                    skipped.append(relative(copy.path) + " is claimed by a live owner")
                } else if !spool.setAside(copy.path, reason: "fsck: job \(job) is also \(sorted[0].state.rawValue)") {
                    skipped.append(relative(copy.path) + " is gone")
                }
            }
            // The copy kept may be a dead claim: it goes back to the queue like any other.
            if sorted[0].state == .active {
                let name = String(sorted[0].path.dropFirst(spool.active.count + 1))
                if isDeadClaim(name), case .skipped(let why) = try handBack(name, job) { skipped.append(why) }
            }
            return skipped.isEmpty ? .made : .skipped(skipped.joined(separator: "; "))
        }
    }

    /// Queues the lost `job` again (in queue/0, as a job handed back) from its line of the resource table.
    private func requeue(_ job: JobName, of list: FsckList) throws(SpoolError) -> FsckRepair {
        guard let line = tableLine(of: list, job.index) else {
            return .skipped("its line of the resource table does not parse")
        }
        let staged = spool.scratch.path("fsck")
        do { try FileSystem.createFile(staged, line) } catch {
            throw SpoolError(.io, "cannot write \(staged)", cause: error)
        }
        guard try spool.returnToQueue(staged, job: job) else {
            try? FileSystem.unlink(staged)
            return .skipped("its job file could not be written into the queue")
        }
        return .made
    }
}
