import FarmSystem
import SystemPackage

/// The validator (ETag or Last-Modified) of the bytes in a partial download, kept as an extended attribute
/// of the file itself: it survives the worker (kill -9 included), moves with a rename and goes with an
/// unlink, so it always describes the bytes next to it. Where the file system has no user xattrs, there is
/// none, and a resume goes without If-Range. Stateless; any thread may call it.
enum PartialValidator {
    private static let name = "user.farm.validator"

    static func read(_ fd: FileDescriptor) -> String? {
        guard let bytes = fd.attribute(name, limit: 512) else { return nil }
        let value = String(decoding: bytes, as: UTF8.self)
        // It goes into a request header: printable ASCII only.
        return value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? value : nil
    }

    /// Records `validator` for the bytes about to be written, or forgets the old one when there is none.
    static func write(_ validator: String?, _ fd: FileDescriptor) {
        if let validator, validator.utf8.count < 512, (try? fd.setAttribute(name, Array(validator.utf8))) != nil {
            return
        }
        try? fd.removeAttribute(name)
    }
}
