import FarmSpool
import FarmSystem

/// The failed resources by reason, read from their outcome records in failed/. Stateless; any thread.
public enum FailureReasons {
    /// A reason longer than this is cut: a label value, not a report.
    static let longest = 100

    /// How many resources of `lists` (ids) failed, by `reason(of:)` of their error.
    public static func count(_ spool: Spool, lists: [String]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for list in lists {
            for name in FileSystem.names(spool.finishedDirectory(list, .failed)) {
                guard let job = JobName(name), job.list == list else { continue }
                counts[reason(of: spool.sidecars.last(job, finished: [.failed])?.error), default: 0] += 1
            }
        }
        return counts
    }

    /// The reason of an error, as a label: its text up to its first colon ("HTTP 404", "timed out",
    /// "not an http(s) URL"), so that the URL or detail an error may go on with does not make one
    /// series per resource; "unknown" when the resource has no record (yet) or no error.
    public static func reason(of error: String?) -> String {
        guard let error, !error.isEmpty else { return "unknown" }
        let head = error.prefix { $0 != ":" }.trimmingSpaces()
        return head.isEmpty ? "unknown" : String(head.prefix(longest))
    }
}
