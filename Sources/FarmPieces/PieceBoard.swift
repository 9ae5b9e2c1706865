import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

// Pieces (SPEC §14)
// =================
//
// What pieces add to the spool's protocol (FarmSpool's PROTOCOL.md, read first; the board's pieces are its
// second leased queue, "One leased queue for jobs, pieces and hooks").
//
// A resource fetched over several connections has a board, `pieces/<partial>/`, named after the partial file
// its bytes go to (`partial/<job>` or `partial/u<key>`): whoever holds that partial leads the resource (its
// job's owner, holding the URL's lock where the URL is shared); any transfer of any worker on any host may
// fetch a piece of it.
//
//     plan                 the resource: URL, size, validator, list; written before any piece exists
//     q/<a>-<b>            a piece waiting: bytes a..<b of the resource
//     a/<a>-<b>@<owner>    a piece held: claimed from q/ (the board's LeasedQueue)
//     d/<a>-<b>            a piece whose bytes are all in the partial
//     m/<n>                a mirror dropped (the plan's URL n, 0 its first): why, as text
//     p/<n>                the pace of mirror n, bytes a second as text, as a holder of it last measured it
//
// A piece file's size is how many of its bytes, from its start, are in the partial: its holder sets it
// (ftruncate) as its transfer writes them, a few times a second, which also sets the file's ctime, its
// lease (a holder with nothing to write touches it). A holder killed loses what it wrote since it last set
// it, at most a piece. The bytes a record counts are written back before it is set (`record`), so that a
// power cut never keeps a record ahead of bytes the disk rewrote in place; it may still keep one ahead of
// bytes whose blocks were never given (a hole, the record's transaction committed before theirs): a new
// boot's recovery cuts each record back to the bytes the partial holds (cutBackToTheDisk).
// A reclaim (the lead's or a taker's look at the board, when a held piece's lease is older than the
// farm's) renames the piece back to q/, its size kept: the next holder asks for the rest only.
//
// The board is made whole in tmp/ and renamed into pieces/ (there is one or none), after the partial
// exists. Pieces may overlap, never leave a gap: the resource is whole when the pieces of d/ cover
// 0..<size. Overlapping bytes are the same bytes, since every request carries the plan's validator as
// If-Range and a piece takes nothing but a 206. A resource with mirrors has no validator (each server
// has its own): there the size each mirror reports must be the plan's, else the mirror is dropped.
//
// Taking over. A transfer that finished its piece while none waits (or any, while fewer transfers than
// the resource's connections hold pieces) takes the tail of what the slowest holder (the one with the
// most seconds left at its pace) has left: as much of it as makes both end together at their paces, so
// half between equals and nearly all of a holder ten times slower. Only a holder with more than `worthIt`
// second left gives up a tail: a holder's record may lag a server's burst behind (nginx's limit_rate
// sends a second's worth at a time), and a tail of less is over before a new request would pay. The tail may be smaller than the smallest
// piece, down to `endGameTail`: halves of at least a smallest piece would leave a slow holder up to two
// of them, which at a tenth of the others' pace is most of the whole time, and the last bytes must never
// wait on one slow connection. It makes its own `a/<m>-<b>@<owner>` first, then renames the holder's
// `a/<a>-<b>@<holder>` to `a/<a>-<m>@<holder>`. Killed between the two, the two pieces overlap. If the
// rename fails (the holder finished, or its piece was reclaimed or taken over meanwhile), the taker
// removes its piece (killed before, it leaves an overlap). The holder finds its end moved when it next
// looks for its own name (by its owner, which no other piece has), and stops there; bytes it wrote past
// the new end are the same bytes. Completing renames the holder's piece, under the name it has then, to
// d/; a piece no longer in a/ under its owner was reclaimed: its holder stops.
//
// Mirrors. A holder names the mirror it fetches from in its piece's attribute `user.farm.mirror` (its
// place in the plan's URLs). A mirror's pace is that of its best holder by their records, once a holder
// has fetched for a second (a server's first moments say little: nginx sends a second's worth at once),
// else what its last holder measured (p/). A piece goes to a mirror tried by nobody yet, one at a time
// (the first pieces probe every mirror with one connection each), else to the mirror with the most pace
// a holder, the one that answered the plan counting as fast until a pace is known: a mirror ten times
// slower costs one connection for a second, not a share of them. A holder on a mirror four times slower
// than the fastest leaves the rest of its piece to the queue (it makes `q/<m>-<b>` first, then renames
// its own to end at m, as a takeover does), which then goes to a fast mirror: connections move off a
// slow mirror within seconds, rather than at the end of their pieces.
//
// The lead removes the board once the resource is whole, before it stores the partial: from then on the
// partial is an ordinary one, whole, which a next owner would find complete (a 416 to its range).

