import FarmSystem
import SystemPackage

/// Finishes the WARC files that dead writers left open, for the farm's recovery.
///
/// A `.warc.gz.open` file whose flock is free has no writer (a live one holds it for its life; the kernel
/// lets go of a killed process's lock). Its whole members are kept, its torn tail cut off, and it is renamed
/// to its finished name; one holding no record past its warcinfo is removed. A file whose writer lives is
/// left alone. Safe to run at any moment, by several processes at once (each file is locked while it is
/// finished), and again after a crash of its own.
public enum WARCRecovery {
    /// What became of one open file.
    public struct Finished: Sendable, Equatable {
        /// Its finished name (`.warc.gz`), in the folder.
        public let name: String
        /// How many whole records it keeps, its warcinfo included (0 or 1: the file was removed).
        public let records: Int
        /// How many bytes of torn tail were cut off.
        public let cutBytes: Int
    }

    /// Finishes every open file of `directory` that no live writer holds; returns what it did, by name.
    public static func recover(directory: String) throws(WARCError) -> [Finished] {
        let names: [String]
        do { names = try FileSystem.listDirectory(directory) } catch { throw WARCError("cannot list \(directory)", error) }
        var finished: [Finished] = []
        for name in names.sorted() where name.hasSuffix(".warc.gz" + WARCFile.openSuffix) {
            if let done = try recover(directory: directory, openName: name) { finished.append(done) }
        }
        if !finished.isEmpty {
            do { try FileSystem.syncDirectory(directory) } catch { throw WARCError("cannot sync \(directory)", error) }
        }
        return finished
    }

    private static func recover(directory: String, openName: String) throws(WARCError) -> Finished? {
        let path = directory + "/" + openName
        let finishedName = String(openName.dropLast(WARCFile.openSuffix.count))
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readWrite)
        } catch where error == .noSuchFileOrDirectory {
            return nil  // another recovery finished it meanwhile
        } catch {
            throw WARCError("cannot open \(path)", error)
        }
        defer { fd.closeQuietly() }
        do {
            guard try fd.tryLock() else { return nil }  // its writer lives
        } catch {
            throw WARCError("cannot lock \(path)", error)
        }
        // Locked, but another recovery may have renamed it between our open and our lock.
        guard let onDisk = try? FileSystem.stat(path), let held = try? fd.status(),
              onDisk.inode == held.inode, onDisk.deviceID == held.deviceID else { return nil }
        let scan = try WARCScan.scan(fd, path: path)
        do {
            if scan.members.count <= 1 {
                try FileSystem.unlink(path)
            } else {
                if !scan.isWhole {
                    try fd.truncate(to: scan.goodEnd)
                    try fd.syncData()
                }
                try FileSystem.renameNoReplace(path, directory + "/" + finishedName, fallback: .rename)
            }
        } catch {
            throw WARCError("cannot finish the WARC file \(path)", error)
        }
        return Finished(name: finishedName, records: scan.members.count, cutBytes: scan.size - scan.goodEnd)
    }
}
