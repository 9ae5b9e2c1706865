import FarmJSON
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// SPEC §4: a downloading resource's text is always `Downloading xx%`, from its first moment (before the
/// first byte, and before its worker wrote any progress) to its last. A real farm, a throttled origin,
/// and `farm status LIST --json` asked as often as it answers.
@Suite struct DownloadingTextTests {
    @Test func aDownloadShowsItsPercentageFromItsFirstMoment() throws {
        let farm = try RunningFarm()
        // 4 s each at 350 kB/s, one after the other: two first moments to catch.
        try farm.addList("Big", count: 2, size: 1_400_000, rate: 350_000)
        try farm.start(workers: 1)

        var texts: [String] = []
        let finished = try poll(timeout: 120, every: 0.01) {
            let shown = try farm.must(["status", "Big.json", "--json"])
            let list = try #require(JSON.decode(ListStatus.self, from: Array(shown.utf8)), "\(shown)")
            let resources = try #require(list.resources)
            texts += resources.filter { $0.status == .downloading }.map(\.text)
            return resources.allSatisfy { $0.status == .done }
        }
        try #require(finished, "not done: \(farm.counts)")
        #expect(texts.count >= 10, "seen downloading \(texts.count) times only")
        let wrong = texts.filter { $0.wholeMatch(of: /Downloading (\d|[1-9]\d|100)%/) == nil }
        #expect(wrong.isEmpty, "\(Set(wrong)) among \(texts.count) samples")
        // The percentage is the download's: seen low and seen high.
        let percents = texts.compactMap { Int($0.dropFirst("Downloading ".count).dropLast()) }
        #expect(percents.contains { $0 <= 20 } && percents.contains { $0 >= 60 }, "\(percents)")
    }
}
