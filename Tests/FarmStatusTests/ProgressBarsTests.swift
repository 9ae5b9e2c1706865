import FarmStatus
import Testing

/// What `farm get` prints of its list (ProgressBars): a note that a file started over (a server that does not
/// resume) is said once, in the lines for a log and beside the bar on a terminal.
@Suite struct ProgressBarsTests {
    private func list(note: String?, bytes: Int) -> ListStatus {
        var resource = ResourceStatus(index: 0, id: "a", url: "http://127.0.0.1:1/a.iso", status: .downloading,
                                      bytes: bytes, size: 1000)
        resource.note = note
        return ListStatus(id: "0123456789abcdef", name: "get", total: 1, active: 1, done: 0, failed: 0,
                          resources: [resource])
    }

    @Test func aNoteIsSaidOnceInTheLinesAndShownBesideTheBar() {
        var bars = ProgressBars()
        #expect(bars.changes(list(note: nil, bytes: 300)) == ["a.iso: Downloading 25%"])
        let why = "the server sent the whole file for a request of its rest from byte 300 (it does not resume)"
        #expect(bars.changes(list(note: why, bytes: 10)) == ["a.iso: " + why, "a.iso: Downloading 0%"])
        #expect(bars.changes(list(note: why, bytes: 20)).isEmpty)
        var screen = ProgressBars()
        let line = screen.bars(list(note: why, bytes: 20), width: 120, now: 0)[0]
        #expect(line.hasSuffix("started over"), "\(line)")
        #expect(!screen.bars(list(note: nil, bytes: 20), width: 120, now: 0.1)[0].contains("started over"))
    }

    @Test func theBarsShowTheSpeedAndTheTimeLeftOnceTheyAreKnown() {
        var screen = ProgressBars()
        func status(_ bytes: Int) -> ListStatus {
            let resource = ResourceStatus(index: 0, id: "a", url: "http://127.0.0.1:1/a.iso", status: .downloading,
                                          bytes: bytes, size: 100 << 20)
            return ListStatus(id: "0123456789abcdef", name: "get", total: 1, active: 1, done: 0, failed: 0,
                              resources: [resource])
        }
        // The first look knows no speed yet.
        let first = screen.bars(status(0), width: 160, now: 10)
        #expect(!first[0].contains("/s") && !first[0].contains("left"), "\(first)")
        // 10 MiB a second: 2 MiB in 0.2 s; 98 MiB left is 10 s.
        let second = screen.bars(status(2 << 20), width: 160, now: 10.2)
        #expect(second[0].contains("10.0 MiB/s") && second[0].contains("10s left"), "\(second)")
        #expect(second[1].contains("10.0 MiB/s") && second[1].contains("10s left"), "\(second)")
        #expect(ProgressBars.duration(45) == "45s" && ProgressBars.duration(192) == "3m12s"
            && ProgressBars.duration(7500) == "2h05m")
    }
}
