import FarmSystem
import Foundation
import SystemPackage
import Testing

/// What FarmSystem does in place of Foundation's text and thread helpers, so that farm links
/// FoundationEssentials only (issue 66): each against what Foundation's own gives.
@Suite struct TextTests {
    @Test func trimmingSpacesIsFoundationsTrimmingOfSpacesAndTabs() {
        for text in ["", " ", "\t a b \t", "ab", "  x", "y  ", " \t\n x \n"] {
            #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
        #expect(Substring(" 2M ").trimmingSpaces() == "2M")
    }

    @Test func paddedIsFoundationsPaddingWithSpaces() {
        for (text, width) in [("HOST", 8), ("a-long-host-name", 6), ("", 3), ("abc", 3)] {
            #expect(text.padded(to: width) == text.padding(toLength: width, withPad: " ", startingAt: 0))
        }
    }

    @Test func percentDecodedIsFoundationsRemovingPercentEncoding() {
        for text in ["a%20b", "%E2%9C%93.jpg", "plain", "%", "%2", "%zz", "100%25", "%C3", "a+b", "%41%42"] {
            #expect(text.percentDecoded == text.removingPercentEncoding, "\(text)")
        }
    }

    @Test func ensureDirectoriesMakesEachMissingFolder() throws {
        let root = NSTemporaryDirectory() + "/farm-text-tests-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileSystem.ensureDirectories(root + "/a/b/c")
        try FileSystem.ensureDirectories(root + "/a/b/c")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: root + "/a/b/c", isDirectory: &isDirectory) && isDirectory.boolValue)
        FileManager.default.createFile(atPath: root + "/file", contents: Data())
        #expect(throws: Errno.self) { try FileSystem.ensureDirectories(root + "/file/x") }
    }

    @Test func aDetachedThreadRunsItsWork() {
        let ran = DispatchSemaphore(value: 0)
        let count = Locked(0)
        for _ in 0..<8 {
            Threads.detach {
                count.withLock { $0 += 1 }
                ran.signal()
            }
        }
        for _ in 0..<8 { #expect(ran.wait(timeout: .now() + 10) == .success) }
        #expect(count.withLock { $0 } == 8)
    }
}
