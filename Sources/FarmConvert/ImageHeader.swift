import FarmSystem

/// The kind and pixel size of an image file, read from its first 64 KiB only (PNG's IHDR, a JPEG's
/// SOF marker), with no decoding: enough to see that an image is already thumbnail-sized.
enum ImageHeader {
    static let window = 64 << 10

    /// The kind of the file at `path`, and its size when it is a JPG or PNG whose size is in the
    /// window (not, say, a JPEG with a lot of metadata first: the caller then decodes as usual).
    /// nil when it cannot be read or is of no known kind. One open and one read.
    static func read(_ path: String) -> (kind: Kind, size: (width: Int, height: Int)?)? {
        guard let bytes = try? FileSystem.readPrefix(path, count: window), !bytes.isEmpty,
              let kind = Kind.sniff(bytes[...]) else { return nil }
        switch kind {
        case .png: return (kind, png(bytes[...]))
        case .jpg: return (kind, jpeg(bytes[...]))
        case .gif, .webp, .pdf, .zip, .other: return (kind, nil)
        }
    }

    /// The size of the file at `path` if it is a `kind` (a JPG or PNG) with its size in the window.
    static func size(of path: String, kind: Kind) -> (width: Int, height: Int)? {
        guard let header = read(path), header.kind == kind else { return nil }
        return header.size
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
