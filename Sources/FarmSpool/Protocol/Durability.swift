import FarmSystem
import SystemPackage

/// Durability of finished jobs: made durable in bulk by the watcher's syncfs every second and the mark
/// `control/synced`, and checked by the first watcher after a reboot. Why no download is fsynced, and what
/// each step of a power cut leaves: PROTOCOL.md, "Durability and power cuts". The supervisor's half of a new
/// boot's recovery is FarmLists' Redo.swift. A part of a `Spool`, reached as `spool.durability`. A value; any
/// thread.
public struct Durability: Sendable {
    private let spool: Spool

    init(_ spool: Spool) { self.spool = spool }

    /// This boot of the machine, as the kernel names it.
    package static let boot: String = {
        let bytes = (try? FileSystem.readFile("/proc/sys/kernel/random/boot_id", limit: 64)) ?? []
        return String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
    }()

    /// When this boot began, by the wall clock.
    package static var bootTime: Double { Clock.wall() - Clock.sinceBoot() }

    /// How far back a job file's ctime may sit behind the real time of its rename (coarse clocks).
    package static let clockSlack = 1.0

    var markPath: String { spool.control.path(.synced) }

    /// `control/synced`: every job that reached done/ before `time` during `boot` is on disk.
    package struct SyncMark: Equatable {
        package var boot: String
        package var time: Double
    }

    package func mark() -> SyncMark? {
        guard let bytes = try? FileSystem.readFile(markPath, limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let time = Double(fields[1]) else { return nil }
        return SyncMark(boot: String(fields[0]), time: time)
    }

    /// Marks every job finished before this boot as checked (`recheckAfterReboot` in FarmLists).
    package func markBootChecked() throws(SpoolError) {
        try writeMark(SyncMark(boot: Self.boot, time: Self.bootTime))
    }

    func writeMark(_ mark: SyncMark) throws(SpoolError) {
        try spool.scratch.replace(markPath, with: Array("\(mark.boot) \(mark.time)\n".utf8), durable: false)
    }

    /// When a job reached done/ since the last mark or a job is claimed: one syncfs, then a new mark.
    /// Returns whether it synced. The watcher calls it every second.
    @discardableResult
    public func syncFinished() throws(SpoolError) -> Bool {
        let last = mark()
        if let last, last.boot == Self.boot, finishedLists(since: last.time).isEmpty, !spool.hasClaims { return false }
        let time = Clock.wall()
        do { try FileSystem.syncFileSystem(spool.root) } catch {
            throw SpoolError(.io, "cannot sync \(spool.root)", cause: error)
        }
        try writeMark(SyncMark(boot: Self.boot, time: time))
        return true
    }

    /// The lists with a done/<list>/ folder modified since `time` (less the clock slack).
    package func finishedLists(since time: Double) -> [String] {
        ((try? FileSystem.listDirectory(spool.done)) ?? []).filter { list in
            guard ListID.isValid(list), let st = try? FileSystem.lstat(spool.done + "/" + list) else { return false }
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

extension Spool {
    /// The bulk durability of finished jobs and its mark.
    public var durability: Durability { Durability(self) }
}
