import FarmFsck
import FarmJSON
import FarmSpool

extension Control {
    /// What `farm fsck` found and, with `--repair`, fixed.
    public struct Checked: CustomStringConvertible, Sendable {
        public let report: FsckReport

        public var isClean: Bool { report.isClean }

        /// A line per finding (its kind, where, what is wrong, whether it was repaired), then a count.
        public var description: String {
            guard !report.isClean else { return "clean: every invariant of the spool holds" }
            let repaired = report.findings.filter(\.repaired).count
            return (report.findings.map(Self.line) + [
                "\(report.findings.count) finding(s)" + (repaired > 0 ? ", \(repaired) repaired" : ""),
            ]).joined(separator: "\n")
        }

        private static func line(_ finding: FsckFinding) -> String {
            let job = finding.job.map { finding.path.contains($0.raw) ? "" : " (job \($0))" } ?? ""
            return "\(finding.kind.rawValue)  \(finding.path)\(job): \(finding.detail)"
                + (finding.repaired ? "  [repaired]" : "")
        }
    }

    /// `farm fsck [--repair]`: checks every invariant of the spool, judging claims by the farm's lease;
    /// with `repair`, fixes what is safe while the farm runs (see SpoolCheck.swift in FarmFsck).
    public func fsck(repair: Bool = false) throws(ControlError) -> Checked {
        Checked(report: try spoolCall { () throws(SpoolError) in try SpoolCheck(spool).run(repair: repair) })
    }
}

/// `{"clean": bool, "findings": [{"detail", "job": "<list>.<index>" | null, "kind", "path", "repaired"}]}`.
extension Control.Checked: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("clean", isClean)
        json.key("findings")
        json.beginArray()
        for finding in report.findings {
            json.beginObject()
            json.member("detail", finding.detail)
            json.member("job", finding.job?.raw)
            json.member("kind", finding.kind.rawValue)
            json.member("path", finding.path)
            json.member("repaired", finding.repaired)
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }
}