/// The board of one resource in pieces.
public struct PieceBoard: Sendable {
    public let spool: Spool
    /// `pieces/<partial name>`.
    public let path: String

    /// The resource, as its lead found it.
    public struct Plan: JSONRecord, Sendable, Equatable {
        public var url: String
        public var size: Int
        /// The strong ETag or Last-Modified the pieces are asked for with (If-Range); nil: none (then a
        /// piece is taken as it comes).
        public var validator: String?
        /// The list whose request options go with every piece's request.
        public var list: String
        public var connections: Int
        public var minPiece: Int
        /// The validators of the first answer, which the whole download is recorded with (SPEC §7's sync).
        public var etag: String?
        public var modified: String?
        /// Other URLs of the same bytes, after `url`; nil: none.
        public var mirrors: [String]?
        /// The URL (by its place in `urls`) that answered the first request.
        public var answered: Int?

        /// Every URL of the resource, `url` first: a mirror is named by its place here.
        public var urls: [String] { [url] + (mirrors ?? []) }

        /// The pieces the resource is cut into at first: as many as its connections, none smaller than
        /// the smallest piece, each `pieceLength` long but the last.
        public var firstPieces: [Piece] {
            stride(from: 0, to: size, by: pieceLength).map { Piece(start: $0, end: min(size, $0 + pieceLength)) }
        }

        public var pieceLength: Int {
            let count = max(1, min(connections, size / max(1, minPiece)))
            return (size + count - 1) / count
        }

        public init(url: String, size: Int, validator: String?, list: String, connections: Int, minPiece: Int,
                    etag: String? = nil, modified: String? = nil) {
            self.etag = etag
            self.modified = modified
            self.url = url
            self.size = size
            self.validator = validator
            self.list = list
            self.connections = connections
            self.minPiece = minPiece
        }
    }

    /// Bytes `start..<end` of the resource.
    public struct Piece: Hashable, Sendable, CustomStringConvertible {
        public let start: Int
        public let end: Int

        public init(start: Int, end: Int) {
            self.start = start
            self.end = end
        }

        public var description: String { "\(start)-\(end)" }

        init?(_ name: Substring) {
            let parts = name.split(separator: "-")
            guard parts.count == 2, let start = Int(parts[0]), let end = Int(parts[1]), start >= 0, end > start
            else { return nil }
            self.init(start: start, end: end)
        }
    }

    /// A piece held by this process: its bytes from `piece.start + written` are still to fetch.
    public final class Held: @unchecked Sendable {
        public private(set) var piece: Piece
        public let owner: Owner
        /// Bytes of it in the partial, as last recorded.
        public fileprivate(set) var written: Int
        fileprivate let file: FileDescriptor

        fileprivate init(piece: Piece, owner: Owner, written: Int, file: FileDescriptor) {
            self.piece = piece
            self.owner = owner
            self.written = written
            self.file = file
        }

        fileprivate func moveEnd(to end: Int) { piece = Piece(start: piece.start, end: end) }

        deinit { file.closeQuietly() }
    }

    package init(spool: Spool, path: String) {
        self.spool = spool
        self.path = path
    }

    /// The board's leased queue: pieces waiting in q/, held in a/ (the spool's layout names both).
    var claims: LeasedQueue { spool.pieceQueue(ofBoard: path) }
    private var queued: String { claims.waiting }
    private var held: String { claims.active }
    private var finished: String { path + "/d" }
    private var planPath: String { path + "/plan" }

