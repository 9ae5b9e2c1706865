import FarmHooks
import FarmLists
import FarmSpool
import FarmSystem
import SystemPackage

// The hooks of fsck (see SpoolCheck.swift, and Hooks.swift in FarmSpool): no hook is claimed by an owner
// that is gone past its lease (its claim goes back to hooks/queue/, its program's group ended first when
// it is of this host), and none is due for a resource that no longer exists (its mark goes: there is
// nothing to run it for, and no list to show it in).
extension FsckRun {
    func checkHooks() throws(SpoolError) {
        for name in try names(spool.hooks.active) {
            let path = spool.hooks.active + "/" + name
            guard let entry = ActiveName(name) else {
                foreign(path, "not a claimed hook's name")
                continue
            }
            guard isDeadClaim(at: path, entry.owner) else { continue }
            found(.deadHookClaim, path, job: entry.job,
                  "the hook of \(entry.job) claimed by pid \(entry.owner.pid)"
                    + (entry.owner.isLocal ? ", which is gone," : " of another host") + " is past its lease") {
                [self] () throws(SpoolError) in
                guard isDeadClaim(at: path, entry.owner) else { return .skipped("its owner is alive, or its lease still runs") }
                return spool.hooks.release(ownedBy: { $0 == entry.owner }) > 0 ? .made : .skipped("it is gone")
            }
        }
        for name in try names(spool.hooks.queue) {
            let path = spool.hooks.queue + "/" + name
            guard let job = JobName(name) else {
                foreign(path, "not a hook's name")
                continue
            }
            guard let why = whyNoResource(job) else { continue }
            found(.strayHook, path, job: job, "the hook of \(job) is due, but \(why)") {
                [self] () throws(SpoolError) in
                // Looked at again: a list of that name added since has a resource of that number.
                guard whyNoResource(job, looking: true) != nil else { return .skipped("its resource exists now") }
                do throws(Errno) { try FileSystem.unlink(path) } catch where error == .noSuchFileOrDirectory {
                    return .skipped("it was taken meanwhile")
                } catch {
                    throw SpoolError(.io, "cannot delete \(path)", cause: error)
                }
                return .made
            }
        }
    }

    /// Why `job` is no resource of any list; nil when it is one, or when that cannot be told (a table that
    /// does not read, an edit under way). `looking`: the lists are looked at again (a repair's second look).
    private func whyNoResource(_ job: JobName, looking: Bool = false) -> String? {
        guard !looking, let list = lists[job.list] else {
            guard let record = spool.list(job.list) else {
                return hasList(job.list) ? nil : "the spool has no list \(job.list)"
            }
            let order = Lists(spool).order(ofList: job.list, total: record.total)
            return order.index(of: job.index) == nil ? "it is no resource of its list" : nil
        }
        guard let total = list.total, !list.inFlight.contains(job.index) else { return nil }
        if job.index >= total { return "its list has \(total) resource(s)" }
        if list.removed?.contains(job.index) == true { return "its resource was removed from its list" }
        return nil
    }
}
