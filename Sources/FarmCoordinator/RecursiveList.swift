import FarmLists
import FarmMirror
import FarmSpool
import FarmSystem
import FarmTransfer
import Glibc
import SystemPackage

extension Coordinator {
    /// `farm add URL --recursive` (SPEC §18): a list whose one resource is `crawl.start`, at level 0, read as
    /// HTML; the workers append the links of each page they fetch (FarmLists' CrawlAppend.swift). The add
    /// makes no request: the list's first job fetches the start origin's robots.txt before its own request
    /// (FarmWorker's CrawlRobots.swift), so the add neither loads libcurl nor waits for a server. Bytes of
    /// any kind are kept (pages and stylesheets are of kind `other`). The same URL and options added again add nothing; another list of that name is a conflict.
    public static func add(recursive crawl: CrawlSettings, name: String?, to spool: Spool,
                           request: RequestOptions? = nil, delivery: Delivery? = nil) throws(AddError) -> AddReport {
        guard let start = WebURL(crawl.start) else {
            throw AddError(.malformed, crawl.start, cause: RequestOptionError("\(crawl.start): not an http(s) URL"))
        }
        var crawl = crawl
        crawl.start = start.description
        let name = name ?? start.host
        var request = request ?? RequestOptions()
        request.acceptAny = true
        let id = ListID.of(name: name)
        // The list is what was asked: its start and options.
        var hash = FNV1a()
        hash.add(String(decoding: crawl.encoded(), as: UTF8.self))
        let lock = try takeAddLock(spool)
        defer { lock.closeQuietly() }
        do { try Lists(spool).recover() } catch { throw AddError(.recovery, spool.root, cause: error) }
        var report = AddReport()
        if let existing = spool.list(id) {
            guard existing.digest == hash.hex else { throw AddError(.conflict, name) }
            report.alreadyThere.append(name)
            return report
        }
        request.crawl = crawl
        var shown = summary(request)
        let options = crawl.options
        shown.recursive = RecursiveSummary(level: options.level.map(String.init) ?? "inf", robots: options.obeysRobots,
                                           noParent: options.noParent, spanHosts: options.spanHosts,
                                           domains: options.domains, accept: options.accept, reject: options.reject,
                                           excludeDirs: options.excludeDirectories)
        let record = ListRecord(name: name, total: 1, digest: hash.hex, source: crawl.start,
                                added: Timestamp.iso8601(Double(time(nil))), shape: "urls", request: shown,
                                delivery: delivery)
        var first = JobRecord(url: crawl.start, id: JobName(list: id, index: 0).raw)
        first.depth = 0
        first.expects = "html"
        do {
            try spool.enqueue([NewJob(name: JobName(list: id, index: 0), record: first)],
                              lists: [ListRecordFile(id: id, bytes: record.encoded(), request: request.encoded())])
        } catch {
            throw AddError(.enqueue, crawl.start, cause: error)
        }
        report.added.append((name, 1))
        return report
    }
}