    /// Whether the board exists (a resource is in pieces).
    public var exists: Bool { FileSystem.exists(planPath) }

    public func plan() -> Plan? {
        (try? FileSystem.readFile(planPath)).flatMap { JSON.decode(Plan.self, from: $0) }
    }

    /// Makes the board with `plan` and its pieces queued, each with the bytes of it already in the partial
    /// (`written`, by piece). Fails when a board is there already.
    public func publish(_ plan: Plan, pieces: [Piece], written: [Piece: Int] = [:]) throws(SpoolError) {
        let stage = spool.scratch.path("pieces")
        do {
            try FileSystem.mkdir(stage)
            for directory in ["q", "a", "d", "m", "p"] { try FileSystem.mkdir(stage + "/" + directory) }
            // Not synced: a power cut may keep the rename of the folder without the plan's bytes (ext4's
            // delayed allocation), and the first recovery after the reboot drops such a board with its partial
            // (Redo.swift): the resource starts over, as any download the disk did not keep, and the
            // watcher's syncfs every second bounds what is redone. bin/crashstates --without-sync found
            // nothing for this sync, under ext4's model or POSIX's.
            try FileSystem.createFile(stage + "/plan", JSON.encode(plan))
            for piece in pieces {
                let file = stage + "/q/" + piece.description
                let fd = try FileDescriptor.open(file, .writeOnly, options: [.create, .exclusiveCreate],
                                                 permissions: [.ownerReadWrite, .groupRead, .otherRead])
                defer { fd.closeQuietly() }
                if let bytes = written[piece], bytes > 0 { try fd.resize(to: Int64(bytes)) }
            }
            try FileSystem.ensureDirectory(spool.pieces)
            try FileSystem.rename(stage, path)
        } catch {
            try? FileSystem.removeTree(stage)
            throw SpoolError(.io, "cannot make the pieces of \(plan.url)", cause: error)
        }
    }

    /// Takes a waiting piece, if any, under a fresh owner name.
    public func take() -> Held? {
        let claims = self.claims
        for name in FileSystem.names(queued).shuffled() {
            guard let piece = Piece(name[...]), let claim = try? claims.claim(name) else { continue }
            guard let held = open(claims.path(of: claim), piece: piece, owner: claim.owner) else {
                claims.handBack(claim)
                continue
            }
            return held
        }
        return nil
    }

    /// Only a holder with more seconds than this left gives up a tail.
    public static let worthIt = 1.0
    /// The smallest tail taken over: less is not worth a request.
    public static let endGameTail = 64 << 10
    /// A holder younger than this has no pace yet to judge it by (its first bytes may take a moment: a
    /// connection to make, a server that starts slowly); one with no byte recorded is judged only after
    /// `stalledAfter`.
    static let paceAfter = 1.0
    static let stalledAfter = 3.0

    /// Takes over the tail of what the slowest holder has left (see "Taking over" above), this transfer
    /// going at `pace` bytes a second (nil: as fast as the holder); nil when no holder has a tail to give.
    public func takeOver(minPiece: Int, pace: Double?) -> Held? {
        let now = Clock.wall()
        // The seconds each holder still needs, the most first: at the pace its last record shows (the bytes
        // it had recorded by then, since its claim), less the time since that record, which it spent
        // fetching too. Its file's mtime is when it last recorded a new size.
        var candidates: [(name: String, piece: Piece, owner: String, tail: Int, left: Double)] = []
        for name in FileSystem.names(held) {
            guard let (piece, owner) = Self.heldName(name), let ownerName = Owner(owner),
                  let st = try? FileSystem.lstat(held + "/" + name) else { continue }
            let claimed = ownerName.claimedAt
            let elapsed = now - claimed
            guard elapsed >= Self.paceAfter, st.size > 0 || elapsed >= Self.stalledAfter else { continue }
            let rest = piece.end - (piece.start + Int(st.size))
            let recorded = st.size > 0 ? max(0.05, st.modificationTime - claimed) : elapsed
            let holderPace = Double(max(1, Int(st.size))) / recorded
            let left = Double(rest) / holderPace - (elapsed - recorded)
            let takerPace = pace ?? holderPace
            let tail = Int(Double(rest) * takerPace / (takerPace + holderPace))
            guard left > Self.worthIt, tail >= min(minPiece, Self.endGameTail) else { continue }
            candidates.append((name, piece, owner, tail, left))
        }
        for candidate in candidates.sorted(by: { $0.left > $1.left }) {
            let middle = candidate.piece.end - candidate.tail
            let mine = Piece(start: middle, end: candidate.piece.end)
            let owner = Owner.fresh()
            let claimed = heldPath(mine, owner)
            do { try FileSystem.createFile(claimed, []) } catch { continue }
            let shortened = held + "/" + Piece(start: candidate.piece.start, end: middle).description
                + "@" + candidate.owner
            do { try FileSystem.rename(held + "/" + candidate.name, shortened) } catch {
                try? FileSystem.unlink(claimed)
                continue
            }
            if let taken = open(claimed, piece: mine, owner: owner) { return taken }
        }
        return nil
    }

