import ArgumentParser
import FarmCommandLine
import FarmControl

/// `farm pause`: every transfer stops where it is, keeping its bytes and lease; nothing new is claimed.
struct Pause: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause every transfer (bytes and leases are kept).",
        discussion: """
            Pauses every transfer of the farm, on every host, within a second: each stops where it is, \
            keeping its bytes and its lease, and no worker claims a new job. The processes go on running, \
            and farm resume goes on from the same bytes. The pause is kept in the spool: it lasts through \
            farm stop and farm start until farm resume.

            pause never drops a byte, never hands a job back, and stops no process.

            EXAMPLES:
              farm pause
                  Free the line for a while; farm resume when done.
            """ + ExitStatus.section([0: "Paused.", 1: ExitStatus.spoolUnusable]))

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.setPaused(true)
    }
}
