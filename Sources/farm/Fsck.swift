import ArgumentParser
import FarmControl
import FarmJSON

/// `farm fsck [--repair] [--json]`: checks every invariant of the spool, a line per finding; exit 0
/// when it is sound, 1 when something was found (repaired or not).
struct Fsck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsck",
        abstract: "Check every invariant of the spool (exit 0 when sound, 1 when something was found).")

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
