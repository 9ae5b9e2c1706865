import FarmJSON
@testable import FarmRecords
import FarmSystem
import Foundation
import Testing

/// The spool's job records and sidecars through FarmJSON (the lists' and the desired state's:
/// FarmSpoolTests' ListAndDesiredJSONTests): the writer must match JSONEncoder byte for byte (old and new
/// farms share a spool), the reader must accept what JSONDecoder accepted, differ from it only where
/// the codec's rules say (the last duplicate key wins; an unknown sidecar status reads as
/// downloading), and never crash.
@Suite struct RecordJSONTests {
    @Test func writesExactlyWhatJSONEncoderWrites() {
        var random = SplitMix64(seed: 1)
        for _ in 0..<3000 {
            let sidecar = Self.sidecar(&random)
            #expect(sidecar.encoded() == Self.foundation(FoundationSidecar(sidecar)), "\(sidecar)")
            let record = JobRecord(url: Self.string(&random), id: Self.string(&random))
            #expect(record.encoded() == Self.foundation(FoundationRecord(record)), "\(record)")
        }
        // Every control character, and what JSONEncoder leaves alone: DEL, slashes, U+2028, BOM.
        let all = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
            + "\u{7F}\"\\/é😀\u{2028}\u{2029}\u{FEFF}"
        let record = JobRecord(url: all, id: "")
        #expect(record.encoded() == Self.foundation(FoundationRecord(record)))
    }

    @Test func writesBooleansAndLeavesOutNils() {
        /// Optional members of every kind, left out when nil as the spool's records do.
        struct Flags: Encodable, JSONWritable {
            var a: Bool, b: Bool?, c: Int?, d: String?

            func write(to json: inout JSONWriter) {
                json.beginObject()
                json.member("a", a)
                if let b { json.member("b", b) }
                if let c { json.member("c", c) }
                if let d { json.member("d", d) }
                json.endObject()
            }
        }
        for flags in [Flags(a: true, b: false, c: -1, d: "x"), Flags(a: false, b: nil, c: nil, d: nil)] {
            #expect(JSON.encode(flags) == Self.foundation(flags))
        }
        var empty = JSONWriter()
        empty.beginObject()
        empty.endObject()
        #expect(empty.finish() == Array("{}\n".utf8))
    }

    @Test func readsBackWhatItWritesAndWhatJSONEncoderWritesInAnyFormat() throws {
        var random = SplitMix64(seed: 2)
        let formats: [JSONEncoder.OutputFormatting] = [[], [.prettyPrinted], [.prettyPrinted, .sortedKeys]]
        for _ in 0..<1000 {
            let sidecar = Self.sidecar(&random)
            #expect(JSON.decode(Sidecar.self, from: sidecar.encoded()) == sidecar)
            let record = JobRecord(url: "u" + Self.string(&random), id: Self.string(&random))
            #expect(JSON.decode(JobRecord.self, from: record.encoded()) == record)
            for format in formats {
                let encoder = JSONEncoder()
                encoder.outputFormatting = format  // escaped slashes, unsorted keys, newlines, spaces
                #expect(JSON.decode(Sidecar.self, from: try encoder.encode(FoundationSidecar(sidecar))) == sidecar)
                #expect(JSON.decode(JobRecord.self, from: try encoder.encode(FoundationRecord(record))) == record)
            }
        }
    }

