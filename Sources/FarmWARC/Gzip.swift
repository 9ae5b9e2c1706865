import CFarmGzip

/// A zlib stream making gzip members, one per record, its output handed out a buffer at a time.
/// Owned by one WARCWriter; not for sharing between threads.
final class Deflater {
    private let stream: OpaquePointer
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)

    /// zlib's default level (6): wget asks for 9, which costs about twice the time for a few percent
    /// (the farm compresses while it downloads, on the worker's core).
    init(level: Int32 = -1) throws(WARCError) {
        guard let stream = cfarm_gzip_deflater(level) else { throw WARCError("out of memory for zlib") }
        self.stream = stream
    }

    deinit {
        cfarm_gzip_free(stream)
        output.deallocate()
    }

    /// Drops a member begun and not finished, so the next starts afresh.
    func reset() { _ = cfarm_gzip_reset(stream) }

    /// The most bytes a member of `count` bytes can take (zlib's deflateBound, gzip wrapper included).
    func bound(_ count: Int) -> Int { cfarm_gzip_bound(stream, count) }

    /// Compresses `input` into the member; with `finish`, ends it (trailer included) and makes the stream
    /// ready for the next. Calls `emit` with each piece of the member.
    func feed(_ input: UnsafeRawBufferPointer, finish: Bool,
              emit: (UnsafeRawBufferPointer) throws(WARCError) -> Void) throws(WARCError) {
        var offset = 0
        while true {
            let (result, used, made) = gzipRun(stream, input, from: offset, into: output, finish: finish)
            if result < 0 { throw WARCError("zlib: " + String(cString: cfarm_gzip_message(stream))) }
            offset += used
            if made > 0 { try emit(UnsafeRawBufferPointer(rebasing: output[0..<made])) }
            if result == 1 {
                _ = cfarm_gzip_reset(stream)
                return
            }
            // Without `finish`, done once the input is taken and zlib filled no whole buffer (it holds the rest).
            if !finish && offset == input.count && made < output.count { return }
        }
    }
}

/// A zlib stream reading gzip members one after another, each checked (CRC-32 and length) at its end.
/// For scanning a WARC file: the bytes it inflates are thrown away.
final class Inflater {
    private let stream: OpaquePointer
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)

    /// How many of a member's first bytes `Step.ended` hands back.
    private let prefixLimit: Int

    init(prefixLimit: Int = 64) throws(WARCError) {
        self.prefixLimit = prefixLimit
        guard let stream = cfarm_gzip_inflater() else { throw WARCError("out of memory for zlib") }
        self.stream = stream
    }

    deinit {
        cfarm_gzip_free(stream)
        output.deallocate()
    }

    enum Step {
        /// All of the input was taken and the member goes on.
        case needsInput
        /// The member ended, checked, after `used` bytes of this input; the stream is ready for the next.
        case ended(used: Int, prefix: [UInt8])
        /// The bytes are not a gzip member, or fail its check.
        case corrupt(String)
    }

    /// The first bytes inflated of the current member (up to `prefixLimit`), for a look at its record's header.
    private var prefix: [UInt8] = []

    /// Feeds `input` to the current member.
    func feed(_ input: UnsafeRawBufferPointer) -> Step {
        var offset = 0
        while true {
            let (result, used, made) = gzipRun(stream, input, from: offset, into: output, finish: false)
            if result < 0 { return .corrupt(String(cString: cfarm_gzip_message(stream))) }
            if prefix.count < prefixLimit && made > 0 {
                prefix += UnsafeRawBufferPointer(rebasing: output[0..<min(made, prefixLimit - prefix.count)])
            }
            offset += used
            if result == 1 {
                let seen = prefix
                prefix = []
                _ = cfarm_gzip_reset(stream)
                return .ended(used: offset, prefix: seen)
            }
            if offset == input.count && made < output.count { return .needsInput }
        }
    }
}

/// One step of zlib on `stream` (either way): `input` from `offset` into `output`. Returns zlib's result
/// (1: the member ended, below 0: an error), the input bytes taken and the output bytes made.
private func gzipRun(_ stream: OpaquePointer, _ input: UnsafeRawBufferPointer, from offset: Int,
                     into output: UnsafeMutableRawBufferPointer,
                     finish: Bool) -> (result: Int32, used: Int, made: Int) {
    var used = 0, made = 0
    let base = input.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + offset }
    let result = cfarm_gzip_run(stream, base, input.count - offset,
                                output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count,
                                finish ? 1 : 0, &used, &made)
    return (result, used, made)
}
