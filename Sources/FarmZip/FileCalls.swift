import FarmSystem
import SystemPackage

/// The file-system calls extraction makes (FarmSystem's), each throwing `ZipError.Code.io` with a
/// sentence naming what it was doing. Directory-relative (`…at`) so that nothing is resolved through a
/// path another process could swap. Stateless; any thread may call these.
enum FileCall {
    /// Opens the folder extraction starts from (the caller chose it, so a symbolic link here is followed).
    static func openRoot(_ path: String) throws(ZipError) -> FileDescriptor {
        do { return try FileDescriptor.open(path, .readOnly, options: .directory) } catch {
            throw ZipError(.io, "cannot open the folder \(path)", errno: error.rawValue)
        }
    }

    /// Opens the folder `name` inside `parent`, creating it when missing; never through a symbolic link.
    static func openOrMakeDirectory(_ parent: FileDescriptor, _ name: String,
                                    shownAs shown: String) throws(ZipError) -> FileDescriptor {
        while true {
            do {
                return try parent.open(name, .readOnly, options: [.directory, .noFollow])
            } catch where error != .noSuchFileOrDirectory {
                // ELOOP / ENOTDIR: a symbolic link or a file is in the way.
                throw ZipError(.io, "cannot enter the folder \(shown)", errno: error.rawValue)
            } catch {}
            do { try parent.makeDirectory(name) } catch where error != .fileExists {
                throw ZipError(.io, "cannot create the folder \(shown)", errno: error.rawValue)
            } catch {}
        }
    }

    /// Creates a new hidden file in `parent` (O_EXCL, O_NOFOLLOW) under a temporary name of
    /// `AtomicFile`'s (which the spool's sweep recognises); returns it and its name.
    static func createTemporary(in parent: FileDescriptor,
                                shownAs shown: String) throws(ZipError) -> (fd: FileDescriptor, name: String) {
        while true {
            let name = AtomicFile.temporaryName(for: ".farm-zip-" + String(Nonce.next() >> 32, radix: 16))
            do {
                return (try parent.open(name, .writeOnly, options: [.create, .exclusiveCreate, .noFollow]), name)
            } catch where error == .fileExists {
                continue
            } catch {
                throw ZipError(.io, "cannot create a file for \(shown)", errno: error.rawValue)
            }
        }
    }

    static func writeAll(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer,
                         shownAs shown: String) throws(ZipError) {
        do { try fd.write(contentsOf: bytes) } catch {
            throw ZipError(.io, "cannot write \(shown)", errno: error.rawValue)
        }
    }

    /// close(2), whose failure (a delayed write error) means the file cannot be trusted.
    static func close(_ fd: FileDescriptor, shownAs shown: String) throws(ZipError) {
        do { try fd.closeChecked() } catch { throw ZipError(.io, "cannot write \(shown)", errno: error.rawValue) }
    }

    /// Renames within one folder; replaces a file already there (never follows it: rename acts on names).
    static func rename(in parent: FileDescriptor, _ from: String, _ to: String,
                       shownAs shown: String) throws(ZipError) {
        do { try parent.rename(from, to: to) } catch {
            throw ZipError(.io, "cannot put \(shown) in place", errno: error.rawValue)
        }
    }

    /// Removes a file we created; a failure leaves a hidden temporary for `farm stop`'s sweep.
    static func unlink(in parent: FileDescriptor, _ name: String) {
        try? parent.unlink(name)
    }
}