    /// Names the mirror `held` is fetched from (see "Mirrors" above).
    public func name(mirror index: Int, of held: Held) {
        try? held.file.setAttribute(Self.mirrorAttribute, Array(String(index).utf8))
    }

    static let mirrorAttribute = "user.farm.mirror"

    /// How each mirror is used now, by its place in the plan's URLs: its holders, and its pace in bytes a
    /// second when one is known (see "Mirrors" above). A mirror nobody holds a piece of and with no pace
    /// is missing.
    public func mirrorLoad() -> [Int: MirrorLoad] {
        var load: [Int: MirrorLoad] = [:]
        for name in FileSystem.names(path + "/p") {
            guard let mirror = Int(name), let text = try? FileSystem.readFile(path + "/p/" + name, limit: 32),
                  let pace = Double(String(decoding: text, as: UTF8.self)) else { continue }
            load[mirror] = MirrorLoad(holders: 0, pace: pace)
        }
        var live: [Int: Double] = [:]
        for name in FileSystem.names(held) {
            let path = held + "/" + name
            guard let (_, owner) = Self.heldName(name), let claimed = Owner(owner)?.claimedAt,
                  let text = try? FileSystem.attribute(path, Self.mirrorAttribute, limit: 16),
                  let mirror = Int(String(decoding: text, as: UTF8.self)) else { continue }
            load[mirror, default: MirrorLoad(holders: 0, pace: nil)].holders += 1
            guard let st = try? FileSystem.lstat(path), st.size > 0, st.modificationTime - claimed >= Self.paceAfter
            else { continue }
            live[mirror] = max(live[mirror] ?? 0, Double(st.size) / (st.modificationTime - claimed))
        }
        for (mirror, pace) in live { load[mirror]?.pace = pace }
        return load
    }

    public struct MirrorLoad: Sendable {
        public var holders: Int
        public var pace: Double?
    }

    /// Keeps `pace` (bytes a second) as mirror `index`'s, measured by a holder over a second at least.
    public func record(pace: Double, ofMirror index: Int) {
        let stage = spool.scratch.path("pace")
        do {
            try FileSystem.createFile(stage, Array(String(Int(pace)).utf8))
            try FileSystem.rename(stage, path + "/p/" + String(index))
        } catch {
            try? FileSystem.unlink(stage)
        }
    }

    /// Ends `held` where its holder got to, `reached`, leaving the rest to the queue (its mirror is slow).
    /// False when the rest is too small to leave, or the piece is no longer this holder's.
    public func leave(_ held: Held, at reached: Int) -> Bool {
        guard let end = end(of: held), end - reached >= Self.endGameTail else { return false }
        let rest = queued + "/" + Piece(start: reached, end: end).description
        do { try FileSystem.createFile(rest, []) } catch { return false }
        let shortened = heldPath(Piece(start: held.piece.start, end: reached), held.owner)
        do { try FileSystem.rename(heldPath(held.piece, held.owner), shortened) } catch {
            try? FileSystem.unlink(rest)
            return false
        }
        held.moveEnd(to: reached)
        return true
    }

