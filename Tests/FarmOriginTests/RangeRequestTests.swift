@testable import FarmOrigin
import Testing

/// The Range / If-Range rules alone, without a server.
@Suite struct RangeRequestTests {
    private let etag = "\"abc-10\""

    private func resolve(_ range: String?, ifRange: String? = nil, count: Int = 100) -> RangeRequest {
        RangeRequest.resolve(range: range, ifRange: ifRange, etag: etag, count: count)
    }

    @Test func singleRanges() {
        #expect(resolve(nil) == .whole)
        #expect(resolve("bytes=0-") == .partial(0..<100))
        #expect(resolve("bytes=10-") == .partial(10..<100))
        #expect(resolve("bytes=10-19") == .partial(10..<20))
        #expect(resolve("bytes=99-99") == .partial(99..<100))
        #expect(resolve("bytes=90-1000") == .partial(90..<100))
        #expect(resolve("bytes=-10") == .partial(90..<100))
        #expect(resolve("bytes=-1000") == .partial(0..<100))
        #expect(resolve(" Bytes = 5 - 6 ") == .whole)  // "Bytes =" is not the unit followed by "="
        #expect(resolve("bytes= 5 - 6") == .partial(5..<7))
    }

    @Test func unsatisfiable() {
        #expect(resolve("bytes=100-") == .unsatisfiable)
        #expect(resolve("bytes=100-200") == .unsatisfiable)
        #expect(resolve("bytes=-0") == .unsatisfiable)
        #expect(resolve("bytes=0-", count: 0) == .unsatisfiable)
        #expect(resolve("bytes=99999999999999999999999-") == .unsatisfiable)
    }

    @Test func ignored() {
        for header in ["bytes=5-1", "bytes=0-1,3-4", "items=0-1", "bytes=a-", "bytes=", "bytes=-", "0-1"] {
            #expect(resolve(header) == .whole, "\(header)")
        }
    }

    @Test func ifRange() {
        #expect(resolve("bytes=10-", ifRange: etag) == .partial(10..<100))
        #expect(resolve("bytes=10-", ifRange: "\"other\"") == .whole)
        #expect(resolve("bytes=10-", ifRange: "W/" + etag) == .whole)
        #expect(resolve("bytes=10-", ifRange: "Wed, 21 Oct 2015 07:28:00 GMT") == .whole)
    }

    @Test func firstByte() {
        #expect(RangeRequest.firstByte(of: "bytes=4096-") == 4096)
        #expect(RangeRequest.firstByte(of: "bytes=4096-5000") == 4096)
        #expect(RangeRequest.firstByte(of: "bytes=-5") == nil)
        #expect(RangeRequest.firstByte(of: nil) == nil)
    }
}

/// How the faults of a path are applied and counted, without a server.
@Suite struct FaultTableTests {
    @Test func answersCountEveryRequestAndComeFirst() {
        let table = FaultTable()
        table.add(.throttle(bytesPerSecond: 10), at: "/a", times: nil)
        table.add(.status(503, retryAfter: 1), at: "/a", times: 2)
        #expect(table.plan(for: "/a", sendsBody: false).answer == .status(503, retryAfter: 1))
        #expect(table.plan(for: "/a", sendsBody: true).answer == .status(503, retryAfter: 1))
        let served = table.plan(for: "/a", sendsBody: true)
        #expect(served.answer == nil)
        #expect(served.bytesPerSecond == 10)
        #expect(table.faults(at: "/a") == [.throttle(bytesPerSecond: 10)])
    }

    @Test func bodyFaultsCountOnlyRequestsWithABody() {
        let table = FaultTable()
        table.add(.cutShort(afterBytes: 5), at: "/a", times: 1)
        table.add(.stall(afterBytes: 7), at: "/a", times: 1)
        #expect(table.plan(for: "/a", sendsBody: false).ending == .complete)
        #expect(table.plan(for: "/a", sendsBody: true).ending == .cutShort(afterBytes: 5))
        #expect(table.plan(for: "/a", sendsBody: true).ending == .stall(afterBytes: 7))
        #expect(table.plan(for: "/a", sendsBody: true).ending == .complete)
        #expect(table.plan(for: "/b", sendsBody: true).applied.isEmpty)
    }
}
