import ArgumentParser
import FarmSystem
import Foundation
import Glibc

/// The peers benchmark's files, drawn from fixed seeds and kept between runs (a `.complete` stamp
/// marks a finished set):
/// - small: `count` files of 12–20 KiB, JPG, PNG, PDF and ZIP in turn: a 64 px JPEG photo padded with
///   comments, a 48 px stored PNG padded with a private chunk, a one-page A4 PDF of rectangles, a ZIP
///   holding a 32 px PNG and a stored data entry;
/// - large: `count` JPEGs of exactly `mib` MiB: a 2048×1536 photo padded with comment segments. A
///   worker handles it like any big photo with conversions on (its own display image, a thumbnail
///   decoded at 1/8 scale, which skips the padding by length), so the set measures transfer and
///   storage, not rendering.
struct Corpus {
    let name: String
    /// Paths relative to the served root, in manifest order.
    let paths: [String]
    let bytes: Int

    static let kinds = ["jpg", "png", "pdf", "zip"]

    static func small(count: Int, root: String) throws -> Corpus {
        let name = "small-\(count)-v1"
        let paths = (0..<count).map { "\(name)/\($0).\(kinds[$0 % 4])" }
        return try cached(name, paths: paths, root: root) { directory in
            var random = SplitMix64(seed: 0x5EED_0001)
            let scratch = directory + "/.scratch.jpg"
            let photos = try (0..<8).map { _ in
                try CorpusFormats.photoJPEG(width: 64, height: 48, quality: 90, random: &random, scratch: scratch)
            }
            var total = 0
            for index in 0..<count {
                let size = 12 * 1024 + random.below(8 * 1024 + 1)
                let bytes: [UInt8]
                switch index % 4 {
                case 0: bytes = CorpusFormats.paddedJPEG(photos[index / 4 % photos.count], to: size, random: &random)
                case 1: bytes = CorpusFormats.png(width: 48, height: 48, size: size, random: &random)
                case 2: bytes = CorpusFormats.pdf(size: size, random: &random)
                default:
                    let image = CorpusFormats.png(width: 32, height: 32, random: &random)
                    bytes = CorpusFormats.zip([("image.png", image),
                                               ("data.bin", random.bytes(max(0, size - image.count - 208)))])
                }
                try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/\(index).\(kinds[index % 4])"))
                total += bytes.count
            }
            return total
        }
    }

    static func large(count: Int, mib: Int, root: String) throws -> Corpus {
        let name = "large-\(count)x\(mib)-v1"
        let paths = (0..<count).map { "\(name)/\($0).jpg" }
        return try cached(name, paths: paths, root: root) { directory in
            var random = SplitMix64(seed: 0x5EED_0002)
            let photo = try CorpusFormats.photoJPEG(width: 2048, height: 1536, quality: 85, random: &random,
                                                    scratch: directory + "/.scratch.jpg")
            for index in 0..<count {
                let bytes = CorpusFormats.paddedJPEG(photo, to: mib << 20, random: &random)
                try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/\(index).jpg"))
            }
            return count * (mib << 20)
        }
    }

    /// The set under `root/name`, made by `make` (which returns the total bytes) unless a stamp says it is whole.
    static func cached(_ name: String, paths: [String], root: String,
                               make: (String) throws -> Int) throws -> Corpus {
        let directory = root + "/" + name
        let stamp = directory + "/.complete"
        if let text = try? String(contentsOfFile: stamp, encoding: .utf8),
           let bytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return Corpus(name: name, paths: paths, bytes: bytes)
        }
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // nginx's workers may run as another user: the corpus is world-readable.
        chmod(root, 0o755)
        chmod(directory, 0o755)
        let started = Date()
        let bytes = try make(directory)
        try String(bytes).write(toFile: stamp, atomically: true, encoding: .utf8)
        print("generated \(name): \(paths.count) files, \(bytes) bytes in "
            + String(format: "%.1f s", Date().timeIntervalSince(started)))
        return Corpus(name: name, paths: paths, bytes: bytes)
    }
}
