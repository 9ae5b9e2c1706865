@testable import FarmDesired
import FarmJSON
import FarmLists
import Foundation
import Testing

/// The list record and the desired state through FarmJSON, as FarmRecordsTests' RecordJSONTests checks the job
/// records and sidecars: the bytes JSONEncoder wrote before FarmJSON, read back as written.
@Suite struct ListAndDesiredJSONTests {
    @Test func writesExactlyWhatJSONEncoderWrites() {
        let list = ListRecord(name: "Set 1.json", total: 3, digest: "d", source: "https://a/b.zip", added: "t")
        #expect(list.encoded() == Self.foundation(FoundationList(list)))
        for desired in [Desired(), Desired(workers: 64, lease: 2.5, maxSize: 1, convert: false),
                        Desired(minFree: 0), Desired(minFree: 1 << 40)] {
            #expect(JSON.encode(desired) == Self.foundation(FoundationDesired(desired)))
        }
    }

    /// The bytes of the records converted to `JSONRecord` are those their hand-written writers produced
    /// (the literals), and the bytes of `Desired`, which stays hand-written, do not move either.
    @Test func writesTheBytesItAlwaysWrote() {
        #expect(String(decoding: JSON.encode(HostDesired(workers: 12)), as: UTF8.self) == #"{"workers":12}"# + "\n")
        #expect(JSON.decode(HostDesired.self, from: Array(#"{"workers":3,"x":null}"#.utf8))?.workers == 3)
        #expect(JSON.decode(HostDesired.self, from: Array(#"{"workers":"3"}"#.utf8)) == nil)
        #expect(JSON.decode(HostDesired.self, from: Array("{}".utf8)) == nil)
        var desired = Desired(workers: 2, lease: 2.5, maxSize: 7, convert: false, minFree: 0,
                              hostLimits: HostLimits(perHost: 3, ratePerHost: 0.5))
        desired.caFile = "/etc/ca.pem"
        desired.poll = true
        #expect(String(decoding: JSON.encode(desired), as: UTF8.self) == #"{"caFile":"/etc/ca.pem","convert":false,"#
            + #""lease":2.5,"maxSize":7,"minFree":0,"perHost":3,"poll":true,"ratePerHost":0.5,"workers":2}"# + "\n")
        #expect(String(decoding: JSON.encode(Desired()), as: UTF8.self)
            == #"{"convert":true,"lease":10,"maxSize":1073741824,"workers":4}"# + "\n")
    }

    @Test func readsBackWhatItWrites() {
        let list = ListRecord(name: "Set 1.json", total: 3, digest: "d", source: "https://a/b.zip", added: "t")
        #expect(JSON.decode(ListRecord.self, from: list.encoded()) == list)
        for desired in [Desired(workers: 7, lease: 2.5, maxSize: 9, convert: false), Desired(minFree: 12345)] {
            #expect(JSON.decode(Desired.self, from: JSON.encode(desired)) == desired)
        }
        // What the writer leaves out reads as its default; what it always writes is required (no release wrote a
        // desired.json without it), so a file without it is not the farm's desired state.
        #expect(JSON.decode(Desired.self, from: Array(#"{"convert":true,"lease":10,"maxSize":1073741824,"workers":6}"#.utf8))
            == Desired(workers: 6))
        #expect(JSON.decode(Desired.self, from: Array(#"{"lease":10,"workers":6}"#.utf8)) == nil)
    }

    /// What JSONEncoder writes, as the spool wrote it before FarmJSON: sorted keys, slashes left
    /// alone, a final newline.
    private static func foundation(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return Array(try! encoder.encode(value)) + [0x0A]
    }
}

/// A list record for Foundation.
private struct FoundationList: Encodable {
    var name: String, total: Int, digest: String, source: String, added: String

    init(_ list: ListRecord) {
        (name, total, digest, source, added) = (list.name, list.total, list.digest, list.source, list.added)
    }
}

/// The desired state for Foundation.
private struct FoundationDesired: Encodable {
    var workers: Int, lease: Double, maxSize: Int, convert: Bool, minFree: Int?

    init(_ desired: Desired) {
        (workers, lease, maxSize, convert) = (desired.workers, desired.lease, desired.maxSize, desired.convert)
        minFree = desired.minFree
    }
}
