/// What `farm get` shows of its list (SPEC §15): on a terminal, a bar per resource and one for the whole,
/// redrawn in place; otherwise a plain line each time a resource changes status. Text only: the caller
/// writes it. A value; any thread.
public struct ProgressBars {
    /// The most resources given a bar of their own: beyond, those under way are shown (a FILE of a
    /// thousand URLs would scroll the terminal away), and the whole's bar counts them all.
    public static let mostBars = 12

    /// The status text last said of each resource by `changes`, by index, and the notes said.
    private var said: [Int: String] = [:]
    private var noted: [Int: String] = [:]

    public init() {}

    /// The lines of `list` for a terminal `width` columns wide: its resources' bars (all of them when
    /// there are few, else those under way), then the whole's.
    public static func bars(_ list: ListStatus, width: Int) -> [String] {
        let resources = list.resources ?? []
        let shown = resources.count <= mostBars ? resources
            : Array(resources.filter { $0.status == .downloading }.prefix(mostBars))
        let nameWidth = max(8, min(32, width / 3))
        var lines = shown.map { resource in
            line(name: name(of: resource), fraction: fraction(of: resource), nameWidth: nameWidth, width: width,
                 after: after(resource))
        }
        let finished = list.done + list.failed
        let bytes = resources.reduce(0) { $0 + ($1.status == .done ? ($1.size ?? $1.bytes) : $1.bytes) }
        // The whole moves with the bytes while every size is known, else by resources finished.
        let sizes = resources.compactMap(\.size)
        let whole = sizes.count == resources.count && !sizes.isEmpty
            ? Double(bytes) / Double(max(1, sizes.reduce(0, +))) : Double(finished) / Double(max(1, list.total))
        let summary = "\(finished)/\(list.total)" + (list.failed > 0 ? " (\(list.failed) failed)" : "")
            + "  " + StatusText.size(bytes)
        lines.append(line(name: "total", fraction: finished == list.total ? 1 : whole, nameWidth: nameWidth,
                          width: width, after: summary))
        return lines
    }

    /// One plain line for each resource whose status text changed since the last call, such as
    /// `a.iso: Downloading 0%` and `a.iso: Done (3.2 MiB)`: what a log or a pipe reads.
    public mutating func changes(_ list: ListStatus) -> [String] {
        var lines: [String] = []
        for resource in list.resources ?? [] {
            // A note (a server that does not resume, which started the file over) is said once, when it comes.
            if let note = resource.note, noted[resource.index] != note {
                noted[resource.index] = note
                lines.append("\(Self.name(of: resource)): \(note)")
            }
            // A percentage is news only every 25 %, so a slow download does not fill the log.
            let text = resource.status == .downloading
                ? "Downloading \(((ResourceStatus.percent(bytes: resource.bytes, size: resource.size) ?? 0) / 25) * 25)%"
                : resource.text
            guard said[resource.index] != text else { continue }
            said[resource.index] = text
            switch resource.status {
            case .done: lines.append("\(Self.name(of: resource)): Done (\(StatusText.size(resource.size ?? resource.bytes)))")
            case .error: lines.append("\(Self.name(of: resource)): Error: \(resource.error ?? "unknown reason")")
            default: lines.append("\(Self.name(of: resource)): \(text)")
            }
        }
        return lines
    }

    /// The resource's file name: where it was delivered, else the last segment of its URL.
    private static func name(of resource: ResourceStatus) -> String {
        let path = resource.delivered ?? resource.url.split(separator: "?").first.map(String.init) ?? resource.url
        return path.split(separator: "/").last.map(String.init) ?? resource.url
    }

    private static func fraction(of resource: ResourceStatus) -> Double {
        switch resource.status {
        case .done, .error, .unzipping, .rendering: return 1
        case .queued, .downloading:
            guard let size = resource.size, size > 0 else { return 0 }
            return min(1, Double(resource.bytes) / Double(size))
        }
    }

    private static func after(_ resource: ResourceStatus) -> String {
        switch resource.status {
        case .error: return "Error: " + (resource.error ?? "")
        case .done: return "Done " + StatusText.size(resource.size ?? resource.bytes)
        case .downloading:
            let percent = ResourceStatus.percent(bytes: resource.bytes, size: resource.size).map { "\($0)%" } ?? ""
            return percent + "  " + StatusText.size(resource.bytes)
                + (resource.size.map { "/" + StatusText.size($0) } ?? "") + (resource.note == nil ? "" : "  started over")
        default: return resource.text
        }
    }

    /// `name  [####.....]  after`, cut to `width` columns.
    private static func line(name: String, fraction: Double, nameWidth: Int, width: Int, after: String) -> String {
        let label = name.count > nameWidth ? String(name.prefix(nameWidth - 1)) + "~"
            : name + String(repeating: " ", count: nameWidth - name.count)
        let barWidth = max(10, min(40, width - nameWidth - 32))
        let text = label + " " + StatusText.bar(fraction, width: barWidth) + " " + after
        return text.count > width - 1 ? String(text.prefix(max(1, width - 1))) : text
    }
}
