import FarmSpool
import FarmStatus
import FarmSystem
import FoundationEssentials
import SystemPackage

/// `farm top`: the farm live, in the terminal when there is one (the app's two screens, keys to
/// scale, pause, reload and reset), else as plain lines. The entry point of this module; the
/// command line and the demo call it on their main thread.
public enum LiveView {
    /// Runs until `q`, ^C or SIGTERM (or, in plain lines, until every list is Finished). The
    /// terminal is given back as it was found on every way out, a crash included. `afterFrame` hears
    /// how many frames the terminal view has drawn, after each one: farm passes none; farm-probe
    /// crashes there to prove the terminal is given back. `poll`: `--poll` (see FarmChangeFeed's `Polling`).
    public static func run(_ spool: Spool, poll: Bool = false, afterFrame: ((Int) -> Void)? = nil) {
        // Before ncurses starts: it installs its own ^C and SIGTERM handlers only where none is set,
        // and ours let the loop end and restore the terminal itself.
        StopSignal.install()
        guard FileDescriptor.standardInput.isTerminal && FileDescriptor.standardOutput.isTerminal else {
            PlainView(spool: spool, poll: poll).run()
            return
        }
        let terminal: Terminal
        do { terminal = try Terminal() } catch {
            Standard.error("farm top: \(error); printing plain lines instead\n")
            PlainView(spool: spool, poll: poll).run()
            return
        }
        TopSession(spool: spool, terminal: terminal, poll: poll, afterFrame: afterFrame).run()
    }
}
