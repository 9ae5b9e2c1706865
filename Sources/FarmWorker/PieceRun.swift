import FarmDedup
import FarmHosts
import FarmPieces
import FarmSpool
import FarmSystem
import FarmTransfer
import FoundationEssentials
import SystemPackage

/// A resource fetched as pieces over several connections (SPEC §14; the protocol is in FarmSpool's
/// PieceBoard.swift). The transfer that holds the resource's partial leads it: it learns the size from a
/// first ranged request, publishes the board, fetches pieces like any other transfer, and once the board
/// is whole hands the download on as if one transfer had made it. Any other transfer of any worker takes
/// waiting pieces between its jobs.
extension TransferSlot {
    /// How a job's download went in pieces.
    enum PiecesOutcome {
        /// Not in pieces: fetch it as one transfer (from the partial's bytes, if any).
        case single
        /// Every byte is in the partial.
        case whole(DownloadResult)
        /// The job ended here (lost, handed back as the worker stops).
        case ended
    }

    /// How one piece's transfer ended.
    private enum PieceEnd {
        /// Its bytes are in.
        case done(FinishedPiece)
        /// Handed back with its bytes: the worker stops, the farm pauses, or its transfer failed.
        case stopped
        case failed(TransferError)
        /// Reclaimed from this holder.
        case lost
    }

    /// Seconds between a holder's looks at its piece: its progress recorded (its lease), its end.
    static let pieceLook = 0.25
    /// Seconds a slot leaves a board alone after a piece of it failed there.
    static let failedPieceRest = 1.0
    /// The shortest transfer whose pace a taker trusts.
    static let paceTime = 1.0
    /// A mirror this many times slower than the fastest takes no new piece, and its holders leave theirs.
    static let slowMirror = 4.0

    /// Leads `job`'s download in pieces when its list asks for several connections or it has mirrors, and a
    /// server of it takes ranges; or when a board for its partial is there already (an earlier lead's).
    func downloadInPieces(_ job: inout JobRun, _ partial: URLPartial) -> PiecesOutcome {
        // Most jobs: one connection, no mirror, an empty partial, which no earlier lead can have left a
        // board for. They pay no look at pieces/ (a failed open a job).
        // A list with --warc records each resource as one whole response, over one connection (SPEC §18).
        if job.warc != nil { return .single }
        let asks = (requestOptions(ofList: job.claim.job.list)?.connections ?? 1) > 1 || !job.claim.record.mirrors.isEmpty
        if !asks && partial.isSurelyEmpty { return .single }
        let board = spool.pieceBoard(ofPartial: partial.path)
        let plan: PieceBoard.Plan
        if let found = board.plan() {
            plan = found
        } else {
            switch planPieces(job, partial, board) {
            case .single: return .single
            case .failed(let reason):
                job.fail(reason, partial: partial.path)
                return .ended
            case .plan(let made):
                guard made.size > made.minPiece else { return .whole(Self.whole(made)) }
                plan = made
            }
        }
        var failures = 0
        var finished: FinishedPiece?
        while true {
            if job.kept.lost { return .ended }
            if mustStop {
                _ = handBack(job.claim)
                return .ended
            }
            if let reason = Self.everyMirrorFailed(plan, board) {
                board.remove()
                job.fail(reason, partial: partial.path)
                return .ended
            }
            // Paused: the lead keeps its claim and the board its pieces, as a paused transfer keeps its bytes.
            if spool.control.isPaused {
                Clock.poll(every: 0.1, unless: { job.kept.lost || mustStop }) { !spool.control.isPaused }
                continue
            }
            if let held = board.take() ?? board.takeOver(minPiece: plan.minPiece, pace: finished?.pace) {
                guard let mirror = mirror(for: held, of: plan, on: board, after: finished) else {
                    // Every mirror left is held by a Retry-After, or four times slower than a dropped one.
                    board.handBack(held)
                    Clock.pause(0.1, unless: { job.kept.lost || mustStop })
                    continue
                }
                switch fetch(held, of: plan, on: board, from: mirror, into: partial.fd, lead: job) {
                case .done(let piece):
                    finished = piece
                    continue
                case .lost, .stopped: continue
                case .failed(let error):
                    failures += 1
                    spool.log("\(job.claim.job): a piece of \(plan.url) failed: \(error.message)")
                    // The resource as one transfer: its retries, holds and failure are the single path's.
                    if plan.mirrors == nil && (failures >= 3 || error.kind == .permanent) {
                        board.remove()
                        // Holders elsewhere see their piece gone at their next look: none writes after this.
                        Clock.pause(2 * Self.pieceLook, every: 2 * Self.pieceLook)  // whatever else happens
                        partial.discardBytes()
                        job.noteStartedOver("its pieces were dropped and it is fetched over one connection from "
                                            + "the first byte: \(error.message)")
                        return .single
                    }
                    let backOff = 0.2 * Double(min(failures, 5))
                    Clock.pause(backOff, unless: { job.kept.lost || mustStop || spool.control.isPaused })
                }
                continue
            }
            if board.isWhole(size: plan.size) {
                board.remove()
                return .whole(Self.whole(plan))
            }
            board.reclaimExpired(lease: options.lease)
            _ = job.progress(TransferProgress(bytes: min(plan.size, board.bytesIn()), size: plan.size),
                             pieces: board.counts())
            // The loop's own looks (a stop, a pause, a loss) come at its top, every 0.05 s.
            Clock.pause(0.05, unless: { job.kept.lost || mustStop })
        }
    }

