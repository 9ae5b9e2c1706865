import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

/// Where the following of a paged list stands (SPEC §7): one line of its page log,
/// `lists/<list>.pages`, which gains a line per page added (see "Pages" in Lists.swift). The last
/// whole line is the list's state; the earlier ones are the pages fetched, which is how a page
/// fetched before is known.
public struct PageState: Equatable, Sendable, JSONRecord {
    /// Pages fetched and added so far.
    public var fetched: Int
    /// The URL of the next page to fetch; nil once the list is done.
    public var next: String?
    /// The URL of the page this line records; nil on the first line, which `farm add` writes.
    public var page: String?
    /// No page is left to fetch: the last one said so, or a page stopped the list (`error`).
    public var done: Bool
    /// Why the list stopped before its end: `page 3: …`.
    public var error: String?
    /// Items without a URL, skipped, over every page so far.
    public var skipped: Int
    /// What `--list-title` found in the first page.
    public var title: String?
    /// What `--list-cover` found in the first page: the cover's URL; its display image once downloaded
    /// (`cover`), or why it could not be (`coverError`).
    public var coverURL: String?
    public var cover: String?
    public var coverError: String?
    /// The resource table as this line leaves it: lines and bytes.
    public var lines: Int
    public var bytes: Int
    /// Where the resources added since the line before start (table line and byte): a page fetched
    /// again is compared with them, and with anything added after them.
    public var fromLine: Int
    public var from: Int

    /// The first line of a list's log: nothing fetched, the first page next.
    public init(first url: String) {
        fetched = 0
        next = url
        done = false
        skipped = 0
        lines = 0
        bytes = 0
        fromLine = 0
        from = 0
    }

    /// Whether the cover was found and neither made nor given up on yet.
    public var coverPending: Bool { coverURL != nil && cover == nil && coverError == nil }

    /// Nothing is left to do for the list: its pages are in and its cover is made or given up on.
    public var isFinal: Bool { done && !coverPending }

    package func encoded() -> [UInt8] { JSON.encode(self) }
}

extension Lists {

    /// `lists/<list>.pages`: the page log of a list still followed.
    public func pageLogPath(ofList id: String) -> String { spool.path(.lists, id + ListFiles.pageLogSuffix) }
    /// `lists/<list>.paged`: the page log of a list whose pages are all in (or that stopped).
    public func finishedPageLogPath(ofList id: String) -> String {
        spool.path(.lists, id + ListFiles.finishedPageLogSuffix)
    }

    /// What a paged list's cover and its display image are named from: `files/<list>/cover`, to which
    /// each adds its suffix (`.jpg`, `.page1.png`…), as a resource's outputs do to its number.
    public func coverBase(ofList id: String) -> String { spool.outputDirectory(ofList: id) + "/cover" }

    /// Whether `name` in files/<list>/ is one of the list's cover files.
    package static func isCoverName(_ name: String) -> Bool { name.hasPrefix("cover.") }

    /// The list whose status a change of `name` in lists/ may change: its record, its order (edits, pages),
    /// its page log, or a robots.txt it keeps (the start origin's Crawl-delay, `shownList`); nil for any other name.
    public static func listID(ofShownFileName name: String) -> String? {
        if let id = ListFiles.listID(ofRecordName: name) { return id }
        if ListFiles.isRobotsFile(name) { return name.split(separator: ".", maxSplits: 1).first.map(String.init) }
        let suffixes = [ListFiles.orderSuffix, ListFiles.pageLogSuffix, ListFiles.finishedPageLogSuffix]
        for suffix in suffixes where name.hasSuffix(suffix) {
            let id = String(name.dropLast(suffix.count))
            return ListID.isValid(id) ? id : nil
        }
        return nil
    }

    /// Whether `name` in lists/ is a page log (`<list>.pages` or `<list>.paged`).
    package static func isPageLog(_ name: String) -> Bool {
        for suffix in [ListFiles.pageLogSuffix, ListFiles.finishedPageLogSuffix] where name.hasSuffix(suffix) {
            return ListID.isValid(String(name.dropLast(suffix.count)))
        }
        return false
    }

    /// The lists whose pages are still followed (one readdir of lists/).
    public func listsFollowingPages() -> [String] {
        FileSystem.names(spool.lists.folder).compactMap { name in
            guard name.hasSuffix(ListFiles.pageLogSuffix) else { return nil }
            let id = String(name.dropLast(ListFiles.pageLogSuffix.count))
            return ListID.isValid(id) ? id : nil
        }
    }

    /// The state of paged list `id`: the last whole line of its log (read from the end: a log of
    /// 10,000 pages is not read whole); nil for a list that is not paged.
    public func pageState(ofList id: String) -> PageState? {
        for path in [pageLogPath(ofList: id), finishedPageLogPath(ofList: id)] {
            guard let fd = try? FileDescriptor.open(path, .readOnly) else { continue }
            defer { fd.closeQuietly() }
            return Self.lastLine(of: fd).flatMap { JSON.decode(PageState.self, from: $0) }
        }
        return nil
    }

