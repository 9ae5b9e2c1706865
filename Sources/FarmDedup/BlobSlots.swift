import Crypto
import FarmSystem
import SystemPackage

// Where stored bytes are named, so that equal bytes are found without hashing every download (SPEC §13):
// bytes can only equal bytes of their own size, so a size that no stored file has needs no hash at all,
// and two files of one size usually differ within their first or last bytes (rdfind and jdupes compare
// sizes, then first and last blocks, before they hash a whole file). A download of `S` bytes over
// `hashedAtOnce` is named by the first of these slots that is free, unless it finds its own bytes in one
// on the way:
//
//     blobs/s<S>             level 1: the first stored bytes of that size (no hash)
//     blobs/s<S>-<sample>    level 2: <sample> is the SHA-256 of the first and last 64 KiB; for a small
//                            file, its whole bytes' QuickDigest (FarmSystem)
//     blobs/<sha256>         level 3: bytes whose sample another file of their size shares
//
// A download of at most `hashedAtOnce` bytes (128 KiB) starts at level 2, with the QuickDigest it was given
// as it was written: a digest costs less than the open, attribute read and link of a comparison with
// another file of its size, files that small share sizes often (half of the 5,000 of bin/benchmark's small
// set do), and a QuickDigest costs a small part of a SHA-256's 13 µs for 16 KiB. Its SHA-256 is computed only
// when another file of its size has the same QuickDigest: equal bytes are still told by their SHA-256.
// Small and large never meet: a size is one or the other. (Spools of farms before 0.1.0's release named
// small files by their SHA-256 at once; a new download of such bytes takes a slot of level 2, so those
// bytes are stored twice, which costs space and never bytes.)
//
// At each level the download compares itself with the slot's occupant: equal bytes (the same sample and
// the same SHA-256) give way to a name of the occupant; other bytes go a level
// down. Why equal bytes always meet: slots are taken by link(2) and occupants never change, so two
// downloads of equal bytes compare equally with every occupant they meet and walk the same slots; the
// later one meets the earlier one in the slot the earlier one took, or an occupant equal to both before.
// A sample or SHA-256 computed for an occupant is kept on it (the attributes `user.farm.sample` and
// `user.farm.sha256`), as is what a download computed once it took a slot past another file, so a size
// shared by many downloads hashes each file once.
//
// An occupant of level 1 or 2 whose last output goes, and that was compared with other bytes (it keeps a
// sample or a SHA-256), leaves an empty file in its slot, a marker: the slot stays taken, so downloads that
// went a level down past the old occupant are still found by those that would meet them there. One never
// compared is simply deleted: nothing went past it.
// (A comparison that starts as the occupant is deleted may go past a slot that is then free; a later
// download of its bytes takes that slot and is stored a second time. Only a removal racing a download of
// the same size and sample opens that window, and it costs space, never bytes.) An occupant of another size
// than its slot says (a marker, or bytes a power loss cut) equals nothing: downloads go past it; cut bytes that
// no output uses are collected first (a marker may take their place).
extension Dedup {
    /// The SHA-256s of a file's bytes that its slots are named by, each computed at most once: as given,
    /// from an attribute kept on a stored file, or read from the file.
    struct Fingerprint {
        let fd: FileDescriptor
        let size: Int
        /// Stored bytes keep what was computed for them (see the protocol above); a download keeps it only
        /// once it took a slot (`keep`).
        let keepsAttributes: Bool
        private(set) var digest: String?
        private var sampleDigest: String?

        static let sampleAttribute = "user.farm.sample"
        static let digestAttribute = "user.farm.sha256"
        /// The bytes hashed at each end of a file for its sample.
        static let sampleEnd = 64 << 10

        init(fd: FileDescriptor, size: Int, digest: String? = nil, quickDigest: String? = nil,
             keepsAttributes: Bool = false) {
            self.fd = fd
            self.size = size
            self.digest = digest
            self.sampleDigest = size <= Dedup.hashedAtOnce ? quickDigest : nil
            self.keepsAttributes = keepsAttributes
        }

        /// The level of the first slot a download of `size` bytes tries, and of the last.
        static func firstLevel(_ size: Int) -> Int { size <= Dedup.hashedAtOnce ? 2 : 1 }
        static let lastLevel = 3

