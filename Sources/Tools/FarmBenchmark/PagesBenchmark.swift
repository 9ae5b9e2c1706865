import ArgumentParser
import FarmLists
import FarmOrigin
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `pages --pages 1000,10000`: for each size, a paged JSON API (SPEC §7) of that many pages of `--per-page`
/// items served by an in-process origin on 127.0.0.1, added to a fresh spool with `farm add URL --items …`
/// and followed by a farm started on it (`--workers` with conversions off, downloading every item: one
/// small PNG answers them all). Measured: pages per second from the add to the last page in (the page log
/// saying done), the pace over the first and the last tenth of the pages (a follower that slowed down as
/// its list grows would show it), the follower's peak RSS (VmHWM, read from /proc while it runs: it exits
/// once the pages are in), and, the farm stopped, the cost of a worker's claim on the queue the pages left.
struct PagesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pages",
        abstract: "The follower's pages per second and peak RSS on large paged APIs, and the claim cost after.")

    @OptionGroup var workspace: Workspace
    @Option(help: "Pages of each API, comma-separated.") var pages = "1000,10000"
    @Option(help: "Items on a page.") var perPage = 100
    @Option(help: "Workers downloading while the pages arrive.") var workers = 1
    @Option(help: "Claims measured once the farm is stopped.") var samples = 500

    func run() throws {
        let base = try workspace.make("pages")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        var random = SplitMix64(seed: 0x5EED_0022)
        origin.serve(path: "/item.png", bytes: CorpusFormats.png(width: 16, height: 16, size: 2048, random: &random),
                     contentType: "image/png")
        let farm = Spawned.sibling("farm")
        print("pages    items      add→done  pages/s  first 10%  last 10%  follower peak RSS  jobs done  "
            + "claim p50  claim p99   (\(workspace.dir), \(workers) worker(s), conversions off)")
        for size in pages.split(separator: ",").compactMap({ Int($0) }) {
            let path = "/api/\(size)"
            origin.servePages(at: path, pages: (0..<size).map { Self.page($0, of: size, perPage: perPage, origin: origin) })
            let spool = base + "/spool-\(size)"
            let log = base + "/farm-\(size).log"
            defer {
                _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false)
                try? FileManager.default.removeItem(atPath: spool)
            }
            let start = Clock.monotonic()
            try Spawned.run(farm, ["add", origin.url(for: path), "--name", "pages", "--items", "/consumables",
                                   "--url", "/metadata/cover/url", "--id", "/id", "--title", "/metadata/title",
                                   "--next", "/nextPage", "--spool", spool], log: log)
            try Spawned.run(farm, ["start", "--workers", String(workers), "--no-convert", "--spool", spool], log: log)
            let followed = try follow(try Spool(root: spool, create: false), pages: size, origin: origin)
            let seconds = followed.end - start
            let opened = try Spool(root: spool, create: false)
            let done = (try? FileManager.default.contentsOfDirectory(atPath: opened.done + "/" + ListID.of(name: "pages"))
                .count) ?? 0
            _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false)
            let claims = try Self.claimTimes(opened, samples: samples)
            print(String(size).padded(9) + String(size * perPage).padded(11) + String(format: "%.1f s", seconds).padded(10)
                + String(format: "%.0f", Double(size) / seconds).padded(9) + String(format: "%.0f", followed.first).padded(11)
                + String(format: "%.0f", followed.last).padded(10) + RolesBenchmark.mb(followed.peakRSS).padded(19)
                + String(done).padded(11) + Self.millis(claims, 0.5).padded(11) + Self.millis(claims, 0.99))
            origin.clearRequests()
        }
    }

    /// Watches the list's page log until it says done (30 minutes at most), reading the follower's VmHWM
    /// every 0.1 s; returns when it was done, the pace (pages/s) of the first and last tenth of the
    /// pages, and the follower's largest peak seen.
    private func follow(_ spool: Spool, pages: Int, origin: Origin)
        throws -> (end: Double, first: Double, last: Double, peakRSS: Int) {
        let id = ListID.of(name: "pages")
        let tenth = max(1, pages / 10)
        var seen: [(time: Double, fetched: Int)] = []
        var peak = 0
        let deadline = Clock.monotonic() + 1800
        while Clock.monotonic() < deadline {
            let now = Clock.monotonic()
            for follower in spool.registry.processes() where follower.role == .follower {
                peak = max(peak, Spawned.peakRSS(of: follower.pid))
            }
            let state = Lists(spool).pageState(ofList: id)
            if let fetched = state?.fetched, fetched > 0 { seen.append((now, fetched)) }
            if let state, state.done {
                guard state.error == nil, state.fetched == pages else {
                    throw ValidationError("the list stopped at page \(state.fetched): \(state.error ?? "done early")")
                }
                return (now, Self.pace(seen, from: 1, to: tenth), Self.pace(seen, from: pages - tenth, to: pages), peak)
            }
            // The workers' requests pile up in the origin's log: it is not what is measured.
            if origin.requests.count > 100_000 { origin.clearRequests() }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw ValidationError("the pages were not all in after 30 minutes")
    }

    /// Pages per second between the first look that saw `from` pages fetched and the first that saw `to`.
    private static func pace(_ seen: [(time: Double, fetched: Int)], from: Int, to: Int) -> Double {
        guard let start = seen.first(where: { $0.fetched >= from }), let end = seen.first(where: { $0.fetched >= to }),
              end.time > start.time else { return .nan }
        return Double(end.fetched - start.fetched) / (end.time - start.time)
    }

    /// Page `index` (from 0) of `count`: `perPage` items in PagedAPI's shape, every URL the one PNG with a
    /// query of its own (the origin matches the path alone), the last page with no next. Written as text by
    /// hand rather than built as a tree through PagedAPI, so that a million items cost little beside the
    /// follower being measured.
    static func page(_ index: Int, of count: Int, perPage: Int, origin: Origin) -> [UInt8] {
        let url = origin.url(for: "/item.png")
        var text = #"{"consumables":["#
        for n in index * perPage..<(index + 1) * perPage {
            if n > index * perPage { text += "," }
            text += #"{"id":"i\#(n)","metadata":{"cover":{"url":"\#(url)?n=\#(n)"},"title":"Item \#(n)"}}"#
        }
        text += #"],"nextPage":"# + (index + 1 < count ? String(index + 2) : "null") + "}"
        return Array(text.utf8)
    }

    /// Times of `samples` claims on the spool of a stopped farm (each claimed job is left in active/: the
    /// spool is removed after).
    static func claimTimes(_ spool: Spool, samples: Int) throws -> [Double] {
        let claimer = Claimer(spool: spool)
        var times: [Double] = []
        for _ in 0..<samples {
            let start = Clock.monotonic()
            guard try claimer.claim() != nil else { break }
            times.append(Clock.monotonic() - start)
        }
        return times
    }

    private static func millis(_ values: [Double], _ quantile: Double) -> String {
        values.isEmpty ? "-" : String(format: "%.3f ms", values.quantile(quantile) * 1000)
    }
}
