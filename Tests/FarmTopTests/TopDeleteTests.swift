import FarmLists
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// `farm top`'s `d` (SPEC §9): the selected resource is deleted after the confirmation the browser asks,
/// through the same verb as `farm item rm`; any other answer deletes nothing.
@Suite(.serialized) struct TopDeleteTests {
    @Test func dDeletesTheSelectedResourceAfterTheConfirmation() throws {
        let dir = TemporaryDirectory("farm-top-delete")
        let spool = try Spool(root: dir.appending("spool"))
        let list = try SpoolFixtures.publishList(spool, name: "Small.json", count: 5)
        func ids() -> [String] {
            let order = Lists(spool).order(ofList: list, total: spool.list(list)?.total ?? 0)
            let table = spool.lists.resources(ofList: list) ?? []
            return order.numbers.map { table[$0].id }
        }
        let screen = try TmuxScreen(topCommand(spool: spool.root), environment: ["LANG": "C.UTF-8"])
        #expect(screen.waitFor { $0.contains { $0.hasPrefix(" Small.json") } }, "\(screen.text)")
        try screen.send("Enter")
        #expect(screen.waitFor { $0.count == 24 && row($0[4]) == "0" }, "\(screen.text)")
        try screen.send("Down")
        try screen.send("d")
        let question = "Do you really want to delete the item with identifier r1? (y/n)"
        #expect(screen.waitFor { $0.last?.hasPrefix(question) == true }, "\(screen.text)")
        try screen.send("n")
        #expect(screen.waitFor { $0.last?.hasPrefix("nothing was deleted") == true }, "\(screen.text)")
        #expect(ids() == ["r0", "r1", "r2", "r3", "r4"])

        try screen.send("d")
        #expect(screen.waitFor { $0.last?.hasPrefix(question) == true }, "\(screen.text)")
        try screen.send("y")
        #expect(screen.waitFor { $0.last?.hasPrefix("removed r1 (index 1) from Small.json") == true }, "\(screen.text)")
        #expect(ids() == ["r0", "r2", "r3", "r4"])
        // The screen follows: four rows, the second now r2's.
        #expect(screen.waitFor { lines in lines.map(row).contains("3") && !lines.map(row).contains("4") },
                "\(screen.text)")
        try screen.send("q")
        #expect(screen.waitFor("top exited: 0"), "\(screen.text)")
    }

    /// The index a resource row starts with; "" for another line.
    private func row(_ line: String) -> String {
        let first = line.split(separator: " ").first.map(String.init) ?? ""
        return line.hasPrefix(" ") && first.allSatisfy(\.isNumber) ? first : ""
    }
}
