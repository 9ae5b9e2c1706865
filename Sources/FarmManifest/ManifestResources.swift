import FarmJSON

/// The resources of one list, stored compactly: a million-URL list must fit a `farm add` in well under
/// 100 MB. Each URL and id is a span of bytes, either in the list's JSON text itself (shared, not
/// copied: most strings hold no escape) or in a side buffer of decoded strings; a resource costs 16
/// bytes of spans, and its Strings are made only when it is read.
///
/// Made by `Manifest`; a value type, any thread may use it.
public struct ManifestResources: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    /// Where one string lies; `start`'s top bit says it is in `decoded` rather than `source`.
    struct Span: Sendable {
        var start: UInt32
        var count: UInt32

        static let decodedFlag: UInt32 = 1 << 31
        static let absent = Span(start: 0, count: .max)
    }

    /// A URL or id as the parser gave it: a span of the list's text (JSON or a text list), or a decoded string.
    enum Text {
        case span(Range<Int>)
        case decoded(String)

        /// A string value's text; nil for a value that is not a string.
        init?(_ value: JSONValue) {
            switch value {
            case .span(let range): self = .span(range)
            case .string(let string): self = .decoded(string)
            default: return nil
            }
        }
    }

    private let source: ManifestText
    private var decoded: [UInt8] = []
    /// Two per resource: its URL, then its id (`Span.absent` when it has none).
    private var spans: [Span] = []
    /// Each resource's checksum, up to the last one that has one (most lists have none, and pay nothing).
    private var checksums: [Span] = []
    /// Each resource's mirrors, up to the last one that has some (likewise).
    private var mirrorLists: [[String]] = []
    /// Each resource's delivered name, up to the last one that has one (likewise).
    private var outs: [Span] = []

    init(source: ManifestText) {
        precondition(source.count < Int(Span.decodedFlag), "a list's JSON text is limited to 2 GiB")
        self.source = source
    }

    public init(_ resources: [ManifestResource]) {
        self.init(source: ManifestText([]))
        for resource in resources {
            append(url: .decoded(resource.url), id: resource.id.map { .decoded($0) }, sha256: resource.sha256,
                   mirrors: resource.mirrors, out: resource.out)
        }
    }

    public init(arrayLiteral resources: ManifestResource...) {
        self.init(resources)
    }

    /// `sha256`: 64 lowercase hex digits, checked by the caller.
    mutating func append(url: Text, id: Text?, sha256: String? = nil, mirrors: [String] = [], out: String? = nil) {
        if let out {
            outs += repeatElement(.absent, count: count - outs.count)
            outs.append(span(.decoded(out)))
        }
        if !mirrors.isEmpty {
            mirrorLists += repeatElement([], count: count - mirrorLists.count)
            mirrorLists.append(mirrors)
        }
        if let sha256 {
            checksums += repeatElement(.absent, count: count - checksums.count)
            checksums.append(span(.decoded(sha256)))
        }
        spans.append(span(url))
        if let id { spans.append(span(id)) } else { spans.append(.absent) }
    }

    private mutating func span(_ text: Text) -> Span {
        switch text {
        case .span(let range):
            return Span(start: UInt32(range.lowerBound), count: UInt32(range.count))
        case .decoded(let string):
            let start = decoded.count
            decoded.append(contentsOf: string.utf8)
            precondition(decoded.count < Int(Span.decodedFlag), "a list's decoded strings are limited to 2 GiB")
            return Span(start: UInt32(start) | Span.decodedFlag, count: UInt32(decoded.count - start))
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { spans.count / 2 }

    public subscript(position: Int) -> ManifestResource {
        let id = spans[2 * position + 1]
        let sha256 = position < checksums.count ? checksums[position] : .absent
        let out = position < outs.count ? outs[position] : .absent
        return ManifestResource(url: string(spans[2 * position]), id: id.count == Span.absent.count ? nil : string(id),
                                sha256: sha256.count == Span.absent.count ? nil : string(sha256),
                                mirrors: position < mirrorLists.count ? mirrorLists[position] : [],
                                out: out.count == Span.absent.count ? nil : string(out))
    }

    private func string(_ span: Span) -> String {
        let start = Int(span.start & ~Span.decodedFlag)
        let range = start..<start + Int(span.count)
        // Both buffers hold only text the parser already checked to be valid UTF-8.
        if span.start & Span.decodedFlag != 0 { return String(decoding: decoded[range], as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(rebasing: source.bytes[range]), as: UTF8.self)
    }

    /// The resources in order, for one pass over a big list: the text's pages behind the reader are
    /// handed back as it goes (spans lie in the text in resource order).
    public var inOnePass: some Sequence<ManifestResource> {
        var index = 0
        var released = 0
        return AnySequence {
            AnyIterator { () -> ManifestResource? in
                guard index < count else { return nil }
                if index % 4096 == 0, let low = lowestSourceOffset(of: index), low > released {
                    source.release(released..<low)
                    released = low
                }
                defer { index += 1 }
                return self[index]
            }
        }
    }

    /// Where resource `index`'s strings begin in the text, nil when none of them is there.
    private func lowestSourceOffset(of index: Int) -> Int? {
        [spans[2 * index], spans[2 * index + 1]]
            .filter { $0.count != Span.absent.count && $0.start & Span.decodedFlag == 0 }
            .map { Int($0.start) }.min()
    }

    public static func == (lhs: ManifestResources, rhs: ManifestResources) -> Bool {
        lhs.elementsEqual(rhs)
    }
}
