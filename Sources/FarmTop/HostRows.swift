import FarmStatus

/// A recursive list's hosts at the top of its resources screen (issue 64): a heading and one row per host
/// with its resources found, fetched (done or failed), active and queued, as the list's window counted them
/// (`ListWindows`: once per summary, not per frame). They take a third of the body at most, so the
/// resources keep most of the screen; a last row says how many hosts did not fit. Stateless.
enum HostRows {
    /// How many rows the hosts of `list` take on a screen `height` rows tall; 0 for a list without hosts.
    static func count(_ list: ListStatus?, height: Int) -> Int {
        guard let hosts = list?.hosts, !hosts.isEmpty else { return 0 }
        let room = max(0, height - 5) / 3
        return room < 2 ? 0 : min(hosts.count + 1, room)
    }

    /// The heading and the host rows, `count` of them, each padded to `width`.
    static func rows(_ list: ListStatus?, width: Int, height: Int) -> [Row] {
        let count = count(list, height: height)
        guard count > 0, let hosts = list?.hosts else { return [] }
        let numbers = hosts.flatMap { [$0.found, $0.fetched, $0.active, $0.queued] }.map { String($0).count }
        let number = max(7, numbers.max() ?? 0)
        let name = max(4, width - 1 - 4 * (number + 2))
        func line(_ host: String, _ values: [String]) -> String {
            " " + Cells.pad(host, name) + values.map { "  " + Cells.pad($0, number, right: true) }.joined()
        }
        var rows = [Row(Cells.pad(line("HOST", ["FOUND", "FETCHED", "ACTIVE", "QUEUED"]), width), .dim)]
        // All of them, or as many as fit with a row that says how many more there are.
        let shown = hosts.count + 1 <= count ? hosts.count : count - 2
        for host in hosts.prefix(shown) {
            let text = line(Cells.clean(host.host), [host.found, host.fetched, host.active, host.queued].map(String.init))
            rows.append(Row(Cells.pad(text, width)))
        }
        if shown < hosts.count {
            rows.append(Row(Cells.pad(" and \(hosts.count - shown) more host(s): farm status LIST", width), .dim))
        }
        return rows
    }
}
