import ArgumentParser
import FarmCommandLine
import FarmTop

/// `farm top`: the farm live in the terminal (the app's first two screens), with keys to scale,
/// pause, reload and reset; plain lines when standard output is not a terminal.
struct Top: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Show the farm live: lists with state and progress, then one list's resources.",
        discussion: """
            In a terminal: the lists (state, done/total, progress bar, failures) under a header with \
            the downloads at once (6 at once: 6 workers × 1), paused or not, files/s, MB/s and an ETA. Enter opens \
            a list, one row per resource, under a row per host for a recursive list (resources found, fetched, \
            active and queued). The terminal is restored on q, ^C, SIGTERM and crashes, and the \
            farm keeps running: top stops nothing.

            When standard input or output is not a terminal (or the terminal cannot be used), it prints one \
            summary line each time the counts, workers or paused flag change, each followed by a line per \
            host of a recursive list ("  LIST HOST: 12 found, 5 fetched, 2 active, 5 queued"), and ends when \
            every list is Finished (or on ^C or SIGTERM).

            KEYS:
              Up/Down, j/k    select a row (PgUp/PgDn, Home/End: a page, an end)
              Enter           open the selected list
              Esc, Backspace  back to the lists
              /               filter a list's resources (Enter keeps it, Esc clears it)
              d               delete the selected resource from its list (asks)
              + / -           one worker more / fewer (1 to 64)
              ] / [           one transfer a worker more / fewer (1 to 256)
              p               pause or resume every transfer (bytes are kept)
              r               download the selected list again
              R               reset: stop everything, delete every list (asks)
              ?               every key
              q, Ctrl-C       quit (the farm keeps running)

            EXAMPLES:
              farm top
                  Watch the farm of ./spool or $FARM_SPOOL.
              farm top --spool /var/lib/farm/books
                  Watch the farm of farm@books.
              farm top | tee progress.log
                  Summary lines instead of the screen.
            """ + ExitStatus.section([0: "Quit, or every list finished (in summary lines).", 1: ExitStatus.noSpool]))

    @OptionGroup var options: SpoolOptions

    @OptionGroup var polling: PollOption

    func run() throws {
        LiveView.run(try options.open(create: false), poll: polling.poll)
    }
}
