import ArgumentParser
import FarmTop

/// `farm top`: the farm live in the terminal (the app's first two screens), with keys to scale,
/// pause, reload and reset; plain lines when standard output is not a terminal.
struct Top: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Show the farm live: lists with state and progress, then one list's resources.",
        discussion: """
            In a terminal: the lists (state, done/total, progress bar, failures) under a header with \
            workers running/wanted, paused or not, files/s, MB/s and an ETA. Enter opens a list (one row \
            per resource), Esc goes back; Up/Down or j/k select, +/- change the workers (1 to 64), p \
            pauses or resumes, r downloads the selected list again, R resets the spool (after y/n), ? shows \
            every key, q quits. The terminal is restored on q, ^C, SIGTERM and crashes; the farm keeps \
            running.

            When standard output is not a terminal, it prints one summary line each time the counts, \
            workers or paused flag change, and ends when every list is Finished (or on ^C or SIGTERM).
            """)

    @OptionGroup var options: SpoolOptions

    @OptionGroup var polling: PollOption

    func run() throws {
        LiveView.run(try options.open(create: false), poll: polling.poll)
    }
}
