import FarmLists
import FarmSpool
import FarmStatus
import FarmTestSupport
import FarmTransfer
@testable import FarmWorker
import Foundation
import Testing

/// A job's progress sidecar as its owner writes it (SPEC §4): `changed` is when the status began, and a
/// download begins with its claim, so the first progress write, a tick in, says the claim's time, which
/// the status showed before it; later writes move the bytes, not `changed`.
@Suite struct JobRunSidecarTests {
    @Test func progressWritesKeepTheClaimsTimeAsChanged() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 1)
        let claim = try #require(try Claimer(spool: fixture.spool).claim())
        func shown() throws -> ResourceStatus {
            try #require(ListView.build(fixture.spool, listID: list)?.resources?.first)
        }
        let atClaim = try shown()
        #expect(atClaim.status == .downloading)

        let keeper = LeaseKeeper(spool: fixture.spool, lease: 60)
        let kept = keeper.hold(claim)
        defer { keeper.release(kept) }
        let job = JobRun(spool: fixture.spool, kept: kept, deliveries: Deliveries(spool: fixture.spool))
        for (step, bytes) in [10, 60].enumerated() {
            // Past a tick since the job began (and since the last write): this call writes the sidecar.
            Thread.sleep(forTimeInterval: JobRun.tick + 0.05)
            #expect(job.progress(TransferProgress(bytes: bytes, size: 100)))
            let sidecar = try #require(fixture.spool.sidecars.last(claim.job, finished: []), "write \(step)")
            #expect(sidecar.status == .downloading && sidecar.bytes == bytes)
            #expect(sidecar.changed == atClaim.changed, "write \(step)")
            let now = try shown()
            #expect(now.text == "Downloading \(bytes)%" && now.changed == atClaim.changed, "write \(step)")
        }
    }
}
