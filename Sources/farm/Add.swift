import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmCoordinator
import FarmLists
import FarmMirror
import FarmSpool
import FarmSystem
import FarmTransfer
import FoundationEssentials
import SystemPackage

/// `farm add [SOURCE]`: the coordinator. Enqueues every resource of a manifest, atomically.
struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Enqueue every resource of a manifest (a zip of lists, one JSON list, or a text list of URLs).",
        discussion: """
            SOURCE is an http(s) URL or a local path: a .zip holding .json files at any depth, each one list \
            named by its file name, or one .json file. A list is an array of URL strings, an object \
            {"items": [{"uuid": ID, "imageUrlString": URL}]}, or an array of objects with a "url" (and an \
            "id", and a "sha256" the download must have). Without SOURCE, the original app's manifest is \
            fetched.

            A file that is not JSON (its first character other than white space is not [ or {) is a text \
            list: one URL a line; blank lines and lines starting with # are skipped; several URLs separated \
            by TAB are one resource at mirrors; an indented name=value line below a URL gives it an option: \
            out=NAME (its {name} in --out) or sha256=HEX. A bad line is refused with its number. A zip may \
            hold .txt lists beside .json ones. SOURCE - reads standard input (JSON, text or a zip).

            add only queues the resources: the workers of a running farm download them (farm start). It is \
            atomic: a manifest that is refused adds nothing, and adding the same manifest twice adds nothing \
            more. A URL this spool has downloaded before, in any list, is not fetched again: its bytes are \
            linked (--fresh downloads it anyway). No URL or name from a manifest reaches a shell or becomes \
            a path outside the spool. A download shared that way is still converted again for each list \
            that has it, and a URL whose bytes are of no supported kind is not recorded: each list fetches it.

            With --items and --url, SOURCE is a JSON API that hands out one page of items at a time, read by \
            JSON Pointers (RFC 6901; a * segment maps over every element of an array): add records it and \
            returns, and the running farm's follower fetches its pages while the workers download. Item and \
            cover URLs may be relative to the page's URL.

            --header, --cookies, --user-agent and --proxy go with every request made for the list: its \
            manifest or pages, its resources, their retries, and farm sync. Their values are kept in the \
            spool in a file of mode 0600 and never shown. With --out DIR, each finished download also \
            appears in DIR, named by the --name template.

            A download is told by its bytes: JPG, PNG, GIF and WebP are pictures (a GIF's or WebP's display \
            image is its first frame), PDF and ZIP are converted. Bytes of any other kind (an HTML page named \
            .jpg) fail with "unsupported content", unless the list was added with --accept any: they are then \
            kept as downloaded, of kind "other", with no display image.

            TEXT LISTS:
            A text list is named by its file (urls.txt: the list urls, delivered to DIR/urls/ by the default \
            --name). One list read from standard input is named stdin- and 8 hex digits of its URLs, so the \
            same list piped twice adds nothing. In a zip, a .txt whose first line is not a URL (a readme) is \
            skipped. A line that is not an http(s) URL, an option with no URL above it, an unknown option or \
            a checksum that is not one is refused with its number (urls.txt: line 4: unknown option \
            "referer"=), exit 2, and nothing is added.

            CHECKSUMS:
            A "sha256" (64 hex digits, either case) of an item, or a text list's sha256= line, is the SHA-256 \
            its download must have. A download that differs is fetched once more from its first byte; if it \
            still differs the resource fails with "checksum mismatch: expected HEX, got HEX" and leaves no \
            output. Bytes the spool already holds for the URL serve it only when their digest is that one. \
            The one fresh try is counted within a claim: a worker killed between the two downloads leaves the \
            next owner two tries again.

            CREDENTIALS:
            A redirect to another host carries no Authorization header and no cookie (cookies go by their own \
            domain and path); other headers follow it, as curl's do. farm status LIST --json shows only the \
            names and counts: "request": {"headers": ["Authorization"], "cookies": 3, "proxy": URL}. A header \
            that is not Name: value, a cookie file that cannot be read or holds a line that is not a cookie, \
            and a proxy of another scheme are refused (exit 2, nothing added).

            DELIVERY:
            With --out DIR, each done resource's download is put at DIR/TEMPLATE (--name, default \
            {list}/{name}) as a file of your own: a reflink where the file system has them (Btrfs, XFS), \
            else a copy, with the mode your umask gives (as wget's and curl's files), so an edit of it never \
            reaches the download farm keeps. Without reflinks a copy costs a write and sync of each file: \
            farm get of 8 x 64 MiB took 3.9 s with copies, 1.4 s with --link (ext4). With --link it is a \
            hard link of the spool's file instead (DIR on the spool's file system; elsewhere still a copy): \
            no copy, but the same bytes and mode 0600, so an edit of it is an edit of the spool's done output \
            (and of every other list's output of the same bytes), which farm fsck then reports. Either way \
            it is written whole before it gets its name, so a kill never leaves half a file in DIR. {index} \
            is zero-padded to the list's width, {name} is the URL path's last segment percent-decoded, {ext} \
            comes from the bytes' kind, {host} is the URL's host (and :port when not the default) and \
            {path} its path as wget names files (several folders, each made safe). Each field is made safe \
            (a / becomes _, control characters go, . and .. become _, a segment is cut to 255 bytes keeping \
            its extension); resources that would share a path get " (2)", " (3)"... in list \
            order. A resource is done once delivered; a delivery that fails is its error ("delivery failed: \
            ..."), and farm retry delivers again. farm never replaces or removes a file it did not deliver \
            (its deliveries carry the attribute user.farm.delivered; where the file system has no user \
            attributes, a reload's or sync's new version fails its delivery instead). farm item rm removes the \
            delivered file, farm sync and farm reload replace it, farm reset leaves DIR alone; the status \
            shows each resource's "delivered" path.

            PIECES AND MIRRORS:
            With --connections N, each resource whose server answers a range with its size is fetched as \
            pieces (at least --min-piece), up to N at once, by any worker of any host: each piece is a claim \
            of its own, with its own lease, written at its offset into the resource's one partial file. A \
            worker killed mid-piece costs what it fetched since its last progress (a few times a second); \
            farm stop, a scale-down and pause hand pieces back with their bytes. A transfer that finishes its \
            piece takes over the tail of the slowest holder, so the last bytes never wait on one slow \
            connection. The status shows the resource as one row with "pieces": {"done", "active", \
            "total"}; conversions, delivery, checksums and download once act on the whole file. A resource \
            whose server does not answer a range with its size is fetched over one connection.

            An item of the objects shape may give mirrors of the same bytes, {"id": "iso", "urls": [URL, \
            URL...]} (a text list: URLs separated by TAB); the first is its URL. Pieces are spread over them; \
            a mirror that fails a piece or reports another size is dropped for that resource, which fails \
            only when every mirror has (every mirror failed: URL: reason; ...). Once paces are known, a \
            mirror four times slower than the fastest takes no new piece; one held by a Retry-After leaves \
            its pieces to the others.

            HOOKS:
            With --on-done PROGRAM, PROGRAM runs after each resource of the list is done (and \
            delivered, with --out), and after each one that failed for good too unless --on-error PROGRAM \
            is given for those. It runs with no shell: its arguments are only the --on-done-arg (or \
            --on-error-arg) values, in order, each taken as it is (even one starting with -). The resource \
            is in its environment: FARM_LIST (the list's name), FARM_INDEX, FARM_ID, FARM_URL, FARM_FILE \
            (the download in the spool), FARM_DELIVERED (its copy in --out), FARM_KIND, FARM_SIZE, \
            FARM_SHA256 (when the list gave one), FARM_ERROR (why it failed) and FARM_STATUS (done or \
            error); a variable of nothing known is empty. PROGRAM is found when the list is added (a path, \
            or a name in PATH). It runs at least once per resource, across kills: a worker killed before \
            or during a hook leaves it to another, which runs it again. Its output goes to the spool's log. \
            One that runs longer than --hook-timeout (default 60 s) is killed. Its exit status shows in \
            farm status LIST --json as "hook": {"exit": N}; farm failed --hooks lists those that did not \
            exit 0 and farm retry --hooks runs them again. Hooks run beside the downloads, never in their \
            place.

            MIRROR A SITE:
            With --recursive, URL starts a list that grows while the farm downloads it, as wget -r -p \
            crawls: each HTML page and stylesheet fetched adds its links (a and area href, img src and srcset, \
            link href, script, frame and iframe src, source, video and audio, meta refresh, under <base>; \
            CSS url() and @import), each normalized URL once, in the same step as the page's completion, so \
            a kill of any process loses no link and adds none twice. Pages are followed --level links deep \
            (default 5, inf for no limit); the images, stylesheets and scripts of every page fetched are \
            fetched at any level. Only the start URL's host unless --span-hosts (with --domains); \
            --no-parent keeps below its directory; --accept and --reject take wget's lists (suffixes or \
            globs) and --exclude-dirs its directories. Each host's robots.txt is fetched by a worker before its \
            other requests, and obeyed for the user agent farm (else *), its Crawl-delay too, with meta robots \
            nofollow; --no-robots turns both off. A broken link is a failed resource; the mirror goes on. Bytes of \
            any kind are kept (pages are of kind "other"). With --out DIR the files are named as wget names them, \
            {host}/{path}: host[:port]/dir/file, index.html for a path ending in /, a query kept after a ?. \
            --convert-links (wget's -k) rewrites, once the list is finished, the links of the delivered pages and \
            stylesheets: to what was fetched, as relative paths between the files; to what was not, as absolute \
            URLs. A kill during the conversion leaves every file whole, and the next farm converts again.

            ARCHIVE TO WARC:
            With --warc DIR (any list, recursive or not), each fetch of the list is recorded in DIR as WARC/1.1 \
            (ISO 28500), as wget --warc-file writes it: a warcinfo record opening each file, then for each \
            exchange a response record (status line, header fields and body as received) and a request \
            record (the header as sent), with WARC-Target-URI, WARC-Date, WARC-IP-Address, \
            WARC-Concurrent-To and sha1 block and payload digests: each redirect's hop (the 3xx, before the \
            answer it led to), the resource, and the answer a resource fails with (a 404, a 5xx given up \
            on). Each record is a gzip member of its own; \
            each worker writes its own files, farm-DATE-SERIAL-NONCE.warc.gz, named .open until finished \
            and rotated before they pass --warc-max-size (default 1G). Across kills of any process a \
            finished list's files hold no torn record and one response record for each URL fetched, its \
            last complete fetch (a 503 retried keeps only the retry's answer; a resource that failed and \
            that farm retry then fetched keeps only the resource: the error's records are dropped from their \
            file, rewritten as NAME.compacting and renamed over it, once no worker has it open). A list \
            with --warc fetches each resource over one connection, from its first byte. DIR is made if \
            missing; one that cannot be written is refused, exit 2, nothing added.

            EXAMPLES:
              farm add manifest.zip
                  Queue every list of a local zip.
              gallery-dl -g URL | farm add -
                  Queue the URLs of a text list read from standard input.
              farm add https://example.org/birds.json --out ~/Pictures
                  Queue one list; put each file in ~/Pictures/birds/ once downloaded.
              farm add https://example.org/set.zip --header @headers.txt --cookies c.txt
                  Send the headers in headers.txt and the cookies of c.txt.
              farm add https://example.org/photos --items /items --url /src --next /next
                  A paged API: each page's items, their URLs, and the next page.
              farm add https://example.org/docs/ --recursive --level 3 --no-parent
                  Mirror the docs three links deep, with what each page needs to show.
              farm add https://example.org/ --recursive --warc ~/warcs --warc-max-size 500M
                  Mirror a site; record every request and response in ~/warcs.
              farm add urls.txt --on-done ./upload.sh --on-done-arg --bucket --on-done-arg photos
                  Run ./upload.sh --bucket photos after each resource, with FARM_FILE and the rest in its
                  environment.

            EXIT STATUS:
              0   The manifest was added.
              1   It could not be read or fetched, a list of the same name has other
                  URLs, or the spool failed: nothing added.
              2   A malformed manifest, a header, cookie file, proxy or checksum that
                  is not one, an unusable --out, --name or --warc, a hook that cannot run: nothing
                  added.
              64  The command line does not parse.
            """)

    @OptionGroup var options: SpoolOptions

    @Argument(help: "An http(s) URL, a path to a .zip, .json or text manifest, or - for standard input.")
    var source: String?

    @Flag(help: "Download every resource again, even one whose URL the spool already holds.")
    var fresh = false

    @OptionGroup(title: "Paged JSON APIs") var paged: PagedOptions

    @OptionGroup(title: "What every request of the list carries") var requests: RequestFlags

    @Option(help: ArgumentHelp("Deliver each done resource to this folder too, as a file of your own (a reflink, "
                               + "else a copy, under your umask; on ext4 8 x 64 MiB cost 3.9 s, against 1.4 s "
                               + "with --link).", valueName: "dir"))
    var out: String?

    @Flag(help: ArgumentHelp("With --out: a hard link of the spool's file instead of a copy; an edit of it is "
                             + "an edit of the spool's done output."))
    var link = false

    @Option(help: ArgumentHelp("any: keep bytes of any other kind as downloaded (kind \"other\", no display image) "
                               + "instead of failing them with \"unsupported content\".", valueName: "kinds"))
    var accept: String?

    @Flag(name: .customLong("allow-file-urls"),
          help: ArgumentHelp("Copy the list's file:/// URLs from this machine's disk instead of failing them "
                             + "(\"not an http(s) URL\"): only for a list whose URLs you trust."))
    var allowFileURLs = false

    @OptionGroup(title: "Hooks: a program run after each resource ends") var hooks: HookFlags

    @OptionGroup(title: "Mirror a site (wget's names and meanings)") var mirror: MirrorFlags

    @OptionGroup(title: "Archive to WARC") var archive: WARCFlags

    func run() throws {
        do { try add() } catch let error as ControlError
            where (error.cause as? AddError)?.code == .malformed || error.code == .badRequestOption
            || error.code == .badDelivery {
            // SPEC §12: bad input (a checksum that is not one, a header that is not `Name: value`) exits 2,
            // nothing added.
            Standard.error("Error: \(error)\n")
            throw ExitCode(2)
        }
    }

    private func add() throws {
        let request = try Control.requestOptions(headers: requests.header, cookieFile: requests.cookies,
                                                 userAgent: requests.userAgent, proxy: requests.proxy,
                                                 connections: requests.connections,
                                                 minPiece: requests.minPiece,
                                                 accept: mirror.recursive ? nil : accept,
                                                 fileURLs: allowFileURLs)
            .adding(hooks: try hooks.hooks())
            .adding(warc: try archive.settings(connections: requests.connections))
        if mirror.convertLinks && (out == nil || !mirror.recursive) {
            Standard.error("Error: --convert-links goes with --recursive and --out DIR\n")
            throw ExitCode(2)  // bad input, as an unusable --out is
        }
        // With --out, --name is the name template of SPEC §12; without, a paged list's name (SPEC §7).
        let delivery = try out.map { (out) throws(ControlError) in
            try Control.delivery(folder: out, template: paged.name, link: link, recursive: mirror.recursive,
                                 convertLinks: mirror.convertLinks)
        }
        let spool = try options.open()
        try Control(spool: spool).noteWARC(request?.warc)
        if let crawl = try mirror.crawl(source, accept: accept) {
            for line in try Control(spool: spool).add(recursive: crawl, name: paged.listName ?? (out == nil ? paged.name : nil),
                                                      request: request, delivery: delivery).lines {
                print(line)
            }
            return
        }
        if let pagedSource = try paged.source(source, nameIsTemplate: out != nil) {
            let listName = paged.listName ?? (out == nil ? paged.name : nil)
            for line in try Control(spool: spool).add(paged: pagedSource, name: listName, request: request,
                                                      delivery: delivery).lines {
                print(line)
            }
            return
        }
        // A big manifest takes seconds to stage: show how far it is, on a terminal only (one line, redrawn).
        let terminal = FileDescriptor.standardError.isTerminal
        var shown = false
        let added = try Control(spool: spool).add(source, fresh: fresh, request: request,
                                                  delivery: delivery) { staged, total in
            guard terminal else { return }
            Standard.error("\rfarm add: \(staged)/\(total) jobs staged")
            shown = true
        }
        if shown { Standard.error("\r\u{1B}[K") }
        for line in added.lines { print(line) }
    }
}

