import ArgumentParser
import Foundation
import Glibc

/// `--rounds`, shared by the benchmarks that time tools against each other (peers, pieces, mirror): the
/// counted rounds after one warm-up (round 0), each running every tool once, in an order rotated by one
/// a round so that no tool always runs first, or right after a heavy one.
struct Rounds: ParsableArguments {
    @Option(name: .customLong("rounds"), help: "Counted rounds (after one warm-up).")
    var count = 3

    /// Calls `measure(tool, round, run)` for every round and tool, in the round's order: `run` is a fresh
    /// directory `<base>/<tool>-<round>`, and the disk is synced before (not timed), so no run pays for
    /// another's write-back. `ended(round)` follows each round's last tool.
    func each(_ tools: [String], under base: String, _ measure: (_ tool: String, _ round: Int, _ run: String) throws -> Void,
              ended: (_ round: Int) throws -> Void = { _ in }) throws {
        for round in 0...count {
            for tool in tools.indices.map({ tools[($0 + round) % tools.count] }) {
                let run = base + "/\(tool)-\(round)"
                try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
                sync()
                try measure(tool, round, run)
            }
            try ended(round)
        }
    }
}
