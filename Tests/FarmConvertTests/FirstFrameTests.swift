@testable import FarmConvert
import FarmFixtures
import FarmTestSupport
import Foundation
import Testing

/// GIFs and WebPs (SPEC §15): their display image and thumbnail are PNGs of their first frame, checked by
/// decoding them again.
@Suite struct FirstFrameTests {
    let dir = TemporaryDirectory()

    /// Three frames of 600 × 400: red on the left and transparent on the right, then all green, then all blue.
    private func animatedGIF() throws -> [UInt8] {
        try GIFFixture.animated(width: 600, height: 400, frames: 3) { frame, x, _ in
            switch frame {
            case 0: x < 300 ? (255, 0, 0) : nil
            case 1: (0, 255, 0)
            default: (0, 0, 255)
            }
        }
    }

    @Test func animatedGIFShowsItsFirstFrameWithItsTransparency() throws {
        let gif = try dir.write(animatedGIF(), "0.gif")
        #expect(DisplayImage.sniff(gif) == .gif)
        let base = dir.appending("0")
        let made = try DisplayImage.make(for: gif, kind: .gif, base: base)
        #expect(made.image == DisplayImage.framePath(base: base))
        #expect(made.thumbnail == Thumbnail.path(base: base))

        let image = try PNGImage(path: made.image)
        #expect(image.width == 600 && image.height == 400 && image.hasAlpha)
        #expect(image.alpha(x: 100, y: 200) == 255 && near(image.pixel(x: 100, y: 200), (255, 0, 0), within: 0))
        #expect(image.alpha(x: 500, y: 200) == 0)

        let thumbnail = try PNGImage(path: try #require(made.thumbnail))
        #expect(thumbnail.width == 256 && thumbnail.height == 171)
        // The first frame's red, not the later frames' green or blue.
        #expect(thumbnail.alpha(x: 60, y: 85) == 255 && near(thumbnail.pixel(x: 60, y: 85), (255, 0, 0), within: 2),
                "\(thumbnail.pixel(x: 60, y: 85))")
        #expect(thumbnail.alpha(x: 200, y: 85) == 0)
        #expect(try leftovers().isEmpty)
    }

    @Test func losslessWebPBecomesADisplayImageAndAThumbnail() throws {
        // Wider than a display image: shrunk to 1600 px, then to a 256 px thumbnail.
        let colours: [JPEGFixture.RGB] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
        let bytes = try WebPFixture.lossless(width: 2000, height: 1000) { x, y in
            let c = colours[(y < 500 ? 0 : 2) + (x < 1000 ? 0 : 1)]
            return (c.red, c.green, c.blue, 255)
        }
        let webp = try dir.write(bytes, "1.webp")
        #expect(DisplayImage.sniff(webp) == .webp)
        let base = dir.appending("1")
        let made = try DisplayImage.make(for: webp, kind: .webp, base: base)
        let image = try PNGImage(path: made.image)
        #expect(image.width == 1600 && image.height == 800 && !image.hasAlpha)
        let thumbnail = try PNGImage(path: try #require(made.thumbnail))
        #expect(thumbnail.width == 256 && thumbnail.height == 128 && !thumbnail.hasAlpha)
        for (picture, w, h) in [(image, 1600, 800), (thumbnail, 256, 128)] {
            let centres = [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)]
            for (centre, colour) in zip(centres, colours) {
                let pixel = picture.pixel(x: centre.0, y: centre.1)
                #expect(near(pixel, colour, within: 2), "pixel at \(centre) of \(w) px is \(pixel), expected \(colour)")
            }
        }
        #expect(try leftovers().isEmpty)
    }

    @Test func aSmallFrameIsItsOwnThumbnail() throws {
        let webp = try dir.write(WebPFixture.lossless(width: 40, height: 30) { _, _ in (10, 200, 30, 128) }, "2.webp")
        let base = dir.appending("2")
        let made = try DisplayImage.make(for: webp, kind: .webp, base: base)
        #expect(made.thumbnail == nil)
        #expect(try Thumbnail.make(for: made.image, base: base) == made.image)
        let image = try PNGImage(path: made.image)
        #expect(image.width == 40 && image.height == 30 && abs(Int(image.alpha(x: 5, y: 5)) - 128) <= 1)
        #expect(near(image.pixel(x: 5, y: 5), (10, 200, 30), within: 2))
    }

    @Test func animatedWebPShowsItsFirstFrame() throws {
        // 8 × 6, two lossless frames, red then green: made by libwebpmux's WebPAnimEncoder (as the fuzz
        // corpus's animated.webp), which this package does not link.
        let animated = [UInt8](Data(base64Encoded: "UklGRowAAABXRUJQVlA4WAoAAAACAAAABwAABQAAQU5JTQYAAAD/////AABBTk1GLAAAAAAAAAAAAAcAAAUAAGQAAAJWUDhMFAAAAC8HQAEABxD9j/4HAILwv20iov8hQU5NRiwAAAAAAAAAAAAHAAAFAABkAAAAVlA4TBQAAAAvB0ABAAfQ/4j+BwCC8L9tIqL/IQ==")!)
        let webp = try dir.write(animated, "7.webp")
        let made = try DisplayImage.make(for: webp, kind: .webp, base: dir.appending("7"))
        let image = try PNGImage(path: made.image)
        #expect(image.width == 8 && image.height == 6)
        #expect(near(image.pixel(x: 4, y: 3), (255, 0, 0), within: 0) && image.alpha(x: 4, y: 3) == 255)
    }

    @Test func thumbnailsAreMadeOfGIFAndWebPBytesToo() throws {
        let gif = try dir.write(animatedGIF(), "3.gif")
        #expect(try Thumbnail.make(from: gif, kind: .gif, to: dir.appending("3.thumb.png"), maxSide: 64) == (64, 43))
        let thumbnail = try PNGImage(path: dir.appending("3.thumb.png"))
        #expect(near(thumbnail.pixel(x: 10, y: 20), (255, 0, 0), within: 2) && thumbnail.alpha(x: 50, y: 20) == 0)
    }

    @Test func damagedOrHugeFramesAreRefusedAndLeaveNothing() throws {
        let whole = try animatedGIF()
        // Cut inside the first frame's data.
        let cut = try dir.write(Array(whole.prefix(whole.count / 4)), "4.gif")
        #expect { try DisplayImage.make(for: cut, kind: .gif, base: dir.appending("4")) } throws: {
            ($0 as? ConvertError)?.code == .undecodable
        }
        // A screen of 65535 × 65535 is refused before anything is allocated.
        let huge = try dir.write(Array(whole[0..<6]) + [0xFF, 0xFF, 0xFF, 0xFF] + Array(whole[10...]), "5.gif")
        #expect { try DisplayImage.make(for: huge, kind: .gif, base: dir.appending("5")) } throws: {
            ($0 as? ConvertError)?.description.contains("too large") == true
        }
        let webp = try WebPFixture.lossless(width: 300, height: 300) { x, _ in (UInt8(x & 0xFF), 0, 0, 255) }
        let damaged = try dir.write(Array(webp.prefix(40)), "6.webp")
        #expect { try DisplayImage.make(for: damaged, kind: .webp, base: dir.appending("6")) } throws: {
            ($0 as? ConvertError)?.code == .undecodable
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".png") || $0.contains(".tmp-") }
        #expect(left.isEmpty, "\(left)")
    }

    /// No temporary file is ever left next to the outputs.
    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
    }
}
