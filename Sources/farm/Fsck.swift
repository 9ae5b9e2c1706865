import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmJSON

/// `farm fsck [--repair] [--json]`: checks every invariant of the spool, a line per finding; exit 0
/// when it is sound, 1 when something was found (repaired or not).
struct Fsck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsck",
        abstract: "Check every invariant of the spool (exit 0 when sound, 1 when something was found).",
        discussion: """
            Checks that each job is in exactly one state, that every done resource has its files and no \
            other resource has any, that each done download is still what was recorded (its size, and its \
            SHA-256 where one is kept: the item's sha256, or the one a stored file keeps once compared), \
            that no claim of a job or a hook outlives its dead owner's lease, that no hook is due for a \
            resource that no longer exists, that no temporary file is left by a dead writer, that the lists' \
            tables agree with their jobs, and that no foreign file is in the spool; prints one line per \
            finding. Without --repair it changes nothing.

            --repair fixes what is safe to fix, even while the farm runs: it queues again lost jobs and \
            those whose files vanished, keeps the most advanced copy of a doubled job, hands back dead \
            owners' claims of jobs and hooks, removes hooks due for no resource, sets foreign files aside in \
            corrupt/ and removes dead temporaries. It never deletes a done resource's files: a download \
            changed since it was done (written in place through a --link delivery, say) is reported, and \
            farm reload LIST fetches it again.

            A writer is judged dead by its pid on this host. Claims carry their host, so another host's are \
            judged by their lease alone; temporaries carry only a pid, so while another host runs farm, a \
            temporary whose pid is gone here is left until it is a minute old.

            EXAMPLES:
              farm fsck
                  Check, and change nothing.
              farm fsck --repair --json
                  Repair, and say what was found and fixed as JSON.
            """ + ExitStatus.section([
                0: "The spool is sound.",
                1: """
                    Something was found (repaired or not, as each line says), or
                    there is no spool there.
                    """,
            ]))

    @OptionGroup var options: SpoolOptions

    @Flag(help: "Fix what is safe to fix, even while the farm runs; never deletes a done output.")
    var repair = false

    @Flag(help: "Print {clean, findings: [{kind, path, job, detail, repaired}]} as JSON.")
    var json = false

    func run() throws {
        let checked = try Control(spool: options.open(create: false)).fsck(repair: repair)
        if json {
            print(String(decoding: JSON.encode(checked), as: UTF8.self), terminator: "")
        } else {
            print(checked)
        }
        if !checked.isClean { throw ExitCode(1) }
    }
}
