import ArgumentParser
import FarmCommandLine
import FarmSpool
import FarmProcess
import FarmSupervisor

/// `farm supervise`: the supervisor process. `farm start` (or a worker that saw the last one die)
/// starts it detached, handing down the supervisor lock; it is not meant to be run by hand.
struct Supervise: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervise",
        abstract: "Run the supervisor (started by `farm start`).",
        discussion: """
            Runs this host's supervisor in this process, if no other runs on this host. farm start runs it \
            (in the background, or in its own process with --foreground), and another farm process that \
            finds it dead starts a new one. It keeps the wanted number of workers and one watcher running \
            (and a follower while a paged list has pages to fetch), replaces the dead and hands their jobs \
            back to the queue, retires extra workers, and hands back jobs whose lease ran out. It is not \
            meant to be run by hand: use farm start.

            EXAMPLES:
              farm start --foreground
                  The supervisor in the foreground, as a service runs it.
            """ + ExitStatus.section([
                0: "Stopped by farm stop or SIGTERM, or another supervisor runs.",
                1: ExitStatus.spoolUnusable,
            ]),
        shouldDisplay: false)

    @OptionGroup var options: SpoolOptions

    @Option(help: "Descriptor of the supervisor lock, already taken by the starter.")
    var lockFd: Int32?

    func run() throws {
        let spool = try options.open(create: false)
        let lock: Int32
        if let lockFd {
            lock = lockFd
        } else {
            guard let taken = try SupervisorLock.take(spool) else { return }  // one runs already
            lock = taken.rawValue
        }
        try Supervisor.run(spool, lock: lock, roles: .farm)
    }
}
