import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmSystem
import FoundationEssentials

/// A subcommand that is one of the user's verbs: it opens the spool, calls that verb on `Control`
/// (where its checks and its message live, shared with `farm top` and `farm serve`) and prints what
/// the verb says.
protocol ControlCommand: ParsableCommand {
    var options: SpoolOptions { get }
    /// Whether the command makes the spool when there is none: only those that start work do.
    static var createsSpool: Bool { get }
    /// Calls the verb with the command's arguments.
    func verb(_ control: Control) throws -> any CustomStringConvertible
}

extension ControlCommand {
    static var createsSpool: Bool { false }

    func run() throws {
        do {
            print(try verb(Control(spool: options.open(create: Self.createsSpool), roles: .farm)))
        } catch let error as ControlError where error.code == .editRefused || error.code == .badBandwidth {
            // SPEC §8 and §12: a refused edit or unreadable input exits 2, apart from the failures of the farm itself.
            Standard.error("Error: \(error)\n")
            throw ExitCode(2)
        }
    }
}
