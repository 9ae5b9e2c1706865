import FarmSystem
import SystemPackage

/// Drops response records, and the request records that name them (WARC-Concurrent-To), from a finished WARC
/// file: how a caller that keeps one response a URL removes a record a later fetch supersedes (FarmWorker's
/// WARCArchive.swift: an error answer, then the resource by `farm retry`).
///
/// The file is copied without those members to `<name>.compacting` beside it, synced, and renamed over it, so a
/// kill leaves the file as it was or as it is to be, never half of either (a leftover `.compacting` is
/// overwritten by the next compaction of its file, and ends neither in `.warc.gz` nor `.open`, so readers and
/// recovery pass it by). A file still `.open` is not touched: its writer appends to it, by its descriptor,
/// at the end it knows; it is compacted once finished. Members after the dropped ones move: an offset noted
/// before is a hint only, the record ID what names a record. Compactions of one file take turns on an flock
/// of it, checked to be on the file the name holds (a compaction before may have renamed a new one over it).
/// Any thread or process; safe again after a crash of its own.
public enum WARCCompaction {
    public enum Outcome: Sendable, Equatable {
        /// The file holds none of those records now (it never did, or they were dropped: how many).
        case done(dropped: Int)
        /// The file is still `.open`: to do once its writer finishes it (or recovery does).
        case open
    }

    /// What the copy is written as before it is renamed over the file.
    public static let temporarySuffix = ".compacting"

    /// Drops from `name` (finished) in `directory` the response records whose WARC-Record-ID is in
    /// `responseIDs`, and the requests concurrent to them. A file left with its warcinfo only is removed.
    public static func drop(responseIDs: Set<String>, from name: String, in directory: String)
        throws(WARCError) -> Outcome {
        let path = directory + "/" + name
        while true {
            if (try? FileSystem.stat(path + WARCFile.openSuffix)) != nil { return .open }
            let fd: FileDescriptor
            do { fd = try FileDescriptor.open(path, .readWrite) } catch where error == .noSuchFileOrDirectory {
                // Finished meanwhile by recovery (its `.open` gone between the two looks): look again.
                if (try? FileSystem.stat(path + WARCFile.openSuffix)) != nil { continue }
                return .done(dropped: 0)
            } catch {
                throw WARCError("cannot open \(path)", error)
            }
            defer { fd.closeQuietly() }
            do { try fd.lock() } catch { throw WARCError("cannot lock \(path)", error) }
            guard let onDisk = try? FileSystem.stat(path), let held = try? fd.status(),
                  onDisk.inode == held.inode, onDisk.deviceID == held.deviceID else { continue }
            return try drop(responseIDs, from: fd, path: path, directory: directory)
        }
    }

    private static func drop(_ responseIDs: Set<String>, from fd: FileDescriptor, path: String, directory: String)
        throws(WARCError) -> Outcome {
        let members = try WARCScan.headers(fd, path: path)
        let dropped = members.filter { member in
            (member.type == "response" && responseIDs.contains(member.id ?? ""))
                || (member.type == "request" && responseIDs.contains(member.concurrentTo ?? ""))
        }
        if dropped.isEmpty { return .done(dropped: 0) }
        let kept = members.filter { member in !dropped.contains { $0.range == member.range } }
        let temporary = path + temporarySuffix
        do {
            if kept.count <= 1 {
                // Its warcinfo alone, as a writer never leaves a file (WARCFile.finish).
                try FileSystem.unlink(path)
                try FileSystem.syncDirectory(directory)
                Failpoint.hit("warc.compacted")
                return .done(dropped: dropped.count)
            }
            let copy = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate], permissions: 0o644)
            defer { copy.closeQuietly() }
            // Also what is past the last whole member (a file recovery cut, or a tear it did not see) is left
            // out: only whole records are copied.
            try copyRanges(kept.map(\.range), from: fd, to: copy)
            try copy.syncData()
            Failpoint.hit("warc.compact-written")
            try FileSystem.rename(temporary, path)
            try FileSystem.syncDirectory(directory)
        } catch {
            try? FileSystem.unlink(temporary)
            throw WARCError("cannot compact the WARC file \(path)", error)
        }
        Failpoint.hit("warc.compacted")
        return .done(dropped: dropped.count)
    }

    private static func copyRanges(_ ranges: [Range<Int>], from fd: FileDescriptor, to copy: FileDescriptor)
        throws(Errno) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        var out = 0
        for range in ranges {
            var at = range.lowerBound
            while at < range.upperBound {
                let n = try fd.read(at: at, into: UnsafeMutableRawBufferPointer(
                    rebasing: buffer[0..<min(buffer.count, range.upperBound - at)]))
                if n == 0 { throw Errno.ioError }
                var written = 0
                while written < n {
                    written += try copy.write(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[written..<n]),
                                              at: out + written)
                }
                out += n
                at += n
            }
        }
        try copy.truncate(to: out)
    }
}

extension WARCScan {
    /// One whole member of a file and what its record's header says of it.
    struct Member {
        let range: Range<Int>
        let type: String?
        let id: String?
        let concurrentTo: String?
    }

    /// The whole members of the file from its start, each with its header's fields that say which record it
    /// is (read from its first 64 KiB: a header longer than that is not one farm wrote).
    static func headers(_ fd: FileDescriptor, path: String) throws(WARCError) -> [Member] {
        var members: [Member] = []
        try walk(fd, path: path, prefixLimit: 1 << 16) { range, prefix in
            let fields = headerFields(prefix)
            members.append(Member(range: range, type: fields["WARC-Type"], id: fields["WARC-Record-ID"],
                                  concurrentTo: fields["WARC-Concurrent-To"]))
        }
        return members
    }

    /// The named fields of a record's header, through its empty line.
    private static func headerFields(_ bytes: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        for line in lines.dropFirst() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            if fields[name] == nil { fields[name] = String(line[line.index(after: colon)...].drop { $0 == " " }) }
        }
        return fields
    }
}
