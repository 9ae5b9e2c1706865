import FarmSystem

/// The name of one job: `<list>.<index>`, where <list> is a 16-hex-digit list id.
/// Validated on the way in: a name that does not parse is a foreign file.
public struct JobName: Hashable, Sendable, CustomStringConvertible {
    public let list: String
    /// The job's number in its list: the resource's index as the list was added, and its line in the
    /// resource table. Edits do not change it; the resource's index now is its place in `ListOrder`.
    public let index: Int
    public let raw: String

    public init(list: String, index: Int) {
        precondition(ListID.isValid(list) && index >= 0, "invalid job name \(list).\(index)")
        self.list = list
        self.index = index
        self.raw = list + "." + String(index)
    }

    public init?(_ raw: String) {
        // One pass over the bytes, no substring made until the name is known good: every claim, completion
        // and watcher event parses one, and the substrings and `Int(_:)` of a plainer parse were 1% of a
        // worker's CPU on short jobs.
        var raw = raw
        let index: Int? = raw.withUTF8 { bytes in
            guard bytes.count > 17, bytes.count <= 27, bytes[16] == UInt8(ascii: ".") else { return nil }
            for byte in bytes[..<16] where !((byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102)) {
                return nil
            }
            // Digits with no leading zero (but "0" itself): one spelling for each number.
            guard bytes[17] != UInt8(ascii: "0") || bytes.count == 18 else { return nil }
            var value = 0
            for byte in bytes[17...] {
                guard byte >= 48 && byte <= 57 else { return nil }
                let (shifted, over) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = shifted.addingReportingOverflow(Int(byte - 48))
                guard !over && !carry else { return nil }
                value = sum
            }
            return value
        }
        guard let index else { return nil }
        self.list = String(Substring(raw.utf8.prefix(16)))
        self.index = index
        self.raw = raw
    }

    public var description: String { raw }
}

/// List ids: 16 lowercase hex digits, derived from the list's name (see `ListID.of`).
public enum ListID {
    public static func isValid(_ id: String) -> Bool {
        id.utf8.count == 16 && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// FNV-1a 64 of the name: stable across runs and machines, so adding a list twice finds it again.
    public static func of(name: String) -> String {
        var hash = FNV1a()
        hash.add(name)
        return hash.hex
    }
}
