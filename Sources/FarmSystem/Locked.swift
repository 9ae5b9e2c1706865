import Glibc

/// A value behind a lock (a pthread mutex of its own) for code that may run in a copy of a process (fork
/// without exec, see Spawn.swift) or in a process that makes copies: the supervisor and what it calls.
/// Synchronization's `Mutex` is not safe there: it keeps the locking thread's id in a per-thread cache that
/// a copy inherits, stale, from its parent, and a copy of a parent that had locked one on its main thread
/// then fails to unlock its own (a fatal error). A plain pthread mutex keeps no such thing. Any thread.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
