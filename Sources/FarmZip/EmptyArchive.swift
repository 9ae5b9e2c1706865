import FarmSystem

/// Recognises a zip with no entries: nothing but an end-of-central-directory record (22 bytes and an
/// optional comment) at offset 0. minizip 1.1 cannot open one (its search for that record treats offset 0
/// as "not found"), yet `zip` tools make them and a manifest that is one deserves "empty zip", not
/// "corrupt zip". Stateless.
enum EmptyArchive {
    static func isEmptyArchive(_ path: String) -> Bool {
        // The record plus the longest comment it can announce.
        guard let bytes = try? FileSystem.readPrefix(path, count: 22 + 0xFFFF + 1) else { return false }
        let count = bytes.count
        guard count >= 22, bytes[0] == 0x50, bytes[1] == 0x4B, bytes[2] == 5, bytes[3] == 6 else { return false }
        func uint16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        // No entries on this disk or in all, no central directory, and a comment that ends the file.
        return uint16(8) == 0 && uint16(10) == 0 && bytes[12..<20].allSatisfy { $0 == 0 } && 22 + uint16(20) == count
    }
}
