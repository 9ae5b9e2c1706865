/// The spool's one-line records (job files, sidecars) written and read without Foundation, whose
/// JSONEncoder and JSONDecoder cost a quarter of a worker's CPU per job. Flat objects only: the
/// values are strings, integers, booleans and null.
public enum FlatJSON {
    /// Builds `{"key":value,...}\n` byte for byte as `SpoolJSON.encode` (JSONEncoder, sorted keys,
    /// slashes unescaped) would. Keys must be added in sorted order and need no escaping; a nil value
    /// is left out, as synthesized `Codable` does (`encodeIfPresent`).
    public struct Writer {
        private var bytes: [UInt8]
        private var previous: StaticString?

        public init(capacity: Int = 256) {
            bytes = []
            bytes.reserveCapacity(capacity)
            bytes.append(UInt8(ascii: "{"))
        }

        public mutating func add(_ key: StaticString, _ value: String?) {
            guard let value else { return }
            appendKey(key)
            appendString(value)
        }

        public mutating func add(_ key: StaticString, _ value: Int?) {
            guard let value else { return }
            appendKey(key)
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            var magnitude = value.magnitude  // Int.min has no positive Int
            let start = bytes.count
            repeat {
                bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
                magnitude /= 10
            } while magnitude > 0
            bytes[start...].reverse()
        }

        public mutating func add(_ key: StaticString, _ value: Bool?) {
            guard let value else { return }
            appendKey(key)
            bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        }

        /// The object, closed, with its trailing newline.
        public mutating func finish() -> [UInt8] {
            bytes.append(UInt8(ascii: "}"))
            bytes.append(0x0A)
            return bytes
        }

        private static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)
        private static let u00 = Array("u00".utf8), hex = Array("0123456789abcdef".utf8)

