import FarmControl
import FarmHooks
import FarmSpool
import FarmTestSupport
import FarmWARC
import Foundation
import Testing

/// `farm recover` with no farm running: what dead processes held comes back, hooks included (a hook
/// runs at least once, SPEC §15: one whose runner died is due again, not left claimed).
@Suite struct RecoverTests {
    @Test func aDeadRunnersHookIsDueAgain() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let job = JobName(list: ListID.of(name: "Hooked"), index: 3)
        try spool.hooks.markDue(job)
        let claim = try #require(spool.hooks.claim(job))
        #expect(spool.hooks.due().isEmpty)
        _ = claim  // its runner "dies" here: nothing renews it
        Thread.sleep(forTimeInterval: 0.1)

        let recovered = try Control(spool: spool).recover(lease: 0.05)
        #expect(recovered.hooksReclaimed == 1)
        #expect(spool.hooks.due() == [job])
        #expect(recovered.description.hasSuffix("and 1 hook(s)"), "\(recovered)")
    }

    /// A worker killed mid-append (a power cut) leaves its WARC file `.open` with a torn tail; `farm recover`
    /// finishes it as the supervisor's start does: the tail cut at the last whole record, the finished name.
    @Test func aDeadWritersWARCFileIsFinishedWithItsTornTailCut() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let warcs = dir.appending("warcs")
        try FileManager.default.createDirectory(atPath: warcs, withIntermediateDirectories: true)
        try spool.warc.register(warcs)
        let writer = try WARCWriter(directory: warcs, software: "farm/test")
        let request = "GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", head = "HTTP/1.1 200 OK\r\n\r\n"
        try writer.write(WARCExchange(targetURI: "http://127.0.0.1/a", date: .now(), ipAddress: "127.0.0.1",
                                      request: WARCBlock(head: Array(request.utf8)),
                                      response: WARCBlock(head: Array(head.utf8), body: .bytes(Array(repeating: 7, count: 3000)))))
        try writer.close()
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: warcs).first { $0.hasSuffix(".warc.gz") })
        let whole = try Data(contentsOf: URL(fileURLWithPath: warcs + "/" + name))
        // As its writer left it when the power went: the open name, a tail of zeros past its last fdatasync.
        try FileManager.default.removeItem(atPath: warcs + "/" + name)
        try (whole + Data(repeating: 0, count: 4096)).write(to: URL(fileURLWithPath: warcs + "/" + name + ".open"))

        let recovered = try Control(spool: spool).recover(lease: 0.05)
        #expect(recovered.warcFinished == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: warcs) == [name])
        let kept = try Data(contentsOf: URL(fileURLWithPath: warcs + "/" + name)) == whole
        #expect(kept)
    }
}
