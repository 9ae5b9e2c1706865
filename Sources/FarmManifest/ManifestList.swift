/// One list of a manifest: a JSON file's resources, in the order the file gives them, under the name
/// farm shows for it ("Set 1.json"). Made by `Manifest`; a value type, any thread may use it.
public struct ManifestList: Sendable, Equatable {
    public var name: String
    public var resources: ManifestResources
    /// The shape its JSON had.
    public var form: ListForm
}

extension ManifestList {
    public init(name: String, resources: [ManifestResource], form: ListForm) {
        self.init(name: name, resources: ManifestResources(resources), form: form)
    }
}

/// One resource of a list: its URL exactly as the manifest wrote it (not checked here: a URL that is not
/// http(s) becomes that resource's error when a worker takes it) and the id the manifest gave it, if any.
/// A value type, any thread may use it.
public struct ManifestResource: Sendable, Equatable {
    public var url: String
    public var id: String?
    /// The SHA-256 its download must have (SPEC §12), as 64 lowercase hex digits; nil when the item names none.
    public var sha256: String?
    /// Other URLs of the same bytes (SPEC §14: an object's `"urls"` after its first); empty for most.
    public var mirrors: [String]
    /// The name its download is delivered under (an object's `"out"`, a text list's `out=`: SPEC §15), the
    /// `{name}` of the list's template; nil for most, named by their URL.
    public var out: String?

    public init(url: String, id: String? = nil, sha256: String? = nil, mirrors: [String] = [], out: String? = nil) {
        self.url = url
        self.id = id
        self.sha256 = sha256
        self.mirrors = mirrors
        self.out = out
    }
}
