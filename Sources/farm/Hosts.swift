import ArgumentParser
import FarmControl
import FarmJSON

/// `farm hosts [--json]`: each host with its active, queued, done and failed resources, and its hold.
struct Hosts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hosts", abstract: "Show each host with its resources by state, and until when it is held.")

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
