import FarmControl
import FarmHooks
import FarmSpool
import FarmTestSupport
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
}
