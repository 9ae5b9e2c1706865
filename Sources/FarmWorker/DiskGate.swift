import FarmSpool
import FarmSystem

/// One worker's view of the disk guard (`DiskRoom`): whether it may claim a new job. Asks statvfs at
/// most every `look` seconds, never per byte, and only every `shortLook` while the disk is short, when
/// the worker is idle anyway.
///
/// A write that found the disk full closes the gate until the free bytes grow `regrowth` past what
/// they were then, whatever the minimum says: the job it handed back comes first in the queue, and
/// claiming it again before anyone freed space would only fail again, once a look, for as long as the
/// disk stays full (with `--min-free 0`, or a conversion bigger than the minimum). Owned by the worker thread.
final class DiskGate {
    /// The longest a cached answer is used while there is room.
    static let look = 0.5
    /// How often an idle worker looks again while the disk is short.
    static let shortLook = 1.0
    /// How much room must come back after a write found the disk full: more than the noise of the
    /// farm's own small files.
    static let regrowth = 1 << 20

    private let spool: Spool
    private let minFree: Int?
    private var nextLook = -Double.infinity
    private var short = false
    /// The free bytes when a write last found the disk full, until space was freed.
    private var freeWhenFull: Int?

    init(spool: Spool, minFree: Int?) {
        self.spool = spool
        self.minFree = minFree
    }

    /// Whether a new transfer may start (`now`: the monotonic clock): false while the free bytes are
    /// under the minimum, or a write found the disk full and no space was freed since.
    func allowsClaim(now: Double) -> Bool {
        guard now >= nextLook else { return !short }
        // statvfs failing says nothing about the room: it never stops the farm.
        let room = spool.diskRoom(minFree: minFree)
        if let full = freeWhenFull, let room, room.free <= full + Self.regrowth {
            short = true
        } else {
            freeWhenFull = nil
            short = room?.isShort ?? false
        }
        nextLook = now + (short ? Self.shortLook : Self.look)
        return !short
    }

    /// A write found the disk full (its job is handed back): no claim until space is freed.
    func foundFull() {
        freeWhenFull = spool.diskRoom(minFree: minFree)?.free ?? 0
        short = true
        nextLook = Clock.monotonic() + Self.shortLook
    }
}
