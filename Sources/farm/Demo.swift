import ArgumentParser
import FarmControl
import FarmDemo
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTop
import Foundation
import SystemPackage

/// `farm demo`: the embedded default. Serves the bundled sample set from 127.0.0.1, adds its
/// manifest, starts the farm and shows it; on the way out it stops the farm and the origin.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a bundled sample set from 127.0.0.1, download it with the farm, and show it live.",
        discussion: "In a terminal it opens `farm top` (q quits); otherwise it prints progress lines until "
            + "every list is Finished, then the final status.")

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
        let control = Control(spool: spool)
        StopSignal.install()
        let samples = try SampleSet.make()
        let origin = SampleOrigin(port: port)
        do { try origin.start() } catch {
            throw FarmError("cannot serve the samples on 127.0.0.1:\(port) (\(error)); pick another with --port")
        }
        defer { origin.stop() }
        try samples.serve(on: origin)

        let added = try control.add(origin.url(for: "/manifest.zip"))
        // A second demo on the same spool downloads the same lists again rather than showing old results.
        for name in added.alreadyThere {
            _ = try control.reload(.typed(name))
        }
        let lists = added.lists.count + added.alreadyThere.count
        print("demo: serving \(samples.lists.reduce(0) { $0 + $1.resources.count }) resources in \(lists) lists "
            + "from \(origin.url(for: "/"))")

        let startedHere = try control.start(DesiredChange(workers: workers), roles: .farm).started
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
            Thread.sleep(forTimeInterval: 0.5)
        }
        let summary = StatusScan.summary(spool)
        print("\n" + StatusText.summary(summary))
        for list in summary.lists {
            guard let view = ListView.build(spool, listID: list.id) else { continue }
            print("\n" + StatusText.list(view))
        }
    }
}