    @Test func decodesRecordsAsJSONDecoderDoes() {
        let inputs = [
            #"{"url":"http://a/b","id":"x"}"#,
            #"  {  "id" : "x" ,"url":"http:\/\/a\/b" }  "# + "\n\t\r\n",
            "\u{FEFF}" + #"{"id":"x","url":"u"}"#,
            #"{"id":"x","url":"u","extra":{"deep":[1,-2.5e3,{"a":null}],"b":true}}"#,
            #"{"id":"x"}"#,
            #"{"id":"x","url":5}"#,
            #"{"id":null,"url":"u"}"#,
            #"{"id":"\u0078\ud83d\ude00","url":"u"}"#,
            #"{"status":"done","bytes":5,"attempts":1,"changed":"t"}"#,
            #"{"status":"done","bytes":5,"attempts":1,"changed":"t","size":null,"thumb":null,"new":[]}"#,
            #"{"status":"done","bytes":-9223372036854775808,"attempts":9223372036854775807,"changed":"t"}"#,
            #"{"status":"done","bytes":9223372036854775808,"attempts":1,"changed":"t"}"#,
            #"{"status":"done","bytes":"5","attempts":1,"changed":"t"}"#,
            #"{"status":"done","bytes":5,"attempts":1,"changed":"t","size":"7"}"#,
            #"{"status":"done","bytes":5,"changed":"t"}"#,
            #"{"status":"done","bytes":5,"attempts":true,"changed":"t"}"#,
            #"[{"status":"done","bytes":5,"attempts":1,"changed":"t"}]"#,
        ]
        for input in inputs {
            let bytes = Array(input.utf8)
            #expect(JSON.decode(JobRecord.self, from: bytes) == Self.foundationRecord(bytes), "\(input)")
            #expect(JSON.decode(Sidecar.self, from: bytes) == Self.foundationSidecar(bytes), "\(input)")
        }
        // Where the rules differ from JSONDecoder (which took the first duplicate, and refused a
        // status it did not know): the last duplicate wins, an unknown status reads as downloading.
        #expect(JSON.decode(JobRecord.self, from: Array(#"{"id":"first","url":"u","id":"second"}"#.utf8))
            == JobRecord(url: "u", id: "second"))
        #expect(JSON.decode(JobRecord.self, from: Array(#"{"id":"x","url":"u","id":7}"#.utf8)) == nil)
        let paused = Array(#"{"status":"paused","bytes":5,"attempts":1,"changed":"t"}"#.utf8)
        #expect(JSON.decode(Sidecar.self, from: paused)
            == Sidecar(status: .downloading, bytes: 5, attempts: 1, changed: "t"))
        // Lines of a resource table come as slices.
        let table = Array(#"{"id":"a","url":"u"}"#.utf8) + [0x0A] + Array(#"{"id":"b","url":"v"}"#.utf8)
        #expect(table.split(separator: 0x0A).map { JSON.decode(JobRecord.self, from: $0) }
                == [JobRecord(url: "u", id: "a"), JobRecord(url: "v", id: "b")])
    }

    /// Whatever the bytes, no crash; every truncation of a record short of its final newline is nil.
    @Test func survivesRandomAndTruncatedInput() {
        var random = SplitMix64(seed: 3)
        let alphabet = Array(#"{}[]":,\ -+0123456789.eEtrufalsn"#.utf8) + [0x0A, 0x80, 0xC3, 0xA9, 0xED, 0xF0]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...48, using: &random)
            let bytes = (0..<count).map { _ in
                Bool.random(using: &random) ? alphabet.randomElement(using: &random)!
                    : UInt8.random(in: .min ... .max, using: &random)
            }
            _ = try? JSONParser.parse(bytes)
            _ = JSON.decode(Sidecar.self, from: [UInt8](#"{"a":"#.utf8) + bytes)
        }
        for _ in 0..<300 {
            let sidecar = Self.sidecar(&random)
            let record = JobRecord(url: "u" + Self.string(&random), id: Self.string(&random))
            for bytes in [sidecar.encoded(), record.encoded()] {
                for end in 0..<(bytes.count - 1) { #expect((try? JSONParser.parse(bytes[..<end])) == nil) }
                #expect((try? JSONParser.parse(bytes[..<(bytes.count - 1)])) != nil)
            }
        }
    }

    /// One byte changed anywhere in a sidecar: the reader must never accept what JSONDecoder refuses,
    /// nor read it differently, and refuses what JSONDecoder accepts only in its documented cases
    /// (an unknown status, which JSONDecoder refused, is read by the codec's rule: see
    /// `foundationSidecar`).
    @Test func agreesWithJSONDecoderOnDamagedSidecars() {
        var random = SplitMix64(seed: 4)
        let bytesToTry = Array(#"{}[]":,\ -0123456789.eEtfn"#.utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xFF]
        for _ in 0..<3000 {
            var bytes = Self.sidecar(&random).encoded()
            bytes[Int.random(in: 0..<bytes.count, using: &random)] = bytesToTry.randomElement(using: &random)!
            let foundation = Self.foundationSidecar(bytes)
            let ours = JSON.decode(Sidecar.self, from: bytes)
            if ours != nil || !Self.mayDiverge(bytes) {
                #expect(ours == foundation, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
    }

    // MARK: - Helpers

    /// Where JSONDecoder is more lenient: a comma before `}` or `]`, or a number with a fraction or an
    /// exponent where an Int is expected.
    private static func mayDiverge(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.contains(",}") || text.contains(",]") || text.contains(/[0-9][.eE]/)
    }

    /// What JSONDecoder reads, with the spool's rule that a job has a URL.
    private static func foundationRecord(_ bytes: some Collection<UInt8>) -> JobRecord? {
        (try? JSONDecoder().decode(FoundationRecord.self, from: Data(bytes))).flatMap {
            $0.url.isEmpty ? nil : JobRecord(url: $0.url, id: $0.id)
        }
    }

    /// What JSONDecoder reads, with the codec's rule for a status this build does not know.
    private static func foundationSidecar(_ bytes: some Collection<UInt8>) -> Sidecar? {
        (try? JSONDecoder().decode(FoundationSidecar.self, from: Data(bytes))).map(\.sidecar)
    }

    /// What JSONEncoder writes, as the spool wrote it before FarmJSON: sorted keys, slashes left
    /// alone, a final newline.
    private static func foundation(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return Array(try! encoder.encode(value)) + [0x0A]
    }

    private static let pieces = [
        "\"", "\\", "/", "//", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", "\u{1B}", "\u{7F}",
        "é", "e\u{301}", "中", "😀", "👩‍👩‍👧", "\u{2028}", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}", "\\u0041",
        "http://example.com/a b?c=1&d=%20#e", "/var/spool/farm/files/x.jpg", "HTTP 404",
    ]

    static func string(_ random: inout SplitMix64) -> String {
        var string = ""
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: string += pieces.randomElement(using: &random)!
            case 1:
                let value = UInt32.random(in: 0...0x10FFFF, using: &random)
                string.unicodeScalars.append(Unicode.Scalar(value) ?? "?")  // nil for surrogates
            default: string.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0..<0x80, using: &random)))
            }
        }
        return string
    }

    private static func int(_ random: inout SplitMix64) -> Int {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return Int.random(in: .min ... .max, using: &random)
        case 1: return [Int.min, Int.max, 0, -1, 10, -10].randomElement(using: &random)!
        default: return Int.random(in: -1000...100_000, using: &random)
        }
    }

    private static func sidecar(_ random: inout SplitMix64) -> Sidecar {
        func maybe<T>(_ make: (inout SplitMix64) -> T) -> T? {
            Bool.random(using: &random) ? make(&random) : nil
        }
        let statuses: [Sidecar.Status] = [.downloading, .unzipping, .rendering, .done, .error]
        return Sidecar(status: statuses.randomElement(using: &random)!, bytes: int(&random), size: maybe(int),
                       kind: maybe(string), file: maybe(string), image: maybe(string), thumb: maybe(string),
                       error: maybe(string), attempts: int(&random), changed: string(&random))
    }
}

