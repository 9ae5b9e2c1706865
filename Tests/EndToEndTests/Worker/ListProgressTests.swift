import FarmJSON
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// A list's progress moves with the bytes of its resources under way (issue 66, item 4: a one-file list
/// stayed at 0% through 200 MB), in the summary that `farm status` and the screens read and in the list's
/// own view, and is 1 only once the list is finished.
@Suite(.serialized) struct ListProgressTests {
    @Test func aOneFileListMovesWithItsBytes() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let size = 6 << 20
        farm.origin.serve(path: "/big.bin", bytes: [UInt8](repeating: 7, count: size))
        farm.origin.inject(.throttle(bytesPerSecond: 1 << 20), at: "/big.bin")
        let list = farm.dir.appending("one.txt")
        try (farm.origin.url(for: "/big.bin") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try farm.must(["add", list, "--accept", "any"])
        try farm.start(workers: 1)
        func summary() -> ListStatus? {
            guard let output = try? farm.must(["status", "--json"]) else { return nil }
            return JSON.decode(StatusDocument.self, from: Array(output.utf8))?.lists.first
        }
        func view() -> ListStatus? {
            guard let output = try? farm.must(["status", "one.txt", "--json"]) else { return nil }
            return JSON.decode(ListStatus.self, from: Array(output.utf8))
        }
        var seen: ListStatus?
        #expect(poll(timeout: 30, every: 0.1) {
            seen = summary()
            return (seen?.progress ?? 0) >= 0.25
        }, "\(String(describing: seen))")
        #expect(seen?.done == 0 && (seen?.progress ?? 1) < 1, "\(String(describing: seen))")
        let own = view()
        #expect(own?.done == 0 && (own?.progress ?? 0) > 0.2 && (own?.progress ?? 1) < 1, "\(String(describing: own))")
        #expect(farm.waitUntilAllDone(1, timeout: 60))
        #expect(poll(timeout: 10) { summary()?.progress == 1 && view()?.progress == 1 })
    }
}
