import FarmSpool
import FarmSystem
import SystemPackage

/// The partial download of one URL, `partial/u<key>` (see Dedup.swift). Its flock is the
/// URL's lock: whoever holds it is the URL's one transfer and writes the bytes; a job of the same URL
/// that finds it held waits. Its bytes outlive a killed holder under the same name, so the next job of
/// the URL resumes them by taking the lock: nothing is moved, nothing adopted. The attribute
/// `user.farm.holder` names the holder's claim, so that waiters can tell a holder whose claim is gone.
public final class URLPartial {
    public let path: String
    public let fd: FileDescriptor
    /// False for a job's own partial (`partial/<job>`): a transfer that goes without the URL's lock.
    public let isURLs: Bool
    /// Made by a job marked own, in its first claim (FarmLists' URLSharing.swift): it names no holder, and
    /// its bytes become no URL record.
    public private(set) var isOwnJobs = false
    /// Its names when it was taken: more than one when it is also a name of stored bytes (its holder
    /// died after publishing them, or gave back an output), which must never be written (it would
    /// change what every other name shows).
    private let linkCount: Int
    private var closed = false
    /// Its bytes as last seen by this holder, until something else may have written it (`takeSize`).
    private var size: Int?

    private init(path: String, fd: FileDescriptor, isURLs: Bool, linkCount: Int, size: Int) {
        self.path = path
        self.fd = fd
        self.isURLs = isURLs
        self.linkCount = linkCount
        self.size = size
    }

    /// Its size as this holder last saw it, once: a transfer then writes it, and the next asks the file.
    public func takeSize() -> Int? {
        defer { size = nil }
        return size
    }

    /// Whether it was empty when taken (and no transfer has written it since): known without a look.
    public var isSurelyEmpty: Bool { size == 0 }

    public enum Take {
        case held(URLPartial)
        /// Another process holds it; the claim it names, when it names one.
        case busy(holder: ActiveName?)
        /// The file cannot be opened or made (the reason, for the log).
        case failed(Errno)
    }

    static let holderAttribute = "user.farm.holder"

    /// Takes the partial of `url` without waiting, making it (empty) when there is none.
    public static func take(_ spool: Spool, url: String) -> Take {
        take(path: Dedup(spool).partialPath(url: url), isURLs: true)
    }

    /// Makes the partial of `url` for a job marked own in its first claim: held when this call made it
    /// (O_EXCL) and locked it, with no look at its inode (nobody else touches it; see URLSharing.swift).
    /// Nil when it was there already, or locked by another first: the job takes the whole protocol.
    public static func takeNew(_ spool: Spool, url: String) -> URLPartial? {
        let path = Dedup(spool).partialPath(url: url)
        guard let fd = try? FileDescriptor.open(path, .readWrite, options: [.create, .exclusiveCreate],
                                                permissions: 0o600) else { return nil }
        guard (try? fd.tryLock()) == true else {
            fd.closeQuietly()
            return nil
        }
        let partial = URLPartial(path: path, fd: fd, isURLs: true, linkCount: 1, size: 0)
        partial.isOwnJobs = true
        return partial
    }

    /// Takes the job's own partial, for a transfer that cannot wait for its URL's holder.
    public static func takeOwn(_ spool: Spool, job: JobName) -> Take {
        take(path: spool.partialPath(job), isURLs: false)
    }

    private static func take(path: String, isURLs: Bool) -> Take {
        while true {
            let fd: FileDescriptor
            do { fd = try FileDescriptor.open(path, .readWrite, options: .create, permissions: 0o600) } catch {
                return .failed(error)
            }
            guard (try? fd.tryLock()) == true else {
                let holder = fd.attribute(holderAttribute).flatMap { ActiveName(String(decoding: $0, as: UTF8.self)) }
                fd.closeQuietly()
                return .busy(holder: holder)
            }
            // The file locked may have been renamed away (stored as an output) or unlinked between the
            // open and the lock: only the file the name still holds is the URL's.
            if let mine = try? fd.status(), let named = try? FileSystem.lstat(path), mine.inode == named.inode,
               mine.deviceID == named.deviceID {
                return .held(URLPartial(path: path, fd: fd, isURLs: isURLs, linkCount: Int(mine.linkCount),
                                         size: Int(mine.size)))
            }
            fd.closeQuietly()
        }
    }

    /// The claim the partial of `url` names as its (last) holder.
    public static func holder(_ spool: Spool, url: String) -> ActiveName? {
        (try? FileSystem.attribute(Dedup(spool).partialPath(url: url), holderAttribute, limit: 512))
            .flatMap { ActiveName(String(decoding: $0, as: UTF8.self)) }
    }

    /// The claim the file names as its last holder (one that died, when the file has bytes).
    public var lastHolder: ActiveName? {
        fd.attribute(Self.holderAttribute).flatMap { ActiveName(String(decoding: $0, as: UTF8.self)) }
    }

    /// Names `claim` as the holder.
    public func hold(for claim: Claim) {
        try? fd.setAttribute(Self.holderAttribute, Array(ActiveName.raw(claim.job, claim.owner, pack: claim.pack).utf8))
    }

    /// Whether the file is also a name of stored bytes (see `linkCount`).
    public var isStoredName: Bool { linkCount > 1 }

    /// Starts the bytes over (a fresh job does not resume another's transfer).
    public func discardBytes() {
        size = (try? fd.truncate(to: 0)) != nil ? 0 : nil
    }

    /// Deletes the file while holding it (its bytes serve nobody), and lets go.
    public func drop() {
        try? FileSystem.unlink(path)
        close()
    }

    /// Lets go (once; later calls do nothing). The file stays for whoever takes it next.
    public func close() {
        guard !closed else { return }
        closed = true
        fd.closeQuietly()
    }

}

extension Dedup {
    /// `partial/u<key>`: the bytes of `url` transferred so far (see URLPartial).
    public func partialPath(url: String) -> String { partialPath(urlKey: Self.urlKey(url)) }
    func partialPath(urlKey key: String) -> String { spool.path(.partial, Self.urlPartialPrefix + key) }
    package static let urlPartialPrefix = "u"

    /// Whether the claim `name` is still its owner's (its active file is there).
    public func isClaimed(_ name: ActiveName) -> Bool { FileSystem.exists(spool.path(.active, name.raw)) }

    /// Deletes the job's own partial download (`partial/<job>`, a transfer without its URL's lock) when
    /// nobody writes it.
    public func dropOwnPartial(of job: JobName) { FileSystem.unlinkUnlessLocked(spool.partialPath(job)) }

    /// Deletes the partial downloads of `job` that nobody writes: its own, and its URL's (`url`; another
    /// job of that URL then transfers from its start). For a removed or reloaded resource.
    public func dropPartials(of job: JobName, url: String?) {
        FileSystem.unlinkUnlessLocked(spool.partialPath(job))
        if let url { FileSystem.unlinkUnlessLocked(partialPath(url: url)) }
    }
}