        /// The name of these bytes' slot at `level` (1 to `lastLevel`), hashing what it takes.
        mutating func slot(_ level: Int) throws(Errno) -> String {
            switch level {
            case 1: Dedup.sizeSlot(size)
            case 2: Dedup.sampleSlot(size, try sample())
            default: try sha256()
            }
        }

        /// A file over `hashedAtOnce` is sampled at its two ends, which never overlap; a smaller one whole.
        mutating func sample() throws(Errno) -> String {
            if let sampleDigest { return sampleDigest }
            let sample = try kept(Self.sampleAttribute) { () throws(Errno) in
                if size <= Dedup.hashedAtOnce {
                    var quick = QuickDigest()
                    try Dedup.readChunks(of: fd) { quick.update($0) }
                    return quick.finalize()
                }
                var hasher = SHA256()
                try Dedup.readChunks(of: fd, from: 0, count: Self.sampleEnd) { hasher.update(bufferPointer: $0) }
                try Dedup.readChunks(of: fd, from: size - Self.sampleEnd, count: Self.sampleEnd) {
                    hasher.update(bufferPointer: $0)
                }
                return hasher.finalize().withUnsafeBytes(Hex.lowercase)
            }
            sampleDigest = sample
            return sample
        }

        mutating func sha256() throws(Errno) -> String {
            if let digest { return digest }
            let digest = try kept(Self.digestAttribute) { () throws(Errno) in try Dedup.digest(of: fd) }
            self.digest = digest
            return digest
        }

        /// The value of `attribute` on a stored file, or `compute()`, then kept there.
        private func kept(_ attribute: String, _ compute: () throws(Errno) -> String) throws(Errno) -> String {
            guard keepsAttributes else { return try compute() }
            if let bytes = fd.attribute(attribute), let value = Hex.sha256(String(decoding: bytes, as: UTF8.self)) {
                return value
            }
            let value = try compute()
            try? fd.setAttribute(attribute, Array(value.utf8))
            return value
        }

        /// Keeps what was computed of these bytes on them, once they took a slot: the next download of
        /// their size compares with them without hashing them again.
        func keep() {
            if let sampleDigest { try? fd.setAttribute(Self.sampleAttribute, Array(sampleDigest.utf8)) }
            if let digest { try? fd.setAttribute(Self.digestAttribute, Array(digest.utf8)) }
        }

        /// Whether the stored file at `path` was ever compared with other bytes of its size: only then may a
        /// download have gone past it, to a slot of a level below.
        static func wasCompared(_ path: String) -> Bool {
            [sampleAttribute, digestAttribute].contains { (try? FileSystem.attribute(path, $0, limit: 128)) != nil }
        }

        /// Whether the bytes are equal to `other`'s, of the same size.
        mutating func equals(_ other: inout Fingerprint) throws(Errno) -> Bool {
            guard size == other.size else { return false }
            let (mine, theirs) = (try sample(), try other.sample())
            guard mine == theirs else { return false }
            let (myDigest, theirDigest) = (try sha256(), try other.sha256())
            return myDigest == theirDigest
        }
    }

    /// The largest download sampled whole (see above): larger ones have two whole ends.
    public static let hashedAtOnce = 2 * Fingerprint.sampleEnd

    /// The slot of level 1 for bytes of `size`.
    static func sizeSlot(_ size: Int) -> String { "s\(size)" }
    static func sampleSlot(_ size: Int, _ sample: String) -> String { "s\(size)-\(sample)" }

    /// The size a slot's name says, for levels 1 and 2; nil for a SHA-256 (level 3) or a foreign name.
    package static func slotSize(_ name: String) -> Int? {
        guard name.hasPrefix("s") else { return nil }
        let rest = name.dropFirst()
        let digits = rest.prefix { $0 != "-" }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let size = Int(digits) else { return nil }
        if digits.count == rest.count { return size }
        return isDigest(rest.dropFirst(digits.count + 1)) ? size : nil
    }

    /// Whether `name` is a blob's name in blobs/ (any level).
    package static func isBlobName(_ name: String) -> Bool { isDigest(name) || slotSize(name) != nil }

    /// Whether the stored file `name` (stat `st`) is a marker: an empty file in a slot of another size.
    package static func isMarker(_ name: String, _ st: Stat) -> Bool {
        st.size == 0 && (slotSize(name).map { $0 > 0 } ?? false)
    }
}
