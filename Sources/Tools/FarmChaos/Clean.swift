import ArgumentParser
import FarmCluster
import Foundation

/// `farm-chaos clean DIR`: removes what a cluster run in DIR made and left behind, as its ledger lists
/// it (bin/cluster's trap runs it, for a run that was killed before it could clean up itself).
struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove what a cluster run in DIR made (processes, mounts, namespaces, glusterd, directories).")

    @Argument(help: "The directory of the cluster run.")
    var dir: String

    func run() throws {
        guard let ledger = Ledger(existing: dir) else { return }
        let problems = ledger.tearDown()
        for problem in problems { print("farm-chaos clean: left behind: " + problem) }
        if !problems.isEmpty { throw ExitCode(1) }
    }
}
