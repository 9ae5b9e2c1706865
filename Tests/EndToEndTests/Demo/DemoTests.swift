import FarmJSON
import FarmSpool
import FarmStatus
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
        let document = try #require(JSON.decode(StatusDocument.self, from: Array(status.output.utf8)),
                                    "\(status.output)")
        let lists = document.lists
        #expect(lists.count == 4)
        #expect(lists.allSatisfy { $0.state == .finished })
        var errors: [String] = []
        for list in lists {
            let name = list.name
            let view = try run("farm", ["status", name, "--json", "--spool", spoolPath])
            let object = try #require(JSON.decode(ListStatus.self, from: Array(view.output.utf8)), "\(view.output)")
            for resource in object.resources ?? [] where resource.status == .error {
                errors.append("\(name) \(resource.index): \(resource.error ?? "?")")
            }
        }
        #expect(errors.sorted() == ["Documents.json 2: HTTP 404", "Photos.json 4: unsupported content"])
        let spool = try Spool(root: spoolPath, create: false)
        #expect(spool.processes().isEmpty, "the demo left processes running")
    }
}
