import Glibc

/// A thread of its own for work that blocks (a transfer slot, a lease keeper, a converter): a pthread,
/// detached, running `body` once. Foundation's `Thread` would link all of Foundation for this one call.
public enum Threads {
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { box in
            let body = Unmanaged<Body>.fromOpaque(box!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        // No thread (the process is out of them): the work cannot be done, and going on without it would
        // leave its caller waiting for good.
        precondition(started == 0, "cannot start a thread: \(started)")
        pthread_detach(thread)
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
