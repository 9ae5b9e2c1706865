import FarmDedup
import FarmJSON
import FarmLists
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// SPEC §12's delivery: `farm add --out DIR [--name TEMPLATE]` puts each done resource's download at its
/// name below DIR, as the user's own file (a reflink or a copy, under the umask of the `farm add`; a hard
/// link only with `--link`), with safe names and collisions numbered in list order. A real farm against a
/// real origin; bytes, inodes, link counts and modes checked on disk.
@Suite(.serialized) struct DeliveryTests {
    @Test func eachDoneResourceIsTheUsersOwnFileUnderItsSafeNameWithCollisionsNumberedInListOrder() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let out = farm.dir.appending("out")
        let long = String(repeating: "n", count: 300)
        let paths = ["/a/x.jpg", "/b/x.jpg", "/c/x.jpg", "/h/%2E%2E", "/h/a%2Fb%01c.jpg", "/h/\(long).jpg"]
        var bodies: [[UInt8]] = []
        for (n, path) in paths.enumerated() {
            bodies.append(try JPEGFixture.quadrants(width: 16 + 8 * n, height: 16))
            farm.origin.serve(path: path, bytes: bodies[n])
        }
        // The first of the three x.jpg ends last: it is still the one named x.jpg.
        farm.origin.inject(.throttle(bytesPerSecond: bodies[0].count / 2), at: paths[0])
        let manifest = farm.dir.appending("Gallery.json")
        try Data(JSON.encode(paths.map { farm.origin.url(for: $0) })).write(to: URL(fileURLWithPath: manifest))
        // The user's umask is the add's, not the farm's (whose workers make the files later).
        let added = try farm.farm(umask: 0o027, ["add", manifest, "--out", out])
        #expect(added.status == 0, "\(added)")
        try farm.start(workers: 2, transfers: 3)
        try RequestOptionsTests.waitUntilEnded(paths.count, farm)

        let names = ["x.jpg", "x (2).jpg", "x (3).jpg", "_", "a_bc.jpg", String(repeating: "n", count: 251) + ".jpg"]
        let list = ListID.of(name: "Gallery.json")
        let status = try JSONParser.parse(Array(try farm.must(["status", "Gallery.json", "--json"]).utf8))
        for (index, name) in names.enumerated() {
            let path = out + "/Gallery/" + name
            let sidecar = try #require(farm.spool.sidecars.last(JobName(list: list, index: index)))
            #expect(sidecar.delivered == path, "\(index): \(sidecar)")
            let same = Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bodies[index]
            #expect(same, "\(index): \(path) holds other bytes")
            var a = stat(), b = stat()
            #expect(stat(path, &a) == 0 && stat(sidecar.file ?? "", &b) == 0)
            #expect(a.st_ino != b.st_ino && a.st_nlink == 1, "\(index): it shares the spool's file (\(b.st_nlink) links)")
            #expect(a.st_mode & 0o7777 == 0o640, "\(index): mode \(String(a.st_mode & 0o7777, radix: 8)), not 0666 & ~027")
            guard case .array(let rows)? = status["resources"], rows.count == names.count else {
                Issue.record("no resources in \(status)")
                continue
            }
            #expect(rows[index]["delivered"] == .string(path), "\(rows[index])")
        }
        #expect(Self.files(below: out) == Set(names.map { "Gallery/" + $0 }))