/// The options of `farm add` for a list recorded as WARC (SPEC §18).
struct WARCFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Record every request and response of the list as WARC files in this folder "
                               + "(gzip per record).", valueName: "dir"))
    var warc: String?

    @Option(help: ArgumentHelp("Start a new WARC file before one would pass this size: bytes, or with K, M or G "
                               + "(default 1G).", valueName: "bytes"))
    var warcMaxSize: String?

    /// The WARC these flags describe; nil without --warc. `connections`: --connections, which a list recorded
    /// as WARC cannot have (each resource is one whole response, over one connection).
    func settings(connections: Int?) throws -> WARCSettings? {
        let settings = try Control.warc(folder: warc, maxSize: warcMaxSize)
        if settings != nil, let connections, connections > 1 {
            throw ControlError(.badRequestOption, "--warc fetches each resource over one connection: leave out --connections")
        }
        return settings
    }
}

/// The options of `farm add` for a recursive list (SPEC §18), with wget's names and meanings.
struct MirrorFlags: ParsableArguments {
    @Flag(help: "Fetch URL, then the pages and files it links to, recursively (wget -r -p).")
    var recursive = false

    @Option(help: ArgumentHelp("How many links deep pages are followed (default 5; inf for no limit); the images, "
                               + "stylesheets and scripts of every page fetched are fetched too.", valueName: "n"))
    var level: String?