    /// Every state of paged list `id`'s log, in order (the follower reads it once, for the pages fetched).
    public func pageLog(ofList id: String) -> [PageState] {
        for path in [pageLogPath(ofList: id), finishedPageLogPath(ofList: id)] {
            guard let bytes = try? FileSystem.readFile(path, limit: 1 << 30) else { continue }
            let whole = bytes.lastIndex(of: 0x0A).map { bytes[...$0] } ?? []
            return whole.split(separator: 0x0A).compactMap { JSON.decode(PageState.self, from: $0) }
        }
        return []
    }

    /// The last line of the file, ended by a newline (a line cut short by a writer killed mid-append is
    /// no line), read backwards a chunk at a time.
    private static func lastLine(of fd: FileDescriptor) -> ArraySlice<UInt8>? {
        guard let size = try? Int(fd.status().size), size > 0 else { return nil }
        var chunk = 1 << 12
        while true {
            let start = max(0, size - chunk)
            var bytes = [UInt8](repeating: 0, count: size - start)
            let count = (try? bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try fd.read(at: start, into: buffer) }
            }.get()) ?? 0
            bytes.removeSubrange(count...)
            guard let end = bytes.lastIndex(of: 0x0A) else {
                if start == 0 { return nil }
                chunk *= 4
                continue
            }
            if let newline = bytes[..<end].lastIndex(of: 0x0A) { return bytes[(newline + 1)..<end] }
            if start == 0 { return bytes[..<end] }
            chunk *= 4
        }
    }

    /// Appends `state` to the log of list `id`, durably; a final state then renames the log to `.paged`.
    /// Called under the list's edit lock. A line cut short by a killed writer is cut off first.
    func appendPageState(_ state: PageState, ofList id: String) throws(SpoolError) {
        let path = pageLogPath(ofList: id)
        do {
            try appendDurably(state.encoded(), to: path, cuttingPartialLine: true)
            if state.isFinal {
                try FileSystem.rename(path, finishedPageLogPath(ofList: id))
                try FileSystem.syncDirectory(spool.lists.folder)
            }
        } catch {
            throw SpoolError(.io, "cannot record page \(state.fetched) of list \(id)", cause: error)
        }
    }

    /// Records a new state of paged list `id` that adds no resource (its cover made, its end when a page
    /// stopped it), under its edit lock, unless the log moved on from `expected` meanwhile (then returns false).
    public func recordPageState(_ state: PageState, ofList id: String, after expected: PageState) throws(SpoolError)
        -> Bool {
        try lockingList(id) { () throws(SpoolError) in
            guard pageState(ofList: id) == expected else { return false }
            try appendPageState(state, ofList: id)
            return true
        }
    }

    /// Renames the log of list `id`, whose last line is done, to `.paged`: what a follower killed between
    /// that line and the rename left undone.
    public func finishPageLog(ofList id: String) throws(SpoolError) {
        try lockingList(id) { () throws(SpoolError) in
            guard let state = pageState(ofList: id), state.isFinal, FileSystem.exists(pageLogPath(ofList: id)) else {
                return
            }
            do {
                try FileSystem.rename(pageLogPath(ofList: id), finishedPageLogPath(ofList: id))
                try FileSystem.syncDirectory(spool.lists.folder)
            } catch {
                throw SpoolError(.io, "cannot finish the page log of list \(id)", cause: error)
            }
        }
    }

    /// Appends `bytes` to the file at `path` (made when missing) and syncs it. With `cuttingPartialLine`,
    /// a last line without its newline (its writer was killed) is cut off first; with `wholeOf`, the file
    /// is cut to a multiple of that many bytes first. Only under the lock of whatever the file belongs to.
    /// Returns the file's size after the append.
    @discardableResult
    func appendDurably(_ bytes: [UInt8], to path: String, cuttingPartialLine: Bool = false, wholeOf unit: Int? = nil)
        throws(Errno) -> Int {
        let fd = try FileDescriptor.open(path, .readWrite, options: [.create, .append], permissions: 0o600)
        defer { fd.closeQuietly() }
        var size = Int(try fd.status().size)
        if let unit, size % unit != 0 {
            size -= size % unit
            try fd.truncate(to: size)
        }
        if cuttingPartialLine, size > 0 {
            var last: UInt8 = 0
            _ = try withUnsafeMutableBytes(of: &last) { buffer in
                Result { () throws(Errno) in try fd.read(at: size - 1, into: buffer) }
            }.get()
            if last != 0x0A {
                size = try Self.wholeLinesLength(fd, size: size)
                try fd.truncate(to: size)
            }
        }
        try fd.write(contentsOf: bytes)
        try fd.sync()
        return size + bytes.count
    }

    /// How many bytes of a file of `size` bytes are whole lines: up to and with its last newline.
    private static func wholeLinesLength(_ fd: FileDescriptor, size: Int) throws(Errno) -> Int {
        var end = size
        var chunk = [UInt8](repeating: 0, count: 1 << 12)
        while end > 0 {
            let start = max(0, end - chunk.count)
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in
                    try fd.read(at: start, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<(end - start)]))
                }
            }.get()
            if let newline = chunk[..<count].lastIndex(of: 0x0A) { return start + newline + 1 }
            end = start
        }
        return 0
    }
}
