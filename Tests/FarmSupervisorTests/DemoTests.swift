import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// `farm demo` without a terminal: it runs the sample set to the end and prints the final status,
/// with exactly the planned errors, and leaves nothing running.
@Suite struct DemoTests {
    @Test func demoRunsToTheEndWithExactlyThePlannedErrors() throws {
        let dir = TemporaryDirectory()
        let spoolPath = dir.appending("spool")
        defer {
            // The demo stops what it started; should it fail to, end those processes by pid.
            if let spool = try? Spool(root: spoolPath, create: false) {
                for process in spool.processes() { kill(process.pid, SIGKILL) }
            }
        }
        let result = try run("farm", ["demo", "--spool", spoolPath, "--port", "0"], timeout: 300)
        try #require(result.status == 0, "\(result.error)")
        #expect(result.output.contains("13/13 finished (2 failed)"), "\(result.output)")

        let status = try run("farm", ["status", "--json", "--spool", spoolPath])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let lists = try #require(document["lists"] as? [[String: Any]])
        #expect(lists.count == 4)
        #expect(lists.allSatisfy { $0["state"] as? String == "Finished" })
        var errors: [String] = []
        for list in lists {
            let name = try #require(list["name"] as? String)
            let view = try run("farm", ["status", name, "--json", "--spool", spoolPath])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(view.output.utf8)) as? [String: Any])
            for resource in object["resources"] as? [[String: Any]] ?? [] where resource["status"] as? String == "error" {
                errors.append("\(name) \(resource["index"] ?? "?"): \(resource["error"] ?? "?")")
            }
        }
        #expect(errors.sorted() == ["Documents.json 2: HTTP 404", "Photos.json 4: unsupported content"])
        let spool = try Spool(root: spoolPath, create: false)
        #expect(spool.processes().isEmpty, "the demo left processes running")
    }
}
