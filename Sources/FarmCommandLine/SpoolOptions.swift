import ArgumentParser
import FarmSpool
import FarmSystem
import FoundationEssentials
import Glibc

/// `--spool DIR`, shared by every subcommand, with one default for all of them (SPEC §3): `$FARM_SPOOL`,
/// else `./spool` when it exists, else the user's own spool. One rule, so that `farm get` and the
/// commands that look at what it did (`status`, `fsck`, `top`) find the same spool from the same folder.
public struct SpoolOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: """
        The spool directory (default: $FARM_SPOOL, else ./spool when it exists, else $XDG_STATE_HOME/farm, \
        else ~/.local/state/farm).
        """)
    public var spool: String?

    public var path: String {
        if let spool { return spool }
        if let env = Processes.environment("FARM_SPOOL"), !env.isEmpty { return env }
        return (try? FileSystem.stat(Self.local)) != nil ? Self.local : Self.userSpool
    }

    /// The spool of the current folder, taken when it exists.
    public static let local = "spool"

    /// The user's own spool, where `farm get` works unless told otherwise (SPEC §15): `$XDG_STATE_HOME/farm`,
    /// else `~/.local/state/farm` (the XDG base directories: an XDG_STATE_HOME that is not absolute is
    /// ignored).
    public static var userSpool: String {
        if let state = Processes.environment("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/farm" }
        let home = Processes.environment("HOME").flatMap { $0.isEmpty ? nil : $0 }
            ?? getpwuid(getuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } } ?? "/"
        return home + "/.local/state/farm"
    }

    /// Opens (or creates) the spool. A refusal is a `SpoolError`, which ArgumentParser prints as one
    /// line (a `ValidationError` would add the usage text).
    public func open(create: Bool = true) throws -> Spool {
        let root = path
        if create && spool == nil && root == Self.userSpool {
            // The user's state folder may not exist yet: the spool itself is made (mode 0700) by its opening.
            if let slash = root.lastIndex(of: "/") { try? FileSystem.ensureDirectories(String(root[..<slash])) }
        }
        return try Spool(root: root, create: create)
    }
}
