@testable import FarmSpool
import FarmSystem
import Foundation
import Testing

/// FlatJSON, the spool's Foundation-free JSON: the writer must match JSONEncoder byte for byte (old
/// and new farms share a spool), the reader must accept what JSONDecoder accepted and never crash.
@Suite struct FlatJSONTests {
    @Test func writesExactlyWhatJSONEncoderWrites() {
        var random = SplitMix64(seed: 1)
        for _ in 0..<3000 {
            let sidecar = Self.sidecar(&random)
            #expect(sidecar.encoded() == SpoolJSON.encode(sidecar), "\(sidecar)")
            let record = JobRecord(url: Self.string(&random), id: Self.string(&random))
            #expect(record.encoded() == SpoolJSON.encode(record), "\(record)")
        }
        // Every control character, and what JSONEncoder leaves alone: DEL, slashes, U+2028, BOM.
        let all = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
            + "\u{7F}\"\\/é😀\u{2028}\u{2029}\u{FEFF}"
        let record = JobRecord(url: all, id: "")
        #expect(record.encoded() == SpoolJSON.encode(record))
    }

    @Test func writesBooleansAndLeavesOutNils() {
        struct Flags: Encodable {
            var a: Bool, b: Bool?, c: Int?, d: String?
        }
        for flags in [Flags(a: true, b: false, c: -1, d: "x"), Flags(a: false, b: nil, c: nil, d: nil)] {
            var writer = FlatJSON.Writer()
            writer.add("a", flags.a)
            writer.add("b", flags.b)
            writer.add("c", flags.c)
            writer.add("d", flags.d)
            #expect(writer.finish() == SpoolJSON.encode(flags))
        }
        var empty = FlatJSON.Writer()
        #expect(empty.finish() == Array("{}\n".utf8))
    }

    @Test func readsBackWhatItWritesAndWhatJSONEncoderWritesInAnyFormat() throws {
        var random = SplitMix64(seed: 2)
        let formats: [JSONEncoder.OutputFormatting] = [[], [.prettyPrinted], [.prettyPrinted, .sortedKeys]]
        for _ in 0..<1000 {
            let sidecar = Self.sidecar(&random)
            #expect(Sidecar.decode(sidecar.encoded()) == sidecar)
            let record = JobRecord(url: "u" + Self.string(&random), id: Self.string(&random))
            #expect(JobRecord.decode(record.encoded()) == record)
            for format in formats {
                let encoder = JSONEncoder()
                encoder.outputFormatting = format  // escaped slashes, unsorted keys, newlines, spaces
                #expect(Sidecar.decode(try encoder.encode(sidecar)) == sidecar)
                #expect(JobRecord.decode(try encoder.encode(record)) == record)
            }
        }
    }

    @Test func decodesRecordsAsJSONDecoderDoes() {
        let inputs = [
            #"{"url":"http://a/b","id":"x"}"#,
            #"  {  "id" : "x" ,"url":"http:\/\/a\/b" }  "# + "\n\t\r\n",
            "\u{FEFF}" + #"{"id":"x","url":"u"}"#,
            #"{"id":"x","url":"u","extra":{"deep":[1,-2.5e3,{"a":null}],"b":true}}"#,
            #"{"id":"first","url":"u","id":"second"}"#,
            #"{"id":"x","url":"u","id":7}"#,
            #"{"id":"x"}"#,
            #"{"id":"x","url":5}"#,
            #"{"id":null,"url":"u"}"#,
            #"{"id":"\u0078\ud83d\ude00","url":"u"}"#,
            #"{"status":"done","bytes":5,"attempts":1,"changed":"t"}"#,
            #"{"status":"done","bytes":5,"attempts":1,"changed":"t","size":null,"thumb":null,"new":[]}"#,
            #"{"status":"done","bytes":-9223372036854775808,"attempts":9223372036854775807,"changed":"t"}"#,
            #"{"status":"done","bytes":9223372036854775808,"attempts":1,"changed":"t"}"#,
            #"{"status":"paused","bytes":5,"attempts":1,"changed":"t"}"#,
            #"{"status":"done","bytes":"5","attempts":1,"changed":"t"}"#,
            #"{"status":"done","bytes":5,"attempts":1,"changed":"t","size":"7"}"#,
            #"{"status":"done","bytes":5,"changed":"t"}"#,
            #"{"status":"done","bytes":5,"attempts":true,"changed":"t"}"#,
            #"[{"status":"done","bytes":5,"attempts":1,"changed":"t"}]"#,
        ]
        for input in inputs {
            let bytes = Array(input.utf8)
            #expect(JobRecord.decode(bytes) == Self.foundationRecord(bytes), "\(input)")
            #expect(Sidecar.decode(bytes) == (try? JSONDecoder().decode(Sidecar.self, from: Data(bytes))), "\(input)")
        }
        // Lines of a resource table come as slices.
        let table = Array(#"{"id":"a","url":"u"}"#.utf8) + [0x0A] + Array(#"{"id":"b","url":"v"}"#.utf8)
        #expect(table.split(separator: 0x0A).map { JobRecord.decode($0) }
                == [JobRecord(url: "u", id: "a"), JobRecord(url: "v", id: "b")])
    }

