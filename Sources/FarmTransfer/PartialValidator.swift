import CFarmShims
import Glibc

/// The validator (ETag or Last-Modified) of the bytes in a partial download, kept as an extended attribute
/// of the file itself: it survives the worker (kill -9 included), moves with a rename and goes with an
/// unlink, so it always describes the bytes next to it. Where the file system has no user xattrs, there is
/// none, and a resume goes without If-Range as before. Stateless; any thread may call it.
enum PartialValidator {
    private static let name = "user.farm.validator"

    static func read(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = fgetxattr(fd, name, &buffer, buffer.count)
        guard n > 0 else { return nil }
        let value = String(decoding: buffer[..<n], as: UTF8.self)
        // It goes into a request header: printable ASCII only.
        return value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? value : nil
    }

    /// Records `validator` for the bytes about to be written, or forgets the old one when there is none.
    static func write(_ validator: String?, _ fd: Int32) {
        if let validator, validator.utf8.count < 512,
           fsetxattr(fd, name, validator, validator.utf8.count, 0) == 0 { return }
        fremovexattr(fd, name)
    }
}
