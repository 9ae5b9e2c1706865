import Synchronization

/// Named points between two steps of the spool protocol (`add.staging`, `add.staged`, `add.committed`,
/// `add.published-list`, `claim.renamed`, `complete.linked` (without RENAME_NOREPLACE only: see the
/// protocol), `complete.renamed`, `return.renamed`, `edit.committed`, `remove.blob-collected`, and a
/// page's `pages.tabled`, `pages.queued`, `pages.committed`, a recursive list's links' `crawl.tabled`,
/// `crawl.queued`, `crawl.committed`, a file of `--convert-links`' `convert.replaced`, a new spool's
/// `spool.marked`, and a WARC file's compaction's `warc.compact-written` and `warc.compacted`), where a crash
/// must leave a spool (or a WARC folder) that recovery makes whole.
///
/// Only a hook: the process that wants to stop at a point installs a handler (farm-probe does, to crash
/// there for the crash tests); farm never installs one, so passing a point costs one atomic load.
/// Any thread may pass a point or install the handler.
public enum Failpoint {
    private static let installed = Atomic<Bool>(false)
    /// The handler in a box of its own: a closure kept in `Locked`'s generic storage and read back through
    /// its inout body is re-abstracted on the way in and out, and written back wrapped in two more thunks at
    /// every read, so that after a few thousand points passed, calling it overflowed the stack (the test
    /// process's SIGSEGV of stop 58, under a handler a test had installed).
    private final class Handler: Sendable {
        let hear: @Sendable (String) -> Void
        init(_ hear: @escaping @Sendable (String) -> Void) { self.hear = hear }
    }
    private static let handler = Locked<Handler?>(nil)

    /// From now on, `handler` hears the name of each point this process passes, on the passing thread.
    public static func install(_ handler: @escaping @Sendable (String) -> Void) {
        let box = Handler(handler)
        self.handler.withLock { $0 = box }
        installed.store(true, ordering: .releasing)
    }

    package static func hit(_ name: StaticString) {
        guard installed.load(ordering: .acquiring), let handler = handler.withLock({ $0 }) else { return }
        handler.hear(name.description)
    }
}