    @Test func parsesEveryEscapeAndNumber() throws {
        let object = try #require(FlatJSON.Object(Array(#"""
            { "s" : "a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u4E2D\ud83d\ude00\u0000é中😀" ,
              "zero":0, "neg":-42, "negzero":-0, "min":-9223372036854775808, "max":9223372036854775807,
              "over":9223372036854775808, "under":-9223372036854775809, "frac":1.5, "exp":1E+3,
              "t":true, "f":false, "n":null, "o":{"x":[1,{"y":null}],"w":"v"}, "a":[], "e":{}, "k":"" }
            """#.utf8)))
        #expect(object["s"] == .string("a\"b\\c/d\u{08}\u{0C}\n\r\tAé中😀\u{0}é中😀"))
        #expect(object["zero"] == .int(0) && object["neg"] == .int(-42) && object["negzero"] == .int(0))
        #expect(object["min"] == .int(.min) && object["max"] == .int(.max))
        #expect(object["over"] == .other && object["under"] == .other)
        #expect(object["frac"] == .other && object["exp"] == .other)
        #expect(object["t"] == .bool(true) && object["f"] == .bool(false) && object["n"] == .null)
        #expect(object["o"] == .other && object["a"] == .other && object["e"] == .other)
        #expect(object["k"] == .string("") && object["missing"] == nil)
        #expect(FlatJSON.Object(Array("{}".utf8))?.fields.isEmpty == true)
    }

    @Test func refusesMalformedInput() {
        let texts = [
            "", " ", "\n", "{", "}", "[]", "null", #""a""#, "{{}}", #"{"a"}"#, #"{"a":}"#, #"{"a" 1}"#,
            "{,}", #"{"a":1,}"#, #"{"a":1 "b":2}"#, #"{"a":1,,"b":2}"#, #"{"a":1}x"#, #"{"a":1}{}"#,
            "{a:1}", "{'a':1}", "{1:1}", #"{"a":01}"#, #"{"a":-}"#, #"{"a":--1}"#, #"{"a":1.}"#,
            #"{"a":.5}"#, #"{"a":+1}"#, #"{"a":1e}"#, #"{"a":1e+}"#, #"{"a":0x10}"#, #"{"a":tru}"#,
            #"{"a":True}"#, #"{"a":nul}"#, #"{"a":nulll}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#,
            #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12g4"}"#, #"{"a":"\U0041"}"#, #"{"a":"\ud800"}"#,
            #"{"a":"\udc00"}"#, #"{"a":"\ud800\u0041"}"#, #"{"a":"\ud800\ud800"}"#, #"{"a":"\udc00\ud800"}"#,
            "{\"a\":\"raw\ttab\"}", "{\"a\":\"raw\nnewline\"}", "{\"a\":\"nul\u{0}\"}", #"{"a":"open}"#,
            #"{"a":[1,]}"#, #"{"a":[1 2]}"#, #"{"a":[}"#, #"{"a":{"b"}}"#, #"{"a":{"b":1,}}"#, #"{"a":{]}"#,
            "\u{0}{}", "{}\u{0}", "{}\u{0B}", "\u{FEFF}\u{FEFF}{}", " \u{FEFF}{}",
        ]
        for text in texts {
            #expect(FlatJSON.Object(Array(text.utf8)) == nil, "\(text.debugDescription)")
        }
        // Invalid UTF-8 in a string: bare continuation, overlong, surrogate, truncated, past U+10FFFF.
        let sequences: [[UInt8]] = [[0x80], [0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80],
                                    [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF0, 0x80, 0x80, 0x80],
                                    [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x28, 0xA1]]
        for sequence in sequences {
            let bytes = Array(#"{"a":""#.utf8) + sequence + Array(#""}"#.utf8)
            #expect(FlatJSON.Object(bytes) == nil, "\(sequence)")
            #expect((try? JSONDecoder().decode([String: String].self, from: Data(bytes))) == nil)
        }
    }

    @Test func boundsNesting() {
        func nested(_ depth: Int) -> [UInt8] {
            Array(#"{"a":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: depth)
                + Array(repeating: UInt8(ascii: "]"), count: depth) + Array("}".utf8)
        }
        #expect(FlatJSON.Object(nested(FlatJSON.Object.maxDepth - 1))?["a"] == .other)
        #expect(FlatJSON.Object(nested(FlatJSON.Object.maxDepth)) == nil)
        #expect(FlatJSON.Object(nested(100_000)) == nil)
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
            _ = FlatJSON.Object(bytes)
            _ = Sidecar.decode([UInt8](#"{"a":"#.utf8) + bytes)
        }
        for _ in 0..<300 {
            let sidecar = Self.sidecar(&random)
            let record = JobRecord(url: "u" + Self.string(&random), id: Self.string(&random))
            for bytes in [sidecar.encoded(), record.encoded()] {
                for end in 0..<(bytes.count - 1) { #expect(FlatJSON.Object(bytes[..<end]) == nil) }
                #expect(FlatJSON.Object(bytes[..<(bytes.count - 1)]) != nil)
            }
        }
    }

    /// One byte changed anywhere in a sidecar: FlatJSON must never accept what JSONDecoder refuses,
    /// nor read it differently, and refuses what JSONDecoder accepts only in its documented cases.
    @Test func agreesWithJSONDecoderOnDamagedSidecars() {
        var random = SplitMix64(seed: 4)
        let bytesToTry = Array(#"{}[]":,\ -0123456789.eEtfn"#.utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xFF]
        for _ in 0..<3000 {
            var bytes = Self.sidecar(&random).encoded()
            bytes[Int.random(in: 0..<bytes.count, using: &random)] = bytesToTry.randomElement(using: &random)!
            let foundation = try? JSONDecoder().decode(Sidecar.self, from: Data(bytes))
            let flat = Sidecar.decode(bytes)
            if flat != nil || !Self.mayDiverge(bytes) {
                #expect(flat == foundation, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
    }

    // MARK: - Helpers

    /// Where JSONDecoder is more lenient (see `FlatJSON.Object`): a comma before `}` or `]`, or a
    /// number with a fraction or an exponent.
    private static func mayDiverge(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.contains(",}") || text.contains(",]") || text.contains(/[0-9][.eE]/)
    }

    private static func foundationRecord(_ bytes: [UInt8]) -> JobRecord? {
        (try? JSONDecoder().decode(JobRecord.self, from: Data(bytes))).flatMap { $0.url.isEmpty ? nil : $0 }
    }

    private static let pieces = [
        "\"", "\\", "/", "//", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", "\u{1B}", "\u{7F}",
        "é", "e\u{301}", "中", "😀", "👩‍👩‍👧", "\u{2028}", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}", "\\u0041",
        "http://example.com/a b?c=1&d=%20#e", "/var/spool/farm/files/x.jpg", "HTTP 404",
    ]

    private static func string(_ random: inout SplitMix64) -> String {
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
