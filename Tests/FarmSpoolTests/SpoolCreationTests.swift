import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A spool made by the first command on a new directory, killed half-way (bin/powercut cut the first `farm
/// add` there): what it leaves is a spool the next command takes up, never a directory of the spool's
/// folders without its marker, which every command would refuse as someone else's.
@Suite struct SpoolCreationTests {
    @Test func aCommandKilledWhileItMakesTheSpoolLeavesOneTheNextCommandCompletes() throws {
        let dir = TemporaryDirectory()
        let root = dir.appending("spool")
        let child = try ChildProcess("farm-probe", ["enqueue", "--spool", root, "--jobs", "10"],
                                     environment: ["FARM_FAILPOINT": "spool.marked"])
        #expect(child.wait() == SIGKILL, "farm-probe should have died making the spool: \(child.standardError)")
        #expect(FileManager.default.fileExists(atPath: root + "/.farm-spool"))

        // The next command opens it, and its folders are made.
        let list = dir.appending("list.txt")
        try "http://127.0.0.1:1/a.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let added = try run("farm", ["add", list, "--spool", root])
        #expect(added.status == 0, "\(added.error)")
        let spool = try Spool(root: root, create: false)
        #expect(SpoolFixtures.counts(spool) == [.queued: 1])
        let fsck = try run("farm", ["fsck", "--spool", root])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }
}
