import ArgumentParser
import FarmSpool
import FarmSupervisor
import FarmTransfer

/// `farm supervise`: the supervisor process. `farm start` (or a worker that saw the last one die)
/// starts it detached, handing down the supervisor lock; it is not meant to be run by hand.
struct Supervise: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervise",
        abstract: "Run the supervisor (started by `farm start`).", shouldDisplay: false)

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
        try Self.supervise(spool, lock: lock)
    }

    /// `farm supervise` in a copy of `farm start` (`SupervisedRoles`).
    static func supervised(_ spool: Spool, lock: Int32) -> Int32 {
        Farm.exitStatus { try Self.supervise(spool, lock: lock) }
    }

    private static func supervise(_ spool: Spool, lock: Int32) throws {
        // Its workers are copies of this process: libcurl is loaded once here, not in each of them.
        // Where it cannot be, each worker says why in log/farm.log as it exits.
        EasyHandle.loadLibrary()
        try Supervisor(spool: spool, lock: lock, roles: .farm).run()
    }
}

extension SupervisedRoles {
    /// The farm's processes, for copies (see `Spawn.copy`).
    static let farm: SupervisedRoles = SupervisedRoles(supervisor: Supervise.supervised, worker: Work.supervised,
                                                       watcher: Watch.supervised, follower: Follow.supervised)
}
