// Where a list recorded as WARC (SPEC §18) notes which of its URLs are recorded, and where: what keeps a URL
// that several of its jobs fetch (a redirect's target, a page also linked) or that one job fetches again (its
// redo after a kill) to one response record. What the marks mean is FarmWorker's WARCArchive.swift.
extension Spool {
    /// `warc/urls/`: made on first use, by the first record of a list with `--warc`.
    public var warcURLMarks: String { warc + "/urls" }

    /// List `id`'s URL marks, `warc/urls/<list>/`.
    public func warcURLMarks(ofList id: String) -> String { warcURLMarks + "/" + id }

    /// The mark of one URL of list `id`, `warc/urls/<list>/<key>` (`key`: the URL's name in urls/, its SHA-256).
    public func warcURLMark(ofList id: String, key: String) -> String { warcURLMarks(ofList: id) + "/" + key }
}
