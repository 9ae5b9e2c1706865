import FarmJSON
import FarmSpool

/// `farm fsck --json` read back, for the tools and tests that read it (FarmControl's `Control.Checked`
/// writes it): `{"clean": bool, "findings": [{"detail", "job": "<list>.<index>" | null, "kind", "path",
/// "repaired"}]}`. `clean` is derived from the findings, so it must agree with them.
extension FsckReport: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        self.init(findings: try json.decode("findings"))
        let clean: Bool = try json.decode("clean")
        guard clean == isClean else { throw JSONMismatch("\"clean\": \(clean) with \(findings.count) findings") }
    }
}

extension FsckFinding.Kind: JSONReadable {}

extension FsckFinding: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        var job: JobName?
        if let raw: String = try json.decodeIfPresent("job") {
            guard let name = JobName(raw) else { throw JSONMismatch("\"job\": \(raw) is not a job name") }
            job = name
        }
        self.init(kind: try json.decode("kind"), path: try json.decode("path"), job: job,
                  detail: try json.decode("detail"), repaired: try json.decode("repaired"))
    }
}
