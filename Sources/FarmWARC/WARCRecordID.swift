/// A WARC-Record-ID: `<urn:uuid:…>` of a random (version 4) UUID, from the system's generator (getrandom).
public struct WARCRecordID: Sendable, Hashable, CustomStringConvertible {
    /// The whole field value, angle brackets included.
    public let text: String

    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(random: &generator)
    }

    /// A version 4 UUID from `generator`'s bits (RFC 9562 §5.4: version nibble 4, variant bits 10).
    init(random generator: inout some RandomNumberGenerator) {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }
        let groups = [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }
        text = "<urn:uuid:" + groups.joined(separator: "-") + ">"
    }

    /// An ID given whole (`<urn:uuid:…>`), for tests and for records read back.
    public init(text: String) { self.text = text }

    public var description: String { text }
}
