import FarmFsck
@testable import FarmLists
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// An `item add` killed (or cut by a power loss) after its line reached the list's resource table and before
/// its commit: the recovery undoes it from its journal. On a list never edited (no order yet) the table's
/// line past the list's total was left, and fsck found the table longer than the list (bin/crashstates,
/// "it has 4 line(s) for 3 resource(s)"). The recovery cuts it.
@Suite struct UndoneFirstEditTests {
    let dir = TemporaryDirectory()

    @Test func theRecoveryCutsTheTableLineOfAnAddItUndid() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let list = try SpoolFixtures.publishList(spool, name: "List 1", count: 3)
        let table = spool.lists.resourceTablePath(ofList: list)
        let before = try #require(FileManager.default.contents(atPath: table))
        // What the killed edit did before its commit: its journal (job number 3), then its table line.
        try Lists(spool).journal("3", ofList: list)
        let line = #"{"id":"00000000-0000-4000-8000-000000000003","url":"http://127.0.0.1:9/d.jpg"}"# + "\n"
        try Lists(spool).appendToTable(Array(line.utf8), ofList: list)
        try Lists(spool).recover()
        #expect(FileManager.default.contents(atPath: table) == before, "the undone add's line is cut")
        #expect(!FileManager.default.fileExists(atPath: Lists(spool).editJournalPath(ofList: list)))
        let findings = try SpoolCheck(spool).run().findings
        #expect(findings.isEmpty, "\(findings)")
    }
}
