import ArgumentParser
import FarmServe
import FarmSpool
import FarmSystem
import Foundation

/// `farm serve`: the app's three screens in a browser, live. Prints the address it listens on (one
/// line), then serves until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Show the farm in a browser: the lists, one list's grid, and the viewer, live.",
        discussion: """
            Everything the page needs is served by farm (no CDN). It binds 127.0.0.1 unless --host says \
            otherwise; requests that change the farm are refused from other origins and without the \
            page's token; only images of the spool's resources are served.
            """)

    @OptionGroup var options: SpoolOptions

    @Option(help: "The address to listen on (0.0.0.0 for every interface: then anyone who can reach it can read the status).")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port; the line printed says which).")
    var port = WebServer.defaultPort

    @OptionGroup var polling: PollOption

    func run() throws {
        let spool = try options.open()
        StopSignal.install()
        let server = try WebServer(spool: spool, host: host, port: port, poll: polling.poll)
        try server.start()
        // Written at once (print would buffer it in a pipe): whoever started us waits for this line.
        FileHandle.standardOutput.write(Data("farm serve: \(server.url) (spool \(spool.root); ^C stops)\n".utf8))
        // The server runs on its own threads; this one only waits for ^C or SIGTERM.
        while !StopSignal.received { Thread.sleep(forTimeInterval: 0.1) }
        server.stop()
    }
}
