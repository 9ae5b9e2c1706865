import FarmHooks
import FarmJSON
import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTransfer
import FoundationEssentials

extension Control {
    /// The hooks of `farm add --on-done PROGRAM [--on-done-arg ARG]… --on-error PROGRAM [--on-error-arg
    /// ARG]… --hook-timeout S` (SPEC §15), checked: each PROGRAM is found now (a path, made absolute from
    /// here, or a name looked up in PATH), so that a worker started elsewhere runs the same file, and is
    /// executable. Nil when neither is given. Throws `.badRequestOption` with one sentence.
    public static func hooks(onDone: String?, onDoneArguments: [String], onError: String?,
                             onErrorArguments: [String], timeout: Double?) throws(ControlError) -> ListHooks? {
        guard onDone != nil || onError != nil else {
            if !onDoneArguments.isEmpty || !onErrorArguments.isEmpty || timeout != nil {
                throw ControlError(.badRequestOption, "--on-done-arg, --on-error-arg and --hook-timeout go with "
                    + "--on-done PROGRAM or --on-error PROGRAM")
            }
            return nil
        }
        if onDone == nil && !onDoneArguments.isEmpty {
            throw ControlError(.badRequestOption, "--on-done-arg goes with --on-done PROGRAM")
        }
        if onError == nil && !onErrorArguments.isEmpty {
            throw ControlError(.badRequestOption, "--on-error-arg goes with --on-error PROGRAM")
        }
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ControlError(.badRequestOption, "--hook-timeout must be a number of seconds from 0 to 86400")
        }
        let done = try onDone.map { (program) throws(ControlError) in [try Self.program(program)] + onDoneArguments }
        let error = try onError.map { (program) throws(ControlError) in [try Self.program(program)] + onErrorArguments }
        return ListHooks(onDone: done, onError: error, timeout: timeout)
    }

    /// `program` as the absolute path of an executable file: a path as given (from the current folder when
    /// relative), or a bare name looked up in PATH.
    private static func program(_ program: String) throws(ControlError) -> String {
        guard !program.isEmpty else { throw ControlError(.badRequestOption, "a hook's PROGRAM cannot be empty") }
        if program.contains("/") {
            let absolute = program.hasPrefix("/") ? program
                : FileManager.default.currentDirectoryPath + "/" + program
            guard FileSystem.isExecutableFile(absolute) else {
                throw ControlError(.badRequestOption, "the hook \(program) is not an executable file")
            }
            return (try? FileSystem.realPath(absolute)) ?? absolute
        }
        let path = Processes.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = folder + "/" + program
            if FileSystem.isExecutableFile(candidate) { return candidate.hasPrefix("/") ? candidate : FileManager.default.currentDirectoryPath + "/" + candidate }
        }
        throw ControlError(.badRequestOption, "no program \(program) in PATH for the hook: give its path")
    }

    /// `farm failed --hooks [LIST]`: the resources whose hook failed (its exit status was not 0, it was
    /// killed, timed out or could not start), grouped by how.
    public func hookFailures(of ref: ListRef? = nil, reason: String? = nil) throws(ControlError) -> Failures {
        var byReason: [String: [FailedResource]] = [:]
        for (list, failed) in try failedHooks(of: ref, reason: reason) {
            let indexes = Lists(spool).order(ofList: list.id, total: list.record.total).indexes()
            let records = spool.lists.resources(ofList: list.id)
            for (job, result) in failed {
                guard indexes.indices.contains(job.index), indexes[job.index] >= 0 else { continue }
                let record = records.flatMap { $0.indices.contains(job.index) ? $0[job.index] : nil }
                let attempts = spool.sidecars.last(job)?.attempts ?? 1
                byReason[result.reason, default: []].append(FailedResource(
                    list: list.record.name, index: indexes[job.index], id: record?.id ?? job.raw,
                    url: record?.url ?? "", attempts: attempts))
            }
        }
        return Failures(groups: byReason.map { FailureGroup(reason: $0.key, resources: $0.value.sorted {
            ($0.list, $0.index) < ($1.list, $1.index)
        }) }.sorted {
            $0.resources.count == $1.resources.count ? $0.reason < $1.reason : $0.resources.count > $1.resources.count
        })
    }

    /// `farm retry --hooks [LIST]`: the failed hooks `hookFailures` would show run again (by the running
    /// farm's workers); the resources stay as they are.
    public func retryHooks(_ ref: ListRef? = nil, reason: String? = nil) throws(ControlError) -> RetriedHooks {
        var queued = 0
        for (_, failed) in try failedHooks(of: ref, reason: reason) {
            queued += try spoolCall { () throws(SpoolError) in try spool.hooks.retry(failed.map(\.job)) }
        }
        return RetriedHooks(queued: queued)
    }

    /// What `farm retry --hooks` did.
    public struct RetriedHooks: CustomStringConvertible, Sendable {
        public let queued: Int

        public var description: String { "queued \(queued) failed hook(s) again" }
    }

    /// The failed hooks of the list `ref` names (every list when nil) whose reason contains `reason`.
    private func failedHooks(of ref: ListRef?, reason: String?) throws(ControlError)
        -> [(PublishedList, [(job: JobName, result: HookResult)])] {
        let lists = try ref.map { ref throws(ControlError) in [try find(ref)] } ?? ListLookup.all(spool)
        return lists.map { list in
            (list, spool.hooks.results(ofList: list.id).sorted { $0.key < $1.key }.compactMap { index, result in
                guard !result.succeeded, reason.map({ result.reason.contains($0) }) ?? true else { return nil }
                return (JobName(list: list.id, index: index), result)
            })
        }
    }
}
