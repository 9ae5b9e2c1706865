import Testing
@testable import FarmManifest

@Suite struct ManifestPlaceholderTests {
    @Test func placeholder() { #expect(Bool(true)) }
}
