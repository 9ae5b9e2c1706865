import ArgumentParser
import FarmSpool
import Foundation

/// The `farm` command line: one small type per subcommand, shared options in `SpoolOptions`, the
/// user's verbs run the same way through `ControlCommand`.
/// Every command states its `commandName`: derived, it costs a `String(describing:)` of the type, whose
/// dynamic casts scan every protocol conformance in the binary, once per command (2 ms of a worker's
/// start-up, perf).
@main
struct Farm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm",
        abstract: "A bulk download manager run by a farm of worker processes sharing a spool directory.",
        discussion: "See README.md for a tour; the spool protocol is described at the top of "
            + "Sources/FarmSpool/Spool.swift.",
        version: FarmVersion.description,
        subcommands: [Add.self, Start.self, Stop.self, Scale.self, Pause.self, Resume.self, Limit.self, Reset.self, Reload.self, Ps.self,
                      Status.self, Top.self, Serve.self, Metrics.self, Watch.self, Wait.self, Show.self,
                      Failed.self, Retry.self, Hosts.self, Fsck.self, Item.self, Sync.self, Export.self, Work.self,
                      Supervise.self, Follow.self, Recover.self,
                      Demo.self]
    )
}

extension Farm {
    /// Runs a command's body outside argument parsing (a role in a copy of the supervisor, see
    /// `SupervisedRoles`): a thrown error is printed as `farm` prints it, and its status returned.
    static func exitStatus(_ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            return exitCode(for: error).rawValue
        }
    }
}
