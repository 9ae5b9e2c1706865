import FarmSystem
import SystemPackage

// Durability of finished jobs. A worker does not fsync a download before its completion: every job
// would wait for the disk, where tools that leave their bytes in the page cache do not (on ext4 the
// large downloads were a third slower for it), and a process crash loses nothing in the page cache
// anyway. What a power loss could do is leave a job in done/ whose download the disk never got (empty or short).
// So finished jobs are made durable in bulk, and checked after a reboot:
//
// - Every second, when a job reached done/ since the last mark or a job is claimed (its transfer
//   writing a partial), the watcher syncs the file system (one syncfs for all of them, in a thread of
//   its own: no transfer waits for it) and then writes the mark `control/synced`: this boot's id and
//   the time the sync began. Every job that reached done/ before that time is on disk, and a partial
//   download has on disk what it had then. So a power cut costs about a second of downloads (SPEC
//   §17: at most a few seconds' worth redone), where the kernel's write-back alone would leave up to
//   30 s of them in the page cache.
// - The first watcher of a new boot (the mark names another boot, or there is none) checks every job
//   that reached done/ since the mark (only done/<list>/ folders modified since are read, and only
//   job files whose ctime, set by the completion rename, is that recent): the download must be there
//   with the size its outcome record gives and no hole before it (bytes whose blocks the disk never
//   got, though it kept a size past them: ext4 allocates blocks as it writes them back), and its
//   display image and thumbnail must be there and not empty. A job that fails goes back to the queue
//   with its outputs deleted, as a reload does. Then the mark is moved to the start of this boot.
// - Before that, the supervisor's recovery of a new boot (FarmLists' Redo.swift), before it starts a
//   worker: every claim of this host made before the boot goes back to the queue, its stored outputs
//   and their blobs deleted (a completion rename undone by the power loss leaves the job in active/,
//   maybe with outputs whose bytes the disk did not keep); every partial download is cut back to its
//   first hole, and every piece's record to the bytes of it the partial holds (a record is a file's
//   size, which the journal may keep ahead of the partial's bytes), so no transfer resumes past zeros.
//
// A job in failed/ has no output to lose. The mark is written by rename and not fsynced: lost, the
// older mark is back, and the check covers more.
extension Spool {
    /// This boot of the machine, as the kernel names it.
    package static let boot: String = {
        let bytes = (try? FileSystem.readFile("/proc/sys/kernel/random/boot_id", limit: 64)) ?? []
        return String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
    }()

    /// When this boot began, by the wall clock.
    package static var bootTime: Double { Clock.wall() - Clock.sinceBoot() }

    /// How far back a job file's ctime may sit behind the real time of its rename (coarse clocks).
    package static let clockSlack = 1.0

    var syncMarkPath: String { controlPath(.synced) }

    /// `control/synced`: every job that reached done/ before `time` during `boot` is on disk.
    package struct SyncMark: Equatable {
        package var boot: String
        package var time: Double
    }

    package func syncMark() -> SyncMark? {
        guard let bytes = try? FileSystem.readFile(syncMarkPath, limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let time = Double(fields[1]) else { return nil }
        return SyncMark(boot: String(fields[0]), time: time)
    }

    /// Marks every job finished before this boot as checked (`recheckAfterReboot` in FarmLists).
    package func markBootChecked() throws(SpoolError) {
        try writeSyncMark(SyncMark(boot: Self.boot, time: Self.bootTime))
    }

    func writeSyncMark(_ mark: SyncMark) throws(SpoolError) {
        try replace(syncMarkPath, with: Array("\(mark.boot) \(mark.time)\n".utf8), durable: false)
    }

    /// When a job reached done/ since the last mark or a job is claimed: one syncfs, then a new mark.
    /// Returns whether it synced. The watcher calls it every second.
    @discardableResult
    public func syncFinished() throws(SpoolError) -> Bool {
        let last = syncMark()
        if let last, last.boot == Self.boot, finishedLists(since: last.time).isEmpty, !hasClaims { return false }
        let time = Clock.wall()
        do { try FileSystem.syncFileSystem(root) } catch {
            throw SpoolError(.io, "cannot sync \(root)", cause: error)
        }
        try writeSyncMark(SyncMark(boot: Self.boot, time: time))
        return true
    }

    /// The lists with a done/<list>/ folder modified since `time` (less the clock slack).
    package func finishedLists(since time: Double) -> [String] {
        ((try? FileSystem.listDirectory(done)) ?? []).filter { list in
            guard ListID.isValid(list), let st = try? FileSystem.lstat(done + "/" + list) else { return false }
            return st.modificationTime >= time - Self.clockSlack
        }
    }

    /// Whether the outputs `sidecar` names are on disk: the download whole, no hole in it, the images not empty.
    package static func survived(_ sidecar: Sidecar) -> Bool {
        guard sidecar.status == .done else { return true }
        if let file = sidecar.file {
            // Its size and every byte up to it: a hole is bytes the disk did not keep.
            guard let st = try? FileSystem.lstat(file), st.isRegularFile, Int(st.size) == sidecar.bytes,
                  (try? FileSystem.dataEnd(file)) == sidecar.bytes else {
                return false
            }
        }
        for image in [sidecar.image, sidecar.thumb] {
            guard let image else { continue }
            guard let st = try? FileSystem.lstat(image), st.isRegularFile, st.size > 0 else { return false }
        }
        return true
    }
}
