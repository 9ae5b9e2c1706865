import FarmDesired
import FarmSpool
import FarmSystem

/// One worker's view of the disk guard (`DiskRoom`): whether it may claim a new job. Asks statvfs at
/// most every `look` seconds, never per byte, and only every `shortLook` while the disk is short, when
/// the worker is idle anyway.
///
/// A write that found the disk full closes the gate until the free bytes grow `regrowth` past what
/// they were then, whatever the minimum says: the job it handed back comes first in the queue, and
/// claiming it again before anyone freed space would only fail again, once a look, for as long as the
/// disk stays full (with `--min-free 0`, or a conversion bigger than the minimum). The worker thread
/// asks; its converter may find the disk full too.
final class DiskGate: Sendable {
    /// The longest a cached answer is used while there is room.
    static let look = 0.5
    /// How often an idle worker looks again while the disk is short.
    static let shortLook = 1.0
    /// How much room must come back after a write found the disk full: more than the noise of the
    /// farm's own small files.
    static let regrowth = 1 << 20

    private struct State {
        var nextLook = -Double.infinity
        var short = false
        /// The free bytes when a write last found the disk full, until space was freed.
        var freeWhenFull: Int?
    }

    private let spool: Spool
    private let minFree: Int?
    private let state = Locked(State())

    init(spool: Spool, minFree: Int?) {
        self.spool = spool
        self.minFree = minFree
    }

    /// Whether a new transfer may start (`now`: the monotonic clock): false while the free bytes are
    /// under the minimum, or a write found the disk full and no space was freed since.
    func allowsClaim(now: Double) -> Bool {
        state.withLock { state in
            guard now >= state.nextLook else { return !state.short }
            // statvfs failing says nothing about the room: it never stops the farm.
            let room = spool.diskRoom(minFree: minFree)
            if let full = state.freeWhenFull, let room, room.free <= full + Self.regrowth {
                state.short = true
            } else {
                state.freeWhenFull = nil
                state.short = room?.isShort ?? false
            }
            state.nextLook = now + (state.short ? Self.shortLook : Self.look)
            return !state.short
        }
    }

    /// A write found the disk full (its job is handed back): no claim until space is freed.
    func foundFull() {
        let free = spool.diskRoom(minFree: minFree)?.free ?? 0
        state.withLock { state in
            state.freeWhenFull = free
            state.short = true
            state.nextLook = Clock.monotonic() + Self.shortLook
        }
    }
}
