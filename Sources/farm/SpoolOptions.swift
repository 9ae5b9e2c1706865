import ArgumentParser
import FarmSpool
import Foundation

/// `--spool DIR`, shared by every subcommand: default `$FARM_SPOOL`, else `./spool`.
struct SpoolOptions: ParsableArguments {
    @Option(name: .long, help: "The spool directory (default: $FARM_SPOOL, else ./spool).")
    var spool: String?

    var path: String {
        if let spool { return spool }
        if let env = ProcessInfo.processInfo.environment["FARM_SPOOL"], !env.isEmpty { return env }
        return "spool"
    }

    /// Opens (or creates) the spool. A refusal is a `SpoolError`, which ArgumentParser prints as one
    /// line (a `ValidationError` would add the usage text).
    func open(create: Bool = true) throws -> Spool {
        try Spool(root: path, create: create)
    }
}
