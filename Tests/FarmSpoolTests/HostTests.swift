import FarmDesired
import FarmFsck
import FarmHooks
import FarmLists
@testable import FarmRegistry
@testable import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Hosts sharing a spool (SPEC §11), as the spool sees them: names that carry their host, claims that
/// only their own host judges by pid, and workers desired per host.
@Suite struct HostTests {
    @Test func namesCarryTheirHostAndNoOtherNameParses() throws {
        let host = FarmHost(name: "Node_1.Example")
        #expect(host.raw == "node%5f1.example")
        #expect(host.description == "node_1.example")
        #expect(FarmHost(raw: host.raw) == host)
        #expect(FarmHost(raw: "a/b") == nil && FarmHost(raw: "") == nil)
        #expect(host.tag.count == 8 && host.tag != FarmHost(name: "node_2.example").tag)

        // Claims: `<pid>-t<ms><count>-<tag>`; any other name is no claim's.
        let fresh = Owner.fresh(now: 1_795_944_487.6589)
        #expect(fresh.hostTag == FarmHost.local.tag && fresh.isLocal)
        #expect(Owner(fresh.raw) == fresh)
        // The claim's time, to the millisecond, in its name; two names made in one millisecond differ.
        #expect(fresh.claimedAt == 1_795_944_487.658 && Owner(fresh.raw)?.claimedAt == fresh.claimedAt)
        #expect(Set((0..<64).map { _ in Owner.fresh(now: 1_795_944_487.6589).raw }).count == 64)
        #expect(Owner("123-t0123456789abcde") == nil && Owner("123-0123456789abcdef-" + host.tag) == nil)
        #expect(Owner("123-t19a2b3c4d5eg000-" + host.tag) == nil && Owner("0-t19a2b3c4d5e0000-" + host.tag) == nil)
        let remote = try #require(Owner("123-t19a2b3c4d5e0000-" + host.tag))
        #expect(remote.hostTag == host.tag && !remote.isLocal)
        #expect(remote.isClaimant(FarmProcess(role: .worker, pid: 123, host: host)))
        #expect(!remote.isClaimant(FarmProcess(role: .worker, pid: 123, host: .local)))
        // Read in place from the end: every field's length and every byte of it are checked.
        #expect(Owner("2147483647-t0123456789abcde-" + host.tag)?.pid == Int32.max)
        #expect(Owner("123-t000000003e80007-" + host.tag)?.claimedAt == 1)
        for bad in ["123-t0123456789abcde-xyz", "123-t0123456789abcde-0123456g", "123-0123", "x-t0123456789abcde",
                    "2147483648-t0123456789abcde-" + host.tag, "-t0123456789abcde-" + host.tag,
                    "12345678901-t0123456789abcde-" + host.tag, "1a3-t0123456789abcde-" + host.tag,
                    "123-t0123456789ABCDE-" + host.tag, "123-t0123456789abcde-ABCDEF12",
                    "123-t0123456789abcdef" + host.tag, "123xt0123456789abcde-" + host.tag,
                    "123-t0123456789abcde-" + host.tag + "0", "123-t0123456789abcd-0" + host.tag] {
            #expect(Owner(bad) == nil, "\(bad)")
        }
        #expect(ActiveName("0123456789abcdef.7@" + remote.raw)?.owner == remote)

        // Registry entries: `<role>.<pid>.<nonce>.<host>`, the host holding dots; without a host, no entry.
        #expect(Registry.registrant("worker.12.abcd1234.h2.example")
            == FarmProcess(role: .worker, pid: 12, host: try #require(FarmHost(raw: "h2.example"))))
        #expect(Registry.registrant("watcher.12.abcd1234") == nil)
        #expect(Registry.registrant("worker.12.abcd1234.a/b") == nil)
        #expect(Registry.registrant("worker.x.abcd1234.h2") == nil)
    }

    /// Another host's claims whose holder was killed are not handed back by pid (its pid means nothing
    /// here), only by their lease; this host's are, at once. fsck judges the other host's by their lease.
    @Test func anotherHostsClaimsAreLeftToTheirLease() throws {
        if let why = OtherHost.unavailable {
            print("HostTests.anotherHostsClaimsAreLeftToTheirLease skipped: \(why)")
            return
        }
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (list, jobs) = SpoolFixtures.jobs(6)
        let record = ListRecord(name: "List 1", total: jobs.count, digest: "d", source: "test", added: "t")
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: record.encoded())])

        let (unshare, arguments) = OtherHost.command("elsewhere", "farm-probe", ["hold", "--spool", spool.root,
                                                                                 "--count", "2"])
        let remote = try ChildProcess(unshare, arguments)
        let local = try ChildProcess("farm-probe", ["hold", "--spool", spool.root, "--count", "2"])
        for holder in [remote, local] {
            #expect(holder.waitForLine(startingWith: "holding 2") != nil)
            holder.kill(SIGKILL)
            #expect(holder.wait() != nil)
        }
        let remoteTag = FarmHost(name: "elsewhere").tag
        let claims = spool.activeJobs()
        let remoteJobs = Set(claims.filter { $0.owner.hostTag == remoteTag }.map(\.job))
        let localJobs = Set(claims.filter(\.owner.isLocal).map(\.job))
        #expect(remoteJobs.count == 2 && localJobs.count == 2)

        // Both holders are dead and registered nowhere: only this host's claims go back.
        #expect(spool.releaseJobs(ofPid: remote.pid).isEmpty)
        let deadClaims = { (lease: Double) throws -> [FsckFinding] in
            try SpoolCheck(spool).run(lease: lease).findings.filter { $0.kind == .deadClaim }
        }
        #expect(try deadClaims(60).isEmpty, "no lease has run out")
        #expect(Set(spool.registry.processesReleasingOrphans().released) == localJobs)
        #expect(Set(spool.activeJobs().map(\.job)) == remoteJobs)

        // Past their lease they are anybody's to reclaim.
        Thread.sleep(forTimeInterval: 1.1)
        let past = try deadClaims(1)
        #expect(Set(past.compactMap(\.job)) == remoteJobs)
        #expect(past.allSatisfy { $0.detail.contains("of another host") }, "\(past.map(\.detail))")
        #expect(Set(spool.reclaimExpired(lease: 1)) == remoteJobs)
        #expect(SpoolFixtures.counts(spool) == [.queued: 6])
    }

    /// Hooks (SPEC §15) come back as their runner's jobs do: this host's dead runner's at once, another host's
    /// by their lease while that host may only be cut off, and every dead host's at once when it is known dead
    /// (`releaseJobs(keeping:)`, which `farm stop` calls once none of that host's processes is registered).
    /// fsck sees a hook claim past its dead owner's lease, and a hook due for a resource that is no more.
    @Test func hookClaimsComeBackAsTheirRunnersJobsDoAndFsckSeesTheDeadAndTheStray() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (list, jobs) = SpoolFixtures.jobs(3)
        let record = ListRecord(name: "List 1", total: jobs.count, digest: "d", source: "test", added: "t")
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: record.encoded())])
        // A process of this host that has exited: its pid names nobody registered.
        let gone = try ChildProcess("/bin/true", [])
        #expect(gone.wait() != nil)
        let localOwner = try #require(Owner("\(gone.pid)-t0123456789abcde-" + FarmHost.local.tag))
        let remoteTag = FarmHost(name: "elsewhere").tag
        try #require(remoteTag != FarmHost.local.tag)
        let remoteOwner = try #require(Owner("\(gone.pid)-tfedcba987654321-" + remoteTag))
        try FileSystem.ensureDirectory(spool.hooks.folder)
        try FileSystem.ensureDirectory(spool.hooks.active)
        try FileSystem.ensureDirectory(spool.hooks.queue)
        let claim = { (job: JobName, owner: Owner) in spool.hooks.active + "/" + ActiveName.raw(job, owner) }
        try FileSystem.createFile(claim(jobs[0].name, localOwner), [])
        try FileSystem.createFile(claim(jobs[1].name, remoteOwner), [])
        // Due: one of a resource of the list (a completion's mark), one past its end, one of no list.
        let stray = [JobName(list: list, index: 7), JobName(list: ListID.of(name: "Gone"), index: 0)]
        for job in [jobs[2].name] + stray { try FileSystem.createFile(spool.hooks.queue + "/" + job.raw, []) }

        // This host's dead runner's hook goes back with its jobs; the other host's is left to its lease.
        _ = spool.registry.processesReleasingOrphans()
        #expect(FileSystem.names(spool.hooks.active) == [ActiveName.raw(jobs[1].name, remoteOwner)])
        #expect(Set(FileSystem.names(spool.hooks.queue)) == Set(([jobs[0].name, jobs[2].name] + stray).map(\.raw)))

        let findings = { (lease: Double, repair: Bool) throws -> [FsckFinding] in
            try SpoolCheck(spool).run(repair: repair, lease: lease).findings
                .filter { $0.kind == .deadHookClaim || $0.kind == .strayHook }
        }
        let within = try findings(60, false)
        #expect(within.map(\.kind) == [.strayHook, .strayHook], "\(within)")
        #expect(Set(within.compactMap(\.job)) == Set(stray), "\(within)")
        Thread.sleep(forTimeInterval: 1.1)
        let past = try findings(1, false)
        #expect(past.filter { $0.kind == .deadHookClaim }.map(\.job) == [jobs[1].name], "\(past)")
        #expect(past.first { $0.kind == .deadHookClaim }?.detail.contains("of another host") == true, "\(past)")
        let repaired = try findings(1, true)
        #expect(repaired.count == 3 && repaired.allSatisfy(\.repaired), "\(repaired)")
        #expect(FileSystem.names(spool.hooks.active).isEmpty)
        #expect(Set(FileSystem.names(spool.hooks.queue)) == Set(jobs.map(\.name.raw)))
        #expect(try findings(1, false).isEmpty)

        // Claimed again by the other host, which then dies whole: once it is known dead, its hook comes back
        // with its jobs, lease or not.
        try FileSystem.rename(spool.hooks.queue + "/" + jobs[1].name.raw, claim(jobs[1].name, remoteOwner))
        #expect(spool.registry.releaseJobs(keeping: []).isEmpty)
        #expect(FileSystem.names(spool.hooks.active).isEmpty)
        #expect(FileSystem.names(spool.hooks.queue).contains(jobs[1].name.raw))
    }

    @Test func workersAreDesiredPerHostAndTheSpoolsNumberServesTheOthers() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let h1 = FarmHost(name: "h1"), h2 = FarmHost(name: "h2")
        // Before any host sets its own: the spool's one number, for whichever host starts.
        var desired = Desired()
        desired.workers = 6
        try spool.control.setDesired(desired)
        #expect(spool.control.desiredWorkers(of: h1) == 6 && spool.control.desiredWorkers() == 6)
        #expect(spool.control.workerCounts().desired == 6)

        try spool.control.setDesiredWorkers(3, of: h1)
        try spool.control.setDesiredWorkers(2, of: h2)
        #expect(spool.control.desiredWorkers(of: h1) == 3 && spool.control.desiredWorkers(of: h2) == 2)
        // A host that never set its own runs the last number set anywhere.
        #expect(spool.control.desired().workers == 2 && spool.control.desiredWorkers(of: FarmHost(name: "h3")) == 2)
        // Nothing runs: every host that set a number counts.
        #expect(spool.control.workerCounts().desired == 5)
        // Only the hosts that run a process count while some do.
        let running = [FarmProcess(role: .supervisor, pid: 1, host: h2)]
        #expect(spool.control.workerCounts(live: running).desired == 2)
        #expect(ControlFile.isShownInStatus("desired.h1.json") && ControlFile.isShownInStatus("desired.json"))
        #expect(!ControlFile.isShownInStatus("supervisor.h1.lock"))
    }
}
