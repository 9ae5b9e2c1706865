import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
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
    /// listens to; returns its id. With a `title` or a `cover` (the PNG bytes of its display image), it is
    /// a paged list whose pages are all in, as the follower leaves one (SPEC §7). `titled`: each resource
    /// N has the title "Photo N" and the caption "Caption N".
    @discardableResult
    public static func publishList(_ spool: Spool, name: String, count: Int, title: String? = nil,
                                   cover: [UInt8]? = nil, titled: Bool = false,
                                   urls: String = "http://127.0.0.1:1/photos/") throws -> String {
        let list = ListID.of(name: name)
        let jobs = (0..<count).lazy.map {
            NewJob(name: JobName(list: list, index: $0),
                   record: JobRecord(url: urls + "\($0).jpg", id: "r\($0)",
                                     title: titled ? "Photo \($0)" : nil, caption: titled ? "Caption \($0)" : nil))
        }
        let paged = title != nil || cover != nil || titled
        let source = "http://127.0.0.1:1/api"
        let record = ListRecord(name: name, total: count, digest: "test", source: source,
                                added: Timestamp.iso8601(Date().timeIntervalSince1970),
                                paged: paged ? PagedSource(first: source, items: "/items", url: "/url",
                                                           title: titled ? "/title" : nil,
                                                           caption: titled ? "{/caption}" : nil,
                                                           listTitle: title.map { _ in "/title" },
                                                           listCover: cover.map { _ in "/cover" }) : nil)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: record.encoded())])
        guard paged else { return list }
        var state = PageState(first: source)
        state.next = nil
        state.fetched = 1
        state.done = true
        state.title = title
        state.lines = count
        if let cover {
            try FileManager.default.createDirectory(atPath: spool.outputDirectory(ofList: list),
                                                    withIntermediateDirectories: true)
            let path = Lists(spool).coverBase(ofList: list) + ".png"
            try Data(cover).write(to: URL(fileURLWithPath: path))
            state.coverURL = source + "/cover.png"
            state.cover = path
        }
        try Data(JSON.encode(state)).write(to: URL(fileURLWithPath: Lists(spool).finishedPageLogPath(ofList: list)))
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

    /// A 1×1 PNG, for a list's cover.
    public static let onePixelPNG = [UInt8](Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)

    /// Names of the files set aside in corrupt/.
    public static func corruptFiles(_ spool: Spool) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: spool.corrupt)) ?? []
    }

    public static func log(_ spool: Spool) -> String {
        (try? String(contentsOfFile: spool.logFile, encoding: .utf8)) ?? ""
    }
}
