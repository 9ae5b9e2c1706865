import ArgumentParser
import FarmCommandLine
import FarmJSON
import FarmSpool
import FarmStatus

/// `farm status [LIST] [--json]`: the app's first screen (every list) or its second (one list's
/// resources), once. Answers whether or not anything runs: from the watcher's summary when one is
/// live, else from a scan of the spool.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every list with its progress, or the resources of one list.",
        discussion: """
            Without LIST, prints every list with its state (Queuing..., Downloading..., Finished; Held for \
            a list farm get's ^C or aria2's pause holds out of the workers' reach), its counts and progress, the workers running and wanted, and whether the farm is paused. With \
            LIST, prints that list's counts and its resources: each one's index, status (Queueing, \
            Downloading 45%, Unzipping, Rendering, Done, Error), kind, and URL or error. LIST is a list's \
            name ("Set 1.json" or "Set 1") or its 16-hex-digit id. --json prints the same as one JSON \
            document, with where each resource's file and display image are.

            status answers whether or not a farm runs: from the watcher's summary when one is running, \
            else from a scan of the spool, as the spool is when it is asked (it asks the watcher through \
            a file of its own in the spool's status/ folder, and otherwise only reads the spool).

            JSON:
            farm status --json has updated, paused, pausedBy ("user" after farm pause, "disk" while the \
            spool's disk has less than farm start's --min-free free, null), disk {free, minFree} in bytes, \
            workers {desired, running}, and per list name, id, state, total, queued, active, done, failed and \
            progress, and "held": true for a held list (its held jobs count as queued); it stays small however many resources there are. With LIST, the list has its \
            resources, each with index, id, url, status (queued, downloading, done, error...), text (what \
            the app shows: Queueing, Downloading 45% (0% until the server says the size), Unzipping, \
            Rendering, Done, Error), bytes, size, kind, file, image, thumb, error, attempts and changed (which \
            moves when status does, not with every byte). Every key is always there, null when unknown. A \
            resource served from bytes the spool already had (the same URL in another list, or equal bytes) \
            has "shared": true. A paged list also has "pages": {"fetched", "done", "skipped"} (items without \
            a URL are skipped), "error" (why a page stopped it: "page 2: HTTP 404"), and with --list-title \
            and --list-cover its "title" and "cover"; its total grows as pages arrive, and it is not \
            Finished before its last page is in.

            FILES OF A RESOURCE:
            The kind comes from the bytes' magic number, never the URL. A resource's files are in the \
            spool's files/<list id>/:
              JPG, PNG
                  <index>.jpg or .png, itself the display image; <index>.thumb.png (256 px)
                  the thumbnail, as for every kind with a display image.
              GIF, WebP
                  <index>.gif or .webp; the display image is its first frame,
                  <index>.frame1.png (1600 px).
              PDF
                  <index>.pdf; page 1 rendered with poppler and cairo, <index>.page1.png
                  (1600 px).
              ZIP
                  <index>.zip, unpacked safely under <index>.unzipped/; the display
                  image is its first image by name (else its first PDF, rendered).
              other
                  With farm add --accept any: <index>.<the URL's extension>, else
                  <index>.other, as downloaded; no display image, no thumbnail.

            EXAMPLES:
              farm status
                  Every list, one line each.
              farm status "Set 1"
                  The resources of the list Set 1.json.
              farm status --json
                  The whole-spool document, for scripts.
            """ + ExitStatus.section([0: "Printed.", 1: "There is no spool there, or no such list."]))

    @OptionGroup var options: SpoolOptions

    @Argument(help: "A list's name or id; without it, the summary of every list.")
    var list: String?

    @Flag(help: "Print the status document as JSON (SPEC §4).")
    var json = false

    func run() throws {
        let spool = try options.open(create: false)
        guard let list else {
            // As of this command, not the watcher's last write: a status printed after another document
            // never shows the spool as it was before that one.
            let summary = StatusReader.current(spool)
            // The spool is named last: the rule that picked it (SPEC §3) is not always the one a user has in
            // mind, and `farm get` may have worked in the user's state folder.
            print(json ? String(decoding: JSON.encode(summary, .pretty), as: UTF8.self)
                : StatusText.summary(summary) + "\nspool: " + spool.root, terminator: json ? "" : "\n")
            return
        }
        let found = try ListLookup.find(spool, list)
        guard let view = ListView.build(spool, listID: found.id) else {
            throw FarmError("\(found.record.name) was removed from the spool while being read; try again")
        }
        let shown = view.held(by: Stall.of(spool))
        print(json ? String(decoding: JSON.encode(shown, .pretty), as: UTF8.self) : StatusText.list(shown),
              terminator: json ? "" : "\n")
    }
}
