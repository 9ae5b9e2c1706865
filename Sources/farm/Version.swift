import CFarmRevision

/// What `farm --version` prints: the release, which bin/package also names the .deb after, and the git
/// revision the binary was built from (CFarmRevision; "unknown" from a plain `swift build`).
enum FarmVersion {
    static let release = "0.1.0"
    static var revision: String { String(cString: cfarm_revision()) }
    static var description: String { "\(release) (revision \(revision))" }
}