        // An edit in place of the user's file leaves the spool's done output as it was downloaded.
        let first = try #require(farm.spool.sidecars.last(JobName(list: list, index: 0))?.file)
        try Self.append("x\n", to: out + "/Gallery/x.jpg")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: first))) == bodies[0], "the edit reached the spool")
        let clean = try farm.farm(["fsck"])
        #expect(clean.status == 0, "\(clean.output)")

        try farm.must(["item", "rm", "Gallery.json", JobName(list: list, index: 1).raw])
        #expect(Self.files(below: out) == Set(names.enumerated().filter { $0.offset != 1 }.map { "Gallery/" + $0.element }))
        try farm.must(["stop"])
        try farm.must(["reset"])
        #expect(Self.files(below: out).count == names.count - 1, "reset leaves the folder alone")
    }

    /// `--link`: a hard link of the spool's file, as asked; an edit of it is an edit of the spool's done output,
    /// which fsck then reports (exit 1) and does not repair: the bytes may be the user's edit.
    @Test func withLinkEachIsAHardLinkOfTheSpoolsFileAndFsckFindsItsEdit() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let out = farm.dir.appending("out")
        let bodies = try (0..<2).map { try JPEGFixture.quadrants(width: 16 + 16 * $0, height: 16) }
        for (n, body) in bodies.enumerated() { farm.origin.serve(path: "/l/\(n).jpg", bytes: body) }
        let manifest = farm.dir.appending("Linked.json")
        try Data(JSON.encode((0..<2).map { farm.origin.url(for: "/l/\($0).jpg") })).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--out", out, "--link"])
        try farm.start(workers: 1)
        try RequestOptionsTests.waitUntilEnded(2, farm)
        let list = ListID.of(name: "Linked.json")
        for index in 0..<2 {
            let file = try #require(farm.spool.sidecars.last(JobName(list: list, index: index))?.file)
            var a = stat(), b = stat()
            #expect(stat(out + "/Linked/\(index).jpg", &a) == 0 && stat(file, &b) == 0 && a.st_ino == b.st_ino,
                    "\(index): not a hard link of the download")
        }
        #expect(try farm.farm(["fsck"]).status == 0)

        // Written in place through the link: the done output is no longer what was downloaded.
        try Self.append("x\n", to: out + "/Linked/1.jpg")
        let found = try farm.farm(["fsck", "--repair"])
        #expect(found.status == 1, "\(found)")
        let lines = found.output.split(separator: "\n").filter { $0.hasPrefix("changed-output") }
        #expect(lines.count == 1 && lines[0].contains("is \(bodies[1].count + 2) bytes, its record says \(bodies[1].count)")
                && lines[0].contains("not repaired"), "\(found.output)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out + "/Linked/1.jpg"))) == bodies[1] + Array("x\n".utf8),
                "fsck --repair changed the user's edit")
    }

    /// fsck holds a done output to its record, however it was changed: another size (bytes appended to the
    /// spool's file itself), or, where a digest is kept (the item's sha256), other bytes of the same size.
    @Test func fsckFindsADoneOutputOfAnotherSizeOrDigestThanItsRecord() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let bodies = try (0..<2).map { try JPEGFixture.quadrants(width: 16 + 16 * $0, height: 16) }
        for (n, body) in bodies.enumerated() { farm.origin.serve(path: "/d/\(n).jpg", bytes: body) }
        let items: [[String: String]] = try (0..<2).map { n in
            let path = farm.dir.appending("body-\(n)")
            try Data(bodies[n]).write(to: URL(fileURLWithPath: path))
            return ["url": farm.origin.url(for: "/d/\(n).jpg"), "sha256": try Dedup.digest(ofFile: path)]
        }
        let manifest = farm.dir.appending("Kept.json")
        try JSONSerialization.data(withJSONObject: items).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest])
        try farm.start(workers: 1)
        try RequestOptionsTests.waitUntilEnded(2, farm)
        try farm.must(["stop"])
        #expect(try farm.farm(["fsck"]).status == 0)

        let list = ListID.of(name: "Kept.json")
        let files = try (0..<2).map { try #require(farm.spool.sidecars.last(JobName(list: list, index: $0))?.file) }
        try Self.append("0123456789", to: files[0])
        // One byte of the second changed in place: its size is its record's.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: files[1]))
        try handle.seek(toOffset: UInt64(bodies[1].count / 2))
        try handle.write(contentsOf: Data([bodies[1][bodies[1].count / 2] ^ 0xFF]))
        try handle.close()
        let found = try farm.farm(["fsck"])
        #expect(found.status == 1, "\(found)")
        let lines = found.output.split(separator: "\n").filter { $0.hasPrefix("changed-output") }
        #expect(lines.count == 2, "\(found.output)")
        #expect(lines.contains { $0.contains(JobName(list: list, index: 0).raw)
                    && $0.contains("is \(bodies[0].count + 10) bytes, its record says \(bodies[0].count)") }, "\(lines)")
        #expect(lines.contains { $0.contains(JobName(list: list, index: 1).raw) && $0.contains("has SHA-256") }, "\(lines)")
    }

    /// Where the file system has reflinks (XFS here, spool and DIR on it), the delivered file shares the
    /// download's blocks until either is written (no copy of the bytes), and is still a file of its own.
    @Test func onAFileSystemWithReflinksEachIsAReflink() throws {
        guard let xfs = try XfsMount.make() else { return }
        defer { xfs.unmount() }
        let farm = try RunningFarm(spoolRoot: xfs.path + "/spool")
        defer { farm.shutDownNow() }
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        farm.origin.serve(path: "/r/big.bin", bytes: body)
        let manifest = farm.dir.appending("Cloned.json")
        try Data(JSON.encode([farm.origin.url(for: "/r/big.bin")])).write(to: URL(fileURLWithPath: manifest))
        let out = xfs.path + "/out"
        let added = try farm.farm(umask: 0o022, ["add", manifest, "--out", out, "--accept", "any"])
        #expect(added.status == 0, "\(added)")
        try farm.start(workers: 1)
        try RequestOptionsTests.waitUntilEnded(1, farm)
        let file = try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: "Cloned.json"), index: 0))?.file)
        let path = out + "/Cloned/big.bin"
        var a = stat(), b = stat()
        #expect(stat(path, &a) == 0 && stat(file, &b) == 0)
        #expect(a.st_ino != b.st_ino && a.st_nlink == 1 && a.st_mode & 0o7777 == 0o644)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == body)
        let extents = try run("/usr/sbin/filefrag", ["-v", path])
        #expect(extents.status == 0 && extents.output.contains("shared"), "not a reflink: \(extents.output)")

        try Self.append("x\n", to: path)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == body, "the edit reached the spool")
        farm.shutDownNow()
    }

    /// Appends `text` to the file at `path`, in place (as `echo >>` does).
    static func append(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    @Test func onAnotherFileSystemEachIsACopyUnderTheTemplate() throws {
        guard TmpfsMount.isPossible else { return }
        let mount = try TmpfsMount(megabytes: 16)
        defer { mount.unmount() }
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let paths = ["/p/first.png", "/p/second.jpg", "/q/third"]
        var bodies: [[UInt8]] = []
        for (n, path) in paths.enumerated() {
            bodies.append(try JPEGFixture.quadrants(width: 24, height: 8 + 8 * n))
            farm.origin.serve(path: path, bytes: bodies[n])
        }
        let manifest = farm.dir.appending("Copies.json")
        try Data(JSON.encode(paths.map { farm.origin.url(for: $0) })).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--out", mount.path + "/photos", "--name", "{list}-{index}-{stem}.{ext}"])
        try farm.start(workers: 1, transfers: 2)
        try RequestOptionsTests.waitUntilEnded(paths.count, farm)
        // The kind is the bytes' (all three are JPEGs), whatever the URL says.
        let names = ["Copies-0-first.jpg", "Copies-1-second.jpg", "Copies-2-third.jpg"]
        for (index, name) in names.enumerated() {
            let path = mount.path + "/photos/" + name
            let sidecar = try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: "Copies.json"), index: index)))
            #expect(sidecar.delivered == path, "\(sidecar)")
            let same = Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bodies[index]
            #expect(same, "\(path) holds other bytes")
        }
        #expect(Self.files(below: mount.path) == Set(names.map { "photos/" + $0 }))
        farm.shutDownNow()
    }

    @Test func aFileFarmDidNotDeliverIsNeverReplacedAndRetryDeliversOnceItIsGone() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let out = farm.dir.appending("out")
        let body = try JPEGFixture.quadrants(width: 16, height: 16)
        farm.origin.serve(path: "/one.jpg", bytes: body)
        let manifest = farm.dir.appending("Mine.json")
        try Data(JSON.encode([farm.origin.url(for: "/one.jpg")])).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--out", out])
        try FileManager.default.createDirectory(atPath: out + "/Mine", withIntermediateDirectories: true)
        try Data("the user's own".utf8).write(to: URL(fileURLWithPath: out + "/Mine/one.jpg"))
        try farm.start(workers: 1)
        _ = poll(timeout: 120, every: 0.1) { farm.counts == [.failed: 1] }
        let sidecar = try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: "Mine.json"), index: 0)))
        #expect(sidecar.error?.hasPrefix("delivery failed: \(out)/Mine/one.jpg: ") == true, "\(sidecar)")
        #expect(try String(contentsOfFile: out + "/Mine/one.jpg", encoding: .utf8) == "the user's own")

        try FileManager.default.removeItem(atPath: out + "/Mine/one.jpg")
        try farm.must(["retry"])
        try RequestOptionsTests.waitUntilEnded(1, farm)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out + "/Mine/one.jpg"))) == body)
    }

    @Test func syncsNewVersionAndAReloadReplaceTheDeliveredFile() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let out = farm.dir.appending("out")
        let versions = try (0..<3).map { try JPEGFixture.quadrants(width: 16 + 16 * $0, height: 16) }
        farm.origin.serve(path: "/v.jpg", bytes: versions[0])
        let manifest = farm.dir.appending("Versions.json")
        try Data(JSON.encode([farm.origin.url(for: "/v.jpg")])).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest, "--out", out])
        try farm.start(workers: 1)
        try RequestOptionsTests.waitUntilEnded(1, farm)
        let path = out + "/Versions/v.jpg"
        let delivered = { Array((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()) }
        #expect(delivered() == versions[0])

        farm.origin.serve(path: "/v.jpg", bytes: versions[1])
        try farm.must(["sync", "Versions.json"])
        #expect(delivered() == versions[1], "sync's new version is delivered")

        farm.origin.serve(path: "/v.jpg", bytes: versions[2])
        try farm.must(["reload", "Versions.json"])
        #expect(poll(timeout: 60, every: 0.1) { delivered() == versions[2] }, "the reload is delivered")
        try RequestOptionsTests.waitUntilEnded(1, farm)
        #expect(Self.files(below: out) == ["Versions/v.jpg"])
    }

    @Test(arguments: [
        (["--name", "{nope}.{ext}"], "unknown field {nope}"),
        (["--name", "{list}.{ext}"], "no field that tells resources apart"),
        (["--name", "../{name}"], "may not hold a . or .. folder"),
        (["--name", "/etc/{name}"], "must be a relative path"),
        (["--out", "/proc/farm-cannot-be"], "cannot make the folder /proc/farm-cannot-be"),
    ])
    func badDeliveriesAreRefusedInOneLineAndNothingIsAdded(_ options: [String], _ reason: String) throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let manifest = farm.dir.appending("Refused.json")
        try Data(JSON.encode([farm.origin.url(for: "/one.jpg")])).write(to: URL(fileURLWithPath: manifest))
        let arguments = options.first == "--out" ? options : ["--out", farm.dir.appending("out")] + options
        let added = try farm.farm(["add", manifest] + arguments)
        #expect(added.status == 2, "\(added)")
        let lines = added.error.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(reason), "\(added.error)")
        #expect(farm.spool.list(ListID.of(name: "Refused.json")) == nil)
    }

    /// Every file below `folder` (hidden ones too), relative to it.
    static func files(below folder: String) -> Set<String> {
        Set((FileManager.default.subpaths(atPath: folder) ?? []).filter { name in
            var st = stat()
            return lstat(folder + "/" + name, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
        })
    }
}
