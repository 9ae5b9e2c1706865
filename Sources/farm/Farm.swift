import ArgumentParser
import FarmCommandLine
import FarmSpool
import FoundationEssentials

/// The `farm` command line: one small type per subcommand, shared options in `SpoolOptions`, the
/// user's verbs run the same way through `ControlCommand`.
/// Every command states its `commandName`: derived, it costs a `String(describing:)` of the type, whose
/// dynamic casts scan every protocol conformance in the binary, once per command (2 ms of a worker's
/// start-up, perf).
@main
struct Farm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm",
        abstract: "A bulk download manager run by a farm of worker processes sharing a spool directory.",
        // Also the man page farm(1): bin/package lays out its sections (Sources/Packaging/man-sections.pl).
        discussion: """
            farm downloads every resource listed in a manifest (JPG, PNG, GIF, WebP, PDF and ZIP files), makes \
            a display image and a thumbnail of each (a GIF's or WebP's first frame, a PDF's page 1, a ZIP's \
            first image), and keeps the status of every list and \
            resource. The work is done by separate processes that share nothing but a spool directory: a \
            supervisor, the workers it keeps running, which claim jobs and download them, a watcher that keeps \
            the status current, and a follower that fetches the pages of paged lists. Any of them can be \
            killed at any moment, even with SIGKILL, and no work is lost: each job is a file that moves \
            between the spool's folders by rename(2), a job whose worker stops renewing its lease goes back \
            to the queue, and its download resumes from the byte it reached.

            Every command takes --spool DIR. Each worker runs one transfer at a time unless told otherwise, \
            so farm start --workers N downloads N resources at once. --transfers T gives each worker T \
            transfers on one connection pool, where connections and TLS sessions are reused and HTTP/2 is \
            multiplexed: that pays for many small files, or a server far away.

            The package installs the systemd unit farm@.service: systemctl enable --now farm@books runs \
            the farm of /var/lib/farm/books at every boot, with its log in journalctl -u farm@books.

            EVERYDAY COMMANDS:
              farm add manifest.zip
                  Queue every resource of a manifest: a zip of JSON lists, or one JSON
                  list, as a path or an http(s) URL.
              farm get https://example.org/big.iso
                  Fetch URLs into the current folder and return, as wget does, in the
                  default spool (below); ^C and the same again resumes.
              farm start --workers 4
                  Start the supervisor, 4 workers and the watcher, in the background.
              farm status
                  Every list with its state and counts; farm status LIST, its resources.
              farm top
                  The same, live in the terminal, with keys to scale and pause.
              farm scale 8
                  Run 8 workers from now on; busy ones hand back their jobs.
              farm pause
                  Pause every transfer, keeping its bytes; farm resume goes on.
              farm wait --timeout 3600
                  Wait until every list is finished.
              farm failed
                  The failed resources by reason; farm retry queues them again.
              farm serve
                  The lists, their resources and a viewer in a browser.
              farm stop
                  Stop every process; active jobs go back to the queue.
              farm demo
                  Download a bundled sample set from a local server, and show it.

            ENVIRONMENT:
              FARM_SPOOL
                  The spool of a command run without --spool. Unset or empty: ./spool
                  when it exists, else $XDG_STATE_HOME/farm, else ~/.local/state/farm.
                  One rule for every command, farm get included.
              http_proxy, https_proxy, all_proxy, no_proxy
                  The proxies libcurl uses (also in capitals, but for http_proxy):
                  farm add's own for a manifest, and those of farm start for its
                  workers. A list added with --proxy uses its own proxy instead.
              CURL_CA_BUNDLE, SSL_CERT_FILE
                  A PEM file of CA certificates that workers (in the environment of
                  farm start) and farm sync verify HTTPS servers against instead of
                  the system's, as curl reads them; farm start --ca-file wins.

            FILES:
            The spool is the directory of --spool, made with mode 0700 by add, start, serve or demo. A \
            directory that holds other files is never taken for one. Its folders:
              queue/          jobs waiting to be claimed, in batches
              active/         claimed jobs; a file's ctime is its lease
              done/           finished jobs by list, with their outcome
              failed/         jobs that failed for good, with the reason
              lists/          lists: resources, order, pages, requests
              files/          downloads, images and thumbnails by list
              partial/        bytes downloaded so far, kept when stopped
              blobs/, urls/   downloads stored once; each URL's result
              progress/       the progress of jobs under way
              status/         the watcher's summary of every list
              control/        what is wanted (workers, pause...); locks
              procs/          one entry per running process, locked by it
              metrics/        each process's counters
              hosts/, holds/  per-host slots and rates; Retry-After holds
              hooks/          --on-done hooks due, running, and their results
              tmp/            staging; swept once its writer is gone
              corrupt/        damaged or foreign files, set aside
              log/farm.log    one line per event worth a look

            EXIT STATUS:
              0   Success.
              1   A failure, in one line on standard error: a spool that cannot be
                  used, a number out of its range, no such list. farm wait: something
                  failed; farm fsck: something was found; farm show: no image yet.
              2   A user's mistake, refused with nothing changed: a malformed
                  manifest, a refused list edit, a header, cookie file, proxy or rate
                  that is not one, an unusable --out or --name, a farm serve set-up it
                  refuses, a list farm sync cannot sync.
              3   farm wait timed out.
              64  The command line does not parse: an unknown option, a missing
                  argument, a value that is not a number.

            SIGNALS:
            SIGINT (^C) and SIGHUP act as SIGTERM. No signal to a farm process loses a job: a download goes \
            on from the last byte on disk.
              SIGTERM to the supervisor
                  farm stop: every process of the farm exits, on every host, their
                  jobs back in the queue with their bytes, and nothing starts again
                  until farm start (systemctl stop farm@books sends it).
              SIGKILL to the supervisor
                  The farm goes on: within about two seconds another of its processes
                  starts a new supervisor, which adopts the running workers.
              SIGTERM to a worker
                  It hands its jobs back to the queue, their bytes kept, and exits;
                  the supervisor starts a new worker within a second.
              SIGKILL to a worker
                  Its jobs go back to the queue as soon as the supervisor sees it die
                  (else once their lease runs out, 10 s by default), to resume from
                  the byte they reached; the supervisor starts a new worker.
              SIGTERM or SIGKILL to the watcher
                  The supervisor starts a new one, which reads the status from the
                  spool again; meanwhile farm status reads the spool itself.
              SIGTERM or SIGKILL to the follower
                  While a list has pages to fetch, the supervisor starts a new one
                  within about a second; it goes on from the last page added, and
                  fetches at most one page again.
            farm top, farm serve and farm wait end on SIGTERM or ^C and leave the farm running.

            SEE ALSO:
            curl(1), systemctl(1), journalctl(1)
            """,
        version: FarmVersion.description,
        subcommands: [Add.self, Get.self, Start.self, Stop.self, Scale.self, Pause.self, Resume.self, Limit.self, Reset.self, Reload.self, Ps.self,
                      Status.self, Top.self, Serve.self, Metrics.self, Watch.self, Wait.self, Show.self,
                      Failed.self, Retry.self, Hosts.self, Fsck.self, Item.self, Sync.self, Export.self, Work.self,
                      Supervise.self, Follow.self, Recover.self,
                      Demo.self]
    )
}
