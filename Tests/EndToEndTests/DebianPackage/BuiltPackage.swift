import FarmTestSupport
import Foundation

/// The .deb that bin/package builds from this tree (or the one FARM_TEST_DEB names), and its files unpacked into a fresh root (`dpkg -x`),
/// made once for the whole suite and removed with it.
final class BuiltPackage: Sendable {
    /// The one package of the test run; each test reads it, none changes it.
    static let shared = Result { try BuiltPackage() }

    /// The source tree: the tests live four levels below it (Tests/EndToEndTests/DebianPackage/).
    static let tree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    nonisolated(unsafe) private static var removedAtExit: String?

    let directory = TemporaryDirectory("farm-package")
    let deb: String
    /// Where the package's files were unpacked: `root + "/usr/bin/farm"` is the installed farm.
    let root: String
    var farm: String { root + "/usr/bin/farm" }

    private init() throws {
        // A static value is never released, so its directory goes when the test process exits.
        Self.removedAtExit = directory.path
        atexit { if let path = BuiltPackage.removedAtExit { try? FileManager.default.removeItem(atPath: path) } }
        if let given = ProcessInfo.processInfo.environment["FARM_TEST_DEB"] {
            deb = given  // one bin/package made already
        } else {
            // The release build bin/test's bin/setup made: `swift test` holds the lock a build would wait for.
            let built = try run(Self.tree + "/bin/package", ["--output", directory.appending("out"), "--no-build"],
                                timeout: 600)
            guard built.status == 0 else { throw CommandFailed("bin/package failed (\(built.status)): \(built.error)") }
            deb = built.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        root = directory.appending("root")
        try tool("dpkg", ["-x", deb, root])
    }
}

/// Runs the system tool `name` (found on PATH) and returns its output; throws when it fails.
@discardableResult
func tool(_ name: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 300) throws
    -> String {
    let result = try run("/usr/bin/env", [name] + arguments, environment: environment, timeout: timeout)
    guard result.status == 0 else {
        throw CommandFailed("\(name) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.error)")
    }
    return result.output
}

/// Whether `name` is on PATH.
func installed(_ name: String) -> Bool {
    (try? run("/usr/bin/env", ["sh", "-c", "command -v \(name)"]))?.status == 0
}
