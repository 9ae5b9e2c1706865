import FarmSystem
import SystemPackage

/// What `recover()` found and repaired.
public struct Recovery: Sendable, Equatable {
    /// Committed batches whose list records it finished publishing.
    public var batchesRolledForward = 0
    /// Stages of coordinators that died before their commit, deleted.
    public var stagesDiscarded = 0
    /// Edits of lists killed before their end, finished (FarmLists).
    public var editsFinished = 0
    /// Claims of this host made before this boot, handed back without what their owners stored (FarmLists).
    public var claimsOfAnEarlierBoot = 0
    /// Partial downloads and pieces whose bytes a power cut did not keep all of, cut back to those it kept.
    public var partialsCutBack = 0
}

extension Spool {
    /// Finishes or undoes what dead coordinators left (PROTOCOL.md, "Add"). Idempotent and
    /// safe while other processes work: a stage whose writer lives is locked and left alone. The whole
    /// of recovery is FarmLists' `recover()`, which also finishes the edits killed half-way.
    package func recoverBatches() throws(SpoolError) -> Recovery {
        var report = Recovery()
        let batches: [String]
        do { batches = try FileSystem.listDirectory(queue) } catch {
            throw SpoolError(.io, "cannot read \(queue)", cause: error)
        }
        for batch in batches where FileSystem.exists(lists.pending(ofBatch: batch)) {
            try publishLists(ofBatch: batch)
            report.batchesRolledForward += 1
        }
        for name in (try? FileSystem.listDirectory(tmp)) ?? [] where name.hasPrefix(Self.stagePrefix) {
            let path = tmp + "/" + name
            guard !isStageLive(name) else { continue }  // its coordinator is still writing
            if name.hasSuffix(Self.stageLockSuffix) {
                // A lock file alone: its writer died before making its stage, or after its commit. Its
                // batch's lists are published before it goes (an add committed since the loop above), so
                // that a batch with pending lists always has its lock file (`batchesBeingAdded`).
                if try publishLists(ofStageLock: name) { report.batchesRolledForward += 1 }
                try? FileSystem.unlink(path)
                continue
            }
            try? FileSystem.removeTree(path)
            try? FileSystem.unlink(path + Self.stageLockSuffix)
            report.stagesDiscarded += 1
        }
        // What other commands killed half-way left in tmp/ (`farm item rm` between taking a job out and
        // deleting it, say): judged by the writer its name gives, as the supervisor's sweep judges it.
        scratch.sweep()
        return report
    }

    /// Publishes the pending lists of the batch whose stage lock file is `name` in tmp/, if it has any: what
    /// must come before such a lock file is removed (`batchesBeingAdded`). True when there were some.
    package func publishLists(ofStageLock name: String) throws(SpoolError) -> Bool {
        let batch = String(name.dropFirst(Self.stagePrefix.count).dropLast(Self.stageLockSuffix.count))
        guard FileSystem.exists(lists.pending(ofBatch: batch)) else { return false }
        try publishLists(ofBatch: batch)
        return true
    }
}
