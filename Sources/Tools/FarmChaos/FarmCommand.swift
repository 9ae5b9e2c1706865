import Foundation
import Glibc

/// Runs the `farm` executable on one spool, as a user would. Every process it starts is its child and
/// is waited for; `farm add` may also be started in the background to be killed half-way.
struct FarmCommand {
    typealias Result = Command.Result

    let executable: String
    let spool: String
    /// What runs farm: nothing, or `nsenter --uts=…` for a cluster host, whose processes must carry its
    /// host name. nsenter execs farm in place, so the pid started is farm's.
    var launcher: [String] = []

    /// Runs `farm <arguments> --spool <spool>` to its end (killed after `timeout` seconds).
    @discardableResult
    func run(_ arguments: [String], timeout: Double = 120) throws -> Result {
        Command.wait(for: try start(arguments, capture: true), timeout: timeout)
    }

    /// Runs the command and throws unless it exits 0.
    @discardableResult
    func must(_ arguments: [String], timeout: Double = 120) throws -> String {
        let result = try run(arguments, timeout: timeout)
        guard result.status == 0 else {
            throw ChaosError("farm \(arguments.joined(separator: " ")) exited \(result.status): "
                + result.error.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return result.output
    }

    /// Starts `farm <arguments> --spool <spool>` and returns at once; its output is discarded unless
    /// `capture`.
    func start(_ arguments: [String], capture: Bool = false) throws -> Process {
        try Command.start(launcher + [executable] + arguments + ["--spool", spool], capture: capture)
    }
}
