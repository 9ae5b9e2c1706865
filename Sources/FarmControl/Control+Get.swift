import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTransfer
import FoundationEssentials

extension Control {
    /// What `farm get` did: its list, how it ended, and whether it started the farm.
    public struct Fetched: CustomStringConvertible, Sendable {
        /// The list's name in the spool (`get-<hash>.txt`).
        public let list: String
        public let total: Int
        public let done: Int
        public let failed: Int
        /// Stopped by ^C (or SIGTERM) before the list finished: its jobs are held, their bytes kept.
        public let interrupted: Bool
        /// The farm was started by this get (and is stopped again by it).
        public let startedFarm: Bool
        /// The folder the files went to.
        public let folder: String

        /// The sentence `farm wait` would say, for this list: done, failed, or stopped.
        public var description: String {
            if interrupted {
                return "stopped: \(done) of \(total) done; the same farm get resumes the rest from the bytes it has"
            }
            if failed > 0 {
                return "finished, but \(failed) of \(total) resource(s) failed; `farm status \(list)` shows why"
            }
            return "finished: \(done) resource(s) in \(folder)"
        }
    }

    /// `farm get` (SPEC §15): fetches the URLs of `request` into its folder and returns once they are all
    /// done or failed, or once `interrupted` says so.
    ///
    /// Its URLs are one list of their own (`GetList`), added with `--out FOLDER --name {name}`; a list already
    /// there from the same command is taken up again: its held jobs let go and its failed ones retried, each
    /// resuming from the bytes it has. A farm is started when none runs on this host. `progress` hears the
    /// list as it goes, every `interval` seconds. On an interruption the list's jobs are held (Hold.swift: no
    /// worker takes them, their bytes stay), so a farm that ran before goes on with its other lists untouched,
    /// and one that this get started is stopped. Another list of the spool is never touched.
    public func get(_ request: GetRequest, interval: Double = 0.2, interrupted: () -> Bool,
                    progress: (ListStatus) -> Void) throws(ControlError) -> Fetched {
        // Any kind of bytes, as wget keeps them: a get of an .iso or a .tar.gz is no mistake (SPEC §15's
        // `--accept any`).
        let options = try Self.requestOptions(headers: [], cookieFile: nil, userAgent: nil, proxy: nil,
                                              connections: request.connections, accept: "any")
        let delivery = try Self.delivery(folder: request.folder, template: "{name}", link: request.link)
        let list = try GetList(request, folder: delivery.folder)
        let listID = ListID.of(name: list.name)
        let added = try addGetList(list, request: options, delivery: delivery)
        if !added {
            // The same command before: take its list up again where it stopped.
            _ = try release(list: listID)
            if (spool.list(listID)?.total ?? 0) > 0, try !failures(of: .id(listID)).groups.isEmpty {
                _ = try retry(.id(listID))
            }
        }
        // A list fetched whole before needs no farm: it is only shown.
        let finished = ListView.build(spool, listID: listID)?.state == .finished
        let startedFarm = finished ? false : try start().started
        var last: ListStatus?
        while true {
            if let status = ListView.build(spool, listID: listID) {
                progress(status)
                last = status
                if status.state == .finished { break }
            }
            if interrupted() {
                _ = try hold(list: listID)
                if startedFarm { _ = try stop() }
                let status = ListView.build(spool, listID: listID) ?? last
                return Fetched(list: list.name, total: status?.total ?? 0, done: status?.done ?? 0,
                               failed: status?.failed ?? 0, interrupted: true, startedFarm: startedFarm,
                               folder: delivery.folder)
            }
            // An interrupt is seen within a tenth of a second, not after the whole interval.
            Clock.pause(interval, unless: interrupted)
        }
        if startedFarm && !othersHaveWork(besides: listID) { _ = try stop() }
        return Fetched(list: list.name, total: last?.total ?? 0, done: last?.done ?? 0, failed: last?.failed ?? 0,
                       interrupted: false, startedFarm: startedFarm, folder: delivery.folder)
    }

    /// Adds the list of a get; false when the same command's list was there already.
    private func addGetList(_ list: GetList, request options: RequestOptions?, delivery: Delivery)
        throws(ControlError) -> Bool {
        let scratch = spool.scratch.path("get")
        let path = scratch + "/" + list.name
        do {
            try FileSystem.mkdir(scratch, mode: 0o700)
            try FileSystem.createFile(path, Array(list.text.utf8))
        } catch {
            throw ControlError(.spoolFailed, spool.tmp, cause: error)
        }
        defer {
            try? FileSystem.unlink(path)
            try? FileSystem.rmdir(scratch)
        }
        do {
            return try add(path, request: options, delivery: delivery).alreadyThere.isEmpty
        } catch where error.code == .manifestRefused {
            // A bad line of a FILE: the user's mistake, said as the list's refusal, not the scratch file's.
            throw ControlError(.editRefused, "\(error)".replacing(path, with: "the URLs given"))
        }
    }

    /// Whether a list other than `listID`, not held, has resources left: a farm this get started then works
    /// for someone else too (another get that found it running), and is left running.
    private func othersHaveWork(besides listID: String) -> Bool {
        StatusScan.summary(spool).lists.contains {
            $0.id != listID && $0.state != .finished && !spool.held.contains($0.id)
        }
    }
}
