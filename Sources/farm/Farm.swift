import ArgumentParser
import FarmSpool

/// The `farm` command line: one small type per subcommand, shared options in `SpoolOptions`.
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
        version: "0.1.0",
        subcommands: [Add.self, Start.self, Stop.self, Scale.self, Pause.self, Resume.self, Reset.self, Reload.self, Ps.self,
                      Status.self, Top.self, Serve.self, Watch.self, Wait.self, Show.self,
                      Work.self, Supervise.self, Recover.self, Demo.self]
    )
}
