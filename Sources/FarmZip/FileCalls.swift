import Glibc

/// The raw file-system calls extraction makes, each behind a function that throws `ZipError.Code.io`
/// with a sentence naming what it was doing. Directory-relative (`…at`) so that nothing is resolved
/// through a path another process could swap. Stateless; any thread may call these.
enum FileCall {
    /// Opens the folder extraction starts from (the caller chose it, so a symbolic link here is followed).
    static func openRoot(_ path: String) throws(ZipError) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw ZipError(.io, "cannot open the folder \(path)", errno: errno) }
        return fd
    }

    /// Opens the folder `name` inside `parent`, creating it when missing; never through a symbolic link.
    static func openOrMakeDirectory(_ parent: Int32, _ name: String, shownAs shown: String) throws(ZipError) -> Int32 {
        while true {
            let fd = Glibc.openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 { return fd }
            let error = errno
            if error == EINTR { continue }
            guard error == ENOENT else {
                // ELOOP / ENOTDIR: a symbolic link or a file is in the way.
                throw ZipError(.io, "cannot enter the folder \(shown)", errno: error)
            }
            if mkdirat(parent, name, 0o755) != 0 && errno != EEXIST {
                throw ZipError(.io, "cannot create the folder \(shown)", errno: errno)
            }
        }
    }

    /// Creates a new file with a fresh hidden name in `parent` (O_EXCL, O_NOFOLLOW); returns it and its name.
    static func createTemporary(in parent: Int32, shownAs shown: String) throws(ZipError) -> (fd: Int32, name: String) {
        while true {
            let name = ".farm-zip-" + String(UInt64.random(in: .min ... .max), radix: 16) + ".part"
            let fd = Glibc.openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 { return (fd, name) }
            let error = errno
            if error == EEXIST || error == EINTR { continue }
            throw ZipError(.io, "cannot create a file for \(shown)", errno: error)
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, shownAs shown: String) throws(ZipError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw ZipError(.io, "cannot write \(shown)", errno: errno)
            }
            offset += n
        }
    }

    /// close(2), whose failure (a delayed write error) means the file cannot be trusted.
    static func close(_ fd: Int32, shownAs shown: String) throws(ZipError) {
        if Glibc.close(fd) != 0 && errno != EINTR { throw ZipError(.io, "cannot write \(shown)", errno: errno) }
    }

    /// Renames within one folder; replaces a file already there (never follows it: rename acts on names).
    static func rename(in parent: Int32, _ from: String, _ to: String, shownAs shown: String) throws(ZipError) {
        if Glibc.renameat(parent, from, parent, to) != 0 {
            throw ZipError(.io, "cannot put \(shown) in place", errno: errno)
        }
    }

    /// Removes a file we created; a failure leaves a hidden `.part` file and nothing else to do about it.
    static func unlink(in parent: Int32, _ name: String) {
        _ = Glibc.unlinkat(parent, name, 0)
    }
}
