import FarmOrigin
import FarmTestSupport
import Foundation
import Testing

/// A failing server is never asked again sooner than the back-off allows (0.5 s, then doubling), whichever
/// worker has the job next and however it got there: a `Retry-After: 0` that parks it, a worker stopped or
/// killed in the middle of its wait. Real `farm work` processes against a real origin, whose request log
/// says when each request arrived.
@Suite struct BackOffTests {
    /// The gaps between the requests the origin received for `path`, in seconds, in order of arrival.
    private func gaps(_ h: BadInputHarness, _ path: String) -> [Double] {
        let arrivals = h.origin.requests(for: path).map(\.arrived).sorted()
        return zip(arrivals, arrivals.dropFirst()).map { $1 - $0 }
    }

    @Test func aServerThatKeepsFailingIsAskedAtMostEveryHalfSecondThenLessOften() throws {
        let h = try BadInputHarness()
        let body = BadInputHarness.jpegLike(100_000)
        h.origin.inject(.status(503), at: "/busy.jpg")
        h.origin.inject(.status(503, retryAfter: 0), at: "/busy-now.jpg")
        h.origin.inject(.status(429, retryAfter: 0), at: "/slow-down.jpg")
        h.origin.serve(path: "/cut.jpg", bytes: body)
        h.origin.inject(.cutShort(afterBytes: 10_000), at: "/cut.jpg")
        let paths = ["/busy.jpg", "/busy-now.jpg", "/slow-down.jpg", "/cut.jpg"]
        let good = try h.add(paths)

        // Three workers, so that a job parked by one is free to be taken at once by another.
        let workers = try (0..<3).map { _ in
            try ChildProcess("farm", ["work", "--exit-when-idle", "--spool", h.spoolPath])
        }
        for worker in workers { try #require(worker.wait(timeout: 180) == 0, "farm work: \(worker.standardError)") }

        for (index, path) in paths.enumerated() {
            try h.expectFailed(index, attempts: 5) { _ in true }
            let gaps = gaps(h, path)
            #expect(gaps.count == 4, "\(path): \(h.origin.requests(for: path))")
            // 0.5 s at least, then at least double the first floor each time.
            for (n, gap) in gaps.enumerated() {
                let floor = 0.5 * Double(1 << n)
                #expect(gap >= floor, "\(path): retry \(n + 1) came \(gap) s after the one before (at least \(floor))")
            }
        }
        try h.expectGoodDone(good)
    }

    /// A worker stopped while it waits hands the job back; the next worker waits out the rest of the wait.
    @Test func theNextWorkerWaitsOutTheBackOffOfOneThatStopped() throws {
        try expectBackOffOutlives(signal: SIGTERM, lease: nil)
    }

    /// A worker killed while it waits leaves its claim to expire; whoever reclaims it waits out the rest.
    @Test func theNextWorkerWaitsOutTheBackOffOfOneThatWasKilled() throws {
        try expectBackOffOutlives(signal: SIGKILL, lease: 1)
    }

    /// After its third request the first worker waits at least 2 s before the fourth: it is ended then
    /// (by `signal`) and a second worker takes the job (with `lease`, so that a kill's claim expires well
    /// within that wait). The fourth request still comes 2 s after the third at least, and the attempts go
    /// on counting from the first worker's: five requests in all.
    private func expectBackOffOutlives(signal: Int32, lease: Double?) throws {
        let h = try BadInputHarness()
        h.origin.inject(.status(503), at: "/busy.jpg")
        let good = try h.add(["/busy.jpg"])
        let leaseArguments = lease.map { ["--lease", String($0)] } ?? []

        let first = try ChildProcess("farm", ["work", "--exit-when-idle", "--spool", h.spoolPath] + leaseArguments)
        // Once the third answer has ended and the worker had a moment to record its wait: a stop in the middle
        // of a request hands the job on with that request unanswered, which the next worker may make again.
        try #require(poll(timeout: 60, every: 0.005) {
            let requests = h.origin.requests(for: "/busy.jpg")
            return requests.count >= 3 && requests[2].ended != nil
        }, "\(h.origin.requests(for: "/busy.jpg"))")
        Thread.sleep(forTimeInterval: 0.3)
        first.kill(signal)
        _ = first.wait(timeout: 30)
        let second = try ChildProcess("farm", ["work", "--exit-when-idle", "--spool", h.spoolPath] + leaseArguments)
        try #require(second.wait(timeout: 120) == 0, "farm work: \(second.standardError)")

        try h.expectFailed(0, attempts: 5) { $0 == "HTTP 503" }
        let gaps = gaps(h, "/busy.jpg")
        #expect(gaps.count == 4, "\(h.origin.requests(for: "/busy.jpg"))")
        #expect(gaps.count >= 3 && gaps[2] >= 2, "the next worker asked again \(gaps) s after")
        try h.expectGoodDone(good)
    }
}
