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
