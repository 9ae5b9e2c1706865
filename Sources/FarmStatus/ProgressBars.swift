/// What `farm get` shows of its list (SPEC §15): on a terminal, a bar per resource and one for the whole,
/// redrawn in place, with the speed and the time left as wget shows them; otherwise a plain line each time
/// a resource changes status. Text only: the caller writes it. A value; any thread.
public struct ProgressBars {
    /// The most resources given a bar of their own: beyond, those under way are shown (a FILE of a
    /// thousand URLs would scroll the terminal away), and the whole's bar counts them all.
    public static let mostBars = 12

    /// The status text last said of each resource by `changes`, by index, and the notes said.
    private var said: [Int: String] = [:]
    private var noted: [Int: String] = [:]
    /// The speed of each resource under way (by index) and of the whole (`Int.min`), from its bytes as seen
    /// at each call of `bars`.
    private var speeds: [Int: Speed] = [:]
    private static let whole = Int.min

    /// Bytes a second, smoothed: the last look's bytes and time, and the rate so far.
    struct Speed {
        var bytes: Int
        var time: Double
        var rate: Double?

        /// The rate once `bytes` are in at `time`: each look weighs in by how long it covers, so the figure
        /// follows a change of pace within a few seconds without jumping at each look.
        mutating func update(bytes: Int, time: Double) {
            let elapsed = time - self.time
            guard elapsed >= 0.15 else { return }
            let now = Double(max(0, bytes - self.bytes)) / elapsed
            let weight = min(1, elapsed / 3)
            rate = rate.map { $0 + (now - $0) * weight } ?? now
            self.bytes = bytes
            self.time = time
        }
    }

    public init() {}

    /// The lines of `list` for a terminal `width` columns wide at monotonic time `now`: its resources' bars
    /// (all of them when there are few, else those under way), then the whole's.
    public mutating func bars(_ list: ListStatus, width: Int, now: Double) -> [String] {
        let resources = list.resources ?? []
        let shown = resources.count <= Self.mostBars ? resources
            : Array(resources.filter { $0.status == .downloading }.prefix(Self.mostBars))
        let nameWidth = max(8, min(32, width / 3))
        for resource in resources where resource.status == .downloading {
            speeds[resource.index, default: Speed(bytes: resource.bytes, time: now)].update(bytes: resource.bytes, time: now)
        }
        var lines = shown.map { resource in
            Self.line(name: Self.name(of: resource), fraction: Self.fraction(of: resource), nameWidth: nameWidth,
                      width: width, after: after(resource))
        }
        let finished = list.done + list.failed
        let bytes = resources.reduce(0) { $0 + ($1.status == .done ? ($1.size ?? $1.bytes) : $1.bytes) }
        speeds[Self.whole, default: Speed(bytes: bytes, time: now)].update(bytes: bytes, time: now)
        // The whole moves with the bytes while every size is known, else by resources finished.
        let sizes = resources.compactMap(\.size)
        let known = sizes.count == resources.count && !sizes.isEmpty
        let whole = known ? Double(bytes) / Double(max(1, sizes.reduce(0, +))) : Double(finished) / Double(max(1, list.total))
        var summary = "\(finished)/\(list.total)" + (list.failed > 0 ? " (\(list.failed) failed)" : "")
            + "  " + StatusText.size(bytes)
        if finished < list.total {
            summary += pace(Self.whole, left: known ? sizes.reduce(0, +) - bytes : nil)
        }
        lines.append(Self.line(name: "total", fraction: finished == list.total ? 1 : whole, nameWidth: nameWidth,
                               width: width, after: summary))
        return lines
    }

    /// "  2.1 MiB/s  12s left" for what `key` names (a resource's index, or the whole), once its speed is
    /// known; the time left only when `left` bytes are known and it moves.
    private func pace(_ key: Int, left: Int?) -> String {
        guard let rate = speeds[key]?.rate else { return "" }
        var text = "  " + StatusText.size(Int(rate)) + "/s"
        if let left, rate >= 1 { text += "  " + Self.duration(Double(max(0, left)) / rate) + " left" }
        return text
    }

    /// A time left as wget words it: 45s, 3m12s, 2h05m.
    package static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m" + String(format2(whole % 60)) + "s" }
        return "\(whole / 3600)h" + format2(whole % 3600 / 60) + "m"
    }

    private static func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

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

    private func after(_ resource: ResourceStatus) -> String {
        switch resource.status {
        case .error: return "Error: " + (resource.error ?? "")
        case .done: return "Done " + StatusText.size(resource.size ?? resource.bytes)
        case .downloading:
            let percent = ResourceStatus.percent(bytes: resource.bytes, size: resource.size).map { "\($0)%" } ?? ""
            return percent + "  " + StatusText.size(resource.bytes)
                + (resource.size.map { "/" + StatusText.size($0) } ?? "")
                + pace(resource.index, left: resource.size.map { $0 - resource.bytes })
                + (resource.note == nil ? "" : "  started over")
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
