import FarmDedup
import FarmJSON
import FarmTestSupport
import Foundation
import SystemPackage
import Testing

/// SPEC §12's checksums: an item's `"sha256"` is checked against the bytes downloaded. Real `farm work`
/// against a real origin, one transfer at a time so that the origin's count of requests is exact.
@Suite struct ChecksumTests {
    @Test func aRightChecksumEndsDoneAndAWrongOneFailsAfterTwoDownloadsWithNoOutput() throws {
        let h = try BadInputHarness()
        let right = BadInputHarness.jpegLike(3000), wrong = BadInputHarness.jpegLike(4000)
        h.origin.serve(path: "/right.jpg", bytes: right)
        h.origin.serve(path: "/wrong.jpg", bytes: wrong)
        let rightDigest = try digest(right, in: h.dir), claimed = try digest(right + [1], in: h.dir)
        let actual = try digest(wrong, in: h.dir)
        try add(h, [
            ("/right.jpg", rightDigest.uppercased()),  // either case is 64 hex digits
            ("/wrong.jpg", claimed),
            // The right URL's stored bytes are not what this item names: it downloads them itself, twice.
            ("/right.jpg", claimed),
            // Served from the URL's stored bytes, whose digest is the one named.
            ("/right.jpg", rightDigest),
            ("/right.jpg", nil),
        ])

        try h.work(["--transfers", "1"])

        try h.expectDone(0, bytes: right)
        try h.expectFailed(1) { $0 == "checksum mismatch: expected \(claimed), got \(actual)" }
        try h.expectFailed(2) { $0 == "checksum mismatch: expected \(claimed), got \(rightDigest)" }
        try h.expectDone(3, bytes: right)
        try h.expectDone(4, bytes: right)
        try h.expectGoodDone(5)
        for index in [1, 2] {
            let outputs = try h.outputs(index)
            #expect(outputs.isEmpty, "\(index) left \(outputs)")
        }
        let gets = { (path: String) in h.origin.requests.filter { $0.method == "GET" && $0.path == path }.count }
        #expect(gets("/wrong.jpg") == 2)
        #expect(gets("/right.jpg") == 3, "once for #0, twice for #2; #3 and #4 served from the stored bytes")
    }

    @Test(arguments: ["abc", String(repeating: "g", count: 64), String(repeating: "a", count: 65), "12"])
    func aChecksumThatIsNot64HexDigitsIsRefusedAndNothingIsAdded(_ checksum: String) throws {
        let h = try BadInputHarness()
        let manifest = try write(h, [("/right.jpg", checksum)])
        let added = try h.farm(["add", manifest])
        #expect(added.status == 2, "\(added)")
        let lines = added.error.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("\"sha256\" of the item at index 0 is not 64 hex digits"),
                "\(added.error)")
        let status = try h.farm(["status"])
        #expect(status.status == 0 && !status.output.contains("Bad"), "\(status)")
    }

    private func add(_ h: BadInputHarness, _ items: [(path: String, sha256: String?)]) throws {
        let added = try h.farm(["add", try write(h, items)])
        try #require(added.status == 0, "farm add: \(added.error)")
    }

    /// The list as objects with a `url` (and `/good.png` last), in `Bad.json`.
    private func write(_ h: BadInputHarness, _ items: [(path: String, sha256: String?)]) throws -> String {
        var objects: [JSONValue] = items.map { item in
            var members = [JSONMember("url", .string(h.origin.url(for: item.path)))]
            if let sha256 = item.sha256 { members.append(JSONMember("sha256", .string(sha256))) }
            return .object(members)
        }
        objects.append(.object([JSONMember("url", .string(h.origin.url(for: "/good.png")))]))
        let manifest = h.dir.appending("Bad.json")
        try Data(JSON.encode(JSONValue.array(objects))).write(to: URL(fileURLWithPath: manifest))
        return manifest
    }

    /// The SHA-256 of `bytes`, as the spool writes it.
    private func digest(_ bytes: [UInt8], in dir: TemporaryDirectory) throws -> String {
        let path = dir.appending("digest-\(bytes.count)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { try? fd.close() }
        return try Dedup.digest(of: fd)
    }
}
