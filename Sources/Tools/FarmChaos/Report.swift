import FarmChaosReport
import Foundation

/// The figures of one chaos run (FarmChaosReport's schema), printed as a table (with the goals of issue 6, and a
/// cluster's) and written as JSON for the tests.
typealias Report = ChaosReport

extension ChaosReport {
    var totalKills: Int { kills.values.reduce(0, +) }
    var servedRatio: Double { Double(bytesServed) / Double(max(corpusBytes, 1)) }

    /// No loss, no duplicate, no corrupt or stray output, nothing left behind, `farm fsck` clean, every list
    /// finished.
    var sound: Bool {
        finished && lost == 0 && duplicated == 0 && corrupt == 0 && strays == 0 && leftovers == 0 && statusErrors == 0
            && fsck == 0 && pagedErrors == 0 && siteErrors == 0 && pendingReclaims == 0 && cluster?.sound(lease: lease) != false
            && sync?.errors.isEmpty != false
    }

    /// The timing and traffic goals (loose on a loaded machine, so reported rather than fatal by default).
    var goalsMet: Bool {
        servedRatio <= 1.1 && (Self.percentile(seenReclaims, 0.99) ?? 0) <= 1
            && (unseenReclaims.max() ?? 0) <= lease + 1
            && overflowRecoveries.allSatisfy { ($0 ?? .infinity) <= 2 } && cluster?.goalsMet(lease: lease) != false
    }

    func table() -> String {
        let time = Self.time, reclaim = Self.reclaim
        let byRole = ["worker", "supervisor", "watcher", "follower", "coordinator"].map { "\($0) \(kills[$0, default: 0])" }
        let overflow = overflowRecoveries.map { time($0) }.joined(separator: ", ")
        var rows: [(String, String, String)] = [
            ("kills (SIGKILL)", "\(totalKills): " + byRole.joined(separator: ", "), "≥ 1,000 in a long run"),
            ("lost", String(lost), "0"),
            ("duplicated", String(duplicated), "0"),
            ("corrupt outputs", String(corrupt), "0"),
            ("outputs sha256-equal to the origin's", "\(sameDigest) of \(digests)", "all (downloads, ZIP entries)"),
            ("stray outputs", String(strays), "0"),
            ("left in active/, tmp/, partial/, corrupt/", String(leftovers), "0"),
            ("status disagreeing", String(statusErrors), "0"),
            ("farm fsck findings", String(fsck), "0"),
        ]
        if pages > 0 {
            rows += [
                ("paged list (\(pages) pages × \(pagedItems / max(pages, 1)) items) findings", String(pagedErrors),
                 "0: Finished, all pages in, exactly the API's ids in order"),
                ("follower kills in the middle of a page", "\(followerMidPage) of \(kills["follower", default: 0])", "≥ 1"),
            ]
        }
        if siteURLs > 0 {
            rows.append(("mirrored site (\(siteURLs) URLs, farm add --recursive) findings", String(siteErrors),
                         "0: each URL once, done, the origin's bytes; robots.txt obeyed"))
        }
        rows += [
            ("resources done / error", "\(done) / \(failed) of \(resources)", "errors are the 404s and HTML pages"),
            ("bytes served / corpus", String(format: "%.3f× (%.1f of %.1f MB)", servedRatio,
                                               Double(bytesServed) / 1e6, Double(corpusBytes) / 1e6), "≤ 1.1×"),
            ("reclaim, death seen", reclaim(seenReclaims), "≤ 1 s"),
            ("reclaim, death unseen", reclaim(unseenReclaims), String(format: "≤ lease + 1 = %.0f s", lease + 1)),
        ]
        if let sync {
            rows += [
                ("sync round: PNGs given new bytes / syncs killed", "\(sync.changed) / \(sync.kills)",
                 "then one whole sync: outputs equal the new bytes"),
                ("sync round errors (a second sync changing anything)", String(sync.errors.count), "0"),
            ]
        }
        if !overflowRecoveries.isEmpty {
            rows.append(("status exact after an overflow",
                         overflow + " (\(overflowsTriggered) of \(overflowRecoveries.count) overflowed)", "≤ 2 s"))
        }
        rows += [
            ("adds finished / scales / pauses", "\(adds) / \(scales) / \(pauses)", ""),
            ("control commands that failed", String(commandErrors), "0"),
            ("farm found with no process (revived)", String(farmDown), "0"),
        ]
        rows += cluster?.rows(lease: lease) ?? []
        var out = String(format: "chaos: %.0f s at %.1f kills/s, lease %.0f s, seed %llu\n", seconds, killsPerSecond,
                         lease, seed)
        out += "| what | measured | goal |\n| --- | --- | --- |\n"
        for (what, measured, goal) in rows { out += "| \(what) | \(measured) | \(goal) |\n" }
        return out
    }

    static func time(_ value: Double?) -> String { value.map { String(format: "%.2f s", $0) } ?? "–" }

    /// Reclaim times as a row's figure: median, 99th percentile, maximum and count.
    static func reclaim(_ values: [Double]) -> String {
        "p50 \(time(percentile(values, 0.5))), p99 \(time(percentile(values, 0.99))), "
            + "max \(time(values.max())) (\(values.count))"
    }

    /// Nearest-rank percentile; nil for no values.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }
}

extension Report {
    /// The figures of a finished run (overflow rounds and cluster figures, where there are any, are set
    /// by the caller).
    init(seconds: Double, killsPerSecond: Double, seed: UInt64, lease: Double, corpus: ChaosCorpus, bytesServed: Int,
         verdict: Verdict, tally: Mayhem.Tally, reclaims: Observer.Reclaims, finished: Bool,
         paged: PagedList? = nil, site: RecursiveSite? = nil) {
        self.init()
        (self.seconds, self.killsPerSecond, self.seed, self.lease) = (seconds, killsPerSecond, seed, lease)
        (resources, digests, sameDigest) = (verdict.resources, verdict.digests, verdict.sameDigest)
        (corpusBytes, self.bytesServed) = (corpus.bytes, bytesServed)
        (kills, adds, scales, pauses) = (tally.kills, tally.adds, tally.scales, tally.pauses)
        (done, failed, lost, duplicated) = (verdict.done, verdict.failed, verdict.lost.count, verdict.duplicated.count)
        (corrupt, strays, leftovers) = (verdict.corrupt.count, verdict.strays.count, verdict.leftovers.count)
        (statusErrors, fsck, pagedErrors) = (verdict.statusErrors.count, verdict.fsck.count, verdict.paged.count)
        (pages, pagedItems, followerMidPage) = (paged?.pages ?? 0, paged?.items.count ?? 0, tally.followerMidPage)
        (siteURLs, siteErrors) = (site?.reachable.count ?? 0, verdict.mirrored.count)
        (commandErrors, farmDown) = (tally.commandErrors.count, tally.farmDown)
        (seenReclaims, unseenReclaims, pendingReclaims) = (reclaims.seen, reclaims.unseen, reclaims.pending)
        self.finished = finished
    }

    /// Writes the figures as JSON to `path`.
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
