import FarmDesired
import FarmLists
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// The requests that change the farm: refused from other origins, without the page's token, or
/// naming another host; accepted from the page, with their effect checked in the spool.
@Suite(.serialized) struct ServeControlTests {
    @Test func changesAreRefusedFromOtherOriginsAndWithoutTheToken() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let serve = try ServeProcess(spool: spool.root)
        let refusals: [(String, String?, [String: String])] = [
            ("no token", "", [:]),
            ("a wrong token", String(repeating: "0", count: 64), [:]),
            ("a token one digit short", String(serve.token.dropLast()), [:]),
            ("another site", nil, ["Origin": "http://evil.example"]),
            ("another port", nil, ["Origin": "http://127.0.0.1:1"]),
            ("an opaque origin", nil, ["Origin": "null"]),
            ("another Host (DNS rebinding)", nil, ["Host": "evil.example:\(serve.authority.split(separator: ":")[1])"]),
        ]
        for (what, token, headers) in refusals {
            for path in ["/api/pause", "/api/scale"] {
                let reply = try serve.post(path, #"{"workers": 9}"#, token: token, headers: headers)
                #expect(reply.status == 403, "\(what) on \(path): \(reply.status) \(reply.text)")
                #expect(reply.error?.hasPrefix("refused:") == true, "\(what): \(reply.text)")
            }
        }
        #expect(!spool.control.isPaused && spool.control.desired().workers == 4, "a refused request changed the farm")
        // Reads answer only to this server's own name too.
        #expect(try serve.get("/", headers: ["Host": "evil.example"]).status == 403)
        #expect(try serve.get("/api/status", headers: ["Host": "localhost:\(serve.authority.split(separator: ":")[1])"]).status == 200)

        // The page's own request (its origin, its token) goes through.
        let paused = try serve.post("/api/pause", headers: ["Origin": serve.base])
        #expect(paused.status == 200 && paused.message == "paused")
        #expect(spool.control.isPaused)
        #expect(try serve.post("/api/resume").status == 200)
        #expect(!spool.control.isPaused)
    }

    @Test func limitSetsThisHostsBandwidthCapAsFarmLimitDoesAndTheStatusShowsIt() throws {
        let farm = try RunningFarm()
        try farm.start(workers: 1)
        let serve = try ServeProcess(spool: farm.spool.root)
        let limitRate = { () -> Int? in
            guard let workers = try? serve.get("/api/status").json?["workers"] else { return nil }
            return workers["limitRate"].flatMap { try? Int(json: $0) }
        }
        for body in [#"{"rate": "fast"}"#, #"{"rate": "-1M"}"#, "{}"] {
            let reply = try serve.post("/api/limit", body)
            #expect(reply.status == 400, "\(body): \(reply.text)")
        }
        let set = try serve.post("/api/limit", #"{"rate": "2M"}"#)
        #expect(set.status == 200 && set.message?.contains("at most 2M a second") == true, "\(set.text)")
        #expect(try farm.must(["limit"]).contains("at most 2M a second"))
        #expect(poll(timeout: 10) { limitRate() == 2 << 20 }, "\(String(describing: limitRate()))")
        #expect(try serve.post("/api/limit", #"{"rate": 512000}"#).status == 200)
        #expect(poll(timeout: 10) { limitRate() == 512_000 })
        #expect(try serve.post("/api/limit", #"{"rate": "0"}"#).message == "no bandwidth cap on this host")
        #expect(poll(timeout: 10) { limitRate() == nil })
    }

    @Test func scalePauseReloadAddAndResetChangeTheSpool() throws {
        let farm = try RunningFarm()
        try farm.addImages("Photos", count: 3)
        try farm.start(workers: 1)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 0)
        let serve = try ServeProcess(spool: farm.spool.root)
        let id = ListID.of(name: "Photos.json")

        // Scale: 1 to 64, applied by the supervisor.
        for (body, words) in [(#"{"workers": 0}"#, "1 to 64"), (#"{"workers": 65}"#, "1 to 64"),
                              (#"{"workers": "six"}"#, "must be JSON"), ("workers=6", "must be JSON"), ("", "must be JSON")] {
            let reply = try serve.post("/api/scale", body)
            #expect(reply.status == 400 && reply.error?.contains(words) == true, "\(body): \(reply.text)")
        }
        let tooLarge = try serve.post("/api/add", #"{"source": ""# + String(repeating: "a", count: 70_000) + #""}"#)
        #expect(tooLarge.status == 413, "\(tooLarge.text)")
        #expect(try serve.post("/api/scale", #"{"workers": 3}"#).status == 200)
        #expect(farm.spool.control.desired().workers == 3)
        #expect(poll(timeout: 10) { farm.pids(.worker).count == 3 })

        // Reload: every resource of the list is downloaded again.
        let before = farm.origin.requests.count
        let reload = try serve.post("/api/lists/\(id)/reload")
        #expect(reload.status == 200 && reload.message == "reloading Photos.json: 3 resource(s) queued again")
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 0)
        #expect(farm.origin.requests.count >= before + 3)
        #expect(try serve.post("/api/lists/0123456789abcdef/reload").status == 404)

        // Add: a good manifest is enqueued; a bad one is refused with farm add's own sentence.
        let more = farm.dir.appending("More.json")
        try Data(#"["\#(farm.origin.url(for: "/Photos/0.jpg"))"]"#.utf8).write(to: URL(fileURLWithPath: more))
        let added = try serve.post("/api/add", #"{"source": "\#(more)"}"#)
        #expect(added.status == 200 && added.message?.contains("added 1 list(s)") == true, "\(added.text)")
        #expect(farm.spool.list(ListID.of(name: "More.json")) != nil)
        let other = farm.dir.appending("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data(#"["\#(farm.origin.url(for: "/Photos/1.jpg"))"]"#.utf8).write(to: URL(fileURLWithPath: other + "/More.json"))
        let clash = try serve.post("/api/add", #"{"source": "\#(other)/More.json"}"#)
        #expect(clash.status == 409 && clash.error?.contains("already in the spool with other URLs") == true, "\(clash.text)")
        let broken = farm.dir.appending("Broken.json")
        try Data(#"["a", "#.utf8).write(to: URL(fileURLWithPath: broken))
        let refused = try serve.post("/api/add", #"{"source": "\#(broken)"}"#)
        #expect(refused.status == 400 && refused.error?.contains("Broken.json") == true, "\(refused.text)")
        #expect(refused.error?.contains("\n") == false)
        let missing = try serve.post("/api/add", #"{"source": "/no/such/manifest.zip"}"#)
        #expect(missing.status == 400 && missing.error?.isEmpty == false, "\(missing.text)")

        // Reset: every process stopped, every list gone; the server goes on.
        let pids = farm.processes().map(\.pid)
        let reset = try serve.post("/api/reset")
        #expect(reset.status == 200 && reset.message?.hasPrefix("farm reset") == true, "\(reset.text)")
        #expect(pids.allSatisfy(isGone))
        #expect(ListLookupCount.lists(farm.spool) == 0)
        #expect(poll(timeout: 10) {
            (try? serve.get("/api/status").decode(StatusDocument.self))?.lists.isEmpty == true
        })
    }
}

/// How many lists a spool publishes, straight from lists/.
enum ListLookupCount {
    static func lists(_ spool: Spool) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool.lists.folder)) ?? []).filter { $0.hasSuffix(".json") }.count
    }
}
