import ArgumentParser
import FarmSpool
import Foundation

/// `--spool DIR`, shared by every subcommand: default `$FARM_SPOOL`, else `./spool`.
struct SpoolOptions: ParsableArguments {
    @Option(name: .long, help: "The spool directory (default: $FARM_SPOOL, else ./spool).")
    var spool: String?

    var path: String { path(default: "spool") }

    /// --spool, else $FARM_SPOOL, else `fallback`.
    func path(default fallback: String) -> String {
        if let spool { return spool }
        if let env = ProcessInfo.processInfo.environment["FARM_SPOOL"], !env.isEmpty { return env }
        return fallback
    }

    /// The user's own spool, where `farm get` works unless told otherwise (SPEC §15): `$XDG_STATE_HOME/farm`,
    /// else `~/.local/state/farm` (the XDG base directories: an XDG_STATE_HOME that is not absolute is
    /// ignored).
    static var userSpool: String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/farm" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/farm"
    }

    /// Opens (or creates) the spool. A refusal is a `SpoolError`, which ArgumentParser prints as one
    /// line (a `ValidationError` would add the usage text).
    func open(create: Bool = true) throws -> Spool {
        try Spool(root: path, create: create)
    }
}
