import Glibc

/// What a search looks through in each resource of a list: its id, URL, title and caption, lowercased,
/// in one buffer (fields ended by 0x01, resources by 0x00), so a search is one pass of memchr and
/// memcmp over the list and no match can run from one field or resource into the next. Built once per
/// table by `ListWindows`, on the first search. Immutable; shared between threads.
final class SearchKeys: Sendable {
    private let text: [UInt8]
    /// Where the keys of each resource end (one past its 0x00).
    private let ends: [Int]

    init(_ lines: ResourceLines) {
        var text: [UInt8] = [], ends: [Int] = []
        ends.reserveCapacity(lines.count)
        for index in 0..<lines.count {
            if let record = lines.record(index) {
                for field in [record.id, record.url, record.title ?? "", record.caption ?? ""] {
                    text += Self.folded(field)
                    text.append(0x01)
                }
            }
            text.append(0x00)
            ends.append(text.count)
        }
        self.text = text
        self.ends = ends
    }

    /// The indexes of the resources whose keys hold `query` (already `folded`), in ascending order.
    func matches(_ query: [UInt8]) -> [Int] {
        guard !query.isEmpty else { return Array(0..<ends.count) }
        var found: [Int] = []
        text.withUnsafeBufferPointer { haystack in
            query.withUnsafeBufferPointer { needle in
                guard let base = haystack.baseAddress, let pattern = needle.baseAddress else { return }
                let first = Int32(pattern[0])
                var position = 0
                // memchr for the first byte, memcmp for the rest (Glibc's module has no memmem).
                while position + needle.count <= haystack.count,
                      let hit = memchr(base + position, first, haystack.count - position - needle.count + 1) {
                    let offset = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                    guard memcmp(base + offset, pattern, needle.count) == 0 else {
                        position = offset + 1
                        continue
                    }
                    let index = resource(at: offset)
                    found.append(index)
                    position = ends[index]  // one match is enough for a resource
                }
            }
        }
        return found
    }

    /// The resource whose keys hold byte `offset` (a binary search over `ends`).
    private func resource(at offset: Int) -> Int {
        var low = 0, high = ends.count - 1
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `text` as searches compare it: lowercased (ASCII in place, anything else by Unicode's rules),
    /// without the control characters that separate the keys.
    static func folded(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 < 0x80 }) {
            for (index, byte) in bytes.enumerated() where byte >= 0x41 && byte <= 0x5A { bytes[index] = byte + 0x20 }
        } else {
            bytes = Array(text.lowercased().utf8)
        }
        return bytes.filter { $0 >= 0x20 }
    }
}
