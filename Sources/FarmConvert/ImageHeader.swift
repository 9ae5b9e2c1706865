import Glibc

/// The kind and pixel size of an image file, read from its first 64 KiB only (PNG's IHDR, a JPEG's
/// SOF marker), with no decoding: enough to see that an image is already thumbnail-sized.
enum ImageHeader {
    static let window = 64 << 10

    /// The size of the JPG or PNG at `path`; nil when it is neither, or its size is not in the window
    /// (a JPEG with a lot of metadata first): the caller then decodes as usual.
    static func size(of path: String, kind: Kind) -> (width: Int, height: Int)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: kind == .png ? 24 : window)
        let count = read(fd, &bytes, bytes.count)
        guard count > 0, Kind.sniff(bytes.prefix(count)) == kind else { return nil }
        switch kind {
        case .png: return png(bytes.prefix(count))
        case .jpg: return jpeg(bytes.prefix(count))
        case .pdf, .zip: return nil
        }
    }

    /// Signature, then the IHDR chunk: width and height, big-endian.
    private static func png(_ bytes: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        let width = bigEndian(bytes, at: 16, count: 4), height = bigEndian(bytes, at: 20, count: 4)
        return width > 0 && height > 0 ? (width, height) : nil
    }

    /// Walks the marker segments after SOI by their lengths to the first SOFn (C0–CF but C4, C8, CC):
    /// its payload is precision, height, width.
    private static func jpeg(_ bytes: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        var at = 2
        while at + 9 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            let length = bigEndian(bytes, at: at + 2, count: 2)
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = bigEndian(bytes, at: at + 5, count: 2), width = bigEndian(bytes, at: at + 7, count: 2)
                return width > 0 && height > 0 ? (width, height) : nil
            }
            guard length >= 2, marker != 0xD9, marker != 0xDA else { return nil }  // no frame before the scan
            at += 2 + length
        }
        return nil
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>, at: Int, count: Int) -> Int {
        let start = bytes.startIndex + at
        return bytes[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
