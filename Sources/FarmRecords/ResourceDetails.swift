/// What a job's owner reports of its resource, in its sidecar, and what the list's view shows of it in its
/// row (`ResourceStatus`): one type, so that the two say the same of the bytes, the files and the error.
public struct ResourceDetails: Equatable, Sendable {
    public var bytes: Int
    public var size: Int?
    /// jpg, png, pdf or zip, once the bytes are known.
    public var kind: String?
    /// Absolute path of the downloaded bytes.
    public var file: String?
    /// Absolute path of the display image.
    public var image: String?
    /// Absolute path of the display image's thumbnail (`<base>.thumb.png`), when one could be made;
    /// the display image itself when it is no larger than a thumbnail.
    public var thumb: String?
    public var error: String?
    public var attempts: Int

    public init(bytes: Int, size: Int?, kind: String?, file: String?, image: String?, thumb: String?,
                error: String?, attempts: Int) {
        self.bytes = bytes
        self.size = size
        self.kind = kind
        self.file = file
        self.image = image
        self.thumb = thumb
        self.error = error
        self.attempts = attempts
    }

    /// The bytes of its texts (paths and error), for the capacity of a JSON encoding.
    var textBytes: Int {
        (file?.utf8.count ?? 0) + (image?.utf8.count ?? 0) + (thumb?.utf8.count ?? 0) + (error?.utf8.count ?? 0)
    }
}
