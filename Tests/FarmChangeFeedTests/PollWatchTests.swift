@testable import FarmChangeFeed
import FarmSystem
import FarmTestSupport
import Glibc
import Testing

/// The looks that stand for inotify where it cannot see other hosts: each difference between two
/// reads of a directory is the event inotify would have sent.
@Suite struct PollWatchTests {
    private let list = String(repeating: "a", count: 16)

    private func names(_ events: [InotifyEvent], _ flag: Int32) -> Set<String> {
        Set(events.filter { $0.has(flag) }.map { $0.name + ($0.has(IN_ISDIR) ? "/" : "") })
    }

    @Test func reportsWhatCameWentOrWasReplacedThenTheFolderGone() throws {
        let dir = TemporaryDirectory()
        let root = dir.appending("watched")
        try FileSystem.mkdir(root)
        for name in ["keep", "replaced", list + ".1", list + ".2"] { try FileSystem.createFile(root + "/" + name, [1]) }
        try FileSystem.mkdir(root + "/sub")
        let watch = PollWatch(interval: 60)
        let wd = try watch.watch(root, events: UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF))
        #expect(try watch.watch(root, events: UInt32(IN_MOVED_TO)) == wd, "one watch per directory, as inotify")
        #expect(watch.look().isEmpty)

        try FileSystem.createFile(root + "/new", [])
        try FileSystem.createFile(dir.appending("staged"), [2])
        try FileSystem.rename(dir.appending("staged"), root + "/replaced")
        try FileSystem.unlink(root + "/keep")
        try FileSystem.unlink(root + "/" + list + ".1")
        try FileSystem.createFile(root + "/" + list + ".70", [])
        try FileSystem.rmdir(root + "/sub")
        try FileSystem.mkdir(root + "/made")
        let events = watch.look()
        #expect(events.allSatisfy { $0.wd == wd })
        #expect(names(events, IN_MOVED_TO) == ["new", "replaced", list + ".70", "made/"])
        #expect(names(events, IN_MOVED_FROM) == ["keep", list + ".1", "sub/"])
        #expect(watch.look().isEmpty, "nothing changed since")

        try FileSystem.removeTree(root)
        let gone = watch.look()
        #expect(gone.map(\.mask) == [UInt32(IN_DELETE_SELF), UInt32(IN_IGNORED)])
        try FileSystem.mkdir(root)
        try FileSystem.createFile(root + "/again", [])
        #expect(watch.look().isEmpty, "the watch ended with its directory")
    }

    @Test func reportsCreationsAsAskedAndLooksOnlyWhenDue() throws {
        let dir = TemporaryDirectory()
        let watch = PollWatch(interval: 0.2)
        _ = try watch.watch(dir.path, events: UInt32(IN_CREATE | IN_DELETE))
        try FileSystem.createFile(dir.appending("one"), [])
        #expect(watch.next(timeout: 0).isEmpty, "no look before its time")
        let events = watch.next(timeout: 1)
        #expect(events.map(\.mask) == [UInt32(IN_CREATE)] && events.first?.name == "one")
        try FileSystem.unlink(dir.appending("one"))
        #expect(watch.next(timeout: 1).map(\.mask) == [UInt32(IN_DELETE)])
    }
}
