import FarmOrigin
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm top` with its output in a pipe: plain lines, no escape codes, ending on its own.
@Suite(.serialized) struct PlainTopTests {
    @Test func printsALineOnEachChangeAndEndsWhenEverythingIsFinished() throws {
        let farm = try RunningFarm()
        try farm.addList("Plain", count: 4, size: 50_000, rate: 100_000)
        try farm.start(workers: 2)
        let result = try farm.farm(["top"], timeout: 120)
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2, "\(lines)")
        #expect(lines.last?.contains("4/4 done, 0 failed, 0 active, 0 queued; 1/1 lists finished") == true, "\(lines)")
        #expect(lines.allSatisfy { $0.range(of: #"^\d\d:\d\d:\d\d \d+/4 done"#, options: .regularExpression) != nil })
        #expect(!result.output.contains("\u{1B}"), "escape codes in plain output")
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 }, "a line repeated although nothing changed")
    }

    /// A recursive list on two hosts (issue 64): under each summary line, a line per host with its resources
    /// found, fetched, active and queued, growing with the list, and at the end what `farm status LIST` says.
    @Test func printsEachHostOfARecursiveList() throws {
        let farm = try RunningFarm()
        TwoHostSite.serve(farm.origin, pageRate: 200)
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--span-hosts", "--level", "3",
                       "--name", "site"])
        // Started before the workers, so that it sees the list from its first page on.
        let top = try ChildProcess("farm", ["top", "--spool", farm.spool.root])
        #expect(top.waitForLine(startingWith: "", timeout: 30) != nil)
        try farm.start(workers: 2, transfers: 2)
        #expect(top.wait(timeout: 180) == 0, "\(top.standardError)")
        let lines = top.standardOutput.split(separator: "\n").map(String.init)
        let last = try #require(lines.lastIndex { !$0.hasPrefix("  ") }, "\(lines)")
        #expect(lines[last].contains("1/1 lists finished"), "\(lines)")
        let expected = TwoHostSite.expected(farm.origin).map {
            "  site \($0.host): \($0.found) found, \($0.found) fetched, 0 active, 0 queued"
        }
        #expect(Array(lines[(last + 1)...]) == expected, "\(lines)")
        // The same counts as farm status LIST.
        let status = try farm.must(["status", "site"])
        for line in expected { #expect(status.contains(line.dropFirst("  site ".count)), "\(status)") }
        // On the way: the start page alone and queued at first, then the other host with work still to do.
        let port = farm.origin.port
        #expect(lines.contains("  site 127.0.0.1:\(port): 1 found, 0 fetched, 0 active, 1 queued"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  site localhost:\(port): ") && !$0.hasSuffix(" 0 active, 0 queued") },
                "\(lines)")
    }

    @Test func endsOnSigterm() throws {
        let farm = try RunningFarm()
        try farm.addList("Slow", count: 2, size: 400_000, rate: 20_000)
        try farm.start(workers: 1)
        let top = try ChildProcess("farm", ["top", "--spool", farm.spool.root])
        #expect(top.waitForLine(startingWith: "", timeout: 30) != nil)
        #expect(poll(timeout: 20) { top.standardOutput.contains("1 active") }, "\(top.standardOutput)")
        top.kill(SIGTERM)
        #expect(top.wait(timeout: 10) == 0)
    }
}
