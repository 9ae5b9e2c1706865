import ArgumentParser
import FarmDesired
import FarmOrigin
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `farm-chaos [machine]` (run by `bin/chaos`): proves "kill anything, lose nothing" under load. It serves a
/// corpus of throttled JPG, PNG, PDF and ZIP resources (some of them in two lists), a paged JSON API of
/// throttled pages and a site mirrored recursively (RecursiveSite) from an in-process origin, runs a real farm on it, SIGKILLs its processes at random for
/// `--seconds` while scaling and pausing it, floods the watcher's inotify queue, changes a few resources
/// at the origin and syncs (SyncRound), lets the farm finish, then checks every
/// resource, the paged list and the mirror and prints the figures. Exits 1 on any loss, duplicate, corrupt or
/// stray output, anything left behind, a paged list that is not exactly its API, a mirror that is not
/// exactly the site, or a finding of `farm fsck`
/// on the final spool.
struct Chaos: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "machine",
        abstract: "On this machine: kill farm processes at random under load, then prove that "
            + "nothing was lost or doubled.")

    @Option(help: "How long the chaos lasts, in seconds.")
    var seconds: Double = 240
    @Option(help: "SIGKILLs per second, on average.")
    var killsPerSecond: Double = 5
    @Option(help: "Resources in the base manifest (extra lists are added during the run).")
    var resources: Int = 520
    @Option(help: "Workers at the start; the chaos scales between 2 and 8.")
    var workers: Int = 6
    @Option(help: "The lease, in seconds.")
    var lease: Double = 3
    @Option(help: "Inotify overflow rounds after the chaos.")
    var overflows: Int = 3
    @Option(help: "Pages of the paged JSON API added at the start (0: none).")
    var pages: Int = 40
    @Option(help: "Items on each page of the paged API.")
    var perPage: Int = 10
    @Option(help: "Sections of the site mirrored with farm add --recursive, each of 6 pages (0: no mirror).")
    var sections: Int = 4
    @OptionGroup var options: RunOptions

    func validate() throws {
        guard seconds > 0, killsPerSecond > 0, resources >= 20, (2...8).contains(workers), lease >= 1,
              pages >= 0, perPage >= 1 else {
            throw ValidationError("need --seconds > 0, --kills-per-second > 0, --resources ≥ 20, --workers 2…8, "
                + "--lease ≥ 1, --pages ≥ 0, --per-page ≥ 1")
        }
    }

    func run() throws {
        FarmChaos.catchStopSignals()
        let seed = options.seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let executable = try FarmChaos.farmExecutable(options.farm)
        let work = try options.dir ?? FarmChaos.makeTemporaryDirectory("farm-chaos")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let spool = try Spool(root: work + "/spool")
        let farm = FarmCommand(executable: executable, spool: spool.root)
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        let observer = Observer(spool: spool)
        var ended = false
        defer { if !ended { end(farm, spool, observer) } }

        // Transfers long enough to be killed half-way, yet a corpus the workers get through in the time.
        let smallSeconds = min(3, max(0.2, 2.6 * seconds / Double(resources)))
        let corpus = ChaosCorpus(origin: origin, directory: work, seed: seed, smallSeconds: smallSeconds)
        let base = try corpus.makeBase(count: resources)
        print("farm-chaos: \(corpus.resources.count) resources (\(corpus.bytes / 1_000_000) MB), seed \(seed), "
            + "spool \(spool.root)")
        try farm.must(["add", base])
        // Some URLs twice, in another list: each transferred once for both (download once); that list's
        // done resources are delivered to a folder too (SPEC §12), while workers are killed.
        // Each of its resources runs a hook too (SPEC §15), at least once whatever is killed: one line a run.
        let delivery = (list: Self.repeatList, folder: work + "/delivered")
        let hooks = (list: Self.repeatList, ran: work + "/hooks-ran")
        try farm.must(["add", try corpus.makeRepeat(Self.repeatList, count: max(10, resources / 8)),
                       "--out", delivery.folder, "--on-done", try Self.writeHook(in: work), "--on-done-arg", hooks.ran])
        // A few large resources fetched as pieces over four connections (SPEC §14), by every worker.
        try farm.must(["add", try corpus.makePieces(Self.piecesList, count: 3), "--connections", "4",
                       "--min-piece", "256K"])
        // The pages take about 40% of the chaos to arrive (the follower lives that long, to be killed); its
        // items are small and quick, not to prolong the run.
        let paged = pages == 0 ? nil : try PagedList(corpus: corpus, pages: pages, perPage: perPage,
                                                      pageSeconds: min(2, max(0.1, 0.4 * seconds / Double(pages))),
                                                      itemSeconds: smallSeconds / 4)
        if let paged {
            try farm.must(paged.addArguments)
            print("farm-chaos: paged list \(PagedList.name), \(pages) pages of \(perPage) items")
        }
        // Each of the site's pages lasts up to 2 s, so that kills land while its list grows from them.
        let site = sections == 0 ? nil : RecursiveSite(origin: origin, sections: sections, perSection: 6,
                                                          pageSeconds: min(2, max(0.1, seconds / 3 / Double(sections * 7 + 1))))
        if let site {
            try farm.must(site.addArguments)
            print("farm-chaos: site \(RecursiveSite.name), \(site.reachable.count) URLs mirrored recursively")
        }
        try farm.must(["start", "--workers", String(workers), "--lease", String(lease)])
        observer.start()

        let mayhem = Mayhem(hosts: [ChaosHost(name: "", farm: farm, owns: { _ in true })], spool: spool,
                            corpus: corpus, observer: observer,
                            killsPerSecond: killsPerSecond, workers: 2...8, seed: seed ^ 0x5EED, paged: paged)
        try mayhem.run(seconds: seconds)
        print("farm-chaos: chaos over after \(mayhem.tally.total) kills; overflow rounds, then the farm finishes")

        // Whatever the chaos left, a farm runs again with the initial settings (start is a no-op if one runs).
        try farm.must(["start", "--workers", String(workers), "--lease", String(lease)])
        try farm.must(["scale", String(workers), "--transfers", String(Desired.defaultTransfers)])
        var rounds: [Overflow.Round] = []
        for number in 0..<overflows where !interrupted.load(ordering: .relaxed) {
            rounds.append(try Overflow(farm: farm, spool: spool, corpus: corpus).round(number + 1))
        }
        var syncRound = SyncRound(farm: farm, spool: spool, corpus: corpus, random: SplitMix64(seed: seed ^ 0x5C))
        let synced = interrupted.load(ordering: .relaxed) ? nil : try syncRound.run(paged: paged)
        // Adds killed half-way are run again: the lists must end up exactly the union of the manifests.
        for manifest in corpus.manifests { try farm.must(["add", manifest]) }
        let waited = try farm.run(["wait", "--timeout", String(Int(options.drainTimeout))],
                                   timeout: options.drainTimeout + 60)
        let reclaims = observer.stop()
        ended = true
        end(farm, spool, observer)

        let verdict = Verdict.check(spool: spool, corpus: corpus, farm: farm, paged: paged, site: site,
                                    delivery: delivery, hooks: hooks)
        var figures = Report(seconds: seconds, killsPerSecond: killsPerSecond, seed: seed, lease: lease, corpus: corpus,
                             bytesServed: origin.bytesServed, verdict: verdict, tally: mayhem.tally,
                             reclaims: reclaims, finished: waited.status == 0 || waited.status == 1, paged: paged,
                             site: site)
        figures.overflowRecoveries = rounds.map(\.recovery)
        figures.overflowsTriggered = rounds.filter(\.overflowed).count
        figures.sync = synced
        print(figures.table())
        verdict.printFindings(commandErrors: mayhem.tally.commandErrors, syncErrors: synced?.errors ?? [])
        if let report = options.report { try figures.write(to: report) }
        guard figures.sound, !options.strict || figures.goalsMet else {
            if !figures.finished { print("the farm did not finish within \(Int(options.drainTimeout)) s (farm wait: \(waited.status))") }
            print("farm-chaos: FAILED; the spool is kept in \(work)")
            throw ExitCode(1)
        }
        if options.dir == nil { try? FileManager.default.removeItem(atPath: work) }
        print("farm-chaos: nothing lost, nothing doubled")
    }

    /// A hook that appends the resource's file to the file its first argument names, one line a run (a
    /// write with O_APPEND, whole whatever runs beside it).
    static func writeHook(in work: String) throws -> String {
        let path = work + "/hook.sh"
        try Data("#!/bin/sh\nprintf '%s\\n' \"$FARM_FILE\" >> \"$1\"\n".utf8).write(to: URL(fileURLWithPath: path))
        guard chmod(path, 0o755) == 0 else { throw ValidationError("cannot make \(path) executable") }
        return path
    }

    /// The list of URLs that other lists have too.
    static let repeatList = "Again.json"
    /// The list of resources fetched as pieces.
    static let piecesList = "Pieces.json"

    private func end(_ farm: FarmCommand, _ spool: Spool, _ observer: Observer) {
        FarmChaos.stopFarm([farm], spool: spool, observer: observer)
    }
}
