import FarmConvert
import Testing

@Suite struct KindTests {
    @Test func tellsKindsByMagicNumbers() {
        #expect(Kind.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) == .jpg)
        #expect(Kind.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(Kind.sniff(Array("%PDF-1.7\n".utf8)) == .pdf)
        #expect(Kind.sniff([0x50, 0x4B, 0x03, 0x04, 0x14]) == .zip)
        #expect(Kind.sniff([0x50, 0x4B, 0x05, 0x06]) == .zip)
    }

    @Test func refusesWhatIsNoneOfThem() {
        #expect(Kind.sniff(Array("<!DOCTYPE html><title>a.jpg</title>".utf8)) == nil)
        #expect(Kind.sniff([0x89, 0x50, 0x4E, 0x47]) == nil)  // a PNG signature cut short
        #expect(Kind.sniff([]) == nil)
        #expect(Kind.sniff(Array("GIF89a".utf8)) == nil)
    }
}
