import FarmSpool

/// The status as text for a terminal: the app's first screen (lists with state and a progress bar)
/// and its second (one list's resources). Plain ASCII columns, no escape codes, so it can be piped.
/// Stateless; `top` may reuse the pieces.
public enum StatusText {
    /// The whole-spool summary: a header line, then one row per list.
    public static func summary(_ document: StatusDocument) -> String {
        var lines = [header(document)]
        if let disk = diskPause(document) { lines.append(disk) }
        guard !document.lists.isEmpty else {
            lines.append("no lists yet: `farm add` enqueues a manifest")
            return lines.joined(separator: "\n")
        }
        let width = min(40, max(4, document.lists.map(\.name.count).max() ?? 4))
        lines.append(pad("LIST", width) + "  " + pad("STATE", 14) + "  " + pad("PROGRESS", 32) + "  "
            + pad("DONE", 15) + "  FAILED")
        for list in document.lists {
            lines.append(pad(clip(list.name, width), width) + "  " + pad(list.shownState, 14) + "  "
                + bar(list.progress) + " " + pad(String(Int(list.progress * 100)) + "%", 4) + "  "
                + pad("\(list.done)/\(list.total)", 15) + "  " + String(list.failed))
        }
        return lines.joined(separator: "\n")
    }

    /// One list: its counts, then one row per resource (index, text, kind, url or error). With a `stall`
    /// (`ListStatus.held(by:)`), a line says what holds it, and a paused download shows as "Paused 17%",
    /// not as a "Downloading 17%" that does not move.
    public static func list(_ list: ListStatus) -> String {
        var lines = ["\(list.name): \(list.shownState) \(list.done)/\(list.total) done, \(list.active) active, "
            + "\(list.queued) queued, \(list.failed) failed"]
        let stall = list.stall
        if let stall { lines.append(stall.description) }
        let paused = stall == .paused || stall == .nothingRunsAndPaused
        if let paging = list.paging { lines.append(pages(paging)) }
        for host in list.hosts ?? [] { lines.append(self.host(host)) }
        let resources = list.resources ?? []
        let indexWidth = max(5, String(max(0, resources.count - 1)).count)
        lines.append(pad("INDEX", indexWidth) + "  " + pad("STATUS", 16) + "  " + pad("KIND", 4) + "  URL OR ERROR")
        for resource in resources {
            var detail = resource.status == .error ? "error: " + (resource.error ?? "unknown") : resource.url
            // What happened on the way, such as a server that does not resume starting the file over.
            if let note = resource.note, resource.status != .done { detail += "  (" + note + ")" }
            let text = paused && resource.status == .downloading
                ? "Paused \(ResourceStatus.percent(bytes: resource.bytes, size: resource.size) ?? 0)%" : resource.text
            lines.append(pad(String(resource.index), indexWidth) + "  " + pad(text, 16) + "  "
                + pad(resource.kind ?? "-", 4) + "  " + detail)
        }
        return lines.joined(separator: "\n")
    }

    /// A recursive list's line for one host (issue 64), as `farm status LIST` and `farm top`'s plain lines
    /// show it: "127.0.0.1:8080: 12 found, 5 fetched, 2 active, 5 queued".
    public static func host(_ host: HostCounts) -> String {
        "\(host.host): \(host.found) found, \(host.fetched) fetched, \(host.active) active, \(host.queued) queued"
    }

    /// A paged list's line: "pages: 3 fetched, more to come; title: Books; cover: /…/cover.jpg", or
    /// "pages: 3 fetched, stopped: page 4: HTTP 404".
    static func pages(_ paging: Paging) -> String {
        var line = "pages: \(paging.fetched) fetched, "
            + (paging.error.map { "stopped: " + $0 } ?? (paging.done ? "all in" : "more to come"))
        if paging.skipped > 0 { line += " (\(paging.skipped) item(s) without a URL skipped)" }
        if paging.showsTitle { line += "; title: " + (paging.title ?? "none") }
        if paging.showsCover { line += "; cover: " + (paging.cover ?? "none") }
        return line
    }

    /// "6 at once: 6 workers × 1, paused".
    public static func header(_ document: StatusDocument) -> String {
        let paused = !document.paused ? "not paused" : document.pausedBy == .disk ? "paused by the disk" : "paused"
        return document.workers.concurrency + ", " + paused
            + ", updated \(document.updated)"
    }

    /// The line that says why the disk pauses the farm, when it does: "paused by the disk: 3.2 MiB free
    /// on the spool's file system, under the 6.0 MiB minimum (farm start --min-free); work goes on by
    /// itself once space is freed".
    public static func diskPause(_ document: StatusDocument) -> String? {
        guard document.pausedBy == .disk, let disk = document.disk else { return nil }
        return "paused by the disk: \(size(disk.free)) free on the spool's file system, under the "
            + "\(size(disk.minFree)) minimum (farm start --min-free); work goes on by itself once space is freed"
    }

    /// The same, short, for the views' header lines: "disk 3.2 MiB free < 6.0 MiB".
    public static func diskShortage(_ document: StatusDocument) -> String? {
        guard document.pausedBy == .disk, let disk = document.disk else { return nil }
        return "disk \(size(disk.free)) free < \(size(disk.minFree))"
    }

    /// A size in binary units, as `df -h` gives disks: "512 B", "3.2 KiB", "6.0 MiB", "1.0 GiB".
    public static func size(_ bytes: Int) -> String {
        var value = Double(max(0, bytes)), unit = 0
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        while value >= 1023.95 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(Int(value)) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// A resource in pieces (SPEC §14) as a bar of segments, one a piece up to `width` of them (else each
    /// stands for as many pieces, a kind with any piece keeping one): done `#`, held `>`, waiting `.`.
    public static func pieceBar(_ pieces: PieceCounts, width: Int = 16) -> String {
        let (done, held, waiting) = pieceSegments(pieces, width: width)
        return "[" + String(repeating: "#", count: done) + String(repeating: ">", count: held)
            + String(repeating: ".", count: waiting) + "]"
    }

    /// How many segments of a bar of about `width` show pieces done, held and waiting.
    public static func pieceSegments(_ pieces: PieceCounts, width: Int) -> (done: Int, held: Int, waiting: Int) {
        let waiting = max(0, pieces.total - pieces.done - pieces.active), total = pieces.total
        guard total > width else { return (pieces.done, pieces.active, waiting) }
        func share(_ count: Int) -> Int { count == 0 ? 0 : max(1, count * width / total) }
        return (share(pieces.done), share(pieces.active), share(waiting))
    }

    /// A progress bar of `width` cells: `[#######.............]`.
    public static func bar(_ progress: Double, width: Int = 25) -> String {
        let filled = min(width, max(0, Int((progress * Double(width)).rounded(.down))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func clip(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "~"
    }
}
