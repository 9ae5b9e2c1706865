import ArgumentParser
import FarmCommandLine
import FarmJSON
import FarmPieces
import FarmRegistry
import FarmSpool
import FoundationEssentials

/// `farm ps`: the running farm processes of every host of the spool, with the jobs each worker transfers.
struct Ps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ps", abstract: "List the running processes, their hosts and their jobs.",
        discussion: """
            Lists every farm process registered in the spool, on every host that shares it: its role \
            (supervisor, worker, watcher, follower), pid, host, and the job it transfers (a worker with \
            several says how many more). A watcher waiting while another serves the spool shows as standby. \
            A process is listed while it holds the lock on its entry in procs/, so a killed one disappears \
            at once. ps only reads the spool. --json gives each process's role, pid, host and job, a \
            worker's "pieces" while it holds some (bytes 0-8388608 of URL), and "standby": true for a watcher \
            that waits.

            EXAMPLES:
              farm ps
                  Who runs, and what each worker downloads.
              farm ps --json
                  The same as a JSON array, for scripts.
            """ + ExitStatus.section([0: "Listed (nothing runs: a line says so).", 1: ExitStatus.noSpool]))

    @OptionGroup var options: SpoolOptions

    @Flag(help: "Print a JSON array of {role, pid, host, job} (a worker's jobs and pieces too; standby: true for a watcher waiting for another).")
    var json = false

    func run() throws {
        let spool = try options.open(create: false)
        let claims = spool.activeJobs(inFlight: true)
        let serving = spool.registry.servingWatcher()
        // Pieces held (SPEC §14), named by their bytes and their resource's URL.
        let pieces = spool.pieceBoards().flatMap { board, _ in
            let url = board.plan()?.url ?? "?"
            return board.holders().map { (owner: $0.owner, text: "bytes \($0.piece) of \(url)") }
        }
        let rows = spool.registry.processes().map { (process: FarmProcess) -> Row in
            let held = claims.filter { $0.owner.isClaimant(process) }
            let transferring = Self.transferring(held, spool)
            // A watcher that is not the one serving waits as its standby.
            let standby = process.role == .watcher && serving != nil && serving != process
            let holds = pieces.filter { $0.owner.isClaimant(process) }.map(\.text)
            return Row(role: process.role.rawValue, pid: process.pid, host: process.host.description,
                       job: (transferring.first ?? held.first?.job)?.raw,
                       jobs: process.role == .worker ? transferring.map(\.raw) : nil,
                       pieces: holds.isEmpty ? nil : holds, standby: standby)
        }
        if json {
            print(String(decoding: JSON.encode(rows), as: UTF8.self), terminator: "")
            return
        }
        guard !rows.isEmpty else {
            print("nothing runs on \(spool.root)")
            return
        }
        let hostWidth = max(4, rows.map { $0.host.count }.max() ?? 0)
        print("ROLE        PID       " + "HOST".padded(to: hostWidth) + " JOB")
        for row in rows {
            print(row.role.padded(to: 11) + " "
                + String(row.pid).padded(to: 9) + " "
                + row.host.padded(to: hostWidth) + " "
                + (row.job ?? row.pieces?.first ?? (row.standby ? "(standby)" : "-"))
                + ((row.jobs?.count ?? 0) > 1 ? " (+\(row.jobs!.count - 1) more)" : "")
                + (row.job != nil && row.pieces != nil ? ", " + row.pieces!.joined(separator: ", ") : ""))
        }
    }
}

extension Ps {
    /// The jobs a worker holding `claims` transfers now, in the order of its claims: those whose sidecar
    /// does not say `rendering` or `unzipping` (stored, they wait for its converter or are in it).
    static func transferring(_ claims: [ActiveJob], _ spool: Spool) -> [JobName] {
        claims.filter { claim in
            let status = spool.sidecars.last(claim.job, finished: [])?.status
            return status != .rendering && status != .unzipping
        }.map(\.job)
    }
}

/// One process of `farm ps`: `{"host": "h1", "job": "id" | null, "pid": 123, "role": "worker"}` with
/// `--json`; a worker's `"jobs"` (those it transfers, SPEC §13; `job` is the first, else the one it
/// converts), and `"standby": true` for a watcher that waits while another serves the spool.
// Hand-written, not a JSONRecord: `job` is written as null but `standby` left out when false, and the pid is an Int32.
private struct Row: JSONWritable {
    let role: String
    let pid: Int32
    let host: String
    let job: String?
    let jobs: [String]?
    /// The pieces it holds (SPEC §14), when any.
    let pieces: [String]?
    let standby: Bool

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("host", host)
        json.member("job", job)
        if let jobs { json.member("jobs", jobs) }
        json.member("pid", pid)
        if let pieces { json.member("pieces", pieces) }
        json.member("role", role)
        if standby { json.member("standby", true) }
        json.endObject()
    }
}
