import Dispatch
import FarmHooks
import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
import FarmTransfer
import FoundationEssentials
import Synchronization

/// Runs the hooks of lists added with `--on-done` or `--on-error` (SPEC §15), at least once each, on a
/// few threads of its own beside the worker's transfers: a hook never holds a transfer slot nor a job's
/// claim. Each thread takes a due hook from the spool by rename (FarmSpool's Hooks.swift: any worker's
/// hook, so those of a worker killed are run by the others), runs its program with no shell and the
/// resource in its environment, keeps its lease while it runs, kills it (and what it started: it runs in
/// a process group of its own) once it runs past the list's time-out, and records how it ended. A worker
/// that stops kills the hooks it runs and hands them back, to be run again by the next worker; one killed
/// leaves that to its supervisor, which finds each hook's process in its claim.
final class HookRunner: Sendable {
    /// Hooks at once in one worker.
    static let threads = 2
    /// How often the queue of hooks is looked at when this worker completed nothing meanwhile: the hooks
    /// of other workers (killed, or stopped) are found that fast.
    static let look = 1.0
    /// How often a running hook's end is looked for.
    static let poll = 0.02
    /// How long a hook whose job is not finished yet is left (its owner completes it in a moment).
    static let notFinishedWait = 0.5

    private let spool: Spool
    private let lease: Double
    private let wake = DispatchSemaphore(value: 0)
    /// Hooks being run now by this worker.
    private let running = Atomic(0)
    private let stopping = Atomic(false)
    private let ended = DispatchGroup()
    /// When the claims of dead runners were last brought back.
    private let lastReclaim = Locked(0.0)
    /// Hooks whose jobs were not finished when taken, and when to look at them again.
    private let later = Locked<[JobName: Double]>([:])
    /// Each list's hooks, read at most once per `optionsLook`.
    private let known = Locked<[String: (hooks: ListHooks?, read: Double)]>([:])
    private static let optionsLook = 2.0

