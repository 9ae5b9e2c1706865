import FarmSystem
import SystemPackage

/// Where a record's payload comes from: bytes at hand, or a file read in pieces (a 64 MiB download is
/// never held in memory). The file is read twice, once for the digests and once to compress it, and must
/// not change between the two (the append fails when its length did).
public enum WARCBody: Sendable {
    case bytes([UInt8])
    case file(String)

    /// How many bytes are read at once from a file.
    static let chunkSize = 1 << 20

    /// Calls `body` with each piece of the payload in order; returns the total length.
    @discardableResult
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws(WARCError) -> Void) throws(WARCError) -> Int {
        switch self {
        case .bytes(let bytes):
            try withBytes(bytes, body)
            return bytes.count
        case .file(let path):
            let fd: FileDescriptor
            do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw WARCError("cannot open the body \(path)", error) }
            defer { fd.closeQuietly() }
            var total = 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let n: Int
                do { n = try fd.readRetrying(into: buffer) } catch { throw WARCError("cannot read the body \(path)", error) }
                if n == 0 { return total }
                try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                total += n
            }
        }
    }
}

/// A record's block: `head` (an HTTP message's start line and header fields through their empty line, or a
/// warcinfo's fields) and then its payload `body`. `body` nil: a block with no payload (a GET request),
/// which gets no WARC-Payload-Digest (wget writes none there either).
public struct WARCBlock: Sendable {
    public var head: [UInt8]
    public var body: WARCBody?

    public init(head: [UInt8], body: WARCBody? = nil) {
        self.head = head
        self.body = body
    }
}

/// `body` over the bytes of `bytes`: Array's withUnsafeBytes rethrows untyped errors, this keeps WARCError's.
func withBytes(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(WARCError) -> Void) throws(WARCError) {
    var failure: WARCError?
    bytes.withUnsafeBytes { raw in
        do throws(WARCError) { try body(raw) } catch { failure = error }
    }
    if let failure { throw failure }
}
