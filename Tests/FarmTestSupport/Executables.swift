import Foundation

/// Where the package's built executables are: next to the test bundle, in the build directory
/// that `swift test` (or `swift build`) just filled.
public enum Executables {
    public static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["FARM_BIN_DIR"] { return dir }
        // The test binary lives at .build/<config>/farmPackageTests.xctest.
        var url = Bundle.main.bundleURL
        while !url.path.hasSuffix(".xctest"), url.path != "/" { url.deleteLastPathComponent() }
        if url.path == "/" { url = URL(fileURLWithPath: CommandLine.arguments[0]) }
        return url.deletingLastPathComponent().path
    }()

    public static func path(_ name: String) -> String { directory + "/" + name }
}
