import FarmFixtures
import FarmTestSupport
import FarmZip
import Foundation
import Testing
@testable import FarmManifest

/// Manifest files made on disk for the tests.
enum ManifestFixtures {
    static func writeFile(_ text: String, in dir: TemporaryDirectory, as name: String) throws -> String {
        let path = dir.appending(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func writeZip(_ files: [(String, String)], in dir: TemporaryDirectory, as name: String = "manifest.zip",
                         directories: [String] = []) throws -> String {
        let path = dir.appending(name)
        let writer = try ZipWriter(path: path)
        for folder in directories { try writer.addDirectory(folder) }
        for (entry, text) in files { try writer.add(entry, Array(text.utf8)) }
        try writer.close()
        return path
    }

    static let urls = #"["https://example.com/a.jpg", "https://example.com/b.pdf"]"#
}

/// Runs `body` and returns the `ManifestError` it threw, or nil (another error fails the test).
func manifestError(_ body: () throws -> Void) -> ManifestError? {
    do {
        try body()
        return nil
    } catch let error as ManifestError {
        return error
    } catch {
        Issue.record("not a ManifestError: \(error)")
        return nil
    }
}

func parse(_ json: String, name: String = "list.json") throws -> ManifestList {
    try Manifest.parseList(json: Array(json.utf8), name: name)
}