// The records as Foundation's Codable reads and writes them: the same members, synthesized.

/// A job record for Foundation.
private struct FoundationRecord: Codable {
    var url: String, id: String

    init(_ record: JobRecord) {
        (url, id) = (record.url, record.id)
    }
}

/// A sidecar for Foundation, its status a plain string.
private struct FoundationSidecar: Codable {
    var status: String, bytes: Int, size: Int?, kind: String?, file: String?, image: String?, thumb: String?
    var error: String?, attempts: Int, changed: String

    init(_ sidecar: Sidecar) {
        (status, bytes, size, kind, file) = (sidecar.status.rawValue, sidecar.bytes, sidecar.size, sidecar.kind,
                                             sidecar.file)
        (image, thumb, error, attempts, changed) = (sidecar.image, sidecar.thumb, sidecar.error, sidecar.attempts,
                                                    sidecar.changed)
    }

    var sidecar: Sidecar {
        Sidecar(status: Sidecar.Status(rawValue: status) ?? .downloading, bytes: bytes, size: size, kind: kind,
                file: file, image: image, thumb: thumb, error: error, attempts: attempts, changed: changed)
    }
}

/// `JobRecord.decoded`, whose plain lines skip the parser, reads every line as the parser does.
@Suite struct JobRecordReadingTests {
    @Test func readsEveryLineAsTheParserDoes() {
        var random = SplitMix64(seed: 7)
        var lines: [[UInt8]] = []
        for round in 0..<3000 {
            var record = JobRecord(url: RecordJSONTests.string(&random), id: RecordJSONTests.string(&random))
            record.own = round % 2 == 0
            if round % 7 == 0 { record.title = "t" }
            if round % 11 == 0 { record.url = "" }
            let bytes = record.encoded()
            lines += [bytes, Array(bytes.dropLast()), Array(bytes.dropLast(2))]
        }
        let plain = #"{"id":"a.1","own":true,"url":"http://h/x.jpg"}"#
        lines += [Array(plain.utf8), Array((plain + "\n").utf8), Array((plain + " ").utf8),
                  Array(plain.utf8) + [0x0A, 0x0A], Array(#"{"id":"a.1","url":"http://h/\u0041"}"#.utf8),
                  Array(#"{"id":"a.1","url":""}"#.utf8), Array(#"{"id":"a.1","own":false,"url":"u"}"#.utf8),
                  Array(#"{"id":"a\#u{1}","url":"u"}"#.utf8)]
        // Invalid UTF-8 in either string, and a line cut inside a multi-byte character.
        lines += [Array(#"{"id":"a","url":"x"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
                  Array(#"{"id":""#.utf8) + [0xFF] + Array(#"","url":"u"}"#.utf8),
                  Array(#"{"id":"a","url":"é"}"#.utf8).dropLast(3) + Array(#""}"#.utf8)]
        var plainOnes = 0
        for line in lines {
            let parsed = JSON.decode(JobRecord.self, from: line)
            #expect(JobRecord.decoded(from: line) == parsed, "\(String(decoding: line, as: UTF8.self))")
            if line.withUnsafeBufferPointer({ JobRecord.plain($0) }) != nil { plainOnes += 1 }
        }
        // The lines `farm add` writes take the plain path (not only the parser's).
        #expect(plainOnes > 100)
        #expect(Array(plain.utf8).withUnsafeBufferPointer { JobRecord.plain($0) }?.own == true)
    }
}
