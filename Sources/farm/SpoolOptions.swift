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

    /// Opens (or creates) the spool, turning a refusal into a one-line error for the user.
    func open(create: Bool = true) throws -> Spool {
        do {
            return try Spool(root: path, create: create)
        } catch {
            throw ValidationError("\(error.description).")
        }
    }
}
