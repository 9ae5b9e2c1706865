import Foundation

/// The whole-spool status of SPEC §4: every list with its counts, the workers and the paused flag.
///
/// A value: built by a scan (`StatusScan.summary`) or by the watcher, which writes it to
/// `status/summary.json` (`SummaryFile`); read by `farm status`, `farm wait`, `top` and `serve`.
/// Its size grows with the number of lists, never with the number of resources: the resources of a
/// list are only in the per-list view (`ListView`).
public struct StatusDocument: Codable, Equatable, Sendable {
    /// When this document was made (ISO 8601, UTC, milliseconds).
    public var updated: String
    public var paused: Bool
    public var workers: Workers
    /// In natural order of their names ("Set 2.json" before "Set 10.json").
    public var lists: [ListStatus]

    public init(updated: String, paused: Bool, workers: Workers, lists: [ListStatus]) {
        self.updated = updated
        self.paused = paused
        self.workers = workers
        self.lists = lists
    }

    /// Every list is Finished (true when there are none).
    public var isFinished: Bool { lists.allSatisfy { $0.state == .finished } }

    /// How many resources ended in `error`, over every list.
    public var failed: Int { lists.reduce(0) { $0 + $1.failed } }

    /// The list with this id, if any.
    public func list(id: String) -> ListStatus? { lists.first { $0.id == id } }
}

/// How many workers should run (control/desired.json) and how many do (procs/).
public struct Workers: Codable, Equatable, Sendable {
    public var desired: Int
    public var running: Int

    public init(desired: Int, running: Int) {
        self.desired = desired
        self.running = running
    }
}

/// How farm writes its status JSON: sorted keys (the encoder's own order changes between runs),
/// slashes left alone, optionals as explicit nulls (see the `encode(to:)` of each type).
public enum StatusJSON {
    public static func encode(_ value: some Encodable, pretty: Bool = false) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        // Status values hold only strings, numbers, booleans and nulls: encoding cannot fail.
        return Array((try? encoder.encode(value)) ?? Data()) + [0x0A]
    }

    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) -> Value? {
        try? JSONDecoder().decode(type, from: Data(bytes))
    }
}