    /// Records that `written` bytes of `held` are in `partial`, which renews its lease. The bytes new since
    /// the last record are written back first (FileDescriptor.syncData(_:)), so that no record reaches the
    /// disk ahead of its bytes: a block of the partial already on disk (a piece's first bytes, or a
    /// neighbour's, share it) is rewritten in place, out of the journal's order, and after a power cut it
    /// would read as data that is not the resource's, where the recovery looks for holes. A record that
    /// cannot be ordered so is not made: the bytes are fetched again if they are lost.
    public func record(_ held: Held, written: Int, in partial: FileDescriptor) {
        let start = held.piece.start
        if written > held.written {
            guard (try? partial.syncData(start + held.written..<start + written)) != nil else { return }
            held.written = written
        }
        try? held.file.resize(to: Int64(held.written))
    }

    /// Where `held` ends now (another transfer may have taken its tail); nil when it is no longer this
    /// holder's: reclaimed, its holder must stop.
    public func end(of held: Held) -> Int? {
        let suffix = "@" + held.owner.raw
        for name in FileSystem.names(self.held) where name.hasSuffix(suffix) {
            guard let (piece, _) = Self.heldName(name) else { continue }
            held.moveEnd(to: piece.end)
            return piece.end
        }
        return nil
    }

    /// `held` is all in the partial: it goes to d/, as far as its holder wrote (past an end moved closer,
    /// the bytes it wrote before it saw the move are the resource's too, and no taker need wait for them).
    /// False when it is no longer this holder's.
    @discardableResult
    public func complete(_ held: Held) -> Bool {
        for _ in 0..<3 {
            guard end(of: held) != nil else { return false }
            let reached = Piece(start: held.piece.start, end: max(held.piece.end, held.piece.start + held.written))
            do {
                try FileSystem.rename(heldPath(held.piece, held.owner), finished + "/" + reached.description)
                return true
            } catch {
                continue  // its end moved between the look and the rename: look again
            }
        }
        return false
    }

    /// Puts `held` back in the queue with the bytes it has (the holder stops, or its transfer failed).
    public func handBack(_ held: Held) {
        guard end(of: held) != nil else { return }
        claims.handBack(LeasedQueue.Claim(name: held.piece.description, owner: held.owner))
    }

    /// Sends back to the queue every held piece whose lease is older than `lease` seconds.
    public func reclaimExpired(lease: Double) { claims.reclaimExpired(lease: lease) }

    /// After a reboot: every piece's record of its bytes in `partial` cut back to what the disk kept of
    /// them. A record is a piece file's size, set as its transfer writes, and the journal may have kept it
    /// while the bytes were still in the page cache: there the partial has a hole (FileSystem.dataEnd). A
    /// done piece with a hole goes back to the queue with the bytes before it: its file cut first, then
    /// renamed (killed between, the next recovery cuts it again). Pieces held by this host's processes of
    /// an earlier boot go back first; others' are their holders'. Returns how many pieces were cut back.
    public func cutBackToTheDisk(partial: String) -> Int {
        claims.release(ownedBy: \.claimedBeforeThisBoot)
        var cut = 0
        for (directory, isDone) in [(queued, false), (finished, true)] {
            for name in FileSystem.names(directory) {
                let path = directory + "/" + name
                guard let piece = Piece(name[...]), let st = try? FileSystem.lstat(path) else { continue }
                let recorded = isDone ? piece.end - piece.start : min(Int(st.size), piece.end - piece.start)
                // No partial: none of its bytes are on disk. One that cannot be read is left as it is.
                guard let end = FileSystem.exists(partial) ? try? FileSystem.dataEnd(partial, from: piece.start)
                    : piece.start else { continue }
                let onDisk = end - piece.start
                guard onDisk < recorded, let fd = try? FileDescriptor.open(path, .writeOnly) else { continue }
                defer { fd.closeQuietly() }
                guard (try? fd.truncate(to: max(0, onDisk))) != nil else { continue }
                if isDone { try? FileSystem.rename(path, queued + "/" + name) }
                cut += 1
            }
        }
        return cut
    }

