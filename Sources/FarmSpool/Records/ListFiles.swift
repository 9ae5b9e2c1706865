import FarmSystem

/// The files of lists/, a list's files by their suffixes: its record (`<list>.json`), its resource table
/// (`.resources`), its request options (`.request`), its order once edited (`.order`), its page log (`.pages`,
/// `.paged`), its jobs marked own (`.own`), its robots.txt of each origin (`.robots-<key>`) and its mark of
/// converted links (`.converted`); and the lists a committed batch has not published yet
/// (`queue/<batch>/.lists`). A part of a `Spool`, reached as `spool.lists`: it names the files and reads the
/// simple ones; what they mean is FarmRecords' and FarmLists'. A value; any thread.
public struct ListFiles: Sendable {
    private let spool: Spool
    /// `lists/`.
    public var folder: String { spool.path(of: .lists) }

    init(_ spool: Spool) { self.spool = spool }

    package static let recordSuffix = ".json"
    /// A list's request options with their secrets (SPEC §12), mode 0600.
    package static let requestSuffix = ".request"
    /// The jobs of a list marked own at its add, by their URL's key (FarmLists' URLSharing).
    package static let ownedSuffix = ".own"
    /// An edited list's order (FarmLists' ListOrder).
    package static let orderSuffix = ".order"
    /// A paged list's page log while it is followed, and once it is done (FarmLists' PageLog).
    package static let pageLogSuffix = ".pages"
    package static let finishedPageLogSuffix = ".paged"
    /// A list of `--convert-links` whose delivered files have their links converted (FarmLists'
    /// LinkConversion.swift): made once they all are, removed by the next delivery.
    package static let convertedSuffix = ".converted"
    /// The resource table (FarmRecords' ResourceTables.swift and TableRecords.swift).
    package static let resourceTableSuffix = ".resources"
    /// The robots.txt of an origin a recursive list requests, its start's or one it spans to (FarmLists'
    /// HostRobots): `<list>.robots-<key of the origin>`, written whole by the worker that fetched it.
    package static let robotsInfix = ".robots-"

    /// `lists/<list>.json`.
    public func recordPath(_ id: String) -> String { folder + "/" + id + Self.recordSuffix }

    /// The raw bytes of a published list record (FarmLists' `list(_:)` decodes it).
    package func record(_ id: String) -> [UInt8]? {
        try? FileSystem.readFile(recordPath(id))
    }

    /// The ids of the published lists.
    public func ids() -> [String] {
        FileSystem.names(folder).compactMap(Self.listID(ofRecordName:))
    }

    /// The list whose record is named `name` in lists/ (`<list>.json`); nil for any other name.
    public static func listID(ofRecordName name: String) -> String? {
        guard name.hasSuffix(recordSuffix) else { return nil }
        let id = String(name.dropLast(recordSuffix.count))
        return ListID.isValid(id) ? id : nil
    }

    /// `lists/<list>.resources`.
    public func resourceTablePath(ofList id: String) -> String { folder + "/" + id + Self.resourceTableSuffix }

    /// The resources of list `id` in index order, or nil when the list has no table (not published,
    /// or added by a farm older than the table).
    public func resources(ofList id: String) -> [JobRecord]? {
        guard let bytes = try? FileSystem.readFile(resourceTablePath(ofList: id), limit: 1 << 34) else { return nil }
        var records: [JobRecord] = []
        for line in bytes.split(separator: 0x0A) {
            guard let record = JobRecord.decoded(from: line) else { return nil }
            records.append(record)
        }
        return records
    }

    /// `lists/<list>.request`: what the list's requests carry, secrets included (mode 0600); absent for
    /// a list whose requests carry nothing of their own.
    public func requestPath(ofList id: String) -> String { folder + "/" + id + Self.requestSuffix }

    /// The bytes of `lists/<list>.request`; nil when the list has none (or it cannot be read).
    public func requestOptions(ofList id: String) -> [UInt8]? {
        try? FileSystem.readFile(requestPath(ofList: id))
    }

    /// `lists/<list>.order`, the order of an edited list (FarmLists' ListOrder: a job number in 4 bytes
    /// at each index).
    public func orderPath(ofList id: String) -> String { folder + "/" + id + Self.orderSuffix }

    /// `lists/<list>.robots-<key>`, where the list keeps `origin`'s robots.txt.
    public func robotsPath(ofList id: String, origin: String) -> String {
        var key = FNV1a()
        key.add(origin)
        return folder + "/" + id + Self.robotsInfix + key.hex
    }

    /// `lists/<list>.converted`.
    public func convertedMarkPath(ofList id: String) -> String { folder + "/" + id + Self.convertedSuffix }

    /// Whether `name` in lists/ is a list's robots.txt of an origin it spans to.
    public static func isRobotsFile(_ name: String) -> Bool {
        let parts = name.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[1].hasPrefix(robotsInfix.dropFirst()) else { return false }
        return ListID.isValid(String(parts[0])) && parts[1].dropFirst(robotsInfix.count - 1).allSatisfy(\.isHexDigit)
    }

    /// Whether `name` in lists/ is a list's mark of converted links.
    public static func isConvertedMark(_ name: String) -> Bool { isListFile(name, convertedSuffix) }

    /// Whether `name` in lists/ (or a batch's pending lists) is a list's jobs marked own.
    public static func isOwnedFile(_ name: String) -> Bool { isListFile(name, ownedSuffix) }

    /// Whether `name` in lists/ is a list's request options.
    public static func isRequestFile(_ name: String) -> Bool { isListFile(name, requestSuffix) }

    /// Whether `name` is `<list><suffix>` for a valid list id.
    private static func isListFile(_ name: String, _ suffix: String) -> Bool {
        name.hasSuffix(suffix) && ListID.isValid(String(name.dropLast(suffix.count)))
    }

    /// Where a committed batch keeps the list records it has not published yet: `queue/<batch>/.lists`.
    package func pending(ofBatch batch: String) -> String { spool.path(.queue, batch, Self.pendingName) }
    /// The file of list `id` with `suffix` (its record, its resource table) in batch `batch`'s pending lists.
    package func pendingFile(_ id: String, suffix: String, ofBatch batch: String) -> String {
        pending(ofBatch: batch) + "/" + id + suffix
    }

    package static let pendingName = ".lists"
}

extension Spool {
    /// The files of lists/.
    public var lists: ListFiles { ListFiles(self) }
}
