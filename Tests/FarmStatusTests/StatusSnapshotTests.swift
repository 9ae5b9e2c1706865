import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// SPEC §4 on a farm at work: every status document is one moment of the spool (its counts, `progress`
/// and `state` agree with its own resources), and a resource's `changed` moves only when its `status`
/// does. `farm status LIST --json` and `farm status --json`, and in between the same documents made in
/// this process with a window of the list (`farm serve`'s and `farm top`'s), are looked at as fast as
/// they answer while two large images, throttled, and two small ones download, with a watcher
/// (`farm start`) and without one (two `farm work`).
@Suite struct StatusSnapshotTests {
    @Test(arguments: [true, false])
    func everySnapshotAgreesWithItselfAndChangedMovesOnlyWithTheStatus(watcher: Bool) throws {
        let farm = try RunningFarm()
        // Two images of about 1 MB at 350 kB/s (almost 3 s each: many looks while they download, past
        // their first progress write) and two small ones, done in a moment.
        var urls: [String] = []
        for n in 0..<4 {
            let path = "/Mixed/\(n).jpg"
            let large = n < 2
            let jpeg = large ? try RunningFarm.noise(width: 1200, height: 900, seed: n)
                : try JPEGFixture.quadrants(width: 64 + n * 8, height: 48)
            farm.origin.serve(path: path, bytes: jpeg, contentType: "image/jpeg")
            if large { farm.origin.inject(.throttle(bytesPerSecond: 350_000), at: path) }
            urls.append(farm.origin.url(for: path))
        }
        let manifest = farm.dir.appending("Mixed.json")
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest])

        var workers: [ChildProcess] = []
        defer { for worker in workers { worker.kill() } }
        if watcher {
            try farm.start(workers: 2)
        } else {
            for _ in 0..<2 {
                workers.append(try ChildProcess("farm", ["work", "--spool", farm.spool.root, "--lease", "3"]))
            }
        }

        var problems: [String] = []
        var lastSeen: [Int: (status: ResourceStatus.Status, changed: String, bytes: Int)] = [:]
        // Looks at a resource downloading with its bytes moving between them: what makes the check of
        // `changed` bite (the first progress write of a large image comes a quarter of a second in).
        var movingLooks = 0
        var looks = 0
        /// Checks one document of the list with its resources, in the order they were made.
        func look(at list: ListStatus, _ label: String) {
            looks += 1
            problems += Self.disagreements(list, label: "\(label) (look #\(looks))")
            for resource in list.resources ?? [] {
                defer { lastSeen[resource.index] = (resource.status, resource.changed ?? "", resource.bytes) }
                guard let last = lastSeen[resource.index], last.status == resource.status else { continue }
                if resource.status == .downloading && last.bytes != resource.bytes { movingLooks += 1 }
                if last.changed != resource.changed {
                    problems.append("resource \(resource.index) stayed \(resource.status.rawValue) while its changed "
                        + "went from \(last.changed) to \(resource.changed ?? "null") (\(label), look #\(looks))")
                }
            }
        }
        let windows = ListWindows()
        var finished = false
        let deadline = Date().addingTimeInterval(180)
        while !finished && Date() < deadline {
            let one = try farm.farm(["status", "Mixed", "--json"])
            try #require(one.status == 0, "\(one.error)")
            let view = try #require(JSON.decode(ListStatus.self, from: Array(one.output.utf8)), "\(one.output)")
            look(at: view, "farm status Mixed --json")
            finished = view.state == .finished

            let all = try farm.farm(["status", "--json"])
            try #require(all.status == 0, "\(all.error)")
            let summary = try #require(JSON.decode(StatusDocument.self, from: Array(all.output.utf8)), "\(all.output)")
            for list in summary.lists { problems += Self.disagreements(list, label: "farm status --json") }
            // Of its moment, which comes after the list's document: never behind what that one showed.
            problems += Self.behind(summary.list(id: view.id), view, label: "farm status --json after farm status Mixed")

            // Between two commands (each takes a good part of a second on two busy cores), many looks in
            // this process, through the same code: the view as `farm status LIST` builds it (and `farm
            // serve`'s /api/lists/<id>), a window as `farm serve` and `farm top` make one with the summary
            // they hold, and that summary (the watcher's, or a scan).
            let until = Date().addingTimeInterval(0.15)
            while Date() < until {
                let before = try #require(ListView.build(farm.spool, listID: view.id))
                let current = StatusReader.current(farm.spool)
                for list in current.lists { problems += Self.disagreements(list, label: "current summary") }
                problems += Self.behind(current.list(id: view.id), before, label: "current summary after the list view")
                let summary = StatusReader.summary(farm.spool)
                for list in summary.lists { problems += Self.disagreements(list, label: "summary") }
                let counts = summary.list(id: view.id)
                let window = try #require(windows.window(farm.spool, listID: view.id, offset: 0,
                                                         limit: ListWindows.maxLimit, counts: counts))
                look(at: window, "window")
                look(at: try #require(ListView.build(farm.spool, listID: view.id)), "list view")
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        #expect(finished, "the list did not finish in time")
        #expect(problems.isEmpty, "\(problems.count) disagreements, the first: \(problems.prefix(8))")
        #expect(movingLooks >= 2, "too few looks at a download under way: \(movingLooks) of \(looks)")
        #expect(lastSeen.values.allSatisfy { $0.status == .done })
    }

    /// After `farm scale 2` has settled (2 workers running, at most 2 jobs in progress), every later
    /// `farm status --json` counts at most workers × transfers in progress: it is the spool as of the command,
    /// not a summary the watcher wrote before the scale settled. Conversions are off: a job waiting for its
    /// worker's converter is in progress beside the transfer that took its place (see the branch's report).
    @Test func afterAScaleSettlesNoStatusCountsMoreInProgressThanWorkersTimesTransfers() throws {
        let farm = try RunningFarm()
        // 40 KB at 10 KB/s: 4 s each, so that every worker is busy throughout.
        try farm.addList("Many", count: 40, size: 40_000, rate: 10_000)
        try farm.must(["start", "--workers", "3", "--lease", "3", "--no-convert"])
        _ = farm.processes()
        func status() throws -> StatusDocument {
            let output = try farm.must(["status", "--json"])
            return try #require(JSON.decode(StatusDocument.self, from: Array(output.utf8)), "\(output)")
        }
        func inProgress(_ document: StatusDocument) -> Int { document.lists.reduce(0) { $0 + $1.active } }
        #expect(poll(timeout: 30) { (try? status()).map(inProgress) == 3 }, "3 workers never had 3 in progress")
        try farm.must(["scale", "2"])
        #expect(poll(timeout: 30) {
            guard let document = try? status() else { return false }
            return document.workers.running == 2 && inProgress(document) <= 2
        }, "the scale to 2 did not settle")
        var looks: [(running: Int, active: Int)] = []
        let end = Date().addingTimeInterval(6)
        while Date() < end {
            let document = try status()
            looks.append((document.workers.running, inProgress(document)))
        }
        let over = looks.filter { $0.active > 2 || $0.running != 2 }
        #expect(over.isEmpty, "\(over.count) of \(looks.count) looks past 2 workers × 1: \(over.prefix(5))")
        #expect(looks.contains { $0.active == 2 }, "2 workers never had 2 in progress: \(looks.map(\.active))")
    }

    /// How `later`, a list's counts in a document made after `earlier`, shows fewer jobs finished than it did
    /// (nothing in these tests takes a finished job back).
    static func behind(_ later: ListStatus?, _ earlier: ListStatus, label: String) -> [String] {
        guard let later else { return ["\(label): the list is missing"] }
        guard later.done < earlier.done || later.done + later.failed < earlier.done + earlier.failed else { return [] }
        return ["\(label): done \(later.done) failed \(later.failed) after done \(earlier.done) failed \(earlier.failed) "
            + "(its resources \((earlier.resources ?? []).map(\.status.rawValue)))"]
    }

    /// How `list` contradicts itself: its counts against one another and against `total`, `progress`
    /// against done/total, `state` against the counts, and in the per-list view the counts against its
    /// resources' statuses (and each resource's text against its status).
    static func disagreements(_ list: ListStatus, label: String) -> [String] {
        var found: [String] = []
        let counts = "total \(list.total) queued \(list.queued) active \(list.active) done \(list.done) "
            + "failed \(list.failed)"
        if list.queued + list.active + list.done + list.failed != list.total {
            found.append("\(label): counts that do not add up: \(counts)")
        }
        // Done resources, and those under way by the part of their bytes in (issue 66): never less than the
        // done ones' share, never more than the done and active ones'.
        if list.total > 0 && (list.progress < Double(list.done) / Double(list.total) - 1e-9
            || list.progress > Double(list.done + list.active) / Double(list.total) + 1e-9) {
            found.append("\(label): progress \(list.progress) with \(counts)")
        }
        if let resources = list.resources, list.window == nil, list.total > 0, list.state != .finished {
            let shares = resources.reduce(0) { $0 + ListStatus.share(of: $1.status, bytes: $1.bytes, size: $1.size) }
            let expected = min(Double(list.done) + shares, Double(list.done + list.active)) / Double(list.total)
            if abs(list.progress - expected) > 1e-9 {
                found.append("\(label): progress \(list.progress) where its rows make \(expected)")
            }
        }
        let state: ListStatus.State = list.done + list.failed >= list.total ? .finished
            : list.active + list.done + list.failed == 0 ? .queuing : .downloading
        if list.state != state { found.append("\(label): state \(list.state.rawValue) with \(counts)") }
        guard let resources = list.resources else { return found }
        func count(_ statuses: Set<ResourceStatus.Status>) -> Int { resources.count { statuses.contains($0.status) } }
        let active = count([.downloading, .unzipping, .rendering])
        let shown = (total: resources.count, queued: count([.queued]), active: active, done: count([.done]),
                     failed: count([.error]))
        if shown != (list.total, list.queued, list.active, list.done, list.failed) {
            found.append("\(label): \(counts), its resources \(resources.map(\.status.rawValue))")
        }
        for resource in resources where resource.text != ResourceStatus.text(resource.status, bytes: resource.bytes,
                                                                             size: resource.size) {
            found.append("\(label): resource \(resource.index) is \(resource.status.rawValue), says \(resource.text)")
        }
        return found
    }
}