    init(spool: Spool, lease: Double) {
        self.spool = spool
        self.lease = lease
        for _ in 0..<Self.threads {
            ended.enter()
            Threads.detach { [self] in
                defer { ended.leave() }
                while !isStopping {
                    _ = wake.wait(timeout: .now() + Self.look)
                    reclaimIfDue()
                    while !isStopping, let taken = take() { run(taken) }
                }
            }
        }
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) || Worker.stopRequested }

    /// A job of a list with hooks was completed: look at the queue now.
    func wake(_ count: Int = 1) {
        for _ in 0..<count { wake.signal() }
    }

    /// Whether no hook is running here, and none is due or running anywhere.
    var isIdle: Bool { running.load(ordering: .relaxed) == 0 && spool.hooks.outstanding() == 0 }

    /// Ends the threads: a hook running is killed and handed back, to run again.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        wake(Self.threads)
        ended.wait()
    }

    /// The hooks of list `id`, read at most once per `optionsLook`.
    private func hooks(ofList id: String) -> ListHooks? {
        let now = Clock.monotonic()
        if let cached = known.withLock({ $0[id] }), now - cached.read < Self.optionsLook { return cached.hooks }
        let hooks = RequestOptions.decoded(spool.lists.requestOptions(ofList: id))?.hooks
        known.withLock { $0[id] = (hooks, now) }
        return hooks
    }

    private func reclaimIfDue() {
        let now = Clock.monotonic()
        guard lastReclaim.withLock({ last in
            guard now - last >= lease / 2 else { return false }
            last = now
            return true
        }) else { return }
        if spool.hooks.reclaimExpired(lease: lease) > 0 { wake(Self.threads) }
    }

    /// A hook taken and ready to run.
    private struct Taken {
        let claim: HookClaim
        let command: [String]
        let timeout: Double
        let environment: [String]
    }

    /// The next due hook of a finished job, claimed; nil when there is none.
    private func take() -> Taken? {
        let now = Clock.monotonic()
        let waiting = later.withLock { later in
            later = later.filter { $0.value > now }
            return Set(later.keys)
        }
        for job in spool.hooks.due().shuffled() where !waiting.contains(job) {
            guard let claim = spool.hooks.claim(job) else { continue }
            let outcome: Outcome? = FileSystem.exists(spool.finishedPath(job, .done)) ? .done
                : FileSystem.exists(spool.finishedPath(job, .failed)) ? .failed : nil
            guard let outcome else {
                // Not completed yet (its mark is made first), or no longer a resource at all.
                if Lists(spool).isMember(job) {
                    spool.hooks.handBack(claim)
                    later.withLock { $0[job] = now + Self.notFinishedWait }
                } else {
                    spool.hooks.drop(claim)
                }
                continue
            }
            let hooks = self.hooks(ofList: job.list)
            guard let command = hooks?.command(failed: outcome == .failed), !command.isEmpty else {
                // The list has no hook for such an end (any more): nothing to run.
                spool.hooks.drop(claim)
                continue
            }
            return Taken(claim: claim, command: command, timeout: hooks?.timeout ?? ListHooks.defaultTimeout,
                         environment: environment(job, outcome))
        }
        return nil
    }

    /// The worker's environment, with the resource's `FARM_…` variables (SPEC §15) in place of any of the
    /// same name; a variable of nothing known is empty.
    private func environment(_ job: JobName, _ outcome: Outcome) -> [String] {
        let sidecar = spool.sidecars.last(job, finished: [outcome])
        let record = spool.jobRecord(atPath: spool.finishedPath(job, outcome))
            ?? TableRecords(spool: spool).record(of: job)
        let list = spool.list(job.list)
        let index = list.flatMap { Lists(spool).order(ofList: job.list, total: $0.total).index(of: job.index) }
        let size = sidecar.flatMap { $0.size ?? ($0.status == .done ? $0.bytes : nil) }
        let variables: [(String, String)] = [
            ("FARM_SPOOL", spool.root),
            ("FARM_LIST", list?.name ?? job.list),
            ("FARM_INDEX", String(index ?? job.index)),
            ("FARM_ID", record?.id ?? job.raw),
            ("FARM_URL", record?.url ?? ""),
            ("FARM_STATUS", outcome == .done ? "done" : "error"),
            ("FARM_FILE", sidecar?.file ?? ""),
            ("FARM_DELIVERED", sidecar?.delivered ?? ""),
            ("FARM_KIND", sidecar?.kind ?? ""),
            ("FARM_SIZE", size.map(String.init) ?? ""),
            ("FARM_SHA256", record?.sha256 ?? ""),
            ("FARM_ERROR", outcome == .failed ? sidecar?.error ?? "unknown" : ""),
        ]
        let names = Set(variables.map { $0.0 + "=" })
        let inherited = Processes.environmentStrings().filter { variable in
            guard let equals = variable.firstIndex(of: "=") else { return true }
            return !names.contains(String(variable[...equals]))
        }
        return inherited + variables.map { $0.0 + "=" + $0.1 }
    }

    /// Runs `taken` to its end (or its time-out), renewing its lease, and records how it ended; hands it
    /// back unrecorded when the worker stops meanwhile.
    private func run(_ taken: Taken) {
        running.add(1, ordering: .relaxed)
        defer { running.subtract(1, ordering: .relaxed) }
        let claim = taken.claim
        let program = taken.command[0]
        let pid: Int32
        do {
            pid = try Processes.spawn(program, taken.command, output: spool.logFile, ownGroup: true,
                                      environment: taken.environment)
        } catch {
            record(claim, HookResult(error: "cannot run \(program): \(error)"))
            return
        }
        // For the supervisor to end it if this worker is killed (Hooks.swift in FarmSpool).
        spool.hooks.noteProcess(claim, pid: pid)
        let started = Clock.monotonic()
        var renewed = started
        var lost = false
        let renewal = max(0.05, lease / 4)
        while true {
            if let exit = Processes.exit(ofChild: pid) {
                guard !lost else { return }
                switch exit {
                case .exited(let status): record(claim, HookResult(exit: Int(status)))
                case .signalled(let signal): record(claim, HookResult(signal: Int(signal)))
                }
                return
            }
            let now = Clock.monotonic()
            if isStopping {
                // Run again by the next worker: killed here, so that it is not run twice at once.
                Processes.sendToGroup(.kill, pid)
                _ = Processes.exit(ofChild: pid, blocking: true)
                if !lost { spool.hooks.handBack(claim) }
                return
            }
            if now - started > taken.timeout {
                Processes.sendToGroup(.kill, pid)
                _ = Processes.exit(ofChild: pid, blocking: true)
                if !lost {
                    record(claim, HookResult(signal: 9, error: "timed out after \(Self.seconds(taken.timeout)) s"))
                }
                return
            }
            if !lost && now - renewed >= renewal {
                renewed = now
                do throws(SpoolError) { try spool.hooks.renew(claim) } catch where error.code == .leaseLost {
                    // Another worker runs it again: this run goes on to its end, recorded by nobody.
                    lost = true
                } catch {
                    spool.log("\(error)")
                }
            }
            // Claims of dead runners come back even while every thread here runs a long hook.
            reclaimIfDue()
            // A stop is seen at the next look (the hook is killed and handed back); a pause lets hooks run.
            Clock.pause(Self.poll, unless: { isStopping })
        }
    }

    private func record(_ claim: HookClaim, _ result: HookResult) {
        if !result.succeeded { spool.log("the hook of \(claim.job) failed: \(result.reason)") }
        do { try spool.hooks.record(claim, result) } catch where error.code == .leaseLost {} catch {
            spool.log("\(error)")
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
