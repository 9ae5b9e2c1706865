import FarmWARC

/// A job's mark (`warc/marks/<job>`, Spool.warcMark): the groups of records noted for the job before each was
/// appended, so that a redo of the job can tell which URLs its WARC already answers (WARCArchive.swift says
/// why). Read and written by the worker that holds the mark's flock.
///
/// As text, a group is a line `group <file> <offset> <records>` (the file's finished name, where its first
/// member starts, how many members it has) and then a line `response <status> <record ID> <URI>` for each
/// of its exchanges, in the order written. A mark written before redirects and errors were recorded holds
/// three lines (file, offset, response ID) for the job's one exchange: it is read as a group whose response
/// answers every URL of the job, as it did then.
struct WARCMark: Equatable {
    /// One append's records.
    struct Group: Equatable {
        let file: String
        let offset: Int
        /// Its members, from `offset`: two an exchange (the response, then the request).
        let records: Int
        let responses: [Response]
    }

    /// One exchange of a group: its response's status and ID, and the URL it answers (nil in a mark of the
    /// older form: every URL of the job).
    struct Response: Equatable {
        let status: Int
        let id: String
        let uri: String?
    }

    var groups: [Group]

    init(groups: [Group]) { self.groups = groups }

    /// A mark as read; nil for an empty file (made, never written) or anything else.
    init?(bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard let first = lines.first else { return nil }
        if !first.hasPrefix("group ") {
            guard lines.count == 3, let offset = Int(lines[1]), !lines[0].contains("/") else { return nil }
            self.init(groups: [Group(file: lines[0], offset: offset, records: 1,
                                     responses: [Response(status: 200, id: lines[2], uri: nil)])])
            return
        }
        var groups: [Group] = []
        for line in lines {
            let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            if words.count == 4, words[0] == "group", !words[1].contains("/"), let offset = Int(words[2]),
               let records = Int(words[3]) {
                groups.append(Group(file: words[1], offset: offset, records: records, responses: []))
            } else if words.count == 4, words[0] == "response", let status = Int(words[1]), let last = groups.last {
                groups[groups.count - 1] = Group(file: last.file, offset: last.offset, records: last.records,
                                                 responses: last.responses + [Response(status: status, id: words[2],
                                                                                       uri: words[3])])
            } else {
                return nil
            }
        }
        self.init(groups: groups)
    }

    var bytes: [UInt8] {
        var text = ""
        for group in groups {
            text += "group \(group.file) \(group.offset) \(group.records)\n"
            for response in group.responses { text += "response \(response.status) \(response.id) \(response.uri ?? "")\n" }
        }
        return Array(text.utf8)
    }

    /// What the groups' files in `folder` hold of them: which responses are whole there, by URL.
    func found(in folder: String) throws(WARCError) -> Found {
        var found = Found()
        for group in groups {
            let whole = Set(try group.wholeRecordIDs(in: folder))
            let present = group.responses.filter { whole.contains($0.id) }
            guard !present.isEmpty else { continue }
            found.groups.append(group)
            for response in present {
                guard let uri = response.uri else {
                    found.answersAll = true
                    continue
                }
                if found.statuses[uri].map({ Found.isError($0) && !Found.isError(response.status) }) ?? true {
                    found.statuses[uri] = response.status
                }
            }
        }
        return found
    }

    /// The responses of a mark found whole in their files.
    struct Found {
        /// The groups with at least one response whole: what a new mark keeps of the old.
        var groups: [Group] = []
        /// The status of each URL's response that is in, a success rather than an error where both are.
        var statuses: [String: Int] = [:]
        /// A mark of the older form whose response is in: the job is recorded, whatever its URLs.
        var answersAll = false

        /// Whether an answer `status` for `uri` is still to be recorded: when no response for the URL is in,
        /// or only an error one and this is not (the job failed, and a `farm retry` fetched the resource).
        func isDue(_ uri: String, status: Int) -> Bool {
            if answersAll { return false }
            guard let had = statuses[uri] else { return true }
            return Self.isError(had) && !Self.isError(status)
        }

        static func isError(_ status: Int) -> Bool { status >= 400 }
    }
}

extension WARCMark.Group {
    /// The IDs of this group's members that are whole in its file in `folder` (the open name first: recovery
    /// renames it to the finished one, never back); none when the file is gone.
    func wholeRecordIDs(in folder: String) throws(WARCError) -> [String] {
        for name in [file + WARCWriter.openSuffix, file] {
            if let ids = try WARCScan.recordIDs(path: folder + "/" + name, from: offset, limit: records) {
                return ids.map(\.text)
            }
        }
        return []
    }
}