    @Flag(help: "Never go above the start URL's directory.")
    var noParent = false

    @Flag(help: "Follow links to other hosts (those of --domains, when given).")
    var spanHosts = false

    @Option(help: ArgumentHelp("Hosts to follow, comma-separated: each and its subdomains.", valueName: "list"))
    var domains: String?

    @Option(help: ArgumentHelp("File names not to fetch, comma-separated: suffixes or globs.", valueName: "list"))
    var reject: String?

    @Option(help: ArgumentHelp("Directories not to fetch, comma-separated: each and what is below it, or globs.",
                               valueName: "list"))
    var excludeDirs: String?

    @Flag(help: "Neither fetch nor obey robots.txt, nor meta robots nofollow.")
    var noRobots = false

    @Flag(help: ArgumentHelp("With --out: once the list is finished, rewrite the links of its pages and stylesheets "
                             + "to what was fetched, by relative paths (others become absolute URLs), as wget -k."))
    var convertLinks = false

    /// The crawl these flags describe from `url`; nil without --recursive. `accept`: --accept, which with
    /// --recursive is wget's list of file names to fetch.
    func crawl(_ url: String?, accept: String?) throws -> CrawlSettings? {
        guard recursive else {
            if level != nil || noParent || spanHosts || domains != nil || reject != nil || excludeDirs != nil || noRobots {
                throw FarmError("--level, --no-parent, --span-hosts, --domains, --reject, --exclude-dirs and "
                    + "--no-robots go with --recursive")
            }
            return nil
        }
        guard let url else { throw FarmError("give the URL to start the mirror from") }
        var depth: Int? = CrawlOptions.defaultLevel
        if let level {
            guard let parsed = CrawlOptions.level(level) else {
                throw FarmError("--level takes a number of at least 1, or inf")
            }
            depth = parsed
        }
        return CrawlSettings(start: url, options: CrawlOptions(
            level: depth, noParent: noParent, spanHosts: spanHosts, domains: domains.map(CrawlOptions.list) ?? [],
            accept: accept.map(CrawlOptions.list) ?? [], reject: reject.map(CrawlOptions.list) ?? [],
            excludeDirectories: excludeDirs.map(CrawlOptions.list) ?? [], obeysRobots: !noRobots))
    }
}

