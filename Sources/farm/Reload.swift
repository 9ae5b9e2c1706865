import ArgumentParser
import FarmCommandLine
import FarmControl

/// `farm reload LIST`: a fresh download of every resource of one list; other lists are untouched.
struct Reload: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload", abstract: "Download every resource of LIST again.",
        discussion: """
            Sends every finished resource of LIST, done or failed, back to the queue for a fresh download: \
            its files and images are deleted first, and the running farm fetches it again, never from bytes \
            the spool already holds. Queued resources lose the bytes downloaded so far; those under way are \
            left alone. No other list is touched.

            EXAMPLES:
              farm reload "Set 1.json"
                  Fetch every resource of the list Set 1.json again.
            """ + ExitStatus.section([0: "The list's resources are queued.", 1: "No such list, or the spool failed."]))

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.reload(.typed(list))
    }
}
