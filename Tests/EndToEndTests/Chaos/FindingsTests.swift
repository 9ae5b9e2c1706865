import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// What the chaos runner found, each pinned by a test that failed before its fix.
struct FindingsTests {
    /// A worker killed while it rendered a page, made a thumbnail or unpacked a ZIP entry left its
    /// temporary (`3.page1.png.tmp-<pid>`, `.farm-zip-<hex>.tmp-<pid>`) next to the outputs for good: the
    /// next owner writes under its own pid. `farm stop` now sweeps them once every process is gone,
    /// and leaves the outputs themselves alone.
    @Test func stopSweepsTemporariesOfKilledWriters() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let list = spool.files + "/" + ListID.of(name: "a.json")
        try FileManager.default.createDirectory(atPath: list + "/3.unzipped/sub", withIntermediateDirectories: true)
        let kept = [list + "/3.zip", list + "/3.thumb.png", list + "/3.unzipped/picture.png", list + "/4.pdf",
                    list + "/4.page1.png", list + "/5.tmp-notapid.png"]
        let garbage = [list + "/4.page1.png.tmp-424242", list + "/4.thumb.png.tmp-7",
                       list + "/3.unzipped/.farm-zip-1f2e3d.tmp-77", list + "/3.unzipped/sub/.farm-zip-9a.tmp-78",
                       spool.tmp + "/0123456789abcdef.3.json.1a2b3c4d"]
        for path in kept + garbage { #expect(FileManager.default.createFile(atPath: path, contents: Data([1]))) }
        // tmp/ entries are taken only once old enough not to belong to a command running now (by ctime,
        // which cannot be set back: age it for real).
        Thread.sleep(forTimeInterval: 2.1)

        let result = try run(Executables.path("farm"), ["stop", "--spool", spool.root])
        #expect(result.status == 0, "\(result.error)")
        for path in garbage { #expect(!FileManager.default.fileExists(atPath: path), "\(path) is still there") }
        for path in kept { #expect(FileManager.default.fileExists(atPath: path), "\(path) was removed") }
    }
}
