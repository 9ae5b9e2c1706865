import Foundation

/// A directory for one test, removed when the value is released. Made under $FARM_TEST_TMP when
/// set (so the suite can run on tmpfs or on disk), else the system's temporary directory, or with
/// `inMemory` /dev/shm when there is one (for spools of 100,000 jobs: seconds to write there, tens
/// of seconds on a busy disk).
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "farm-test", inMemory: Bool = false) {
        let memory = inMemory && FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : nil
        let base = ProcessInfo.processInfo.environment["FARM_TEST_TMP"] ?? memory ?? NSTemporaryDirectory()
        let template = (base as NSString).appendingPathComponent("\(label)-XXXXXX")
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { fatalError("mkdtemp \(template): \(errno)") }
        path = String(cString: made)
    }

    public func appending(_ component: String) -> String { path + "/" + component }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
