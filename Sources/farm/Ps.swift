import ArgumentParser
import FarmJSON
import FarmSpool
import Foundation

/// `farm ps`: the running farm processes, with the job each worker holds.
struct Ps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ps", abstract: "List the running processes and their jobs.")

    @OptionGroup var options: SpoolOptions

    @Flag(help: "Print a JSON array of {role, pid, job}.")
    var json = false

    func run() throws {
        let spool = try options.open(create: false)
        let jobs = Dictionary(spool.activeJobs().map { ($0.owner.pid, $0.job.raw) }) { first, _ in first }
        let rows = spool.processes().map { Row(role: $0.role.rawValue, pid: $0.pid, job: jobs[$0.pid]) }
        if json {
            print(String(decoding: JSON.encode(rows), as: UTF8.self), terminator: "")
            return
        }
        guard !rows.isEmpty else {
            print("nothing runs on \(spool.root)")
            return
        }
        print("ROLE        PID       JOB")
        for row in rows {
            print(row.role.padding(toLength: 11, withPad: " ", startingAt: 0) + " "
                + String(row.pid).padding(toLength: 9, withPad: " ", startingAt: 0) + " " + (row.job ?? "-"))
        }
    }
}

/// One process of `farm ps`: `{"job": "id" | null, "pid": 123, "role": "worker"}` with `--json`.
private struct Row: JSONWritable {
    let role: String
    let pid: Int32
    let job: String?

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("job", job)
        json.member("pid", pid)
        json.member("role", role)
        json.endObject()
    }
}