    /// The download of a resource whose bytes are all in its partial, as one transfer would have ended it.
    private static func whole(_ plan: PieceBoard.Plan) -> DownloadResult {
        DownloadResult(httpStatus: 200, bytes: plan.size, resumedFrom: 0, contentType: nil, etag: plan.etag,
                       modified: plan.modified)
    }

    /// What the first request of a resource to fetch in pieces found.
    private enum Planned {
        case single
        case plan(PieceBoard.Plan)
        /// Every mirror failed it: why, each.
        case failed(String)
    }

    /// Asks for the resource's first piece, which says its size, from each of its URLs in turn until one
    /// answers, and publishes its board; `.single` when its list wants one connection and it has no
    /// mirror, its partial has bytes already, or its server does not answer a range with its size (then
    /// the partial is empty again).
    private func planPieces(_ job: JobRun, _ partial: URLPartial, _ board: PieceBoard) -> Planned {
        let list = job.claim.job.list, record = job.claim.record
        let requests = requestOptions(ofList: list)
        let connections = max(requests?.connections ?? 1, 1)
        guard connections > 1 || !record.mirrors.isEmpty, partial.isSurelyEmpty else { return .single }
        let minPiece = requests?.minPiece ?? RequestOptions.defaultMinPiece
        let urls = [record.url] + record.mirrors
        var reasons: [Int: String] = [:]
        for (index, url) in urls.enumerated() {
            guard WebScheme(of: url) != nil else {
                reasons[index] = "not an http(s) URL"
                continue
            }
            var request = DownloadRequest(url: url, maxSize: options.maxSize, stallTimeout: options.stallTimeout,
                                          caFile: options.caFile, options: requests)
            request.piece = PieceRange(start: 0, end: minPiece, validator: nil)
            let result: DownloadResult
            do {
                result = try transferHandle().download(request, into: partial.fd, size: 0) { [job] _ in
                    !self.mustStop && !job.kept.lost
                }
            } catch {
                partial.discardBytes()
                if error.kind == .aborted { return .single }
                reasons[index] = error.message
                continue
            }
            guard let size = result.completeSize, size > 0, size <= options.maxSize else {
                // No size: no pieces from it. Without mirrors, the single path takes the resource.
                partial.discardBytes()
                if record.mirrors.isEmpty { return .single }
                reasons[index] = "no size for a range"
                continue
            }
            // A strong ETag, else Last-Modified: what If-Range can validate (RFC 9110 §13.1.5); none across
            // mirrors, whose validators are their own.
            let validator = record.mirrors.isEmpty
                ? result.etag.flatMap { $0.hasPrefix("\"") ? $0 : nil } ?? result.modified : nil
            var plan = PieceBoard.Plan(url: record.url, size: size, validator: validator, list: list,
                                       connections: connections, minPiece: minPiece, etag: result.etag,
                                       modified: result.modified)
            plan.mirrors = record.mirrors.isEmpty ? nil : record.mirrors
            plan.answered = index
            if size <= minPiece { return .plan(plan) }
            let pieces = plan.firstPieces
            do {
                // The first piece's bytes are recorded with the board: on the disk before it (see `record`).
                try partial.fd.syncData(0..<min(minPiece, plan.pieceLength))
                try board.publish(plan, pieces: pieces, written: [pieces[0]: min(minPiece, plan.pieceLength)])
            } catch {
                spool.log("\(job.claim.job): \(error); it is fetched over one connection")
                partial.discardBytes()
                return .single
            }
            for (failed, reason) in reasons { board.drop(mirror: failed, reason: reason) }
            return .plan(plan)
        }
        return .failed(Self.failures(urls, reasons))
    }

