import FarmJSON
import FarmSync
import Testing

/// `farm sync --json`'s report through FarmJSON: the bytes are those the hand-written writer produced
/// before `SyncReport` became a `JSONRecord` (the literals below), and they read back.
@Suite struct SyncReportJSONTests {
    @Test func writesTheBytesItAlwaysWrote() {
        var report = SyncReport(list: "Books \"1\"/2")
        report.added = 3
        report.removed = 1
        report.changed = 2
        report.unchanged = 40
        #expect(String(decoding: JSON.encode(report), as: UTF8.self)
            == #"{"added":3,"changed":2,"list":"Books \"1\"/2","removed":1,"unchanged":40}"# + "\n")
        #expect(String(decoding: JSON.encode([report, SyncReport(list: "")]), as: UTF8.self)
            == #"[{"added":3,"changed":2,"list":"Books \"1\"/2","removed":1,"unchanged":40},"#
            + #"{"added":0,"changed":0,"list":"","removed":0,"unchanged":0}]"# + "\n")
        #expect(JSON.decode(SyncReport.self, from: JSON.encode(report)) == report)
        #expect(JSON.decode(SyncReport.self, from: Array(#"{"list":"x","added":1}"#.utf8)) == nil)
    }
}
