import Foundation

/// The figures of one chaos run, printed as a table (with the goals of issue 6) and written as JSON
/// for the tests.
struct Report: Codable {
    var seconds: Double
    var killsPerSecond: Double
    var seed: UInt64
    var lease: Double
    var resources: Int
    var corpusBytes: Int
    var bytesServed: Int
    var kills: [String: Int]
    var adds: Int
    var scales: Int
    var pauses: Int
    var done: Int
    var failed: Int
    var lost: Int
    var duplicated: Int
    var corrupt: Int
    var strays: Int
    var leftovers: Int
    var statusErrors: Int
    /// Findings of `farm fsck` on the final spool.
    var fsck: Int
    var commandErrors: Int
    var farmDown: Int
    var seenReclaims: [Double]
    var unseenReclaims: [Double]
    var pendingReclaims: Int
    var overflowRecoveries: [Double?]
    var overflowsTriggered: Int
    var finished: Bool

    var totalKills: Int { kills.values.reduce(0, +) }
    var servedRatio: Double { Double(bytesServed) / Double(max(corpusBytes, 1)) }

    /// No loss, no duplicate, no corrupt or stray output, nothing left behind, `farm fsck` clean, every list
    /// finished.
    var sound: Bool {
        finished && lost == 0 && duplicated == 0 && corrupt == 0 && strays == 0 && leftovers == 0 && statusErrors == 0
            && fsck == 0 && pendingReclaims == 0
    }

    /// The timing and traffic goals (loose on a loaded machine, so reported rather than fatal by default).
    var goalsMet: Bool {
        servedRatio <= 1.1 && (Self.percentile(seenReclaims, 0.99) ?? 0) <= 1
            && (unseenReclaims.max() ?? 0) <= lease + 1
            && overflowRecoveries.allSatisfy { ($0 ?? .infinity) <= 2 }
    }

    func table() -> String {
        func time(_ value: Double?) -> String { value.map { String(format: "%.2f s", $0) } ?? "–" }
        func reclaim(_ values: [Double]) -> String {
            "p50 \(time(Self.percentile(values, 0.5))), p99 \(time(Self.percentile(values, 0.99))), "
                + "max \(time(values.max())) (\(values.count))"
        }
        let byRole = ["worker", "supervisor", "watcher", "coordinator"].map { "\($0) \(kills[$0, default: 0])" }
        let overflow = overflowRecoveries.map { time($0) }.joined(separator: ", ")
        let rows: [(String, String, String)] = [
            ("kills (SIGKILL)", "\(totalKills): " + byRole.joined(separator: ", "), "≥ 1,000 in a long run"),
            ("lost", String(lost), "0"),
            ("duplicated", String(duplicated), "0"),
            ("corrupt outputs", String(corrupt), "0"),
            ("stray outputs", String(strays), "0"),
            ("left in active/, tmp/, partial/, corrupt/", String(leftovers), "0"),
            ("status disagreeing", String(statusErrors), "0"),
            ("farm fsck findings", String(fsck), "0"),
            ("resources done / error", "\(done) / \(failed) of \(resources)", "errors are the 404s and HTML pages"),
            ("bytes served / corpus", String(format: "%.3f× (%.1f of %.1f MB)", servedRatio,
                                               Double(bytesServed) / 1e6, Double(corpusBytes) / 1e6), "≤ 1.1×"),
            ("reclaim, death seen", reclaim(seenReclaims), "≤ 1 s"),
            ("reclaim, death unseen", reclaim(unseenReclaims), String(format: "≤ lease + 1 = %.0f s", lease + 1)),
            ("status exact after an overflow", overflow + " (\(overflowsTriggered) of \(overflowRecoveries.count) overflowed)",
             "≤ 2 s"),
            ("adds finished / scales / pauses", "\(adds) / \(scales) / \(pauses)", ""),
            ("control commands that failed", String(commandErrors), "0"),
            ("farm found with no process (revived)", String(farmDown), "0"),
        ]
        var out = String(format: "chaos: %.0f s at %.1f kills/s, lease %.0f s, seed %llu\n", seconds, killsPerSecond,
                         lease, seed)
        out += "| what | measured | goal |\n| --- | --- | --- |\n"
        for (what, measured, goal) in rows { out += "| \(what) | \(measured) | \(goal) |\n" }
        return out
    }

    /// Nearest-rank percentile; nil for no values.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }
}
