import FarmLists
import FarmPages
import FarmSpool
import Foundation

/// libFuzzer's entry (`bin/fuzz pages`): any bytes as a page of a paged JSON API, read by JSON Pointers
/// (with `*`) and a caption template, as the follower reads one. Every element of the items' array is an
/// item or counted as skipped, each item has a URL, and the next page is a web URL; the page parameter
/// set in a URL reads back as set, whatever its value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPages(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let value = String(decoding: bytes.prefix(64), as: UTF8.self)
    let first = "https://api.example.org/v1/photos?size=10#top"
    let set = PageReader.url(first, setting: "page", to: value)
    // Read back as written, percent-encoded.
    let written = PageReader.value(of: "page", in: set)
    precondition(written?.removingPercentEncoding == value, "page=\(value) reads back as \(written ?? "nothing") in \(set)")
    precondition(PageReader.value(of: "size", in: set) == "10", "the other parameter changed: \(set)")

    guard let page = try? reader.read(bytes, from: first) else { return 0 }
    for item in page.items { precondition(!item.url.isEmpty, "an item without a URL") }
    if let next = page.next {
        let lower = next.lowercased()
        precondition(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "next page \(next) is no web URL")
    }
    return 0
}

private let reader = try! PageReader(PagedSource(
    first: "https://api.example.org/v1/photos?size=10#top", items: "/data/items", url: "/links/*/href", id: "/id",
    title: "/title", caption: "By {/authors/*/name} in {/place}", next: "/next", pageParameter: "page",
    listTitle: "/meta/title", listCover: "/meta/cover"))
