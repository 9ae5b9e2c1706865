import FarmJSON
import FarmRegistry
import FarmSpool
import FarmSystem
import FoundationEssentials

/// One registered process's metrics: the `factory` its code records into (in memory), and its file
/// `metrics/<registration name>.json`, which `flushIfDue` or the thread of `flushEverySecond` replaces
/// with everything recorded so far when it changed, and `finish` a last time. See MetricFiles.swift for
/// why the file is named after the registration and must not be written once the registration ended.
///
/// Made by the process after it registered; `finish` must be called before the registration ends. Any
/// thread. A process that makes copies of itself (the supervisor, see Spawn.swift) must stay single-threaded
/// and lock nothing a copy could inherit: it does not call `flushEverySecond`, which starts a thread, but
/// `flushIfDue` from its own loop, and every lock here is a `Locked`.
public final class MetricsRecorder: Sendable {
    /// The shortest gap between two writes of the file.
    public static let interval = 1.0

    public let factory: SpoolMetricsFactory
    private let spool: Spool
    private let path: String

    private struct State {
        var lastWrite = -Double.infinity
        var written: [UInt8] = []
        var finished = false
    }

    private let state = Locked(State())

    public init(spool: Spool, registration: Registration, factory: SpoolMetricsFactory = SpoolMetricsFactory()) {
        self.spool = spool
        self.factory = factory
        path = MetricFiles.path(spool, of: registration.name)
    }

    /// Writes the file when `interval` has passed since the last write (and something changed).
    public func flushIfDue() {
        let now = Clock.monotonic()
        state.withLock { state in
            guard !state.finished, now - state.lastWrite >= Self.interval else { return }
            state.lastWrite = now
            write(&state)
        }
    }

    /// Writes the file about once a second from a thread of its own, until `finish`.
    public func flushEverySecond() {
        Threads.detach { [self] in
            // `finish` ends the wait: nothing is written after it, and the thread goes at once.
            while Clock.pause(Self.interval, unless: { state.withLock { $0.finished } }) {
                flushIfDue()
            }
        }
    }

    /// Writes the file a last time; nothing is written after this returns.
    public func finish() {
        state.withLock { state in
            guard !state.finished else { return }
            write(&state)
            state.finished = true
        }
    }

    /// Replaces the file with the values now, unless they are what it holds already.
    private func write(_ state: inout State) {
        let values = factory.values()
        guard !values.isEmpty else { return }
        let bytes = JSON.encode(values)
        guard bytes != state.written else { return }
        do {
            // Staged beside the file, not in tmp/: a staged name costs a nonce, whose lock is not one a
            // process that makes copies may take (see `Locked`).
            try AtomicFile.write(bytes, to: path)
            state.written = bytes
        } catch where error == .noSuchFileOrDirectory {
            // The spool (or metrics/) was removed under the farm: nothing left to count into.
        } catch {
            spool.log("cannot write \(path): \(error)")
        }
    }
}
