import Dispatch
import FarmSystem
import SystemPackage

/// Creates the job files of a batch being staged, a shard at a time, on other threads while the
/// coordinator makes the next shard. Creating the files is three quarters of `farm add`, and shards
/// are separate directories, so the cores create them side by side. At most `threads` shards are
/// queued or being written at once: memory stays bounded whatever the size of the batch.
///
/// Owned by one `enqueue`, on the thread that calls `write` and `finish`; the files are created on
/// Dispatch's threads.
final class ShardWriter: Sendable {
    /// One thread per core: the coordinator's own thread shares them, but spends most of its time
    /// waiting for a free slot.
    static let threads = max(1, Processes.onlineProcessors())

    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let failure = Locked<Errno?>(nil)

    init(threads: Int = threads) {
        slots = DispatchSemaphore(value: threads)
    }

    /// Queues the creation of `files` (names and contents) in `directory`, which exists; waits
    /// while every slot is taken. Throws the first error a shard written before met.
    func write(_ files: [(name: String, bytes: [UInt8])], in directory: String) throws(Errno) {
        try check()
        slots.wait()
        DispatchQueue.global().async(group: group) { [self] in
            defer { slots.signal() }
            do throws(Errno) {
                for file in files {
                    let path = directory + "/" + file.name
                    if file.bytes.isEmpty {
                        try FileSystem.createEmptyFile(path)
                    } else {
                        try FileSystem.createFile(path, file.bytes)
                    }
                }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
    }

    /// Waits until every queued shard is written (or given up); throws the first error one met.
    /// Call it before anything else touches the stage, errors included.
    func finish() throws(Errno) {
        group.wait()
        try check()
    }

    private func check() throws(Errno) {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
