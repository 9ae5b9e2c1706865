import Foundation

/// A value behind a lock (a pthread mutex, through NSLock) for code that may run in a copy of a process
/// (fork without exec, see Spawn.swift) or in a process that makes copies: the supervisor and what it
/// calls. Synchronization's `Mutex` is not safe there: it keeps the locking thread's id in a per-thread
/// cache that a copy inherits, stale, from its parent, and a copy of a parent that had locked one on its
/// main thread then fails to unlock its own (a fatal error). Any thread.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