/// The options of `farm add` for its hooks (SPEC §15).
struct HookFlags: ParsableArguments {
    @Option(help: ArgumentHelp("A program to run after each resource is done (and after each that failed, "
                               + "unless --on-error is given), with no shell.", valueName: "program"))
    var onDone: String?

    @Option(parsing: .unconditionalSingleValue,
            help: ArgumentHelp("An argument of the --on-done program (repeatable, in order; taken as is).",
                               valueName: "arg"))
    var onDoneArg: [String] = []

    @Option(help: ArgumentHelp("A program to run after each resource that failed for good.", valueName: "program"))
    var onError: String?

    @Option(parsing: .unconditionalSingleValue,
            help: ArgumentHelp("An argument of the --on-error program (repeatable, in order; taken as is).",
                               valueName: "arg"))
    var onErrorArg: [String] = []

    @Option(help: ArgumentHelp("Seconds a hook may run before it is killed and counts as failed (default 60).",
                               valueName: "seconds"))
    var hookTimeout: Double?

    func hooks() throws -> ListHooks? {
        try Control.hooks(onDone: onDone, onDoneArguments: onDoneArg, onError: onError,
                          onErrorArguments: onErrorArg, timeout: hookTimeout)
    }
}

/// The options of `farm add` for a paged JSON API (SPEC §7).
struct PagedOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The list's name (default: the last part of the URL's path); with --out, the name "
                               + "template of its files below it: text and the fields {list} {index} {id} {name} "
                               + "{stem} {ext} {title} {sha256} {host} {path} (default: {list}/{name}; "
                               + "with --recursive, {host}/{path}).", valueName: "name"))
    var name: String?

    @Option(help: "The list's name, where --name is the template of --out.")
    var listName: String?

    @Option(help: ArgumentHelp("In each page, the array of items.", valueName: "pointer"))
    var items: String?

    @Option(help: ArgumentHelp("In an item, its URL.", valueName: "pointer"))
    var url: String?

    @Option(help: ArgumentHelp("In an item, its id (default: its job's name; then items are told apart by URL).",
                               valueName: "pointer"))
    var id: String?

    @Option(help: ArgumentHelp("In an item, its title.", valueName: "pointer"))
    var title: String?

    @Option(help: ArgumentHelp("An item's caption, whose {pointer} parts are replaced: 'By: {/authors/*/name}'.",
                               valueName: "template"))
    var caption: String?

    @Option(help: ArgumentHelp("In a page, the next page: a number or string N (the URL with ?page=N), or a URL.",
                               valueName: "pointer"))
    var next: String?

    @Option(help: "The query parameter of a page number (default: page).")
    var pageParam: String?

    @Option(help: ArgumentHelp("In the first page, the list's title.", valueName: "pointer"))
    var listTitle: String?

    @Option(help: ArgumentHelp("In the first page, the URL of the list's cover.", valueName: "pointer"))
    var listCover: String?

    /// The paged source these options describe at `url`; nil when none of them is given (a manifest).
    /// `nameIsTemplate`: --name is the template of --out, not a list's name.
    func source(_ url: String?, nameIsTemplate: Bool) throws -> PagedSource? {
        let given = [nameIsTemplate ? nil : name, listName, id, title, caption, next, pageParam, listTitle, listCover]
        guard items != nil || self.url != nil || given.contains(where: { $0 != nil }) else { return nil }
        guard let items, let pointer = self.url else {
            throw FarmError("a paged JSON API needs both --items and --url (JSON Pointers, such as --items /items "
                + "--url /image/url)")
        }
        guard let url else { throw FarmError("give the URL of the API's first page") }
        return PagedSource(first: url, items: items, url: pointer, id: id, title: title, caption: caption, next: next,
                           pageParameter: pageParam ?? "page", listTitle: listTitle, listCover: listCover)
    }
}

/// The options of `farm add` for what every request of the list carries (SPEC §12).
struct RequestFlags: ParsableArguments {
    @Option(help: ArgumentHelp("A header of every request: 'Name: value' (repeatable), or @FILE for a file of them, "
                               + "which keeps its values off the command line.", valueName: "header"))
    var header: [String] = []

    @Option(help: ArgumentHelp("A cookie file in the Netscape format (curl's, wget's, a browser exporter's); "
                               + "each cookie goes to its own domain only.", valueName: "file"))
    var cookies: String?

    @Option(help: "The User-Agent of every request.")
    var userAgent: String?

    @Option(help: ArgumentHelp("A proxy: http://, https://, socks5:// or socks5h://[user:password@]host:port "
                               + "(default: the http_proxy, https_proxy, all_proxy and no_proxy of farm start).",
                               valueName: "url"))
    var proxy: String?

    @Option(help: ArgumentHelp("Connections at once for one resource (1 to 64): a resource whose size is known and "
                               + "whose server takes ranges is fetched as pieces, by any worker of any host.",
                               valueName: "n"))
    var connections: Int?

    @Option(help: ArgumentHelp("The smallest piece: bytes, or with K, M or G (default 1M).", valueName: "size"))
    var minPiece: String?
}
