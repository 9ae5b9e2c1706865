import Dispatch
import FarmSystem
import SystemPackage

/// Creates the job files of a batch being staged, some shards at a time, on other threads while the
/// coordinator makes the next ones. Creating the files is three quarters of `farm add`, and shards
/// are separate directories, so the cores create them side by side. At most `threads` shards are
/// queued or being written at once: memory stays bounded whatever the size of the batch.
///
/// Owned by one `enqueue`, on the thread that calls `write` and `finish`; the files are created on
/// Dispatch's threads, but for the last task's, which `finish` creates on its own thread: a batch smaller than
/// a task (one URL's add, a crawled page's few links) is then written with no hand-over at all.
final class ShardWriter: Sendable {
    /// One thread per core: the coordinator's own thread shares them, but spends most of its time
    /// waiting for a free slot.
    static let threads = max(1, Processes.onlineProcessors())

    /// Files a task creates at least: a shard of an add's batch is a pack of 16 jobs (PROTOCOL.md, "Packs"), and
    /// a task each would hand thousands of them to threads whose heaps grow and shrink at every one.
    static let taskSize = 1024

    typealias Shard = (directory: String, files: [(name: String, bytes: [UInt8])])
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let failure = Locked<Errno?>(nil)
    /// Shards given and not handed to a task yet, and how many files they hold.
    private let gathered = Locked<(shards: [Shard], files: Int)>(([], 0))
    /// Tasks handed to Dispatch's threads so far.
    private let tasks = Locked(0)
    var handed: Int { tasks.withLock { $0 } }

    init(threads: Int = threads) {
        slots = DispatchSemaphore(value: threads)
    }

    /// Queues the creation of `files` (names and contents) in `directory`, which exists; waits
    /// while every slot is taken. Throws the first error a shard written before met.
    func write(_ files: [(name: String, bytes: [UInt8])], in directory: String) throws(Errno) {
        try check()
        let ready = gathered.withLock { gathered -> [Shard]? in
            gathered.shards.append((directory, files))
            gathered.files += files.count
            guard gathered.files >= Self.taskSize else { return nil }
            defer { gathered = ([], 0) }
            return gathered.shards
        }
        if let ready { hand(ready) }
    }

    /// One task on one of Dispatch's threads for `shards`, once a slot is free.
    private func hand(_ shards: [Shard]) {
        slots.wait()
        tasks.withLock { $0 += 1 }
        DispatchQueue.global().async(group: group) { [self] in
            defer { slots.signal() }
            create(shards)
        }
    }

    /// Creates the files of `shards`; the first error is kept for `check`.
    private func create(_ shards: [Shard]) {
        do throws(Errno) {
            for (directory, files) in shards {
                for file in files {
                    let path = directory + "/" + file.name
                    if file.bytes.isEmpty {
                        try FileSystem.createEmptyFile(path)
                    } else {
                        try FileSystem.createFile(path, file.bytes)
                    }
                }
            }
        } catch {
            failure.withLock { if $0 == nil { $0 = error } }
        }
    }

    /// Writes what is gathered, then waits until every queued shard is written (or given up); throws the first
    /// error one met. Call it before anything else touches the stage, errors included.
    func finish() throws(Errno) {
        let rest = gathered.withLock { gathered in
            defer { gathered = ([], 0) }
            return gathered.shards
        }
        // On this thread, which would only wait for them otherwise. A hand-over to another thread cost a
        // crawled page's append a wake-up and a wait for a core (milliseconds on a busy machine), all under
        // the add lock that every other worker's append waits for, and `farm add` of one URL the start of
        // Dispatch's threads.
        create(rest)
        group.wait()
        try check()
    }

    private func check() throws(Errno) {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
