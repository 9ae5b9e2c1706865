import FarmSpool
import Foundation

/// Builders and checks shared by the tests that work on a spool directly.
public enum SpoolFixtures {
    /// `count` jobs of one list named `listName`, with URLs on a port nobody listens to.
    public static func jobs(_ count: Int, listName: String = "List 1") -> (list: String, jobs: [NewJob]) {
        let list = ListID.of(name: listName)
        let jobs = (0..<count).map {
            NewJob(name: JobName(list: list, index: $0),
                   record: JobRecord(url: "http://127.0.0.1:1/\($0).jpg", id: "r\($0)"))
        }
        return (list, jobs)
    }

    /// Publishes a list of `count` resources named `name` in `spool`, through the spool's own API (as
    /// `farm add` does, without reading a manifest: 100,000 in seconds), with URLs on a port nobody
    /// listens to; returns its id. `titled`: the list has `title` and `cover`, and each resource
    /// N the title "Photo N" and the caption "Caption N".
    @discardableResult
    public static func publishList(_ spool: Spool, name: String, count: Int, title: String? = nil,
                                   cover: String? = nil, titled: Bool = false) throws -> String {
        let list = ListID.of(name: name)
        let jobs = (0..<count).lazy.map {
            NewJob(name: JobName(list: list, index: $0),
                   record: JobRecord(url: "http://127.0.0.1:1/photos/\($0).jpg", id: "r\($0)",
                                     title: titled ? "Photo \($0)" : nil, caption: titled ? "Caption \($0)" : nil))
        }
        let record = ListRecord(name: name, total: count, digest: "test", source: "test",
                                added: Timestamp.iso8601(Date().timeIntervalSince1970), title: title, cover: cover)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: record.encoded())])
        return list
    }

    /// Jobs that appear in more than one place (or twice in one): must always be empty.
    public static func duplicates(in spool: Spool) -> [JobName] {
        var seen = Set<JobName>()
        var twice: [JobName] = []
        for (job, _) in spool.inventory() where !seen.insert(job).inserted { twice.append(job) }
        return twice
    }

    /// Count of jobs in each state.
    public static func counts(_ spool: Spool) -> [JobState: Int] {
        var counts: [JobState: Int] = [:]
        for (_, state) in spool.inventory() { counts[state, default: 0] += 1 }
        return counts
    }

    /// Names of the files set aside in corrupt/.
    public static func corruptFiles(_ spool: Spool) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: spool.corrupt)) ?? []
    }

    public static func log(_ spool: Spool) -> String {
        (try? String(contentsOfFile: spool.logFile, encoding: .utf8)) ?? ""
    }
}