        private mutating func appendKey(_ key: StaticString) {
            assert(previous.map { before in
                before.withUTF8Buffer { a in key.withUTF8Buffer { b in a.lexicographicallyPrecedes(b) } }
            } ?? true, "FlatJSON keys must be added in sorted order")
            previous = key
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            key.withUTF8Buffer { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
        }

        private mutating func appendString(_ string: String) {
            bytes.append(UInt8(ascii: "\""))
            if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
                Array(string.utf8).withUnsafeBufferPointer { appendEscaped($0) }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        /// JSONEncoder's escapes: `\"`, `\\`, the five short control escapes, `\u00xx` (lowercase
        /// hex) for the other controls; everything else, DEL and non-ASCII included, as is.
        private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
            var run = 0  // start of the bytes not yet copied
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                run = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22, 0x5C: bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                default:
                    bytes.append(contentsOf: Self.u00)
                    bytes.append(Self.hex[Int(byte >> 4)])
                    bytes.append(Self.hex[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
    }

    /// A value of a flat object. `other` is valid JSON this reader does not keep: a number that is
    /// not a plain decimal Int (a fraction, an exponent, out of range), an object or an array.
    public enum Value: Equatable, Sendable {
        case string(String), int(Int), bool(Bool), null, other
    }

    /// A value of the wrong type (or a required one missing): the record does not decode.
    public struct Mismatch: Error {}

    /// One JSON object parsed from bytes, as JSONDecoder would accept it: whitespace anywhere
    /// between tokens, a UTF-8 byte-order mark, every string escape, unknown keys (nested values
    /// under them are checked and skipped, up to `maxDepth` deep); the first of duplicate keys wins.
    /// nil for anything else: malformed or truncated JSON, invalid UTF-8, lone surrogates, trailing
    /// bytes other than whitespace. Stricter than JSONDecoder on two points nothing farm writes
    /// needs: no trailing comma before `}`, and no `1.0` or `1e2` where an Int is expected.
    public struct Object: Sendable {
        public static let maxDepth = 32

        public private(set) var fields: [(key: String, value: Value)]

        public init?(_ bytes: some Collection<UInt8>) {
            let parsed = bytes.withContiguousStorageIfAvailable { buffer in
                var parser = Parser(bytes: buffer)
                return parser.topObject()
            } ?? Array(bytes).withUnsafeBufferPointer { buffer in
                var parser = Parser(bytes: buffer)
                return parser.topObject()
            }
            guard let parsed else { return nil }
            fields = parsed
        }

        /// The value of `key`'s first occurrence, or nil when absent.
        public subscript(key: String) -> Value? {
            fields.first { $0.key == key }?.value
        }

        public func string(_ key: String) throws(Mismatch) -> String {
            guard let value = try optionalString(key) else { throw Mismatch() }
            return value
        }

        public func int(_ key: String) throws(Mismatch) -> Int {
            guard let value = try optionalInt(key) else { throw Mismatch() }
            return value
        }

        /// nil when absent or null, as `decodeIfPresent` does.
        public func optionalString(_ key: String) throws(Mismatch) -> String? {
            switch self[key] {
            case .string(let value): return value
            case nil, .null: return nil
            default: throw Mismatch()
            }
        }

        /// nil when absent or null, as `decodeIfPresent` does.
        public func optionalInt(_ key: String) throws(Mismatch) -> Int? {
            switch self[key] {
            case .int(let value): return value
            case nil, .null: return nil
            default: throw Mismatch()
            }
        }
    }

    /// A recursive-descent parser over bytes it never reads past: every access goes through `peek`
    /// or a checked range, as the buffer's subscript is unchecked in release builds.
    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func topObject() -> [(key: String, value: Value)]? {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }  // JSONDecoder skips a BOM
            skipSpace()
            guard peek() == UInt8(ascii: "{") else { return nil }
            at += 1
            var fields: [(key: String, value: Value)] = []
            fields.reserveCapacity(12)
            guard members(depth: 1, { key, value in fields.append((key, value)) }) else { return nil }
            skipSpace()
            return at == bytes.count ? fields : nil
        }

        /// The members of an object whose `{` was just read, through its `}`.
        private mutating func members(depth: Int, _ take: (String, Value) -> Void) -> Bool {
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                at += 1
                return true
            }
            while true {
                guard let key = string() else { return false }
                skipSpace()
                guard peek() == UInt8(ascii: ":") else { return false }
                at += 1
                skipSpace()
                guard let value = value(depth: depth) else { return false }
                take(key, value)
                skipSpace()
                guard let next = peek() else { return false }
                at += 1
                if next == UInt8(ascii: "}") { return true }
                guard next == UInt8(ascii: ",") else { return false }
                skipSpace()
            }
        }

        /// The elements of an array whose `[` was just read, through its `]`.
        private mutating func elements(depth: Int) -> Bool {
            skipSpace()
            if peek() == UInt8(ascii: "]") {
                at += 1
                return true
            }
            while true {
                guard value(depth: depth) != nil else { return false }
                skipSpace()
                guard let next = peek() else { return false }
                at += 1
                if next == UInt8(ascii: "]") { return true }
                guard next == UInt8(ascii: ",") else { return false }
                skipSpace()
            }
        }

        private mutating func value(depth: Int) -> Value? {
            guard let byte = peek() else { return nil }
            switch byte {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            case UInt8(ascii: "{"):
                // Bounded, so hostile nesting cannot exhaust the stack.
                guard depth < Object.maxDepth else { return nil }
                at += 1
                return members(depth: depth + 1, { _, _ in }) ? .other : nil
            case UInt8(ascii: "["):
                guard depth < Object.maxDepth else { return nil }
                at += 1
                return elements(depth: depth + 1) ? .other : nil
            default: return nil
            }
        }

        private mutating func literal(_ word: StaticString, _ value: Value) -> Value? {
            let matches = word.withUTF8Buffer { bytes[at...].starts(with: $0) }
            guard matches else { return nil }
            at += word.utf8CodeUnitCount
            return value
        }

        private mutating func number() -> Value? {
            let negative = peek() == UInt8(ascii: "-")
            if negative { at += 1 }
            guard let first = peek(), isDigit(first) else { return nil }
            // Accumulated negatively: Int.min has no positive counterpart.
            var value = 0, overflow = false
            if first == UInt8(ascii: "0") {
                at += 1
            } else {
                while let digit = peek(), isDigit(digit) {
                    let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times10.subtractingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                    value = next
                    overflow = overflow || o1 || o2
                    at += 1
                }
            }
            var integer = true
            if peek() == UInt8(ascii: ".") {
                at += 1
                integer = false
                guard skipDigits() else { return nil }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                at += 1
                integer = false
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { at += 1 }
                guard skipDigits() else { return nil }
            }
            guard integer, !overflow else { return .other }
            if negative { return .int(value) }
            return value == .min ? .other : .int(-value)
        }

        /// At least one digit.
        private mutating func skipDigits() -> Bool {
            let start = at
            while let digit = peek(), isDigit(digit) { at += 1 }
            return at > start
        }

        private mutating func string() -> String? {
            guard peek() == UInt8(ascii: "\"") else { return nil }
            at += 1
            let start = at
            // Fast path: no escapes, the bytes are the string.
            while let byte = peek(), byte != UInt8(ascii: "\\") {
                if byte == UInt8(ascii: "\"") {
                    defer { at += 1 }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                }
                guard skipCharacter(byte) else { return nil }
            }
            var unescaped = Array(UnsafeBufferPointer(rebasing: bytes[start..<at]))
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: "\""):
                    at += 1
                    return String(decoding: unescaped, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    at += 1
                    guard let scalar = escape() else { return nil }
                    UTF8.encode(scalar) { unescaped.append($0) }
                default:
                    let start = at
                    guard skipCharacter(byte) else { return nil }
                    unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<at]))
                }
            }
            return nil
        }

        /// Past one unescaped character of a string: no raw control characters, only valid UTF-8
        /// (the well-formed sequences of Unicode's table 3-7: no overlongs, no surrogates).
        private mutating func skipCharacter(_ lead: UInt8) -> Bool {
            if lead >= 0x20 && lead < 0x80 {
                at += 1
                return true
            }
            let count: Int, second: ClosedRange<UInt8>
            switch lead {
            case 0xC2...0xDF: (count, second) = (2, 0x80...0xBF)
            case 0xE0: (count, second) = (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (count, second) = (3, 0x80...0xBF)
            case 0xED: (count, second) = (3, 0x80...0x9F)
            case 0xF0: (count, second) = (4, 0x90...0xBF)
            case 0xF1...0xF3: (count, second) = (4, 0x80...0xBF)
            case 0xF4: (count, second) = (4, 0x80...0x8F)
            default: return false
            }
            guard bytes.count - at >= count, second.contains(bytes[at + 1]),
                  bytes[at + 2 ..< at + count].allSatisfy({ $0 & 0xC0 == 0x80 }) else { return false }
            at += count
            return true
        }

        /// The character of the escape after a backslash; a surrogate pair is one escape here.
        private mutating func escape() -> Unicode.Scalar? {
            guard let byte = peek() else { return nil }
            at += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let unit = hex4() else { return nil }
                switch unit {
                case 0xD800...0xDBFF:
                    guard peek() == UInt8(ascii: "\\") else { return nil }
                    at += 1
                    guard peek() == UInt8(ascii: "u") else { return nil }
                    at += 1
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                    return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                case 0xDC00...0xDFFF: return nil
                default: return Unicode.Scalar(unit)
                }
            default: return nil
            }
        }

        private mutating func hex4() -> UInt32? {
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = peek() else { return nil }
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                unit = unit << 4 | UInt32(digit)
                at += 1
            }
            return unit
        }

        private mutating func skipSpace() {
            while let byte = peek(),
                  byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
        }

        private func peek() -> UInt8? {
            at < bytes.count ? bytes[at] : nil
        }

        private func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }
}
