import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// The live push (server-sent events) and the command line of `farm serve`.
@Suite(.serialized) struct ServeEventsTests {
    /// The `data:` of every event named `name` in a stream read so far, parsed.
    private func events(_ name: String, in stream: String) -> [JSONValue] {
        stream.components(separatedBy: "\n\n").compactMap { block -> JSONValue? in
            let lines = block.split(separator: "\n")
            guard lines.contains("event: \(name)"),
                  let data = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst(6) else { return nil }
            return try? JSONParser.parse(Array(data.utf8))
        }
    }

    /// The summaries pushed in a stream read so far.
    private func summaries(in stream: String) -> [StatusDocument] {
        events("summary", in: stream).compactMap { try? StatusDocument(json: $0) }
    }

    /// The list views pushed in a stream read so far (nil for a null: the list is gone).
    private func views(in stream: String) -> [ListStatus?] {
        events("list", in: stream).map { try? ListStatus(json: $0) }
    }

    @Test func summaryAndListArePushedAsTheyChange() throws {
        let farm = try RunningFarm()
        // Slow enough that the percentages move for a few seconds.
        try farm.addImages("Slow", count: 3, width: 200, height: 150, noisy: true, rate: 25_000)
        let id = ListID.of(name: "Slow.json")
        let serve = try ServeProcess(spool: farm.spool.root)
        let all = try ChildProcess("/usr/bin/curl", ["--silent", "--no-buffer", "--max-time", "120", serve.base + "/api/events"])
        let one = try ChildProcess("/usr/bin/curl", ["--silent", "--no-buffer", "--max-time", "120",
                                                     serve.base + "/api/events?list=\(id)"])
        defer {
            all.kill()
            one.kill()
        }
        // At once: the current summary, and the list with its resources, all queued.
        #expect(poll(timeout: 10) { !events("summary", in: all.standardOutput).isEmpty })
        let first = summaries(in: all.standardOutput).first
        #expect(first?.lists.first?.state == .queuing)
        #expect(poll(timeout: 10) { !events("list", in: one.standardOutput).isEmpty })
        let list = views(in: one.standardOutput).first ?? nil
        #expect(list?.resources?.map(\.text) == ["Queueing", "Queueing", "Queueing"])

        // A pause, with no farm running: pushed within a second or so.
        #expect(try serve.post("/api/pause").status == 200)
        #expect(poll(timeout: 5) {
            summaries(in: all.standardOutput).contains { $0.paused }
        }, "\(all.standardOutput.suffix(500))")
        #expect(try serve.post("/api/resume").status == 200)

        // The run: the list's resources go through "Downloading xx%" to "Done", the summary to Finished.
        try farm.start(workers: 2)
        #expect(poll(timeout: 60) {
            views(in: one.standardOutput).contains { view in
                (view?.resources ?? []).contains {
                    $0.text.range(of: #"^Downloading [0-9]+%$"#, options: .regularExpression) != nil
                }
            }
        }, "no Downloading xx% pushed")
        #expect(poll(timeout: 120) {
            summaries(in: all.standardOutput).contains { $0.lists.first?.state == .finished }
        })
        #expect(poll(timeout: 10) {
            views(in: one.standardOutput).contains { view in
                view?.resources?.allSatisfy { $0.text == "Done" } == true
            }
        })
        // Streams carry only changes: a list view is never sent twice in a row.
        let pushed = events("list", in: one.standardOutput)
        #expect(zip(pushed, pushed.dropFirst()).allSatisfy { $0 != $1 })

        // Reset: the open list is gone, which its stream says with null.
        #expect(try serve.post("/api/reset").status == 200)
        #expect(poll(timeout: 10) { events("list", in: one.standardOutput).last == .null })
    }

    @Test func commandLineRefusalsAndStop() throws {
        let dir = TemporaryDirectory()
        let spool = dir.appending("spool")
        // An address of no interface here: with the password any address but loopback needs, the listen fails.
        let password = dir.appending("password")
        try "secret".write(toFile: password, atomically: true, encoding: .utf8)
        for (arguments, words) in [(["--port", "70000"], "65535"),
                                   (["--host", "203.0.113.9", "--port", "0", "--password-file", password], "cannot listen")] {
            let result = try run("farm", ["serve", "--spool", spool] + arguments, timeout: 60)
            #expect(result.status != 0)
            #expect(result.error.contains(words), "\(result.error)")
            #expect(result.error.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "one line: \(result.error)")
        }
        let serve = try ServeProcess(spool: spool)
        #expect(serve.base.hasPrefix("http://127.0.0.1:"))
        // The same port again: in use, said in one line.
        let port = String(serve.authority.split(separator: ":")[1])
        let busy = try run("farm", ["serve", "--spool", spool, "--port", port], timeout: 60)
        #expect(busy.status != 0 && busy.error.contains("in use"), "\(busy.error)")
        #expect(busy.error.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1)
        // An open event stream does not hold the server up: SIGTERM ends it, exit 0.
        let stream = try ChildProcess("/usr/bin/curl", ["--silent", "--no-buffer", "--max-time", "60", serve.base + "/api/events"])
        defer { stream.kill() }
        #expect(poll(timeout: 10) { stream.standardOutput.contains("event: summary") })
        let started = Date()
        #expect(serve.stop() == 0)
        #expect(Date().timeIntervalSince(started) < 5, "serve took \(Date().timeIntervalSince(started)) s to stop")
        #expect(stream.wait(timeout: 10) != nil, "the stream should end with the server")
    }
}
