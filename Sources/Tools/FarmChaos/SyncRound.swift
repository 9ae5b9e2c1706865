import FarmChaosReport
import FarmJSON
import FarmSpool
import FarmStatus
import FarmSync
import FarmSystem
import Foundation
import Glibc

/// The sync round of a chaos run (SPEC §7, "Sync"), after the chaos: once the paged list has all its
/// pages, a few PNGs the farm has done (in every list that has them) get new bytes at the origin;
/// `farm sync --all` is killed with SIGKILL at random moments a few times, then run to its end, then run
/// again, which must find nothing left to do. The verdict then checks every output against the origin's
/// bytes as they are now: a sync killed anywhere and run again ends where one uninterrupted sync ends.
struct SyncRound {
    let farm: FarmCommand
    let spool: Spool
    let corpus: ChaosCorpus
    var random: SplitMix64

    typealias Figures = ChaosReport.Sync

    mutating func run(paged: PagedList?, changes: Int = 6, kills: Int = 4) throws -> Figures {
        var figures = Figures()
        if paged != nil && !waitForPages() {
            figures.errors.append("the paged list did not have all its pages within 300 s: no sync round")
            return figures
        }
        for path in donePNGs().shuffled(using: &random).prefix(changes) {
            corpus.change(path)
            figures.changed += 1
        }
        for _ in 0..<kills {
            let sync = try farm.start(["sync", "--all"])
            usleep(UInt32.random(in: 20_000...1_500_000, using: &random))
            if sync.isRunning {
                kill(sync.processIdentifier, SIGKILL)
                figures.kills += 1
            }
            sync.waitUntilExit()
        }
        let whole = try farm.run(["sync", "--all"], timeout: 600)
        print("farm-chaos: farm sync --all after \(figures.kills) killed:\n" + whole.output, terminator: "")
        if whole.status != 0 { figures.errors.append("farm sync --all exited \(whole.status): \(whole.error)") }
        let again = try farm.run(["sync", "--all", "--json"], timeout: 600)
        let reports = JSON.decode([SyncReport].self, from: Array(again.output.utf8)) ?? []
        if again.status != 0 || reports.isEmpty {
            figures.errors.append("the second farm sync --all exited \(again.status): \(again.error)")
        }
        for report in reports where report.added != 0 || report.removed != 0 || report.changed != 0 {
            figures.errors.append("a second sync still changed \(report)")
        }
        return figures
    }

    /// Waits for the paged list's last page (a sync refuses a list still followed).
    private func waitForPages() -> Bool {
        Clock.poll(every: 0.2, for: 300) {
            guard let output = try? farm.run(["status", PagedList.name, "--json"]).output else { return false }
            return JSON.decode(ListStatus.self, from: Array(output.utf8))?.paging?.done == true
        } == .ready
    }

    /// The PNG URLs done in every list that has them: changing one that is still queued somewhere could
    /// race its transfer, which is not what this round is about.
    private func donePNGs() -> [String] {
        var done: [String: Bool] = [:]
        var orders: [String: [Int]] = [:]
        for resource in corpus.resources {
            if orders[resource.list] == nil { orders[resource.list] = Resource.order(ofList: resource.list, in: spool) }
            let job = resource.job(order: orders[resource.list] ?? [])
            let finished = FileSystem.exists(spool.finishedPath(job, .done))
            done[resource.path] = (done[resource.path] ?? true) && finished && resource.kind == .png
        }
        return done.filter(\.value).map(\.key).sorted()
    }
}
