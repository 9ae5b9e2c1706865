import FarmSystem
import SystemPackage

/// Where lists recorded as WARC (SPEC §18, `farm add --warc DIR`) keep their state in the spool, `warc/`: what
/// it means is FarmWorker's WARCArchive.swift, and the records themselves are in the user's DIR. A part of a
/// `Spool`, reached as `spool.warc`. A value; any thread.
public struct WARCFiles: Sendable {
    private let spool: Spool
    /// `warc/`: made on first use, by the first list with `--warc`.
    public var folder: String { spool.root + "/warc" }

    init(_ spool: Spool) { self.spool = spool }

    /// A job's exchange as an earlier version noted it, `warc/marks/<job>`: still read, never written (the
    /// marks are by URL now, below).
    public var marks: String { folder + "/marks" }
    public func mark(_ job: JobName) -> String { marks + "/" + job.raw }
    /// Which URLs of a list are recorded, and where, `warc/urls/<list>/<key>` (`key`: the URL's name in urls/,
    /// its SHA-256): what keeps a URL that several of its jobs fetch (a redirect's target, a page also linked)
    /// or that one job fetches again (its redo after a kill) to one response record (FarmWorker's WARCArchive).
    public var urlMarks: String { folder + "/urls" }
    public func urlMarks(ofList id: String) -> String { urlMarks + "/" + id }
    public func urlMark(ofList id: String, key: String) -> String { urlMarks(ofList: id) + "/" + key }
    /// The response records of a list's URLs that a later fetch superseded, to drop from their files,
    /// `warc/drops/<list>/<key>` (`key` as in urlMark): noted before the URL's mark names the new response, so
    /// that a kill never leaves the old one in the archive unnoted (FarmWorker's WARCDrops).
    public var drops: String { folder + "/drops" }
    public func drops(ofList id: String) -> String { drops + "/" + id }
    public func drop(ofList id: String, key: String) -> String { drops(ofList: id) + "/" + key }
    /// The WARC folders of the spool's lists, one file each, `warc/folders/<16 hex digits>`, holding the
    /// folder's path: where recovery finishes the files of dead writers.
    public var folders: String { folder + "/folders" }

    /// Notes `folder` (absolute) as a WARC folder of this spool, once however often it is given.
    public func register(_ warcFolder: String) throws(Errno) {
        try FileSystem.ensureDirectories(folders)
        try FileSystem.ensureDirectory(marks)
        let entry = folders + "/" + Self.folderKey(warcFolder)
        if (try? FileSystem.readFile(entry)) == Array(warcFolder.utf8) { return }
        try spool.scratch.writeWhole(Array(warcFolder.utf8), to: entry, durable: true)
    }

    /// The WARC folders noted (`register`); none when no list ever had `--warc` (one failed directory listing).
    public func folderPaths() -> [String] {
        guard let names = try? FileSystem.listDirectory(folders) else { return [] }
        return names.compactMap { name in
            (try? FileSystem.readFile(folders + "/" + name)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// FNV-1a (64 bits) of the path, in hex: a name for it with no character of its own.
    private static func folderKey(_ folder: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in folder.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return withUnsafeBytes(of: hash.bigEndian) { Hex.lowercase($0) }
    }
}

extension Spool {
    /// The WARC state of the spool's lists.
    public var warc: WARCFiles { WARCFiles(self) }
}
