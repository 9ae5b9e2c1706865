/// The files of status/: the watcher's whole-spool summary, and the asks of readers that want it as of their
/// moment with the watcher's answers (see `StatusReader.current` in FarmStatus). A part of a `Spool`, reached as
/// `spool.status`; it names the files, FarmStatus and the watcher write and read them. A value; any thread.
public struct StatusFiles: Sendable {
    /// `status/`.
    public let folder: String

    init(_ spool: Spool) { folder = spool.path(of: .status) }

    /// The summary, `status/summary.json`.
    public var summary: String { folder + "/" + Self.summaryName }
    /// The summary's name in status/.
    public static let summaryName = "summary.json"

    /// A reader's request for the summary as of its moment, `status/ask.<nonce>`.
    public func askPath(_ nonce: String) -> String { folder + "/" + Self.askPrefix + nonce }
    /// The watcher's answer to the ask `nonce`, `status/answer.<nonce>.json`.
    public func answerPath(_ nonce: String) -> String { folder + "/" + Self.answerPrefix + nonce + ".json" }
    public static let askPrefix = "ask.", answerPrefix = "answer."

    /// The nonce of an ask's name in status/; nil for any other name.
    public static func ask(ofName name: String) -> String? {
        name.hasPrefix(askPrefix) ? String(name.dropFirst(askPrefix.count)) : nil
    }
}

extension Spool {
    /// The files of status/.
    public var status: StatusFiles { StatusFiles(self) }
}