    /// Drops mirror `index` of the plan's URLs for this resource, saying why (the first reason stays).
    public func drop(mirror index: Int, reason: String) {
        try? FileSystem.createFile(path + "/m/" + String(index), Array(reason.utf8))
    }

    /// The mirrors dropped, by their place in the plan's URLs, with why.
    public func dropped() -> [Int: String] {
        var reasons: [Int: String] = [:]
        for name in FileSystem.names(path + "/m") {
            guard let index = Int(name) else { continue }
            reasons[index] = (try? FileSystem.readFile(path + "/m/" + name, limit: 4096))
                .map { String(decoding: $0, as: UTF8.self) } ?? "failed"
        }
        return reasons
    }

    /// The pieces held now, with their holders.
    public func holders() -> [(piece: Piece, owner: Owner)] {
        claims.claims().compactMap { claim in Piece(claim.name[...]).map { ($0, claim.owner) } }
    }

    /// Pieces done and held, and all of them: a piece taken over counts as one more.
    public func counts() -> PieceCounts {
        let done = FileSystem.names(finished).count, active = FileSystem.names(held).count
        return PieceCounts(done: done, active: active, total: done + active + FileSystem.names(queued).count)
    }

    /// Bytes of the resource in the partial as its pieces recorded them (overlaps counted twice): what
    /// its one percentage is made of.
    public func bytesIn() -> Int {
        var bytes = FileSystem.names(finished).compactMap { Piece($0[...]) }.reduce(0) { $0 + $1.end - $1.start }
        for directory in [held, queued] {
            for name in FileSystem.names(directory) {
                bytes += (try? FileSystem.lstat(directory + "/" + name)).map { Int($0.size) } ?? 0
            }
        }
        return bytes
    }

    /// Whether the done pieces cover the whole resource.
    public func isWhole(size: Int) -> Bool { covers(Piece(start: 0, end: size)) }

    /// Whether the done pieces cover `piece`: its holder has nothing left to fetch.
    public func covers(_ piece: Piece) -> Bool {
        var reached = piece.start
        for done in FileSystem.names(finished).compactMap({ Piece($0[...]) }).sorted(by: { $0.start < $1.start }) {
            if done.end <= reached { continue }
            if done.start > reached { return false }
            reached = done.end
            if reached >= piece.end { return true }
        }
        return reached >= piece.end
    }

    /// Removes the board: the resource is whole, or is fetched another way.
    public func remove() {
        // Out of pieces/ by one rename first, so no transfer takes a piece of a board half removed.
        let doomed = spool.scratch.path("pieces-gone")
        guard (try? FileSystem.rename(path, doomed)) != nil else { return }
        try? FileSystem.removeTree(doomed)
    }

    private func heldPath(_ piece: Piece, _ owner: Owner) -> String { held + "/" + piece.description + "@" + owner.raw }

    private func open(_ path: String, piece: Piece, owner: Owner) -> Held? {
        guard let file = try? FileDescriptor.open(path, .writeOnly),
              let size = try? file.status().size else { return nil }
        return Held(piece: piece, owner: owner, written: min(Int(size), piece.end - piece.start), file: file)
    }

    static func heldName(_ name: String) -> (Piece, String)? {
        guard let at = name.firstIndex(of: "@"), let piece = Piece(name[..<at]) else { return nil }
        return (piece, String(name[name.index(after: at)...]))
    }
}

extension Spool {
    /// The board of the resource whose bytes go to `partialPath` (it need not exist).
    public func pieceBoard(ofPartial partialPath: String) -> PieceBoard {
        let name = partialPath.lastIndex(of: "/").map { String(partialPath[partialPath.index(after: $0)...]) }
            ?? partialPath
        return PieceBoard(spool: self, path: pieces + "/" + name)
    }


    /// Every board, with the path of the partial its pieces are written to.
    public func pieceBoards() -> [(board: PieceBoard, partial: String)] {
        FileSystem.names(pieces).map { name in
            (PieceBoard(spool: self, path: pieces + "/" + name), partial + "/" + name)
        }
    }
}
