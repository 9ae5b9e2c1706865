// `--convert-links` (SPEC §18, wget's -k): a recursive list's delivered pages made browsable offline
// =================================================================================================
//
// Once the list is finished (every resource done or failed; the watcher says when, FarmWatcher's
// LinkConverter), each delivered page and stylesheet is written again with its links rewritten by
// FarmMirror's LinkRewrite: to what the list fetched, the relative path between the two delivered files;
// to what it did not, the absolute URL. Then `lists/<list>.converted` says it is done.
//
// Kill-safe because every step can be done again from the start: a file is converted from the spool's
// copy of the download (never from the delivered file, which may be converted already), written beside
// the delivered one, synced and renamed over it, so a kill leaves each delivered file whole, old or new;
// the mark is written only once every file is. A kill before the mark: the next watcher converts the
// whole list again, to the same bytes. A later delivery of the list (a reload, a retry, `farm item`)
// removes the mark after its bytes are in (Delivery.swift), so the list is converted again once it is
// finished again.
//
// What is read as a page: a done resource of kind `other` whose bytes open with a tag and that was
// expected to be HTML (a link of `a`, a frame, the start URL); as a stylesheet: one expected as CSS or
// named `.css`. A page served under another Content-Type but opening with a tag is converted too (the
// Content-Type is not kept), where wget would leave it.
import FarmMirror
import FarmSpool
import FarmSystem

extension Lists {
    /// Most bytes of a page converted; a longer one stays as fetched (the crawl reads no more of it either).
    static let conversionLimit = 64 << 20

    /// Whether list `id` converts its links (`--convert-links`) and has not since its last delivery.
    public func linksToConvert(ofList id: String, record: ListRecord) -> Bool {
        record.delivery?.convertsLinks == true && !FileSystem.exists(spool.lists.convertedMarkPath(ofList: id))
    }

    /// Converts the links of every delivered page and stylesheet of list `id` (see the header) and marks
    /// the list converted; returns how many files were written again. A file that cannot be (gone, replaced
    /// by the user, unreadable) is said in the log and left; the spool failing throws, unmarked.
    @discardableResult
    public func convertLinks(ofList id: String) throws(SpoolError) -> Int {
        guard let record = spool.list(id), let delivery = record.delivery, delivery.convertsLinks else { return 0 }
        let table = spool.lists.resources(ofList: id) ?? []
        let folder = delivery.folder + "/"
        // Every done resource with its delivered file, by URL: what a link may point to.
        var files: [(job: JobName, record: JobRecord, sidecar: Sidecar, path: String)] = []
        var local: [WebURL: String] = [:]
        for number in order(ofList: id, total: record.total).numbers where number < table.count {
            let job = JobName(list: id, index: number)
            guard let sidecar = spool.sidecars.last(job, finished: [.done]), let delivered = sidecar.delivered,
                  delivered.hasPrefix(folder), let url = WebURL(table[number].url) else { continue }
            let path = String(delivered.dropFirst(folder.count))
            local[url] = local[url] ?? path
            files.append((job, table[number], sidecar, path))
        }
        let deliveries = Deliveries(spool: spool)
        var converted = 0
        for file in files where file.sidecar.kind == "other" {
            guard let url = WebURL(file.record.url), let stored = file.sidecar.file,
                  let bytes = try? FileSystem.readFile(stored, limit: Self.conversionLimit),
                  bytes.count < Self.conversionLimit else { continue }
            let expects = file.record.expects ?? ""
            let spans: [LinkSpan]
            if expects.contains("css") || url.path.hasSuffix(".css") {
                spans = LinkExtractor.spans(css: bytes, url: url)
            } else if expects.contains("html") && Self.opensWithTag(bytes) {
                spans = LinkExtractor.spans(html: bytes, url: url)
            } else {
                continue
            }
            let rewritten = LinkRewrite.rewrite(bytes, spans: spans, file: file.path) { local[$0] }
            // The same bytes: the delivered file is them already (it is the download or its conversion).
            guard rewritten != bytes else { continue }
            do {
                try deliveries.replace(folder + file.path, with: rewritten, job: file.job,
                                       mode: UInt32(delivery.mode) & 0o7777)
                converted += 1
                Failpoint.hit("convert.replaced")
            } catch {
                spool.log("--convert-links: cannot write \(folder + file.path) again: \(error)")
            }
        }
        do {
            try spool.scratch.writeWhole(Array("\(converted)\n".utf8), to: spool.lists.convertedMarkPath(ofList: id))
        } catch {
            throw SpoolError(.io, "cannot mark the links of list \(id) converted", cause: error)
        }
        return converted
    }

    /// Whether `bytes` open with "<" after blanks and a UTF-8 byte order mark: how a page is told from
    /// other bytes when its Content-Type is no longer known.
    static func opensWithTag(_ bytes: [UInt8]) -> Bool {
        bytes.prefix(1024).first { !(Set<UInt8>([0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF]).contains($0)) } == 0x3C
    }
}
