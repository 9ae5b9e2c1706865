import FarmStatus

/// The two header rows of both screens: the farm (spool, the concurrency in force, paused) and the
/// counts with files/s, MB/s and the ETA (on the second screen, the open list's counts). Stateless.
enum Header {
    static func rows(_ model: TopModel, _ state: TopState, width: Int) -> [Row] {
        [farm(model, width: width), counts(model, state, width: width)]
    }

    /// "farm top  /path/to/spool     6 at once: 6 workers × 1  cap 2.1 MB/s  running" (the concurrency in
    /// force, the bandwidth cap when there is one).
    static func farm(_ model: TopModel, width: Int) -> Row {
        let cap = model.summary.workers.limitRate.map { "cap " + Format.byteRate(Double($0)) + "  " } ?? ""
        let workers = model.summary.workers.concurrency + "  " + cap
        // Not paused and no worker alive: the farm is stopped (or between two respawns).
        // Paused by the disk: how short it is, since no key resumes it.
        let flag = model.summary.paused ? StatusText.diskShortage(model.summary).map { "PAUSED: " + $0 } ?? "PAUSED"
            : model.summary.workers.running > 0 ? "running" : "not running"
        let room = width - Cells.width(workers + flag) - 1
        guard room >= 8 else { return Row(Cells.pad(workers + flag, width, right: true)) }
        let path = Cells.pad("  " + Cells.clean(model.spool), room - 8) + " "
        let style: Style = model.summary.paused ? .warn : model.summary.workers.running > 0 ? .good : .dim
        return Row([Span("farm top", .bold), Span(path + workers), Span(flag, style)])
    }

    /// "3/13 done  2 active  8 queued  0 failed      1.5 files/s  2.3 MB/s  ETA 5s".
    static func counts(_ model: TopModel, _ state: TopState, width: Int) -> Row {
        let rates = Format.rate(model.filesPerSecond, unit: "files/s") + "  " + Format.byteRate(model.bytesPerSecond)
        if let id = state.listID {
            let list = model.list ?? model.summary.list(id: id)
            let left = list.map {
                Cells.clean($0.name) + "  " + $0.shownState + "  " + counts(total: $0.total, done: $0.done,
                    active: $0.active, queued: $0.queued, failed: $0.failed)
            } ?? "reading the list..."
            // The list comes first: the rates only where there is room for both.
            guard Cells.width(left) + 2 + Cells.width(rates) <= width else { return Row(Cells.pad(left, width)) }
            return Row(Cells.spread(left, rates, width))
        }
        let totals = model.totals
        let left = counts(total: totals.total, done: totals.done, active: totals.active, queued: totals.queued,
                          failed: totals.failed)
        let eta = model.summary.paused ? "paused" : totals.total == totals.done + totals.failed ? "done"
            : Format.eta(model.eta)
        return Row(Cells.spread(left, rates + "  ETA " + eta, width))
    }

    /// For a paged list: "  page 4…" while its pages come, "  stopped: page 3: …" when one stopped it.
    private static func pages(_ list: ListStatus) -> String {
        guard let paging = list.paging else { return "" }
        if let error = paging.error { return "  stopped: " + Cells.clean(error) }
        return paging.done ? "" : "  page \(paging.fetched + 1)\u{2026}"
    }

    private static func counts(total: Int, done: Int, active: Int, queued: Int, failed: Int) -> String {
        "\(done)/\(total) done  \(active) active  \(queued) queued  \(failed) failed"
    }
}
