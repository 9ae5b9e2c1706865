import FarmConvert
import Testing

@Suite struct KindTests {
    @Test func tellsKindsByMagicNumbers() {
        #expect(Kind.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) == .jpg)
        #expect(Kind.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(Kind.sniff(Array("%PDF-1.7\n".utf8)) == .pdf)
        #expect(Kind.sniff([0x50, 0x4B, 0x03, 0x04, 0x14]) == .zip)
        #expect(Kind.sniff([0x50, 0x4B, 0x05, 0x06]) == .zip)
        #expect(Kind.sniff(Array("GIF89a".utf8) + [1, 0]) == .gif)
        #expect(Kind.sniff(Array("GIF87a".utf8)) == .gif)
        #expect(Kind.sniff(Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8L".utf8)) == .webp)
    }

    @Test func refusesWhatIsNoneOfThem() {
        #expect(Kind.sniff(Array("<!DOCTYPE html><title>a.jpg</title>".utf8)) == nil)
        #expect(Kind.sniff([0x89, 0x50, 0x4E, 0x47]) == nil)  // a PNG signature cut short
        #expect(Kind.sniff([]) == nil)
        #expect(Kind.sniff(Array("GIF8".utf8)) == nil)  // no version
        #expect(Kind.sniff(Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8)) == nil)  // a sound
        #expect(Kind.sniff(Array("RIFF".utf8) + [0x24, 0, 0, 0]) == nil)  // cut short before its form
    }

    @Test func bytesOfAnotherKindKeepTheirURLsExtension() {
        #expect(Kind.otherExtension(url: "http://h/files/archive.tar.gz") == "gz")
        #expect(Kind.otherExtension(url: "https://h/a/Notes.TXT?x=1.jpg#frag") == "txt")
        #expect(Kind.otherExtension(url: "https://h/download") == nil)
        #expect(Kind.otherExtension(url: "https://h") == nil)
        #expect(Kind.otherExtension(url: "https://h/.profile") == nil)
        // A picture's name on bytes that are none: the URL is wrong about them.
        #expect(Kind.otherExtension(url: "https://h/page.jpg") == nil)
        #expect(Kind.otherExtension(url: "https://h/page.jpeg") == nil)
        #expect(Kind.otherExtension(url: "https://h/a.b%2F..") == nil)
        #expect(Kind.otherExtension(url: "https://h/a.verylongextension") == nil)
    }
}
