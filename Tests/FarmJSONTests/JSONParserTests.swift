import FarmJSON
import Foundation
import Testing

/// The parser's rules (JSONValue.swift): strict RFC 8259, every escape, numbers kept as written, the
/// last duplicate key, bounded nesting, spans only when streaming.
@Suite struct JSONParserTests {
    @Test func parsesEveryEscapeAndNumber() throws {
        let object = try #require(Self.object(Array(#"""
            { "s" : "a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u4E2D\ud83d\ude00\u0000é中😀" ,
              "zero":0, "neg":-42, "negzero":-0, "min":-9223372036854775808, "max":9223372036854775807,
              "over":9223372036854775808, "under":-9223372036854775809, "frac":1.5, "exp":1E+3,
              "t":true, "f":false, "n":null, "o":{"x":[1,{"y":null}],"w":"v"}, "a":[], "e":{}, "k":"" }
            """#.utf8)))
        #expect(object["s"] == .string("a\"b\\c/d\u{08}\u{0C}\n\r\tAé中😀\u{0}é中😀"))
        #expect(try Self.int(object, "zero") == 0 && Self.int(object, "neg") == -42 && Self.int(object, "negzero") == 0)
        #expect(try Self.int(object, "min") == .min && Self.int(object, "max") == .max)
        // Not an Int: out of range, a fraction, an exponent; all of them are numbers still.
        for key in ["over", "under", "frac", "exp"] {
            #expect(throws: JSONMismatch.self) { try Self.int(object, key) }
        }
        #expect(object["over"] == .number("9223372036854775808") && object["exp"] == .number("1E+3"))
        #expect(try object.decode("frac") as Double == 1.5 && object.decode("exp") as Double == 1000)
        #expect(object["t"] == .bool(true) && object["f"] == .bool(false) && object["n"] == .null)
        #expect(object["o"] == .object([JSONMember("x", .array([.number("1"), .object([JSONMember("y", .null)])])),
                                        JSONMember("w", .string("v"))]))
        #expect(object["a"] == .array([]) && object["e"] == .object([]))
        #expect(object["k"] == .string("") && object["missing"] == nil)
        #expect(Self.object(Array("{}".utf8)) == .object([]))
    }

    @Test func theLastOfDuplicateKeysWins() throws {
        let object = try JSONParser.parse(Array(#"{"a":1,"b":2,"a":"three"}"#.utf8))
        #expect(object["a"] == .string("three"))
        #expect(try object.decode("a") as String == "three")
        #expect(throws: JSONMismatch.self) { try object.decode("a") as Int }
        // Every member is kept, in order.
        #expect(object == .object([JSONMember("a", .number("1")), JSONMember("b", .number("2")),
                                   JSONMember("a", .string("three"))]))
    }

    @Test func aMissingOrNullOptionalIsNilAndAWrongTypeIsNamed() throws {
        let object = try JSONParser.parse(Array(#"{"n":null,"s":"x","i":5}"#.utf8))
        #expect(try object.decodeIfPresent("n") as String? == nil)
        #expect(try object.decodeIfPresent("missing") as Int? == nil)
        #expect(try object.decodeIfPresent("i") as Int? == 5)
        let wrong = #expect(throws: JSONMismatch.self) { try object.decode("s") as Int }
        #expect(wrong?.reason == #""s": a string, not an integer"#)
        let missing = #expect(throws: JSONMismatch.self) { try object.decode("missing") as String }
        #expect(missing?.reason == #"no "missing""#)
        #expect(throws: JSONMismatch.self) { try JSONValue.array([]).decode("s") as String }
    }

    @Test func streamingLeavesPlainStringsInTheTextAndHandsOverTheBigArray() throws {
        let text = Array(#"["https://a/1.jpg", "https://a/\u00e9.jpg", "https://a/é.jpg", {"url": "x"}]"#.utf8)
        var elements: [JSONValue] = []
        var begun: [JSONStreamedArray] = []
        let document = try text.withUnsafeBufferPointer { bytes in
            try JSONParser.stream(bytes) { event in
                switch event {
                case .begin(let array): begun.append(array)
                case .element(let value, _): elements.append(value)
                }
            }
        }
        #expect(document == .array([]) && begun == [.document])
        #expect(elements.count == 4)
        #expect(elements[0] == .span(2..<17) && String(decoding: text[2..<17], as: UTF8.self) == "https://a/1.jpg")
        #expect(elements[1] == .string("https://a/é.jpg") && elements[2] == .string("https://a/é.jpg"))
        #expect(elements[3] == .object([JSONMember("url", .span(73..<74))]))
        // A plain parse decodes every string.
        #expect(try JSONParser.parse(text) == .array([.string("https://a/1.jpg"), .string("https://a/é.jpg"),
                                                      .string("https://a/é.jpg"),
                                                      .object([JSONMember("url", .string("x"))])]))
    }

    @Test func errorsSayWhere() {
        let text = Array("{\n  \"a\": [1,\n  2 3]\n}".utf8)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
        #expect(error?.offset == 17 && error?.reason == "expected ',' or ']'")
        let position = text.withUnsafeBufferPointer { TextPosition.of(offset: error?.offset ?? 0, in: $0) }
        #expect(position == (line: 3, column: 5))
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
            #expect(Self.object(Array(text.utf8)) == nil, "\(text.debugDescription)")
        }
        // Invalid UTF-8 in a string: bare continuation, overlong, surrogate, truncated, past U+10FFFF.
        let sequences: [[UInt8]] = [[0x80], [0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80],
                                    [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF0, 0x80, 0x80, 0x80],
                                    [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x28, 0xA1]]
        for sequence in sequences {
            let bytes = Array(#"{"a":""#.utf8) + sequence + Array(#""}"#.utf8)
            #expect(Self.object(bytes) == nil, "\(sequence)")
            #expect((try? JSONDecoder().decode([String: String].self, from: Data(bytes))) == nil)
        }
    }

    @Test func boundsNesting() {
        func nested(_ depth: Int) -> [UInt8] {
            Array(#"{"a":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: depth)
                + Array(repeating: UInt8(ascii: "]"), count: depth) + Array("}".utf8)
        }
        #expect(Self.object(nested(JSONParser.maxDepth - 1))?["a"]?.kind == "an array")
        #expect(Self.object(nested(JSONParser.maxDepth)) == nil)
        #expect(Self.object(nested(100_000)) == nil)
    }

    // MARK: - Helpers

    /// The object `bytes` hold, nil when they are not JSON or not an object.
    private static func object(_ bytes: [UInt8]) -> JSONValue? {
        guard let value = try? JSONParser.parse(bytes), case .object = value else { return nil }
        return value
    }

    private static func int(_ object: JSONValue, _ key: String) throws(JSONMismatch) -> Int {
        try object.decode(key)
    }
}
