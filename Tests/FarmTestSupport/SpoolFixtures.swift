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
