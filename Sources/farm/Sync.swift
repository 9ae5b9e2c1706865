import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmJSON
import FarmSpool
import FarmStatus
import FarmSync
import FarmSystem
import FoundationEssentials
import Glibc

/// `farm sync LIST|--all [--json]` (SPEC §7): each list brought to its source again, one line of counts
/// per list. A list that cannot be synced is one line on stderr and the others go on; the exit status is
/// then 2 when one was refused (its pages still followed, or not a list), else 1.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Bring LIST (or every list) to its source: add, remove, fetch what changed.",
        discussion: """
            Reads the source of LIST again (its manifest file or URL, or every page of its API) and brings \
            the list to it, in one step that is atomic for the list: items new in the source are added and \
            queued, items gone from it are removed with their files, and items whose URL changed are \
            fetched again. Every done resource is revalidated with a conditional request (If-None-Match \
            with its ETag, else If-Modified-Since): a 304 changes nothing; a 200 replaces its file and \
            images, the old image shown until the new one is in place. It prints one line per list: \
            Books: added 3, removed 1, changed 2, unchanged 40.

            A source that cannot be read changes nothing. A sync killed anywhere and run again ends where \
            one uninterrupted sync ends. With --all, a list that cannot be synced is one line on standard \
            error and the others go on. farm reload, not sync, downloads everything again.

            Each done resource is revalidated with its own request, also where several share one URL. A \
            resource whose revalidation fails (a network error, new bytes of no supported kind) is kept as \
            it is, counted as unchanged, with a line in the spool's log/farm.log. New titles or captions of a \
            paged list's existing items are not carried over. A local source given as a relative path is \
            read relative to the folder farm sync runs in.

            EXAMPLES:
              farm sync Books
                  Bring the list Books to its source.
              farm sync --all --json
                  Every list, the counts as JSON.
            """ + ExitStatus.section([
                0: "Every list asked for is synced.",
                1: "A list could not be synced (its source unreadable, say).",
                2: """
                    A list was refused: no such list, or its pages are still being
                    fetched.
                    """,
            ], parse: "The command line does not parse (both LIST and --all, or neither)."))

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String?

    @Flag(help: "Sync every list.")
    var all = false

    @Flag(help: "Print the counts as JSON (an array with --all).")
    var json = false

    func validate() throws {
        guard (list == nil) == all else { throw ValidationError("give a LIST or --all, not both nor neither") }
    }

    func run() throws {
        let spool = try options.open(create: false)
        let lists: [PublishedList]
        if all {
            lists = ListLookup.all(spool)
        } else {
            do { lists = [try Control(spool: spool).find(.typed(list ?? ""))] } catch {
                Standard.error("Error: \(error)\n")
                throw ExitCode(2)
            }
        }
        var reports: [SyncReport] = []
        var failure: Int32 = 0
        let terminal = isatty(2) == 1
        for published in lists {
            var sync = ListSync(spool: spool, id: published.id)
            if terminal {
                let name = published.record.name
                sync.progress = { done, total in
                    Standard.error("\(name): revalidated \(done) of \(total)\n")
                }
            }
            do {
                let report = try sync.run()
                reports.append(report)
                if !json { print(report) }
            } catch {
                Standard.error("Error: \(published.record.name): \(error)\n")
                failure = max(failure, error.refused ? 2 : 1)
            }
        }
        if json {
            let objects = reports.map { String(decoding: JSON.encode($0), as: UTF8.self) }
            print(all ? "[" + objects.joined(separator: ", ") + "]" : objects.first ?? "{}")
        }
        if failure != 0 { throw ExitCode(failure) }
    }
}
