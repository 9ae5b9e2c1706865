import FarmJSON
import FarmLists
import FarmSpool
import FarmStatus

extension Control {
    /// One failed resource, as `farm failed` lists it.
    public struct FailedResource: Sendable, Equatable {
        public let list: String
        public let index: Int
        public let id: String
        public let url: String
        public let attempts: Int
    }

    /// The failed resources that share one reason.
    public struct FailureGroup: Sendable {
        public let reason: String
        public let resources: [FailedResource]
    }

    /// What `farm failed` shows: the failed resources grouped by reason, the largest group first.
    public struct Failures: CustomStringConvertible, Sendable {
        public let groups: [FailureGroup]

        public var total: Int { groups.reduce(0) { $0 + $1.resources.count } }

        /// The most characters of a URL shown where no terminal gives a width (a pipe, a file): one URL of
        /// 200 KB was one line of 200 KB. `--json` has every URL whole.
        public static let longestURL = 300
        /// The fewest characters of a URL shown, however narrow the terminal: less names nothing.
        static let shortestURL = 24

        /// A line per reason with its count, then a line per resource under it, each URL cut in its middle
        /// to fit `width` columns (a terminal's), or to `longestURL` characters without one.
        public func text(width: Int?) -> String {
            guard !groups.isEmpty else { return "no failed resources" }
            return groups.map { group in
                (["\(group.resources.count)  \(group.reason)"] + group.resources.map { resource in
                    let before = "    \(resource.list) #\(resource.index)  ", after = "  (attempts: \(resource.attempts))"
                    let room = width.map { max(Self.shortestURL, $0 - before.count - after.count) } ?? Self.longestURL
                    return before + Self.cut(resource.url, to: room) + after
                }).joined(separator: "\n")
            }.joined(separator: "\n")
        }

        public var description: String { text(width: nil) }

        /// `url` in at most `length` characters: its start and its end (the host, the file's name) around
        /// an ellipsis.
        static func cut(_ url: String, to length: Int) -> String {
            guard url.count > length else { return url }
            let tail = (length - 1) / 3
            return String(url.prefix(length - 1 - tail)) + "…" + String(url.suffix(tail))
        }
    }

    /// What `farm retry` did.
    public struct Retried: CustomStringConvertible, Sendable {
        public let queued: Int

        public var description: String { "queued \(queued) failed resource(s) again" }
    }

    /// The reason a failure is shown under when its outcome record is gone.
    static let unknownReason = "unknown reason"

    /// `farm failed [LIST] [--reason TEXT]`: the failed resources of one list (or all), those whose
    /// reason contains `reason` when it is given.
    public func failures(of ref: ListRef? = nil, reason: String? = nil) throws(ControlError) -> Failures {
        // Lists come in natural order of names and each list's jobs by index, so every group is in
        // list order.
        var byReason: [String: [FailedResource]] = [:]
        for (list, failed) in try failedJobs(of: ref, reason: reason) {
            // A job's number is its index until the list is edited.
            let indexes = Lists(spool).order(ofList: list.id, total: list.record.total).indexes()
            let shown = failed.compactMap { job in
                indexes.indices.contains(job.job.index) && indexes[job.job.index] >= 0
                    ? (index: indexes[job.job.index], job: job) : nil
            }
            for (index, job) in shown.sorted(by: { $0.index < $1.index }) {
                byReason[job.reason ?? Self.unknownReason, default: []].append(FailedResource(
                    list: list.record.name, index: index, id: job.record.id, url: job.record.url,
                    attempts: job.attempts))
            }
        }
        return Failures(groups: byReason.map(FailureGroup.init).sorted {
            $0.resources.count == $1.resources.count ? $0.reason < $1.reason : $0.resources.count > $1.resources.count
        })
    }

    /// `farm retry [LIST] [--reason TEXT]`: queues again the failed resources `failures` would show.
    /// Their attempts go on counting from where they stopped.
    public func retry(_ ref: ListRef? = nil, reason: String? = nil) throws(ControlError) -> Retried {
        var queued = 0
        for (list, failed) in try failedJobs(of: ref, reason: reason) {
            queued += try spoolCall { () throws(SpoolError) in
                try Lists(spool).retry(failed.map(\.job), ofList: list.id)
            }
        }
        return Retried(queued: queued)
    }

    /// The failed jobs of the list `ref` names (every list when nil) whose reason contains `reason`.
    private func failedJobs(of ref: ListRef?, reason: String?) throws(ControlError)
        -> [(PublishedList, [FailedJob])] {
        let lists = try ref.map { ref throws(ControlError) in [try find(ref)] } ?? ListLookup.all(spool)
        return lists.map { list in
            (list, Lists(spool).failedJobs(ofList: list.id).filter { job in
                reason.map { (job.reason ?? Self.unknownReason).contains($0) } ?? true
            })
        }
    }
}

extension Control.FailedResource: JSONRecord {}

/// `{"groups": [{"reason": …, "count": N, "resources": […]}], "total": N}`.
/// Hand-written, not a JSONRecord: `count` and `total` are written but derived from the resources, not stored.
extension Control.Failures: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("groups")
        json.beginArray()
        for group in groups {
            json.beginObject()
            json.member("count", group.resources.count)
            json.member("reason", group.reason)
            json.member("resources", group.resources)
            json.endObject()
        }
        json.endArray()
        json.member("total", total)
        json.endObject()
    }
}

/// As written, for the tools and tests that read `farm failed --json`: `count` must agree with the group's
/// resources and `total` with all of them, since they are derived, not stored.
extension Control.FailureGroup: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        self.init(reason: try json.decode("reason"), resources: try json.decode("resources"))
        let count: Int = try json.decode("count")
        guard count == resources.count else {
            throw JSONMismatch("\"count\": \(count) for \(resources.count) resources")
        }
    }
}

extension Control.Failures: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        self.init(groups: try json.decode("groups"))
        let written: Int = try json.decode("total")
        guard written == total else { throw JSONMismatch("\"total\": \(written) for \(total) resources") }
    }
}
