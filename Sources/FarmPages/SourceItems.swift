import FarmSpool
import FarmTransfer

extension PageReader {
    /// Every item of the paged source, page after page from the first, as the follower reads them (a page
    /// already seen, or none next, ends it): what `farm sync` reads a paged list's source with. Items are
    /// not deduplicated here. Throws one sentence naming the page: a transfer that failed (no retry), a
    /// page that is not JSON or lacks `--items`.
    /// `request`: the list's headers, cookies and proxy (SPEC §12).
    public func allItems(spool: Spool, caFile: String? = nil, request: RequestOptions? = nil,
                         maxPageBytes: Int = 64 << 20) throws(PageError) -> [Item] {
        let handle: EasyHandle
        do { handle = try EasyHandle() } catch { throw PageError("\(error)") }
        let fetch = PageFetch(spool: spool, handle: handle, caFile: caFile, stopping: { false })
        var items: [Item] = []
        var seen: Set<String> = []
        var next: String? = source.first
        var number = 0
        while let url = next, seen.insert(url).inserted {
            // The first page answers as page 1 too (as the follower counts it).
            number += 1
            if number == 1 { seen.insert(Self.url(url, setting: source.pageParameter, to: "1")) }
            let bytes: [UInt8]
            do { bytes = try fetch.body(url, maxSize: maxPageBytes, request: request) } catch {
                throw PageError("page \(number): \(error)")
            }
            let page: Page
            do { page = try read(bytes, from: url) } catch { throw PageError("page \(number): \(error)") }
            items += page.items
            next = page.next
        }
        return items
    }
}
