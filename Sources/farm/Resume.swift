import ArgumentParser
import FarmCommandLine
import FarmControl

/// `farm resume`: transfers continue from the byte they reached.
struct Resume: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume every transfer from the byte it reached.",
        discussion: """
            Ends a farm pause, on every host, within a second: each paused transfer goes on from the byte \
            it reached, and the workers claim new jobs again. A farm held back because its disk is short of \
            space (farm start --min-free) goes on by itself once space is freed, and resume does not lift \
            that.

            EXAMPLES:
              farm resume
                  Go on after farm pause.
            """ + ExitStatus.section([0: "Resumed.", 1: ExitStatus.spoolUnusable]))

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.setPaused(false)
    }
}
