import FarmJSON
import Foundation

/// Real images served by a running farm's origin, added as one list.
extension RunningFarm {
    /// Serves `count` JPEGs (`width`×`height`; noisy ones weigh more) at /<list>/<n>.jpg, throttled
    /// to `rate` B/s when given, leaves the indexes in `missing` unserved (404), and adds them as
    /// `<list>.json`. Returns the JPEGs by index (nil for the missing).
    @discardableResult
    public func addImages(_ list: String, count: Int, width: Int = 320, height: Int = 240, noisy: Bool = false,
                          rate: Int? = nil, missing: Set<Int> = []) throws -> [[UInt8]?] {
        var images: [[UInt8]?] = []
        var urls: [String] = []
        for n in 0..<count {
            let path = "/\(list)/\(n).jpg"
            urls.append(origin.url(for: path))
            guard !missing.contains(n) else {
                images.append(nil)
                continue
            }
            let jpeg = noisy ? try Self.noise(width: width, height: height, seed: n)
                : try JPEGFixture.quadrants(width: width + n * 8, height: height)
            origin.serve(path: path, bytes: jpeg, contentType: "image/jpeg")
            if let rate { origin.inject(.throttle(bytesPerSecond: rate), at: path) }
            images.append(jpeg)
        }
        let manifest = dir.appending(list + ".json")
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        try must(["add", manifest])
        return images
    }

    /// A JPEG of noise: it compresses badly, so it is large enough to watch its download progress.
    public static func noise(width: Int, height: Int, seed: Int) throws -> [UInt8] {
        var state = UInt64(seed + 1) &* 0x9E37_79B9_7F4A_7C15
        let pixels = (0..<width * height * 3).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return try JPEGFixture.encode(pixels, width: width, height: height, layout: .rgb, quality: 90)
    }
}
