import FarmJSON
import Foundation
import Testing

/// The writer's rules (JSONValue.swift): byte for byte what JSONEncoder writes with sorted keys and
/// slashes left alone, compact and pretty, so farms before and after FarmJSON read each other's files
/// and show the same output; and what it writes reads back.
@Suite struct JSONWriterTests {
    @Test(arguments: [JSONWriter.Style.compact, .pretty])
    func writesExactlyWhatJSONEncoderWrites(style: JSONWriter.Style) throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let tree = Tree.random(&random, depth: 0)
            #expect(JSON.encode(tree, style) == Self.foundation(tree, style), "\(tree)")
        }
        // The corners: empty collections at every depth, every escape, doubles in both notations.
        let corners: [Tree] = [
            .array([]), .object([:]), .array([.array([]), .object([:])]), .object(["a": .array([.object([:])])]),
            .string(String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
                + "\u{7F}\"\\/é😀\u{2028}\u{2029}\u{FEFF}"),
            .array([0.3, 1.0 / 3, -0.0, 5e-324, 1.7976931348623157e308, 100, 1e16, 1e15, 123456.789, 1e-7]
                .map(Tree.double)),
            .array([Int.min, Int.max, 0, -1].map(Tree.int)),
        ]
        for tree in corners { #expect(JSON.encode(tree, style) == Self.foundation(tree, style), "\(tree)") }
    }

    @Test func whatItWritesReadsBack() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let tree = Tree.random(&random, depth: 0)
            for style in [JSONWriter.Style.compact, .pretty] {
                let value = try JSONParser.parse(JSON.encode(tree, style))
                #expect(Tree(value) == tree, "\(tree)")
                // A parsed value writes the same bytes again.
                #expect(JSON.encode(value, style) == JSON.encode(tree, style))
            }
        }
    }

    @Test func valuesAreWrittenWithSortedKeys() {
        let value = JSONValue.object([JSONMember("b", .number("2")), JSONMember("a", .array([.null, .bool(true)])),
                                      JSONMember("ab", .string("x/y"))])
        #expect(JSON.encode(value) == Array(#"{"a":[null,true],"ab":"x/y","b":2}"#.utf8) + [0x0A])
        #expect(JSON.encode(Double.nan) == Array("null\n".utf8))
    }

    /// Keys are ordered by their bytes, two spellings of one String included (é composed, and e with a
    /// combining accent), and duplicates keep their order, so that what is written reads back and writes
    /// again byte for byte (what `bin/fuzz json` checks of any input).
    @Test func keysThatAreOneStringInTwoSpellingsAreOrderedByTheirBytes() throws {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        let value = JSONValue.object([JSONMember(composed, .number("1")), JSONMember("0c", .number("2")),
                                      JSONMember(decomposed, .number("3")), JSONMember(composed, .number("4"))])
        let written = JSON.encode(value)
        #expect(String(decoding: written, as: UTF8.self) == "{\"0c\":2,\"\(decomposed)\":3,\"\(composed)\":1,\"\(composed)\":4}\n")
        #expect(JSON.encode(try JSONParser.parse(written)) == written)
    }

    // MARK: - Helpers

    private static func foundation(_ tree: Tree, _ style: JSONWriter.Style) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = style == .pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try! encoder.encode(tree)) + [0x0A]
    }
}

/// A JSON document as a test builds it, written by JSONEncoder (Encodable) and by the writer.
private indirect enum Tree: Encodable, JSONWritable, Equatable, CustomStringConvertible {
    case null, bool(Bool), int(Int), double(Double), string(String), array([Tree]), object([String: Tree])

    /// What a parse of the writer's bytes gives back (an integral double reads back as an int).
    init?(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number):
            if let int = number.int {
                self = .int(int)
            } else if let double = number.double {
                self = .double(double)
            } else {
                return nil
            }
        case .string(let value): self = .string(value)
        case .span: return nil
        case .array(let elements):
            var trees: [Tree] = []
            for element in elements {
                guard let tree = Tree(element) else { return nil }
                trees.append(tree)
            }
            self = .array(trees)
        case .object(let members):
            var trees: [String: Tree] = [:]
            for member in members {
                guard let tree = Tree(member.value) else { return nil }
                trees[member.key] = tree
            }
            self = .object(trees)
        }
    }

    static func == (a: Tree, b: Tree) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.int(let x), .int(let y)): x == y
        case (.double(let x), .double(let y)): x == y || (x.isNaN && y.isNaN)
        // An integral double is written without its ".0" and reads back as an int.
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): Double(x) == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x == y
        default: false
        }
    }

    var description: String { String(decoding: JSON.encode(self), as: UTF8.self) }

    func encode(to encoder: Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    func write(to json: inout JSONWriter) {
        switch self {
        case .null: json.null()
        case .bool(let value): json.bool(value)
        case .int(let value): json.int(value)
        case .double(let value): json.double(value)
        case .string(let value): json.string(value)
        case .array(let elements): elements.write(to: &json)
        case .object(let members):
            json.beginObject()
            for key in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                json.key(key)
                members[key]!.write(to: &json)
            }
            json.endObject()
        }
    }

    private static let pieces = [
        "\"", "\\", "/", "//", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", "\u{7F}", "é", "中",
        "😀", "\u{2028}", "\u{FEFF}", "http://example.com/a b?c=1", "a", "b", "z", "0", "9", "_", "-", " ",
    ]

    static func random(_ random: inout SystemRandomNumberGenerator, depth: Int) -> Tree {
        switch Int.random(in: 0..<(depth < 4 ? 9 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Bool.random(using: &random) ? Int.random(in: -1000...1000, using: &random)
                                : Int.random(in: .min ... .max, using: &random))
        case 3:
            let double = Bool.random(using: &random) ? Double.random(in: -1e6...1e6, using: &random)
                : Double(bitPattern: UInt64.random(in: .min ... .max, using: &random))
            return .double(double.isFinite ? double : 0.5)
        case 4, 5: return .string(string(&random))
        case 6, 7:
            let count = Int.random(in: 0...4, using: &random)
            return .array((0..<count).map { _ in Tree.random(&random, depth: depth + 1) })
        default:
            var members: [String: Tree] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                // Keys as farm writes them (lowercase ASCII letters): JSONEncoder's order for others
                // is its own.
                let key = String((0..<Int.random(in: 1...6, using: &random)).map { _ in
                    "abcdefghijklmnopqrstuvwxyz".randomElement(using: &random)!
                })
                members[key] = Tree.random(&random, depth: depth + 1)
            }
            return .object(members)
        }
    }

    private static func string(_ random: inout SystemRandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// Any key, for the objects of a tree.
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
