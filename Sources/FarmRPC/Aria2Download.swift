import FarmJSON
import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem

/// One farm resource seen as an aria2 download (SPEC §16): its GID, its state in aria2's words, and the
/// status object of `aria2.tellStatus`, with aria2's keys and every number a string, as aria2 sends them. A
/// value, read from the spool by `Aria2Downloads`.
public struct Aria2Download: Equatable, Sendable {
    /// aria2's states. `waiting` and `paused` make the waiting queue; `complete`, `error` and `removed` the
    /// stopped.
    public enum State: String, Sendable {
        case active, waiting, paused, complete, error, removed
    }

    public let gid: String
    public let listID: String
    public let listName: String
    public let resource: ResourceStatus
    /// Its job's number in its list (`JobName.index`), which a purge remembers.
    public let job: Int
    /// The resource's mirrors, after its URL (SPEC §14).
    public let mirrors: [String]
    /// Where it is delivered (the list's `--out`); nil for a list that delivers nowhere.
    public let folder: String?
    /// The name it is delivered under (aria2's `out`), when it was given one.
    public let out: String?
    /// The whole farm is paused (`farm pause`, `aria2.pauseAll`): what would run waits, as aria2's paused.
    public let farmPaused: Bool
    /// Its list is held (`aria2.pause` of this download): it waits, paused, while the others go on.
    public let held: Bool
    /// Removed by `aria2.remove`: no longer in the spool, kept as a result until purged, as aria2 keeps it.
    public var removed = false

    public var state: State {
        if removed { return .removed }
        return switch resource.status {
        case .done: .complete
        case .error: .error
        case .queued: farmPaused || held ? .paused : .waiting
        case .downloading, .unzipping, .rendering: farmPaused || held ? .paused : .active
        }
    }

    public var isStopped: Bool { state == .complete || state == .error || state == .removed }
    public var isWaiting: Bool { state == .waiting || state == .paused }

    public var uris: [String] { [resource.url] + mirrors }

    private var totalLength: Int { resource.size ?? (resource.status == .done ? resource.bytes : 0) }
    private var completedLength: Int { resource.status == .done ? totalLength : resource.bytes }

    /// The file's path: where it was delivered, else where it will be, else the spool's copy (or "").
    public var path: String {
        if let delivered = resource.delivered { return delivered }
        // Its list delivers to `{name}` (Control.addDownload): the name that template gives the URL.
        if let folder { return folder + "/" + (out ?? DeliveryTemplate.name(of: resource.url)) }
        return resource.file ?? ""
    }

    /// `getUris`: each URL with aria2's `used` (being or been fetched) or `waiting`.
    public var uriObjects: JSONValue {
        let used = state != .waiting && state != .paused
        return .array(uris.map { uri in
            .object([JSONMember("uri", .string(uri)), JSONMember("status", .string(used ? "used" : "waiting"))])
        })
    }

    /// Bytes a second while active: those it has over the time since its transfer began (the status's
    /// `changed`), an average rather than aria2's last seconds, since farm's status keeps no rate; 0 otherwise.
    public var downloadSpeed: Int {
        guard state == .active, let changed = resource.changed,
              let since = Timestamp.seconds(iso8601: changed) else { return 0 }
        return Int(Double(resource.bytes) / max(1, Clock.wall() - since))
    }

    /// `getFiles`: farm's download is one file.
    public var files: JSONValue {
        .array([.object([
            JSONMember("index", .string("1")),
            JSONMember("path", .string(path)),
            JSONMember("length", .string(String(totalLength))),
            JSONMember("completedLength", .string(String(completedLength))),
            JSONMember("selected", .string("true")),
            JSONMember("uris", uriObjects),
        ])])
    }

    /// The status object of `tellStatus` and the `tell*` lists, with only `keys` when some are given.
    public func status(keys: [String]) -> JSONValue {
        let pieceLength = 1 << 20
        var members: [JSONMember] = [
            JSONMember("gid", .string(gid)),
            JSONMember("status", .string(state.rawValue)),
            JSONMember("totalLength", .string(String(totalLength))),
            JSONMember("completedLength", .string(String(completedLength))),
            JSONMember("uploadLength", .string("0")),
            JSONMember("downloadSpeed", .string(String(downloadSpeed))),
            JSONMember("uploadSpeed", .string("0")),
            JSONMember("connections", .string(state == .active ? String(max(1, resource.pieces?.active ?? 1)) : "0")),
            JSONMember("numPieces", .string(String(resource.pieces?.total ?? (totalLength + pieceLength - 1) / pieceLength))),
            JSONMember("pieceLength", .string(String(pieceLength))),
            JSONMember("dir", .string(folder ?? "")),
            JSONMember("files", files),
        ]
        if state == .complete || state == .error {
            members.append(JSONMember("errorCode", .string(state == .complete ? "0" : Self.errorCode(resource.error))))
            members.append(JSONMember("errorMessage", .string(resource.error ?? "")))
        }
        guard !keys.isEmpty else { return .object(members) }
        return .object(members.filter { keys.contains($0.key) })
    }

    /// aria2's exit codes (its manual's EXIT STATUS) where farm's reason tells one: 3 a resource not found,
    /// 32 a checksum that differs, 22 another HTTP refusal; 1 for any other.
    static func errorCode(_ reason: String?) -> String {
        guard let reason = reason?.lowercased() else { return "1" }
        if reason.contains("404") || reason.contains("410") { return "3" }
        if reason.contains("checksum") { return "32" }
        if reason.contains("http 4") || reason.contains("http 5") { return "22" }
        return "1"
    }
}

/// Every resource of the spool as an aria2 download, in the order of the lists (the order they were added)
/// and of each list. Read on demand: its cost is the spool's lists, each built as `farm status LIST` builds
/// it. Stateless; any thread.
public enum Aria2Downloads {
    public static func read(_ spool: Spool) -> [Aria2Download] {
        // The lists from the spool itself, not the watcher's summary: a list added a moment ago must be
        // found by the call that follows its addUri.
        let lists = StatusScan.orderedListRecords(spool)
        let paused = spool.control.isPaused, held = spool.held.lists()
        var downloads: [Aria2Download] = []
        for (listID, record) in lists {
            guard let view = ListView.build(spool, listID: listID) else { continue }
            let numbers = Lists(spool).order(ofList: listID, total: record.total).numbers
            var records: [String: JobRecord] = [:]
            for row in spool.lists.resources(ofList: listID) ?? [] { records[row.id] = row }
            for resource in view.resources ?? [] {
                let job = records[resource.id]
                downloads.append(Aria2Download(
                    gid: GID.of(list: listID, resource: resource.id), listID: listID, listName: record.name,
                    resource: resource, job: resource.index < numbers.count ? numbers[resource.index] : -1,
                    mirrors: job?.mirrors ?? [], folder: record.delivery?.folder, out: job?.out,
                    farmPaused: paused, held: held.contains(listID)))
            }
        }
        return downloads
    }
}
