import ArgumentParser
import FarmCommandLine
import FarmControl

/// `farm reset`: stop everything and delete every list, job and file: the spool as on first launch.
struct Reset: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Stop everything and delete every list, job and file (the spool as on first launch).",
        discussion: """
            Stops every farm process on every host, as farm stop does, then deletes every list, job, \
            download, image and setting in the spool: it is as on first launch. It asks no confirmation and \
            cannot be undone. Files delivered to an --out folder of farm add stay where they are, as does \
            anything else outside the spool.

            EXAMPLES:
              farm reset --spool /tmp/tour
                  Empty the spool /tmp/tour.
            """ + ExitStatus.section([
                0: "The spool is empty.",
                1: "There is no spool there, or it could not be emptied.",
            ]))

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.reset()
    }
}
