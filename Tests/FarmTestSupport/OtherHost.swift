import Foundation

/// Processes that believe they run on another machine: each command runs in a UTS namespace of its own
/// (unshare(1), which needs root or user namespaces) whose host name is set before the command is
/// exec'd, so it and every process it starts see that name. Farm processes name their host by it
/// (SPEC §11); the file system, the network and the pids stay this machine's, so the test can still
/// check and end them by pid.
public enum OtherHost {
    /// Why commands cannot run under another host name here (a test then skips, saying so); nil when they can.
    public static let unavailable: String? = {
        guard let result = try? run(unshare, ["--uts", "sh", "-c", "hostname farm-probe-host && hostname"], timeout: 30)
        else { return "unshare(1) cannot be run" }
        guard result.status == 0, result.output.hasPrefix("farm-probe-host") else {
            return "unshare --uts is not permitted here (status \(result.status)): \(result.error)"
        }
        return nil
    }()

    static let unshare = "/usr/bin/unshare"

    /// The executable and arguments that run `executable` (a name in `Executables`, or a path) with
    /// `arguments` on host `host`.
    public static func command(_ host: String, _ executable: String, _ arguments: [String]) -> (String, [String]) {
        let path = executable.contains("/") ? executable : Executables.path(executable)
        return (unshare, ["--uts", "sh", "-c", "hostname \"$0\" && exec \"$@\"", host, path] + arguments)
    }
}

extension RunningFarm {
    /// Runs `farm <arguments> --spool <spool>` on host `host` (see `OtherHost`).
    @discardableResult
    public func farm(on host: String, _ arguments: [String], timeout: Double = 120) throws
        -> (status: Int32, output: String, error: String) {
        let (executable, arguments) = OtherHost.command(host, "farm", arguments + ["--spool", spool.root])
        return try run(executable, arguments, timeout: timeout)
    }

    /// Runs `farm <arguments>` on host `host`, throwing (which fails the test) unless it succeeds.
    @discardableResult
    public func must(on host: String, _ arguments: [String]) throws -> String {
        let result = try farm(on: host, arguments)
        guard result.status == 0 else {
            throw CommandFailed("farm \(arguments.joined(separator: " ")) on \(host): \(result.error)")
        }
        return result.output
    }
}