    /// Why the resource failed when no mirror of it is left; nil while one is.
    private static func everyMirrorFailed(_ plan: PieceBoard.Plan, _ board: PieceBoard) -> String? {
        let dropped = board.dropped()
        return dropped.count >= plan.urls.count ? failures(plan.urls, dropped) : nil
    }

    /// "every mirror failed: URL: reason; …", or the one URL's reason when it had no mirror.
    private static func failures(_ urls: [String], _ reasons: [Int: String]) -> String {
        guard urls.count > 1 else { return reasons[0] ?? "failed" }
        return "every mirror failed: " + urls.indices.map { "\(urls[$0]): \(reasons[$0] ?? "failed")" }
            .joined(separator: "; ")
    }

    /// Between jobs: fetches waiting pieces of any resource in pieces, taking over the slowest holder's
    /// tail once a piece of that resource is done. True when it fetched any.
    func takePieces() -> Bool {
        var took = false
        let version = FileSystem.version(spool.pieces)
        if version != nil && version == noBoardsIn { return false }
        let boards = spool.pieceBoards()
        noBoardsIn = boards.isEmpty ? version : nil
        finishedPieces = finishedPieces.filter { path, _ in boards.contains { $0.board.path == path } }
        let now = Clock.monotonic()
        failedPieces = failedPieces.filter { $0.value > now }
        for (board, partialPath) in boards where failedPieces[board.path] == nil {
            guard !mustStop, !spool.control.isPaused, let plan = board.plan() else { continue }
            board.reclaimExpired(lease: options.lease)
            // A tail is taken over by a transfer that finished a piece of the resource (it goes on in its
            // place), or by another while fewer than the resource's connections hold pieces.
            while !mustStop, let held = board.take() ?? (finishedPieces[board.path] != nil
                || board.holders().count < plan.connections
                ? board.takeOver(minPiece: plan.minPiece, pace: finishedPieces[board.path]?.pace) : nil) {
                took = true
                let fd: FileDescriptor
                do { fd = try FileDescriptor.open(partialPath, .writeOnly) } catch {
                    board.handBack(held)
                    // The partial was dropped (its job ended another way): nobody will store these pieces.
                    if error == .noSuchFileOrDirectory { board.remove() }
                    break
                }
                defer { fd.closeQuietly() }
                guard let mirror = mirror(for: held, of: plan, on: board, after: finishedPieces[board.path]) else {
                    board.handBack(held)
                    break
                }
                // The piece's connection counts for its mirror's host, as a job's would.
                var pass = HostPass()
                if gate.isActive {
                    guard case .granted(let granted) = gate.admit(url: plan.urls[mirror]) else {
                        board.handBack(held)
                        break
                    }
                    pass = granted
                }
                let ended = fetch(held, of: plan, on: board, from: mirror, into: fd, lead: nil)
                pass.release()
                guard case .done(let piece) = ended else {
                    if case .failed = ended { failedPieces[board.path] = Clock.monotonic() + Self.failedPieceRest }
                    break
                }
                finishedPieces[board.path] = piece
            }
        }
        return took
    }

    /// The URL (by its place in the plan's) to fetch `held` from; nil when none will do now (see "Mirrors"
    /// in PieceBoard.swift): dropped, held by a Retry-After, or four times slower than the fastest. A tail
    /// taken over goes to the mirror its taker just finished a piece on (`after`), which is faster than the
    /// holder's it came from.
    private func mirror(for held: PieceBoard.Held, of plan: PieceBoard.Plan, on board: PieceBoard,
                        after: FinishedPiece?) -> Int? {
        guard plan.mirrors != nil else { return gate.isHeld(url: plan.url) ? nil : 0 }
        let dropped = board.dropped()
        let live = plan.urls.indices.filter { dropped[$0] == nil && !gate.isHeld(url: plan.urls[$0]) }
        let load = board.mirrorLoad()
        let fastest = live.compactMap { load[$0]?.pace }.max() ?? 0
        let fast = live.filter { load[$0]?.pace.map { $0 * Self.slowMirror >= fastest } ?? true }
        if let after, fast.contains(after.mirror), held.piece.start % plan.pieceLength != 0 { return after.mirror }
        if let untried = fast.first(where: { load[$0] == nil && $0 != plan.answered }) { return untried }
        // The most pace a holder; a mirror being tried (held, no pace yet) only when nothing else is left.
        func share(_ mirror: Int) -> Double {
            let holders = Double(load[mirror]?.holders ?? 0) + 1
            if let pace = load[mirror]?.pace { return pace / holders }
            return mirror == plan.answered ? max(fastest, 1) / holders : 0
        }
        return fast.max { share($0) < share($1) || share($0) == share($1) && $0 > $1 }
    }

