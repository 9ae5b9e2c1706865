import ArgumentParser
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
        let rows = spool.processes().map { (role: $0.role.rawValue, pid: $0.pid, job: jobs[$0.pid]) }
        if json {
            let objects: [[String: Any]] = rows.map { ["role": $0.role, "pid": Int($0.pid), "job": $0.job ?? NSNull()] }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
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
