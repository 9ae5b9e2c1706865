import CMinizip
import Glibc

/// One entry of an archive, as the archive's central directory declares it. Declared sizes and modes
/// are claims, not facts: `ZipReader` checks the bytes it really produces against them.
///
/// Made by `ZipReader.entries(limits:)` and only meaningful to the reader that made it. A value type;
/// any thread may hold one.
public struct ZipEntry: Sendable, Equatable, CustomStringConvertible {
    /// The stored name, decoded as UTF-8 (invalid bytes become U+FFFD). Not checked: see `ZipReader.extract`.
    public let name: String
    /// The position of the entry in the central directory, from 0.
    public let index: Int
    /// The size the archive declares once expanded.
    public let uncompressedSize: UInt64
    /// The size of the stored (compressed) data.
    public let compressedSize: UInt64
    /// The CRC-32 the archive declares for the expanded bytes.
    public let crc: UInt32
    /// The compression method: 0 (stored) and 8 (deflate) are the ones that can be read.
    public let method: Int
    /// The Unix mode (file type and permissions) from the high half of the external attributes, or 0 when
    /// the archive recorded none.
    public let mode: UInt32
    /// Whether the entry is encrypted (general purpose flag bit 0): such entries are refused.
    public let isEncrypted: Bool
    /// A folder: the name ends with `/`, or the Unix mode or the MS-DOS attributes say so.
    public let isDirectory: Bool
    /// A symbolic link (its bytes are the target path): never extracted.
    public let isSymlink: Bool

    /// Where minizip finds the entry again without walking the directory.
    let position: unz64_file_pos

    init(name: String, index: Int, info: unz_file_info64, position: unz64_file_pos) {
        self.name = name
        self.index = index
        self.uncompressedSize = info.uncompressed_size
        self.compressedSize = info.compressed_size
        self.crc = UInt32(truncatingIfNeeded: info.crc)
        self.method = Int(info.compression_method)
        self.mode = UInt32(truncatingIfNeeded: info.external_fa >> 16)
        self.isEncrypted = info.flag & 1 != 0
        let type = mode & S_IFMT
        // Bit 4 of the low byte is the MS-DOS "directory" attribute, what Windows tools set.
        self.isDirectory = name.hasSuffix("/") || type == S_IFDIR || info.external_fa & 0x10 != 0
        self.isSymlink = type == S_IFLNK
        self.position = position
    }

    /// The name with control characters replaced, fit for a one-line message.
    public var printableName: String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : $0 }))
    }

    public var description: String { printableName }

    public static func == (lhs: ZipEntry, rhs: ZipEntry) -> Bool {
        lhs.name == rhs.name && lhs.index == rhs.index && lhs.uncompressedSize == rhs.uncompressedSize
            && lhs.compressedSize == rhs.compressedSize && lhs.crc == rhs.crc && lhs.method == rhs.method
            && lhs.mode == rhs.mode && lhs.isEncrypted == rhs.isEncrypted
            && lhs.position.pos_in_zip_directory == rhs.position.pos_in_zip_directory
            && lhs.position.num_of_file == rhs.position.num_of_file
    }
}
