import NIOCore
import NIOPosix

/// Runs an origin's Swift tasks on the origin's own event loop threads.
///
/// Tests are mostly synchronous, and swift-testing runs them on the cooperative pool (two threads on a
/// two-core machine): two tests blocked on a `curl` of their own would leave no thread for a server that
/// ran on that pool, and every request would hang. The origin's server task prefers this executor, and its
/// child tasks inherit the preference. Owned by one `Origin`; jobs never block, so running them on the
/// event loops that also do the I/O is safe. Public for the tests of FarmHTTP's `ServerTask`, which need the
/// same.
public final class EventLoopExecutor: TaskExecutor {
    let group: MultiThreadedEventLoopGroup

    public init(threads: Int) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        group.next().execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
