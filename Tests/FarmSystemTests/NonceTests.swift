import FarmSystem
import Testing

/// Nonces as names use them: 16 lowercase hex digits, zeros first.
@Suite struct NonceHexTests {
    @Test func sixteenLowercaseDigitsWithLeadingZeros() {
        #expect(Nonce.hex16(0) == "0000000000000000")
        #expect(Nonce.hex16(0xDEAD_BEEF) == "00000000deadbeef")
        #expect(Nonce.hex16(.max) == "ffffffffffffffff")
        #expect(Nonce.hex16(0x0123_4567_89AB_CDEF) == "0123456789abcdef")
    }
}
