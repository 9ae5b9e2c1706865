import ArgumentParser
import FarmCommandLine

/// `farm serve`: the app's three screens in a browser, live. Its options are checked here, then farm-serve
/// runs the server with the same arguments (`ServerExecutable`): it prints the address it listens on (one
/// line), then serves until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Show the farm in a browser: the lists, one list's grid, and the viewer, live.",
        discussion: """
            Everything the page needs is served by farm (no CDN). It binds 127.0.0.1 unless --host says \
            otherwise; requests that change the farm are refused from other origins and without the \
            page's token; only images of the spool's resources are served. On an address other machines \
            can reach it needs --password-file: every request then asks for user farm and that password \
            (HTTP Basic), and more than 10 wrong ones a minute from one address are answered 429. Give \
            --tls-cert and --tls-key to serve HTTPS, so that the password does not cross the network in clear.

            The page shows every list with its progress, a worker slider, Add, Pause/Resume and Reset; a \
            list's grid of thumbnails (under a table of its hosts for a recursive list: resources found, \
            fetched, active and queued), searchable, whose cells can be added, deleted and dragged to reorder; \
            and a viewer. It is live: the server pushes each change (server-sent events), and the browser \
            never polls. The same server answers GET /metrics in Prometheus' text format (see farm \
            metrics), and aria2's JSON-RPC at /jsonrpc, over HTTP POST and WebSocket, so the tools that \
            drive aria2 (aria2p, AriaNg, browser extensions) drive farm: each addUri is a list of one \
            resource delivered to its dir (--rpc-dir, default the current folder), max-concurrent-downloads \
            is farm scale and max-overall-download-limit farm limit. With --rpc-secret (or --rpc-secret-file, \
            which keeps it off the command line) every call needs aria2's token:SECRET first parameter, and \
            pages of other origins may call it; without, they may not. It prints the address it listens on, then serves until ^C or SIGTERM; the farm keeps \
            running after it.

            Screens have addresses: #/list/<id> and #/list/<id>/view/<index>. Every request must name this \
            server in its Host header (no DNS rebinding); images are asked for by list id and index, never \
            by path, and served only when the file resolves, symlinks included, inside the spool; the page \
            may load only its own scripts and images. Every refusal is a 4xx with {"error": "one sentence"}.

            API:
            Each call runs the same verb as the command line.
              GET /api/status, /api/lists/<id>
                  The status, and one list as farm status LIST --json prints it.
              GET /api/lists/<id>?offset=O&limit=L&q=TEXT
                  A window of at most 500 resources, among those matching q, with
                  total, offset, limit and, with q, matched; a recursive list's hosts.
              GET /api/lists/<id>/<index>/image, .../thumb, /api/lists/<id>/cover
                  A resource's images; a paged list's cover.
              GET /api/events[?list=<id>[&offset=O&limit=L&q=TEXT]]
                  Server-sent events: the status, or a window of one list.
              POST /api/scale {"workers": N}, /api/limit {"rate": R}
                  farm scale, farm limit.
              POST /api/pause, /api/resume, /api/reset, /api/add {"source": S}
                  farm pause, resume, reset, add.
              POST /api/lists/<id>/reload
                  farm reload.
              POST /api/lists/<id>/items {"url": U, "id"?, "at"?}
                  farm item add.
              POST /api/lists/<id>/items/<item>/move {"to": N}
                  farm item move.
              DELETE /api/lists/<id>/items/<item>
                  farm item rm.

            RPC:
            aria2's JSON-RPC 2.0 at /jsonrpc: addUri([URL, MIRROR...], {options}) adds a list of one \
            resource (aria2-<hex>.json) at those mirrors, delivered to its dir under out or the URL's \
            name; header, checksum (sha-256= only) and split or max-connection-per-server (farm add's \
            --connections) are its list's options. Every \
            resource of the spool is a download whose GID (16 hex digits of its list's id and its own) never \
            changes: tellActive, tellWaiting, tellStopped, tellStatus, getFiles and getUris show them with \
            aria2's keys, every number a string; remove is farm item rm (the download stays in tellStopped, \
            removed, until purged), changePosition farm item move, pause and unpause hold and let go the \
            download's list (one added by addUri; one of a list of many cannot be paused alone), pauseAll \
            and unpauseAll farm pause and resume; purgeDownloadResult and removeDownloadResult take \
            finished downloads out of tellStopped (their files stay) while the server runs. Also \
            getGlobalStat, getGlobalOption, getOption, getVersion (as aria2 1.37.0), getSessionInfo, \
            system.multicall, system.listMethods and system.listNotifications. A WebSocket hears \
            onDownloadStart, onDownloadPause, onDownloadComplete, onDownloadError and onDownloadStop. Errors \
            are aria2's: a wrong token is code 1 "Unauthorized", a second late; an unknown method, \
            BitTorrent's and Metalink's among them, 1 "No such method". A download's speed is its bytes over \
            the time since its transfer began (aria2's is of the last seconds), and tell* read every list of \
            the spool on each call.

            EXAMPLES:
              farm serve
                  http://127.0.0.1:8771/ on this machine.
              farm serve --port 0
                  Any free port; the line printed says which.
              farm serve --rpc-secret-file ~/.farm-rpc --rpc-dir ~/Downloads
                  Also aria2's RPC at http://127.0.0.1:8771/jsonrpc, behind the secret
                  in ~/.farm-rpc.
              farm serve --host 0.0.0.0 --password-file ~/.farm-password
                  For every machine that can reach this one, behind a password (add
                  --tls-cert and --tls-key for HTTPS).
            """ + ExitStatus.section([
                0: "Stopped by ^C or SIGTERM.",
                1: "It could not listen (a port in use), or there is no usable spool.",
                2: """
                    A set-up it refuses: an address other machines reach without
                    --password-file, a password file it cannot read or that is empty, a
                    certificate or key it cannot read, a port out of range.
                    """,
            ], parse: "The command line does not parse (--tls-cert without --tls-key)."))

    @OptionGroup var serve: ServeOptions

    func run() throws {
        try ServerExecutable.exec(["serve"] + ServerExecutable.argumentsAfter("serve"))
    }
}
