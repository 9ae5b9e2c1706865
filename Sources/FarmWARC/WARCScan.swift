import FarmSystem
import SystemPackage

/// The gzip members of a WARC file, read from its start: how far they are whole.
///
/// A member counts only once zlib has inflated it to its end and its trailer's CRC-32 and length match,
/// so a member cut short by a kill, or a tail a power cut left as zeros or stale blocks, ends the good part.
/// Each member must also hold a WARC record (its first bytes `WARC/`). Reads the whole file (about 300 MB/s
/// of inflate a core): it is for recovery and for checks, not for the writer's path.
public struct WARCScan: Sendable {
    /// The byte ranges of the whole members, in order.
    public let members: [Range<Int>]
    /// The file's length: more than the last member's end when a tail is torn.
    public let size: Int

    /// Where the good part ends.
    public var goodEnd: Int { members.last?.upperBound ?? 0 }
    public var isWhole: Bool { goodEnd == size }

    /// Scans the file at `path`.
    public static func scan(path: String) throws(WARCError) -> WARCScan {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw WARCError("cannot open \(path)", error) }
        defer { fd.closeQuietly() }
        return try scan(fd, path: path)
    }

    static func scan(_ fd: FileDescriptor, path: String) throws(WARCError) -> WARCScan {
        var members: [Range<Int>] = []
        try walk(fd, path: path) { range, _ in members.append(range) }
        let size: Int
        do { size = Int(try fd.status().size) } catch { throw WARCError("cannot read the size of \(path)", error) }
        return WARCScan(members: members, size: size)
    }

    /// Calls `member` with the byte range of each whole member of the file from its start, in order, and its
    /// record's first `prefixLimit` bytes, inflated; ends at the first member that is torn or holds no record.
    static func walk(_ fd: FileDescriptor, path: String, prefixLimit: Int = 64,
                     _ member: (Range<Int>, [UInt8]) -> Void) throws(WARCError) {
        let inflater = try Inflater(prefixLimit: prefixLimit)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        var memberStart = 0, offset = 0
        reading: while true {
            let n: Int
            do { n = try fd.read(at: offset, into: buffer) } catch { throw WARCError("cannot read \(path)", error) }
            if n == 0 { break }
            var used = 0
            while used < n {
                switch inflater.feed(UnsafeRawBufferPointer(rebasing: buffer[used..<n])) {
                case .needsInput:
                    used = n
                case .ended(let taken, let prefix):
                    used += taken
                    guard prefix.starts(with: Array("WARC/".utf8)) else { break reading }
                    member(memberStart..<(offset + used), prefix)
                    memberStart = offset + used
                case .corrupt:
                    break reading
                }
            }
            offset += n
        }
    }
}

extension WARCScan {
    /// The WARC-Record-IDs of the whole members that follow one another from `offset` in the file at `path`,
    /// at most `limit` of them: they end at the first member that is torn, absent or not a record. Nil when the
    /// file is absent. How a caller learns how much of a group of records it noted before writing is in.
    public static func recordIDs(path: String, from offset: Int, limit: Int) throws(WARCError) -> [WARCRecordID]? {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch where error == .noSuchFileOrDirectory {
            return nil
        } catch {
            throw WARCError("cannot open \(path)", error)
        }
        defer { fd.closeQuietly() }
        let inflater = try Inflater(prefixLimit: 512)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        var ids: [WARCRecordID] = []
        var at = offset
        reading: while ids.count < limit {
            let n: Int
            do { n = try fd.read(at: at, into: buffer) } catch { throw WARCError("cannot read \(path)", error) }
            if n == 0 { break }
            var used = 0
            while used < n && ids.count < limit {
                switch inflater.feed(UnsafeRawBufferPointer(rebasing: buffer[used..<n])) {
                case .needsInput:
                    used = n
                case .corrupt:
                    break reading
                case .ended(let taken, let prefix):
                    used += taken
                    guard let id = recordID(inHeader: prefix) else { break reading }
                    ids.append(id)
                }
            }
            at += n
        }
        return ids
    }

    /// The WARC-Record-ID field of a record header's first bytes.
    static func recordID(inHeader bytes: [UInt8]) -> WARCRecordID? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("WARC/") else { return nil }
        for line in text.split(separator: "\r\n") where line.hasPrefix("WARC-Record-ID: ") {
            return WARCRecordID(text: String(line.dropFirst("WARC-Record-ID: ".count)))
        }
        return nil
    }
}
