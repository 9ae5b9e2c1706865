import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem

/// The serving watcher's thread for `--convert-links` (FarmLists' LinkConversion.swift): a list that asks
/// for it is converted once the summary shows it finished and its mark of converted links is missing. The
/// watcher knows first when a list is finished, and only one watcher serves the spool, so one process
/// converts a list at a time; after a kill, the next serving watcher finds the mark missing and converts
/// again. A thread of its own, as a mirror's pages take a while to rewrite and the summary must not wait.
///
/// `look(at:records:)` is called by the watcher's thread; the conversions run on this one's.
final class LinkConverter: Sendable {
    private let spool: Spool
    /// Lists waiting for the thread or being converted (`busy`, in order), whether it runs, and the finished
    /// lists known converted (forgotten when they are seen unfinished: a delivery since removed their mark).
    private let state = Locked<(busy: [String], running: Bool, converted: Set<String>)>(([], false, []))

    init(spool: Spool) { self.spool = spool }

    /// Hands to the thread each finished list of `document` that converts links and has no mark.
    func look(at document: StatusDocument, records: [String: ListRecord]) {
        for list in document.lists {
            guard let record = records[list.id], record.delivery?.convertsLinks == true else { continue }
            let finished = list.state == .finished
            let start = state.withLock { state -> Bool in
                guard finished else {
                    state.converted.remove(list.id)
                    return false
                }
                guard !state.converted.contains(list.id), !state.busy.contains(list.id) else { return false }
                guard Lists(spool).linksToConvert(ofList: list.id, record: record) else {
                    state.converted.insert(list.id)
                    return false
                }
                state.busy.append(list.id)
                defer { state.running = true }
                return !state.running
            }
            if start { Threads.detach { [self] in run() } }
        }
    }

    private func run() {
        while let id = state.withLock({ state -> String? in
            if state.busy.isEmpty { state.running = false }
            return state.busy.first
        }) {
            // The spool's word, not the summary's: a summary may be a few events behind the list's growth.
            guard ListView.build(spool, listID: id)?.state == .finished else {
                state.withLock { _ = $0.busy.removeFirst() }
                continue
            }
            do {
                let count = try Lists(spool).convertLinks(ofList: id)
                spool.log("--convert-links: list \(id) finished: \(count) file(s) with their links converted")
            } catch {
                // Left unmarked: tried again when the list is next seen finished (a later watcher, or a retry).
                spool.log("--convert-links: list \(id): \(error)")
            }
            // Known converted once its mark is seen: a delivery during the conversion may have removed it.
            state.withLock { _ = $0.busy.removeFirst() }
        }
    }
}
