import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmSpool
import FarmStatus
import FarmSystem
import FoundationEssentials
import SystemPackage

/// `farm get URL|FILE… [-o NAME] [--out DIR] [--link] [--connections N]`: fetches and returns, as wget does (SPEC §15).
/// Parses, shows and exits; the verb is `Control.get`.
struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Fetch URLs into a folder and return, as wget does, with a progress bar per file.",
        discussion: """
            Fetches each URL, and each URL of each FILE (a text list, as farm add reads it: one URL a \
            line, TAB-separated mirrors, out= and sha256= lines), into DIR (default: the current folder) \
            under its name, and returns once all are done or failed. Each file is your own, as wget's: a \
            reflink where the file system has them, else a copy of the spool's download, with the mode your \
            umask gives. Without reflinks a copy costs a write and sync of each file: 8 x 64 MiB took 3.9 s \
            with copies, 1.4 s with --link (ext4). --link makes it a hard link of the spool's file instead: \
            no copy, but an edit of it is an edit of the spool's done output. It works in the spool every \
            command uses (--spool, else $FARM_SPOOL, else ./spool when it exists, else $XDG_STATE_HOME/farm, \
            else ~/.local/state/farm), and starts a farm there when none runs (and stops it again when done). On a terminal it shows \
            a progress bar per file and one for the whole; otherwise a line each time a file changes status.

            ^C stops its downloads, keeping their bytes; the same command again goes on from them, by \
            range where the server allows it. get never touches another list of the spool: on a farm that \
            was running already, its other lists go on.

            EXAMPLES:
              farm get https://example.org/big.iso
                  Fetch one file into the current folder.
              farm get https://example.org/big.iso -o debian.iso --connections 8
                  Under another name, as up to 8 pieces at once.
              farm get urls.txt --out ~/Downloads
                  Every URL of a text list.
            """ + ExitStatus.section([
                0: "Every file is done.",
                1: "Some failed (farm status LIST says why), or the spool failed.",
                2: """
                    An argument that is neither a URL nor a readable text list, a -o
                    with several URLs, an unusable --out: nothing fetched.
                    """,
                130: "Stopped by ^C; the same command resumes.",
            ]))

    @OptionGroup var options: SpoolOptions

    @Argument(help: ArgumentHelp("http(s) URLs (host/path without a scheme is http), and text lists of them.",
                                 valueName: "url-or-file"))
    var sources: [String] = []

    @Option(name: .customShort("o"), help: ArgumentHelp("The name of the file (one URL only).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("The folder the files go to (default: the current folder).", valueName: "dir"))
    var out: String?

    @Flag(help: ArgumentHelp("A hard link of the spool's file instead of a copy: an edit of it is an edit of the "
                             + "spool's done output."))
    var link = false

    @Option(help: ArgumentHelp("Connections at once for one file (1 to 64): a file whose size is known and whose "
                               + "server takes ranges is fetched as pieces.", valueName: "n"))
    var connections: Int?

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("give farm get a URL, or a text file of URLs") }
    }

    func run() throws {
        let request = Control.GetRequest(sources: sources, name: name, folder: out ?? ".", connections: connections,
                                         link: link)
        let spool = try options.open()
        StopSignal.install()
        let output = FileDescriptor.standardOutput
        var screen = GetScreen(terminal: output.isTerminal)
        let control = Control(spool: spool, roles: .farm)
        // A Result, not a do-catch around the typed throw: Swift 6.3.1's SILGen crashes on that one here.
        let outcome = Result { () throws(ControlError) -> Control.Fetched in
            try control.get(request, interrupted: { StopSignal.received }) { list in
                screen.show(list, width: output.terminalColumns ?? 80)
            }
        }
        let fetched: Control.Fetched
        switch outcome {
        case .success(let value): fetched = value
        case .failure(let error):
            // A URL, file, -o or folder that cannot be used: the user's mistake, refused with nothing fetched.
            guard [.editRefused, .badDelivery, .badRequestOption].contains(error.code) else { throw error }
            Standard.error("Error: \(error)\n")
            throw ExitCode(2)
        }
        guard !fetched.interrupted else { fail(fetched.description, code: 130) }
        guard fetched.failed == 0 else { fail(fetched.description, code: 1) }
        print(fetched.description)
    }

    private func fail(_ reason: String, code: Int32) -> Never {
        Standard.error("farm get: " + reason + "\n")
        Self.exit(withError: ExitCode(code))
    }
}

/// Where `farm get` shows its list: bars redrawn in place on a terminal, plain lines otherwise.
private struct GetScreen {
    let terminal: Bool
    private var drawn = 0
    private var progress = ProgressBars()

    init(terminal: Bool) { self.terminal = terminal }

    mutating func show(_ list: ListStatus, width: Int) {
        guard terminal else {
            // Unbuffered, so that a pipe sees each line when it happens.
            let lines = progress.changes(list)
            if !lines.isEmpty { Standard.output(lines.map { $0 + "\n" }.joined()) }
            return
        }
        let lines = progress.bars(list, width: width, now: Clock.monotonic())
        // Back to the first line drawn, then each line over the old one, cleared to its end.
        var text = drawn > 0 ? "\u{1B}[\(drawn)A\r" : "\r"
        for line in lines { text += line + "\u{1B}[K\n" }
        // Fewer lines than last time (resources finished off the list of those under way): clear the rest.
        for _ in lines.count..<max(lines.count, drawn) { text += "\u{1B}[K\n" }
        drawn = max(lines.count, drawn)
        Standard.output(text)
    }
}
