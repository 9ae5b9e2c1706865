import Foundation
import Glibc

/// What a cluster run made, one line per thing in `<directory>/made`, each written before the thing is
/// made: whoever ends the run (the run itself, or `farm-chaos clean` from bin/cluster's trap when the
/// run was killed) removes exactly these, and nothing else, whatever state they were left in.
///
/// Removal goes from the processes to the directories: farm processes (those in the hosts' UTS
/// namespaces, and any farm whose arguments name one of the mounts), the mounts, every process in the
/// network namespaces (glusterd, the brick, the clients), the namespaces, the UTS namespace files, the
/// sockets, and the directories (only once nothing is mounted under them). Used by one thread.
public final class Ledger {
    public enum Kind: String {
        case directory, namespace, uts, mount, socket
    }

    public let directory: String
    private var path: String { directory + "/made" }

    /// A ledger for a run in `directory`, made (and noted) unless it exists; one that exists is noted too
    /// when the caller has just `made` it for the run.
    public init(directory: String, made: Bool = false) throws {
        self.directory = Self.standardized(directory)
        if made {
            try note(.directory, self.directory)
        } else if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
            try note(.directory, self.directory)
        }
    }

    /// The ledger of an earlier run in `directory`, to end it; nil when it left nothing to remove.
    public init?(existing directory: String) {
        self.directory = Self.standardized(directory)
        guard FileManager.default.fileExists(atPath: directory + "/made") else { return nil }
    }

    /// Notes `value` as made (call before making it: a thing half made is removed too).
    public func note(_ kind: Kind, _ value: String) throws {
        let line = kind.rawValue + " " + value + "\n"
        guard let handle = FileHandle(forWritingAtPath: path) ?? {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { throw ClusterError("cannot write \(path)") }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
    }

    /// Makes `path` a directory, noted as made.
    public func makeDirectory(_ path: String) throws {
        try note(.directory, path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    private func entries(_ kind: Kind) -> [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[0] == kind.rawValue ? String(parts[1]) : nil
        }
    }

    /// Removes everything noted (but the directories when `keepDirectories`) and the ledger itself.
    /// Returns what could not be removed, one line each.
    public func tearDown(keepDirectories: Bool = false) -> [String] {
        var problems: [String] = []
        let mounts = entries(.mount)
        let hostNamespaces = Set(entries(.uts).compactMap(ProcessTable.namespaceInode))
        let farms = ProcessTable.pids().filter { pid in
            if let uts = ProcessTable.utsNamespace(pid), hostNamespaces.contains(uts) { return true }
            let arguments = ProcessTable.arguments(pid)
            return arguments.first?.hasSuffix("farm") == true
                && arguments.contains { argument in mounts.contains { argument.hasPrefix($0) } }
        }
        for pid in ProcessTable.end(farms) { problems.append("farm process \(pid) does not die") }

        for mount in mounts.reversed() where Self.isMounted(mount) {
            if umount2(mount, 0) != 0 && umount2(mount, Int32(MNT_DETACH)) != 0 {
                problems.append("cannot unmount \(mount): \(String(cString: strerror(errno)))")
            }
        }
        for namespace in entries(.namespace).reversed()
        where FileManager.default.fileExists(atPath: "/run/netns/" + namespace) {
            let inside = ((try? SystemCommand.run(["/usr/sbin/ip", "netns", "pids", namespace]))?.output ?? "")
                .split(separator: "\n").compactMap { pid_t($0) }
            for pid in ProcessTable.end(inside, grace: 2) { problems.append("process \(pid) in \(namespace) does not die") }
            if let result = try? SystemCommand.run(["/usr/sbin/ip", "netns", "delete", namespace]), result.status != 0 {
                problems.append("cannot delete namespace \(namespace): " + result.output.trimmingCharacters(in: .newlines))
            }
        }
        for file in entries(.uts).reversed() where FileManager.default.fileExists(atPath: file) {
            if Self.isMounted(file) { _ = umount2(file, Int32(MNT_DETACH)) }
            if unlink(file) != 0 { problems.append("cannot remove \(file): \(String(cString: strerror(errno)))") }
        }
        for socket in entries(.socket) where FileManager.default.fileExists(atPath: socket) {
            if unlink(socket) != 0 { problems.append("cannot remove \(socket): \(String(cString: strerror(errno)))") }
        }
        if !keepDirectories {
            for directory in entries(.directory).reversed() where FileManager.default.fileExists(atPath: directory) {
                if let mounted = Self.mountPoints().first(where: { $0 == directory || $0.hasPrefix(directory + "/") }) {
                    problems.append("\(directory) is kept: \(mounted) is still mounted")
                    continue
                }
                do { try FileManager.default.removeItem(atPath: directory) } catch {
                    problems.append("cannot remove \(directory): \(error.localizedDescription)")
                }
            }
        }
        if problems.isEmpty { try? FileManager.default.removeItem(atPath: path) }
        return problems
    }

    /// `path` absolute and without `//` or `.`: as the kernel names mount points, every path made from
    /// the directory is compared with mountinfo's.
    private static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    public static func isMounted(_ path: String) -> Bool { mountPoints().contains(path) }

    /// Every mount point of this mount namespace (the fifth field of mountinfo, octal escapes undone).
    public static func mountPoints() -> [String] {
        let text = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 4 else { return nil }
            var point = String(fields[4])
            for (escape, character) in [("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")] {
                point = point.replacingOccurrences(of: escape, with: character)
            }
            return point
        }
    }
}
