/// What the parser and the writer both look for in a string, eight bytes at a time: the bytes that
/// end its plain run (a quote, a backslash, a control character). Stateless.
enum StringBytes {
    /// The top bit of every byte of a word: set in a byte of UTF-8 outside ASCII.
    static let topBits: UInt64 = 0x8080_8080_8080_8080
    private static let ones: UInt64 = 0x0101_0101_0101_0101

    /// The eight bytes of `buffer` from `offset`, which must all be in it, in one word.
    static func load(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        UnsafeRawPointer(buffer.baseAddress! + offset).loadUnaligned(as: UInt64.self)
    }

    /// Whether any of the eight bytes of `word` is below 0x20, a `"` or a `\`. The classic bit
    /// tricks: some byte is below n (n up to 0x80) when subtracting n from every byte borrows into a
    /// top bit that was clear; a byte equal to c is a zero byte, below 1, after xor with c.
    static func hasSpecial(_ word: UInt64) -> Bool {
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        let controls = (word &- ones &* 0x20) & ~word
        let quote = (quotes &- ones) & ~quotes, backslash = (backslashes &- ones) & ~backslashes
        return (controls | quote | backslash) & topBits != 0
    }
}
