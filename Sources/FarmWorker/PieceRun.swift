import FarmDedup
import FarmHosts
import FarmSpool
import FarmSystem
import FarmTransfer
import Foundation
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
        /// Its bytes are in, fetched at this pace (bytes a second).
        case done(pace: Double?)
        /// Handed back with its bytes: the worker stops, the farm pauses, or its transfer failed.
        case stopped
        case failed(TransferError)
        /// Reclaimed from this holder.
        case lost
    }

    /// Seconds between a holder's looks at its piece: its progress recorded (its lease), its end.
    static let pieceLook = 0.25

    /// Leads `job`'s download in pieces when its list asks for several connections and its server
    /// takes ranges, or when a board for its partial is there already (an earlier lead's).
    func downloadInPieces(_ job: inout JobRun, _ partial: URLPartial) -> PiecesOutcome {
        let board = spool.pieceBoard(ofPartial: partial.path)
        let plan: PieceBoard.Plan
        if let found = board.plan() {
            plan = found
        } else {
            guard let made = planPieces(job, partial, board) else { return .single }
            guard made.size > made.minPiece else {
                return .whole(DownloadResult(httpStatus: 200, bytes: made.size, resumedFrom: 0, contentType: nil,
                                             etag: made.etag, modified: made.modified))
            }
            plan = made
        }
        var failures = 0
        var pace: Double?
        while true {
            if job.kept.lost { return .ended }
            if mustStop {
                _ = handBack(job.claim)
                return .ended
            }
            if spool.isPaused {
                Thread.sleep(forTimeInterval: 0.1)
                continue
            }
            if let held = board.take() ?? board.takeOver(minPiece: plan.minPiece, pace: pace) {
                switch fetch(held, of: plan, on: board, into: partial.fd, lead: job) {
                case .done(let measured):
                    pace = measured ?? pace
                    continue
                case .lost: continue
                case .stopped: continue
                case .failed(let error):
                    failures += 1
                    spool.log("\(job.claim.job): a piece of \(plan.url) failed: \(error.message)")
                    // The resource as one transfer: its retries, holds and failure are the single path's.
                    if failures >= 3 || error.kind == .permanent {
                        board.remove()
                        partial.discardBytes()
                        return .single
                    }
                    Thread.sleep(forTimeInterval: 0.2 * Double(failures))
                }
                continue
            }
            if board.isWhole(size: plan.size) {
                board.remove()
                return .whole(DownloadResult(httpStatus: 200, bytes: plan.size, resumedFrom: 0, contentType: nil,
                                             etag: plan.etag, modified: plan.modified))
            }
            board.reclaimExpired(lease: options.lease)
            _ = job.progress(TransferProgress(bytes: min(plan.size, board.bytesIn()), size: plan.size),
                             pieces: board.counts())
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Asks for the resource's first piece, which says its size, and publishes its board; nil when its
    /// list wants one connection, its partial has bytes already, or its server does not answer a range
    /// with its size (then the partial is empty again).
    private func planPieces(_ job: JobRun, _ partial: URLPartial, _ board: PieceBoard) -> PieceBoard.Plan? {
        let list = job.claim.job.list
        guard let requests = requestOptions(ofList: list), let connections = requests.connections, connections > 1,
              partial.takeSize() == 0 else { return nil }
        let minPiece = requests.minPiece ?? RequestOptions.defaultMinPiece
        var request = DownloadRequest(url: job.claim.record.url, maxSize: options.maxSize,
                                      stallTimeout: options.stallTimeout, caFile: options.caFile, options: requests)
        request.piece = PieceRange(start: 0, end: minPiece, validator: nil)
        let result: DownloadResult
        do {
            result = try handle.download(request, into: partial.fd, size: 0) { [job] _ in
                !self.mustStop && !job.kept.lost
            }
        } catch {
            partial.discardBytes()
            return nil
        }
        guard let size = result.completeSize, size > 0, size <= options.maxSize else {
            partial.discardBytes()
            return nil
        }
        // A strong ETag, else Last-Modified: what If-Range can validate (RFC 9110 §13.1.5).
        let validator = result.etag.flatMap { $0.hasPrefix("\"") ? $0 : nil } ?? result.modified
        let plan = PieceBoard.Plan(url: request.url, size: size, validator: validator, list: list,
                                   connections: connections, minPiece: minPiece, etag: result.etag,
                                   modified: result.modified)
        if size <= minPiece { return plan }
        let count = max(1, min(connections, size / minPiece))
        let length = (size + count - 1) / count
        let pieces = stride(from: 0, to: size, by: length).map {
            PieceBoard.Piece(start: $0, end: min(size, $0 + length))
        }
        do {
            try board.publish(plan, pieces: pieces, written: [pieces[0]: min(minPiece, length)])
        } catch {
            spool.log("\(job.claim.job): \(error); it is fetched over one connection")
            partial.discardBytes()
            return nil
        }
        return plan
    }

    /// Between jobs: fetches waiting pieces of any resource in pieces, taking over the slowest holder's
    /// tail once a piece of that resource is done. True when it fetched any.
    func takePieces() -> Bool {
        var took = false
        let boards = spool.pieceBoards()
        piecePaces = piecePaces.filter { path, _ in boards.contains { $0.board.path == path } }
        for (board, partialPath) in boards {
            guard !mustStop, !spool.isPaused, let plan = board.plan() else { continue }
            board.reclaimExpired(lease: options.lease)
            // A tail is taken over by a transfer that finished a piece of the resource (it goes on in its
            // place), or by another while fewer than the resource's connections hold pieces.
            while !mustStop, let held = board.take() ?? (piecePaces[board.path] != nil
                || board.holders().count < plan.connections
                ? board.takeOver(minPiece: plan.minPiece, pace: piecePaces[board.path] ?? nil) : nil) {
                took = true
                let fd: FileDescriptor
                do { fd = try FileDescriptor.open(partialPath, .writeOnly) } catch {
                    board.handBack(held)
                    // The partial was dropped (its job ended another way): nobody will store these pieces.
                    if error == .noSuchFileOrDirectory { board.remove() }
                    break
                }
                defer { fd.closeQuietly() }
                var pass = HostPass()
                if gate.isActive {
                    guard case .granted(let granted) = gate.admit(url: plan.url) else {
                        board.handBack(held)
                        break
                    }
                    pass = granted
                }
                let ended = fetch(held, of: plan, on: board, into: fd, lead: nil)
                pass.release()
                guard case .done(let measured) = ended else { break }
                piecePaces[board.path] = .some(measured)
            }
        }
        return took
    }

    /// Fetches the rest of `held` into the partial `fd`, recording its progress as it goes.
    private func fetch(_ held: PieceBoard.Held, of plan: PieceBoard.Plan, on board: PieceBoard,
                       into fd: FileDescriptor, lead: JobRun?) -> PieceEnd {
        let from = held.piece.start + held.written
        guard from < held.piece.end else { return board.complete(held) ? .done(pace: nil) : .lost }
        let range = PieceRange(start: from, end: held.piece.end, validator: plan.validator)
        var request = DownloadRequest(url: plan.url, maxSize: options.maxSize, stallTimeout: options.stallTimeout,
                                      caFile: options.caFile, options: requestOptions(ofList: plan.list))
        request.piece = range
        let began = Clock.monotonic()
        var lastLook = began
        var lost = false
        let start = held.piece.start
        do {
            let result = try handle.download(request, into: fd, size: from) { progress in
                let now = Clock.monotonic()
                guard now - lastLook >= Self.pieceLook else { return !self.mustStop }
                lastLook = now
                board.record(held, written: progress.bytes - start)
                guard let end = board.end(of: held) else {
                    lost = true
                    return false
                }
                range.shrink(to: end)
                if let lead, !lead.progress(TransferProgress(bytes: min(plan.size, board.bytesIn()), size: plan.size),
                                            pieces: board.counts()) { return false }
                return !self.mustStop && !self.spool.isPaused
            }
            board.record(held, written: result.bytes - start)
            let seconds = Clock.monotonic() - began
            let pace = seconds > 0.05 ? Double(result.bytes - from) / seconds : nil
            return board.complete(held) ? .done(pace: pace) : .lost
        } catch {
            board.record(held, written: from - start + handle.lastWritten)
            if lost || error.kind == .aborted && board.end(of: held) == nil { return .lost }
            board.handBack(held)
            return error.kind == .aborted ? .stopped : .failed(error)
        }
    }
}
