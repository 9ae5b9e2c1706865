import FarmTestSupport
import Foundation
import Testing

/// A command that exits 0 is not undone by a power cut (SPEC §17): what it wrote is synced before it
/// exits. A power cut is not something a test can make in this process, so these read the system calls
/// of the real command (strace) and check what a power cut would keep: the file written and fsynced
/// before the rename that publishes it, and the folder holding that name fsynced after it. bin/powercut
/// makes the cut itself (`--cut-after scale`), in a guest.
@Suite struct AcknowledgedDurabilityTests {
    /// The system calls of `farm ARGUMENTS` on `spool`, one per line, descriptors shown with their paths.
    private func trace(_ arguments: [String], spool: String, in dir: TemporaryDirectory) throws -> [String] {
        let log = dir.appending("trace-\(arguments[0])")
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-y", "-o", log,
                                                 "-e", "trace=openat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,fsync,fdatasync,syncfs",
                                                 Executables.path("farm")] + arguments + ["--spool", spool])
        #expect(result.status == 0, "\(result.error)")
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// Whether, in `calls`, the last call that names `path` as its result (the rename's target, a created or
    /// removed name) is followed by an fsync of its folder (`folder`: as strace shows descriptors, resolved).
    private func folderSynced(after path: String, folder: String, in calls: [String]) -> Bool {
        guard let last = calls.lastIndex(where: { ($0.contains("rename") || $0.contains("unlink") || $0.contains("O_CREAT"))
                                                   && $0.contains("\"\(path)\"") && !$0.contains("= -1") })
        else { return false }
        return calls[(last + 1)...].contains { $0.contains("fsync(") && $0.contains("<\(folder)>") }
    }

    /// A file renamed to `path` was fsynced (its data) before that rename.
    private func dataSynced(before path: String, in calls: [String]) -> Bool {
        guard let rename = calls.lastIndex(where: { $0.contains("rename") && $0.hasSuffix(" = 0")
                                                    && $0.contains("\"\(path)\"") })
        else { return false }
        // The temporary renamed: the first quoted path of the rename.
        let parts = calls[rename].split(separator: "\"")
        guard parts.count > 1 else { return false }
        let temporary = String(parts[1])
        return calls[..<rename].contains { ($0.contains("fsync(") || $0.contains("fdatasync(")) && $0.contains("<\(temporary)>") }
    }

    @Test func scalePauseResumeAndLimitAreOnDiskWhenTheyExit() throws {
        let dir = TemporaryDirectory()
        let spool = dir.appending("spool")
        #expect(try run("farm", ["recover", "--spool", spool]).status == 0)
        let control = spool + "/control"
        let folder = URL(fileURLWithPath: spool).resolvingSymlinksInPath().path + "/control"

        let scale = try trace(["scale", "3"], spool: spool, in: dir)
        let desired = try FileManager.default.contentsOfDirectory(atPath: control)
            .filter { $0.hasPrefix("desired") && $0.hasSuffix(".json") }
        #expect(!desired.isEmpty)
        for name in desired {
            #expect(dataSynced(before: control + "/" + name, in: scale), "\(name) not fsynced before its rename")
            #expect(folderSynced(after: control + "/" + name, folder: folder, in: scale), "control/ not fsynced after \(name)")
        }

        let pause = try trace(["pause"], spool: spool, in: dir)
        #expect(folderSynced(after: control + "/paused", folder: folder, in: pause), "control/ not fsynced after the pause")
        let resume = try trace(["resume"], spool: spool, in: dir)
        #expect(folderSynced(after: control + "/paused", folder: folder, in: resume), "control/ not fsynced after the resume")

        let limit = try trace(["limit", "100K"], spool: spool, in: dir)
        let limits = try FileManager.default.contentsOfDirectory(atPath: control).filter { $0.hasPrefix("limit.") }
        #expect(!limits.isEmpty)
        for name in limits {
            #expect(dataSynced(before: control + "/" + name, in: limit), "\(name) not fsynced before its rename")
            #expect(folderSynced(after: control + "/" + name, folder: folder, in: limit), "control/ not fsynced after \(name)")
        }
    }

    /// `farm item add` puts its new job in a priority shard of the batch of handed-back jobs, both made on
    /// the way when they are not there yet: each folder made is named in its parent, which must be fsynced
    /// after it, or a power cut may keep the job's file in a folder no path leads to (bin/crashstates
    /// found it: the acknowledged item gone, its job in no state).
    @Test func itemAddSyncsTheFoldersAndTheJournalItMakes() throws {
        let dir = TemporaryDirectory()
        let spool = dir.appending("spool")
        let manifest = dir.appending("list.json")
        try #"{"items": [{"imageUrlString": "http://127.0.0.1:9/a.jpg"}]}"#.write(toFile: manifest, atomically: true,
                                                                                     encoding: .utf8)
        #expect(try run("farm", ["add", manifest, "--spool", spool]).status == 0)
        let calls = try trace(["item", "add", "list.json", "http://127.0.0.1:9/b.jpg", "--at", "0"], spool: spool,
                              in: dir)
        let made = calls.filter { $0.contains("mkdir(") && $0.hasSuffix(" = 0") }
            .compactMap { $0.split(separator: "\"").dropFirst().first.map(String.init) }
            .filter { $0.contains("/queue/") }
        #expect(made.count == 2, "item add made \(made), not the batch and its shard")
        for folder in made {
            let parent = String(folder[..<folder.lastIndex(of: "/")!])
            let resolved = URL(fileURLWithPath: parent).resolvingSymlinksInPath().path
            let mkdir = calls.firstIndex { $0.contains("mkdir(") && $0.contains("\"\(folder)\"") }!
            #expect(calls[(mkdir + 1)...].contains { $0.contains("fsync(") && $0.contains("<\(resolved)>") },
                    "\(parent) not fsynced after \(folder) was made in it")
        }
        // The edit's journal is named durably before the table grows: a journal whose name a power cut
        // took would leave the table's new line with nothing to undo it (bin/crashstates found that too).
        let lists = URL(fileURLWithPath: spool + "/lists").resolvingSymlinksInPath().path
        let journal = calls.firstIndex { $0.contains("O_CREAT") && $0.contains(".edit\"") }
        let table = calls.firstIndex { $0.contains("sync(") && $0.contains(".resources>") }
        #expect(journal != nil && table != nil, "no journal made or no table synced: \(calls.joined(separator: "\n"))")
        if let journal, let table {
            #expect(journal < table && calls[journal..<table].contains { $0.contains("fsync(") && $0.contains("<\(lists)>") },
                    "lists/ not fsynced between the journal's creation and the table's new line")
        }
    }
}
