import ArgumentParser
import FarmCommandLine
import FarmControl

/// `farm stop`: every process ends; active jobs go back to the queue with their bytes kept.
struct Stop: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop every farm process; active jobs go back to the queue, their bytes kept.",
        discussion: """
            Stops every process of the farm, on every host that shares the spool: each is asked to hand its \
            jobs back and exit (SIGTERM), and one still running after 15 s is killed. Active jobs go back \
            to the queue with the bytes downloaded so far, so the next farm start resumes them from the \
            byte they reached. stop then removes the temporary files that killed writers left.

            stop deletes no list, job or finished file (farm reset does), and a stopped farm stays stopped: \
            nothing restarts it until the next farm start. Another host's processes are stopped by that \
            host's supervisor; workers started there by hand need a farm stop on that host, which stop \
            counts in what it prints. SIGTERM or SIGINT to a supervisor stops the farm the same way.

            EXAMPLES:
              farm stop
                  Stop the farm of ./spool or $FARM_SPOOL.
              farm stop --spool /var/lib/farm/books
                  Stop the farm of farm@books, as systemctl stop farm@books does.
            """ + ExitStatus.section([
                0: "Nothing of the farm runs on this host any more (or nothing ran).",
                1: ExitStatus.spoolUnusable,
            ]))

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.stop()
    }
}
