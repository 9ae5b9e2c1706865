import FarmSystem
import SystemPackage

/// The lock of one URL's transfer, `urls/<key>.lock` (see "Once" in the protocol): an flock held by the
/// one worker transferring the URL; the file holds that worker's claim (`<job>@<owner>`), so whoever
/// takes it after a death adopts the partial bytes of that claim's job.
public final class URLLock {
    let spool: Spool
    let path: String
    private let fd: FileDescriptor
    private var released = false

    private init(spool: Spool, path: String, fd: FileDescriptor) {
        self.spool = spool
        self.path = path
        self.fd = fd
    }

    /// Takes the lock of `url` without waiting; nil when another process holds it.
    public static func take(_ spool: Spool, url: String) -> URLLock? {
        let path = spool.urlLockPath(key: Spool.urlKey(url))
        for _ in 0..<3 {
            guard let fd = try? FileDescriptor.open(path, .readWrite, options: .create, permissions: 0o600) else {
                return nil
            }
            guard (try? fd.tryLock()) == true else {
                fd.closeQuietly()
                return nil
            }
            // A holder unlinks the file before it lets go: the lock of an unlinked file is nobody's.
            if let mine = try? fd.status(), let named = try? FileSystem.lstat(path), mine.inode == named.inode {
                return URLLock(spool: spool, path: path, fd: fd)
            }
            fd.closeQuietly()
        }
        return nil
    }

    /// The claim the lock file of `url` names: its holder's, or its last holder's that died.
    public static func holder(_ spool: Spool, url: String) -> ActiveName? {
        (try? FileSystem.readFile(spool.urlLockPath(key: Spool.urlKey(url)), limit: 512))
            .flatMap { ActiveName(String(decoding: $0, as: UTF8.self)) }
    }

    /// The claim of the last holder, as the file names it.
    public var lastHolder: ActiveName? {
        guard let bytes = try? fd.readAll(limit: 512) else { return nil }
        return ActiveName(String(decoding: bytes, as: UTF8.self))
    }

    /// Names `claim` as the holder.
    public func hold(for claim: Claim) {
        let name = Array(ActiveName.raw(claim.job, claim.owner).utf8)
        _ = try? fd.truncate(to: 0)
        _ = name.withUnsafeBytes { try? fd.write(contentsOf: $0, at: 0) }
    }

    /// Lets go (once; later calls do nothing). With `keepFile` the file stays, naming the claim whose partial download the next holder
    /// adopts; otherwise it goes first, so nobody takes a lock of a name that is gone.
    public func release(keepFile: Bool) {
        guard !released else { return }
        released = true
        if !keepFile { try? FileSystem.unlink(path) }
        fd.closeQuietly()
    }
}

extension Spool {
    /// Whether the claim `name` is still its owner's (its active file is there).
    public func isClaimed(_ name: ActiveName) -> Bool { FileSystem.exists(activePath(name.job, name.owner)) }

    /// Moves the partial download of `from` (a dead holder's of the same URL) to `to`, unless `to` has
    /// as many bytes already or someone writes it. True when it moved.
    @discardableResult
    public func adoptPartial(of from: JobName, into to: JobName) -> Bool {
        guard from != to, let fd = try? FileDescriptor.open(partialPath(from), .readOnly) else { return false }
        defer { fd.closeQuietly() }
        guard (try? fd.tryLock()) == true, let theirs = try? fd.status() else { return false }
        if let mine = try? FileSystem.lstat(partialPath(to)), mine.size >= theirs.size { return false }
        return (try? FileSystem.rename(partialPath(from), partialPath(to))) != nil
    }
}
