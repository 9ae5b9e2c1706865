import ArgumentParser
import FarmDemo
import FarmSystem
import Glibc

/// `farm-serve demo-origin --port P --parent PID`: `farm demo`'s sample set, drawn and served from 127.0.0.1:P
/// until SIGTERM or until farm demo, its parent PID, is gone. Its first line on standard output tells farm demo the
/// origin's address and the number of resources (`http://127.0.0.1:P/ N`), or why it could not serve (then it
/// exits 1).
struct DemoOrigin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-origin", abstract: "farm demo's sample origin on 127.0.0.1 (farm demo runs it).")

    @Option(help: "The local port to serve on.")
    var port: Int

    /// Given, not read with getppid() here: farm demo may be gone before this process gets that far.
    @Option(help: "The pid of farm demo, whose end ends this origin.")
    var parent: Int32

    func run() throws {
        StopSignal.install()
        let samples = try SampleSet.make()
        let origin = SampleOrigin(port: port)
        do { try origin.start() } catch {
            Standard.output("\(error)\n")
            throw ExitCode(1)
        }
        try samples.serve(on: origin)
        let resources = samples.lists.reduce(0) { $0 + $1.resources.count }
        Standard.output("\(origin.url(for: "/")) \(resources)\n")
        // farm demo stops us with SIGTERM; killed itself, it cannot, and we must not serve on forever.
        Clock.poll(every: 0.2, for: .infinity) { StopSignal.received || getppid() != parent }
        origin.stop()
    }
}
