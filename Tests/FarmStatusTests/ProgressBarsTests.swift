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
        let line = ProgressBars.bars(list(note: why, bytes: 20), width: 120)[0]
        #expect(line.hasSuffix("started over"), "\(line)")
        #expect(!ProgressBars.bars(list(note: nil, bytes: 20), width: 100)[0].contains("started over"))
    }
}
