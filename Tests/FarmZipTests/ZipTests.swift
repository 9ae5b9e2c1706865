import Testing
@testable import FarmZip

@Suite struct ZipPlaceholderTests {
    @Test func placeholder() { #expect(Bool(true)) }
}