    /// Fetches the rest of `held` from the plan's URL `mirror` into the partial `fd`, recording its
    /// progress as it goes.
    private func fetch(_ held: PieceBoard.Held, of plan: PieceBoard.Plan, on board: PieceBoard, from mirror: Int,
                       into fd: FileDescriptor, lead: JobRun?) -> PieceEnd {
        let from = held.piece.start + held.written
        let mirrored = plan.mirrors != nil
        if mirrored { board.name(mirror: mirror, of: held) }
        guard from < held.piece.end else {
            return board.complete(held) ? .done(FinishedPiece(pace: nil, mirror: mirror)) : .lost
        }
        let range = PieceRange(start: from, end: held.piece.end, validator: plan.validator, size: plan.size)
        var request = DownloadRequest(url: plan.urls[mirror], maxSize: options.maxSize,
                                      stallTimeout: options.stallTimeout, caFile: options.caFile,
                                      options: requestOptions(ofList: plan.list))
        request.piece = range
        let began = Clock.monotonic()
        var lastLook = began
        var lost = false
        var covered = false
        var left = false
        let start = held.piece.start
        do {
            let result = try transferHandle().download(request, into: fd, size: from) { progress in
                let now = Clock.monotonic()
                guard now - lastLook >= Self.pieceLook else { return !self.mustStop }
                lastLook = now
                board.record(held, written: progress.bytes - start, in: fd)
                guard let end = board.end(of: held) else {
                    lost = true
                    return false
                }
                range.shrink(to: end)
                // Written meanwhile by a holder that went on past the end a taker gave it.
                if board.covers(PieceBoard.Piece(start: max(start, progress.bytes), end: end)) {
                    covered = true
                    return false
                }
                // On a slow mirror: leave the rest to the queue, to be taken again on a fast one.
                if mirrored, now - began >= Self.paceTime {
                    let pace = Double(progress.bytes - from) / (now - began)
                    let dropped = board.dropped()
                    let best = board.mirrorLoad().compactMap { $0.key == mirror || dropped[$0.key] != nil ? nil : $0.value.pace }
                        .max() ?? 0
                    if pace * Self.slowMirror < best, board.leave(held, at: progress.bytes) {
                        board.record(pace: pace, ofMirror: mirror)
                        left = true
                        return false
                    }
                }
                if let lead, !lead.progress(TransferProgress(bytes: min(plan.size, board.bytesIn()), size: plan.size),
                                            pieces: board.counts()) { return false }
                return !self.mustStop && !self.spool.control.isPaused
            }
            board.record(held, written: result.bytes - start, in: fd)
            let seconds = Clock.monotonic() - began
            // A pace is told by a second of transfer at least: a server's first moments (nginx sends a
            // second's worth at once) would make a short piece look many times faster than it goes.
            let pace = seconds >= Self.paceTime ? Double(result.bytes - from) / seconds : nil
            if mirrored, let pace { board.record(pace: pace, ofMirror: mirror) }
            return board.complete(held) ? .done(FinishedPiece(pace: pace, mirror: mirror)) : .lost
        } catch {
            board.record(held, written: from - start + (madeHandle?.lastWritten ?? 0), in: fd)
            if covered || left { return board.complete(held) ? .done(FinishedPiece(pace: nil, mirror: mirror)) : .lost }
            if lost || error.kind == .aborted && board.end(of: held) == nil { return .lost }
            board.handBack(held)
            if error.kind == .aborted { return .stopped }
            spool.log("bytes \(held.piece) of \(plan.urls[mirror]) go back to the queue: \(error.message)")
            // The host asked every client to wait: it is held for the whole farm, as for a job, and its
            // pieces go to the other mirrors meanwhile, or wait.
            if error.retryAfter != nil, error.httpStatus == 429 || error.httpStatus == 503,
               let host = HostKey(url: plan.urls[mirror]), let delay = options.retry.delay(after: error, attempt: 1) {
                gate.hold(host, until: Clock.wall() + delay)
                return .stopped
            }
            // A mirror that fails a piece is dropped for the resource: its pieces go to the others.
            if plan.mirrors != nil && error.kind != .noSpace {
                board.drop(mirror: mirror, reason: error.message)
                return .stopped
            }
            return .failed(error)
        }
    }
}

/// A piece a transfer finished: how fast it came (bytes a second; nil when too quick to tell), and from
/// which of its resource's URLs.
struct FinishedPiece {
    let pace: Double?
    let mirror: Int
}
