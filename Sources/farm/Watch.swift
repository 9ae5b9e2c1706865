import ArgumentParser
import FarmCommandLine
import FarmSpool
import FarmWatcher

/// `farm watch`: the watcher process (FarmWatcher's `WatcherRole`), which keeps status/summary.json current
/// until SIGTERM. `ps` shows it as `farm watch`.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Run the watcher: keep status/summary.json current (the supervisor starts it).",
        discussion: """
            Runs the watcher in this process. It follows the spool with inotify (or polls it, where other \
            hosts share its file system or with --poll), keeps the summary of every list in \
            status/summary.json, and syncs the downloads to disk every second while they run. One watcher \
            serves a spool; another waits as its standby and takes over when it dies. The supervisor runs \
            it: there is no need to start one by hand.

            EXAMPLES:
              farm ps | grep watcher
                  The watcher the supervisor runs.
            """ + ExitStatus.section([0: "Stopped by SIGTERM or ^C.", 1: ExitStatus.spoolUnusable]),
        shouldDisplay: false)

    @OptionGroup var options: SpoolOptions

    @Flag(help: .hidden) var supervised = false

    @OptionGroup var polling: PollOption

    func run() throws {
        try Watcher.run(try options.open(), supervised: supervised, poll: polling.poll)
    }
}
