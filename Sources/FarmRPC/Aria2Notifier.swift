import FarmJSON
import FarmSystem

/// aria2's notifications (SPEC §16), from one look at the downloads to the next: a download that starts
/// running is `aria2.onDownloadStart`, one paused while it ran `onDownloadPause`, one done
/// `onDownloadComplete`, one failed `onDownloadError`, and one that went while it ran or waited (removed)
/// `onDownloadStop`, as aria2's RequestGroupMan sends them. A download seen done, failed or paused mid-transfer
/// without having been seen running (it ran for less than a look) is started first, as aria2 would have said.
///
/// The first look only learns what there is. Thread-safe: looks come one at a time from whoever follows
/// the spool's changes.
public final class Aria2Notifier: Sendable {
    private let last = Locked<[String: Aria2Download.State]?>(nil)

    public init() {}

    /// The notifications since the previous look, in the order of `downloads`, removals last.
    public func look(_ downloads: [Aria2Download]) -> [JSONValue] {
        let now = Dictionary(downloads.map { ($0.gid, $0.state) }, uniquingKeysWith: { first, _ in first })
        guard let before = last.withLock({ last in
            defer { last = now }
            return last
        }) else { return [] }
        var said: [JSONValue] = []
        let say = { (name: String, gid: String) in said.append(RPCResponse.notification("aria2." + name, gid: gid)) }
        for download in downloads {
            let was = before[download.gid]
            guard was != download.state else { continue }
            let ran = was == .active || was == .paused
            switch download.state {
            case .active: say("onDownloadStart", download.gid)
            case .paused:
                // Paused while it ran (its transfer holds its place, or its list was held as it ran): it
                // started, if no look saw it run.
                guard download.resource.status != .queued || (download.held && was == .active) else { continue }
                if was != .active { say("onDownloadStart", download.gid) }
                say("onDownloadPause", download.gid)
            case .waiting, .removed: continue
            case .complete, .error:
                if !ran { say("onDownloadStart", download.gid) }
                say(download.state == .complete ? "onDownloadComplete" : "onDownloadError", download.gid)
            }
        }
        for (gid, state) in before where now[gid] == nil && state != .complete && state != .error {
            say("onDownloadStop", gid)
        }
        return said
    }
}
