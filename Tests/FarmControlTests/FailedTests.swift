import FarmControl
import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// `farm failed` and `farm retry` on a real farm: failures grouped by reason, retried by reason, with
/// their attempts counted on.
@Suite struct FailedTests {
    /// The resources of `list` as `farm status LIST --json` shows them, by index.
    private func resources(_ farm: RunningFarm, _ list: String) throws -> [ResourceStatus] {
        let output = try farm.must(["status", list, "--json"])
        let document = try #require(JSON.decode(ListStatus.self, from: Array(output.utf8)), "\(output)")
        return try #require(document.resources)
    }

    private func failed(_ farm: RunningFarm, _ arguments: [String] = []) throws -> Control.Failures {
        let output = try farm.must(["failed", "--json"] + arguments)
        return try #require(JSON.decode(Control.Failures.self, from: Array(output.utf8)), "\(output)")
    }

    @Test func groupsFailuresByReasonAndRetriesExactlyThoseOfOneReason() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Mixed", count: 4, size: 3000)
        // Permanent failures, once each: the next request to each path is served.
        farm.origin.fail(1, with: 410, at: paths[0])
        farm.origin.fail(1, with: 404, at: paths[1])
        farm.origin.fail(1, with: 404, at: paths[2])
        try farm.start(workers: 2)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 1)

        let report = try failed(farm)
        #expect(report.total == 3)
        let groups = report.groups
        #expect(groups.map(\.reason) == ["HTTP 404", "HTTP 410"])
        #expect(groups.map(\.resources.count) == [2, 1])
        let notFound = try #require(groups.first?.resources)
        #expect(notFound.map(\.index) == [1, 2])
        #expect(notFound.allSatisfy { $0.list == "Mixed.json" && $0.attempts == 1 })
        let text = try farm.must(["failed", "Mixed"])
        #expect(text.contains("2  HTTP 404"), "\(text)")
        #expect(text.contains("1  HTTP 410"), "\(text)")
        #expect(try failed(farm, ["--reason", "HTTP 41"]).total == 1)

        #expect(try farm.must(["retry", "--reason", "HTTP 404"]).contains("queued 2 failed resource(s) again"))
        #expect(poll(timeout: 60, every: 0.1) { SpoolFixtures.counts(farm.spool) == [.done: 3, .failed: 1] })
        let after = try resources(farm, "Mixed.json")
        for index in [1, 2] {
            #expect(after[index].status == .done)
            #expect(after[index].attempts == 2, "attempts go on counting across a retry")
            let file = try #require(after[index].file)
            #expect(FileManager.default.contents(atPath: file).map { [UInt8]($0) } == farm.bodies[paths[index]])
            #expect(farm.origin.requests(for: paths[index]).count == 2)
        }
        #expect(after[0].status == .error, "a failure of another reason stays failed")
        #expect(after[0].error == "HTTP 410")
        #expect(farm.origin.requests(for: paths[0]).count == 1)

        #expect(try farm.must(["retry", "Mixed.json"]).contains("queued 1 failed resource(s) again"))
        #expect(farm.waitUntilAllDone(4, timeout: 60))
        #expect(try farm.must(["failed"]).contains("no failed resources"))
        #expect(try farm.must(["retry"]).contains("queued 0 failed resource(s) again"))
    }

    /// A URL of thousands of characters is cut in its middle: to the terminal's width on a terminal, to
    /// `longestURL` characters in a pipe, and kept whole in `--json` (issue 66).
    @Test func cutsALongURLToTheTerminalOrToASaneLength() throws {
        let farm = try RunningFarm()
        let path = "/" + String(repeating: "segment/", count: 600) + "end.jpg"
        let url = farm.origin.url(for: path)
        let manifest = farm.dir.appending("Long.json")
        try Data(JSON.encode([url])).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest])
        try farm.start(workers: 1)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 1)

        let piped = try farm.must(["failed"]).split(separator: "\n")
        let line = try #require(piped.first { $0.contains("Long.json") }, "\(piped)")
        #expect(line.contains("…") && line.hasSuffix("end.jpg  (attempts: 1)"), "\(line)")
        #expect(line.contains(url.prefix(Control.Failures.longestURL / 2)), "the URL's start stays")
        #expect(line.count < Control.Failures.longestURL + 60, "\(line.count) characters")

        let terminal = try TerminalProcess("farm", ["failed", "--spool", farm.spool.root], columns: 80)
        #expect(terminal.wait(timeout: 60) == 0)
        let shown = terminal.output.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        #expect(shown.contains { $0.contains("Long.json") && $0.contains("…") }, "\(terminal.output)")
        #expect(shown.allSatisfy { $0.count <= 80 }, "\(shown.map(\.count))")

        #expect(try failed(farm).groups.first?.resources.first?.url == url, "--json keeps the URL whole")
    }

    @Test func refusesAnUnknownListInOneLine() throws {
        let farm = try RunningFarm()
        for verb in ["failed", "retry"] {
            let result = try farm.farm([verb, "No such list"])
            #expect(result.status != 0)
            #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
            #expect(result.error.contains("No such list"), "\(result.error)")
        }
    }
}
