import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmDesired
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTop
import FoundationEssentials
import SystemPackage

/// `farm demo`: the embedded default. Serves the bundled sample set from 127.0.0.1, adds its
/// manifest, starts the farm and shows it; on the way out it stops the farm and the origin.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a bundled sample set from 127.0.0.1, download it with the farm, and show it live.",
        discussion: """
            Draws a sample set (JPGs, PNGs, PDFs of several pages, a ZIP holding a PNG, a ZIP holding a PDF, \
            a 404, an HTML page posing as a .jpg, and large photos served slowly), serves it from \
            127.0.0.1, adds its manifest of four lists, starts the farm and shows it. In a terminal it \
            opens farm top (q quits); otherwise it prints progress lines until every list is Finished, then \
            the final status, where exactly the 404 and the HTML page show Error. On the way out it stops \
            the farm it started and its server. Nothing is fetched from outside this machine.

            EXAMPLES:
              farm demo --spool /tmp/demo
                  The demo in a spool of its own.
              farm demo --workers 2 | tail -n 30
                  Two workers, and the final status in plain lines.
            """ + ExitStatus.section([
                0: "The demo ended (q, or every list Finished).",
                1: """
                    The samples could not be served (a port in use: give --port), or
                    the farm failed to start.
                    """,
            ]))

    @OptionGroup var options: SpoolOptions

    @Option(help: "How many workers.")
    var workers = 6

    @Option(help: "The local port of the sample origin (the lists' URLs name it, so keep it stable).")
    var port = 8770

    func validate() throws {
        try Control.check(workers: workers)
    }

    func run() throws {
        let spool = try options.open()
        let control = Control(spool: spool, roles: .farm)
        StopSignal.install()
        let origin = try DemoOriginChild.start(port: port)
        defer { origin.stop() }

        let added = try control.add(origin.url(for: "/manifest.zip"))
        // A second demo on the same spool downloads the same lists again rather than showing old results.
        for name in added.alreadyThere {
            _ = try control.reload(.typed(name))
        }
        let lists = added.lists.count + added.alreadyThere.count
        print("demo: serving \(origin.resources) resources in \(lists) lists from \(origin.url)")

        let startedHere = try control.start(DesiredChange(workers: workers)).started
        if !startedHere { _ = try control.scale(to: workers) }
        defer {
            // Leave the farm as we found it: stop it if the demo started it.
            if startedHere { _ = try? control.stop() }
        }
        if FileDescriptor.standardOutput.isTerminal { LiveView.run(spool) } else { try followInPlainText(spool) }
    }

    /// One progress line a second until every list is Finished (or ^C), then the final status.
    private func followInPlainText(_ spool: Spool) throws {
        var last = ""
        while !StopSignal.received {
            let summary = StatusScan.summary(spool)
            let done = summary.lists.reduce(0) { $0 + $1.done }
            let total = summary.lists.reduce(0) { $0 + $1.total }
            let line = "demo: \(done + summary.failed)/\(total) finished (\(summary.failed) failed), "
                + "\(summary.lists.reduce(0) { $0 + $1.active }) downloading, \(summary.workers.running) workers"
            if line != last { print(line) }
            last = line
            if summary.isFinished && !summary.lists.isEmpty { break }
            Clock.pause(0.5, unless: { StopSignal.received })
        }
        let summary = StatusScan.summary(spool)
        print("\n" + StatusText.summary(summary))
        for list in summary.lists {
            guard let view = ListView.build(spool, listID: list.id) else { continue }
            print("\n" + StatusText.list(view))
        }
    }
}
