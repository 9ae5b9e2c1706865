import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmJSON

/// `farm hosts [--json]`: each host with its active, queued, done and failed resources, and its hold.
struct Hosts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hosts", abstract: "Show each host with its resources by state, and until when it is held.",
        discussion: """
            Lists each server the lists name (scheme, host and port) with its resources active, queued, done \
            and failed, busiest first. A server that answered 429 or 503 with Retry-After is held for the \
            whole farm until the time shown: no worker sends it a request before then, and workers download \
            from other servers meanwhile. The limits per server are farm start's --per-host and \
            --rate-per-host. hosts only reads the spool.

            EXAMPLES:
              farm hosts
                  Which servers the farm is busy with, and which are held.
            """ + ExitStatus.section([0: "Listed.", 1: ExitStatus.noSpool]))

    @OptionGroup var options: SpoolOptions

    @Flag(help: "Print [{host, active, queued, done, failed, heldUntil}] as JSON.")
    var json = false

    func run() throws {
        let hosts = Control(spool: try options.open(create: false)).hosts()
        if json {
            print(String(decoding: JSON.encode(hosts.hosts), as: UTF8.self), terminator: "")
        } else {
            print(hosts)
        }
    }
}
