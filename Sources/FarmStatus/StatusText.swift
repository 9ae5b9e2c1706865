/// The status as text for a terminal: the app's first screen (lists with state and a progress bar)
/// and its second (one list's resources). Plain ASCII columns, no escape codes, so it can be piped.
/// Stateless; `top` may reuse the pieces.
public enum StatusText {
    /// The whole-spool summary: a header line, then one row per list.
    public static func summary(_ document: StatusDocument) -> String {
        var lines = [header(document)]
        guard !document.lists.isEmpty else {
            lines.append("no lists yet: `farm add` enqueues a manifest")
            return lines.joined(separator: "\n")
        }
        let width = min(40, max(4, document.lists.map(\.name.count).max() ?? 4))
        lines.append(pad("LIST", width) + "  " + pad("STATE", 14) + "  " + pad("PROGRESS", 32) + "  "
            + pad("DONE", 15) + "  FAILED")
        for list in document.lists {
            lines.append(pad(clip(list.name, width), width) + "  " + pad(list.state.rawValue, 14) + "  "
                + bar(list.progress) + " " + pad(String(Int(list.progress * 100)) + "%", 4) + "  "
                + pad("\(list.done)/\(list.total)", 15) + "  " + String(list.failed))
        }
        return lines.joined(separator: "\n")
    }

    /// One list: its counts, then one row per resource (index, text, kind, url or error).
    public static func list(_ list: ListStatus) -> String {
        var lines = ["\(list.name): \(list.state.rawValue) \(list.done)/\(list.total) done, \(list.active) active, "
            + "\(list.queued) queued, \(list.failed) failed"]
        let resources = list.resources ?? []
        let indexWidth = max(5, String(max(0, resources.count - 1)).count)
        lines.append(pad("INDEX", indexWidth) + "  " + pad("STATUS", 16) + "  " + pad("KIND", 4) + "  URL OR ERROR")
        for resource in resources {
            let detail = resource.status == .error ? "error: " + (resource.error ?? "unknown") : resource.url
            lines.append(pad(String(resource.index), indexWidth) + "  " + pad(resource.text, 16) + "  "
                + pad(resource.kind ?? "-", 4) + "  " + detail)
        }
        return lines.joined(separator: "\n")
    }

    /// "workers 4/6 running, paused".
    public static func header(_ document: StatusDocument) -> String {
        "workers \(document.workers.running)/\(document.workers.desired) running, "
            + (document.paused ? "paused" : "not paused") + ", updated \(document.updated)"
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
