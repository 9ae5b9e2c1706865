import FarmControl
import FarmJSON
import FarmRPC
import FarmSpool
import FarmTestSupport
import Testing

/// SPEC §16: `tellActive`, `tellWaiting`, `tellStopped` and `getGlobalStat` page through the lists by their
/// counts and read the page's rows alone; their answers are those of every resource read whole
/// (`Aria2Downloads.read`, what they answered from before), page by page, forwards and backwards, with
/// the farm running, paused, a list held, and results purged.
@Suite struct Aria2ListsTests {
    let fixture: StatusFixture
    let rpc: Aria2RPC
    let ids: [String]

    init() throws {
        fixture = try StatusFixture(inMemory: true)
        ids = [try fixture.addList("Set 2", count: 40), try fixture.addList("Set 10", count: 5),
               try fixture.addList("Big", count: 1200)]
        let (first, _, big) = (ids[0], ids[1], ids[2])
        for index in 0..<10 { try fixture.finish(first, index) }
        for index in 10..<13 { try fixture.finish(first, index, failed: true) }
        for index in [13, 20] { try fixture.activate(first, index) }
        for index in [0, 7, 600, 1199] { try fixture.finish(big, index) }
        try fixture.finish(big, 601, failed: true)
        for index in [5, 900] { try fixture.activate(big, index) }
        rpc = Aria2RPC(control: Control(spool: fixture.spool), secret: nil, folder: fixture.path)
    }

    private func call(_ method: String, _ params: String) throws -> JSONValue {
        let body = #"{"jsonrpc":"2.0","id":"t","method":"aria2.\#(method)","params":[\#(params)]}"#
        let answer = rpc.answer(Array(body.utf8))
        let reply = try JSONParser.parse(answer.body)
        return try #require(reply["result"], "\(method)(\(params)): \(String(decoding: answer.body, as: UTF8.self))")
    }

    private func gids(_ value: JSONValue) -> [String] {
        guard case .array(let items) = value else { return [] }
        return items.compactMap { item in if case .string(let gid) = item["gid"] { gid } else { nil } }
    }

    private func number(_ value: JSONValue, _ key: String) -> Int? {
        if case .string(let text) = value[key] { Int(text) } else { nil }
    }

    /// Every page the reference answers, compared.
    private func checkAgainstFullRead(_ label: String, purged: Set<String> = []) throws {
        let all = Aria2Downloads.read(fixture.spool).filter { !($0.isStopped && purged.contains($0.gid)) }
        let active = all.filter { $0.state == .active }.map(\.gid)
        let waiting = all.filter(\.isWaiting).map(\.gid), stopped = all.filter(\.isStopped).map(\.gid)
        #expect(try gids(call("tellActive", #"["gid"]"#)) == active, "\(label): tellActive")
        for (method, expected) in [("tellWaiting", waiting), ("tellStopped", stopped)] {
            for (offset, num) in [(0, 100), (0, 1), (3, 7), (30, 20), (44, 2000), (1190, 100), (5000, 10), (0, 0),
                                  (-1, 3), (-5, 100), (-1, 10_000), (-40, 15)] {
                let range = Aria2RPC.range(offset: offset, num: num, size: expected.count)
                var want = Array(expected[range])
                if offset < 0 { want.reverse() }
                let got = try gids(call(method, #"\#(offset),\#(num),["gid","status"]"#))
                #expect(got == want, "\(label): \(method)(\(offset), \(num)): \(got.count) against \(want.count)")
            }
        }
        let stat = try call("getGlobalStat", "")
        #expect(number(stat, "numActive") == active.count, "\(label): \(stat)")
        #expect(number(stat, "numWaiting") == waiting.count, "\(label): \(stat)")
        #expect(number(stat, "numStopped") == stopped.count, "\(label): \(stat)")
    }

    @Test func pagesAreThoseOfTheFullRead() throws {
        let stat = try call("getGlobalStat", "")
        // The fixture's own numbers, so that the reference cannot be empty or wrong alike.
        #expect(number(stat, "numActive") == 4 && number(stat, "numStopped") == 18 && number(stat, "numWaiting") == 1223,
                "\(stat)")
        try checkAgainstFullRead("running")
        // Rows that state what their jobs are, in list order (natural: Big, Set 2, Set 10).
        let page = try call("tellWaiting", #"0,3,["gid","status","files"]"#)
        guard case .array(let rows) = page else { Issue.record("\(page)"); return }
        #expect(rows.count == 3 && rows.allSatisfy { $0["status"] == .string("waiting") }, "\(page)")
    }

    @Test func pausedHeldAndPurgedAgreeToo() throws {
        let control = Control(spool: fixture.spool)
        _ = try control.hold(list: ids[0])
        try checkAgainstFullRead("a list held")
        _ = try control.release(list: ids[0])
        _ = try control.setPaused(true)
        try checkAgainstFullRead("paused")
        _ = try control.setPaused(false)
        let stopped = Set(Aria2Downloads.read(fixture.spool).filter(\.isStopped).map(\.gid))
        #expect(try call("purgeDownloadResult", "") == .string("OK"))
        try checkAgainstFullRead("purged", purged: stopped)
        #expect(try gids(call("tellStopped", "0,100")).isEmpty)
        // Finished after the purge: shown.
        try fixture.finish(ids[1], 2)
        let shown = try gids(call("tellStopped", "0,100"))
        #expect(shown.count == 1, "\(shown)")
        try checkAgainstFullRead("one finished after the purge", purged: stopped)
    }
}
