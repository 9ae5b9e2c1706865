import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmJSON
import FarmSystem
import SystemPackage

/// `farm failed [LIST] [--reason TEXT] [--json]`: the failed resources grouped by reason, with counts.
struct Failed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failed", abstract: "List the failed resources, grouped by reason.",
        discussion: """
            Lists the resources that failed for good, of every list or of LIST, grouped by reason (HTTP \
            404, unsupported content, checksum mismatch...), the largest group first, each resource with \
            its list, index, URL and attempts. A long URL is cut in its middle to fit the terminal, or to \
            300 characters where the output is no terminal; --json gives every URL whole. --reason keeps \
            those whose reason contains TEXT. failed only reads the spool; farm retry queues them again. \
            With --hooks, the resources whose hook failed \
            instead (an exit status other than 0, a time-out, a program that could not start), grouped by \
            how; farm retry --hooks runs them again.

            FAILURES AND RETRIES:
            A 404, 410 or other 4xx fails at once with its status. A 5xx, 408 or 429, a reset, a time-out and \
            a body cut short are retried with exponential back-off (0.5, 1, 2, 4 s..., each lengthened by up \
            to half again, never shortened, and never sooner than a Retry-After; a Retry-After: 0 holds its \
            host for the back-off all the same), resuming by range. The wait is recorded on the job before \
            it starts, so whichever worker takes the job next (after a stop, a scale-down or a kill) waits \
            out the rest. Anything that is not http(s), also as a redirect's target, is never fetched. An \
            HTML page named .jpg is unsupported content (unless its list was added with --accept any); \
            corrupt, encrypted and page-less PDFs, corrupt ZIPs, ZIPs with nothing to show, ZIP bombs and \
            downloads over farm start's --max-size each fail with their reason, and a ZIP entry named ../x or \
            /etc/x is never written outside its folder. An HTTPS certificate that fails verification fails \
            at once, with its reason. A full disk is no resource's fault: a download or conversion that finds \
            no room goes back to the queue with its bytes, not counted as an attempt, and its worker claims \
            nothing more until space is freed.

            EXAMPLES:
              farm failed
                  Every failure, by reason.
              farm failed "Set 1.json" --reason 'HTTP 5'
                  The server errors of one list.
            """ + ExitStatus.section([0: "Listed, or none failed.", 1: "No such list, or no spool there."]))

    @OptionGroup var options: SpoolOptions

    @OptionGroup var filter: FailedFilter

    @Flag(help: "Print {groups: [{reason, count, resources}], total} as JSON.")
    var json = false

    @Flag(help: "The resources whose hook (farm add --on-done, --on-error) failed, by how, instead.")
    var hooks = false

    func run() throws {
        let control = Control(spool: try options.open(create: false))
        let failures = hooks ? try control.hookFailures(of: filter.listRef, reason: filter.reason)
            : try control.failures(of: filter.listRef, reason: filter.reason)
        if json {
            print(String(decoding: JSON.encode(failures), as: UTF8.self), terminator: "")
        } else {
            print(failures.text(width: FileDescriptor.standardOutput.terminalColumns))
        }
    }
}
