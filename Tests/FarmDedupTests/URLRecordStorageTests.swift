import FarmDedup
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import SystemPackage
import Testing

/// Where a URL's record lives: the text of a symbolic link (one symlink(2) to write, one readlink(2) to
/// read), a file when it is too long for a link, and a file of a short URL reads the same.
@Suite struct URLRecordStorageTests {
    private func download(_ spool: Spool, _ bytes: [UInt8]) throws -> (String, FileDescriptor) {
        try FileManager.default.createDirectory(atPath: spool.partial, withIntermediateDirectories: true)
        let path = spool.partial + "/download-\(bytes.count)-\(bytes.first ?? 0)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return (path, try FileDescriptor.open(path, .readWrite))
    }

    private func isLink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    @Test func aRecordIsALinksTextOrAFileWhenTooLongAndAnyFileReads() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let dedup = Dedup(spool)
        let (path, fd) = try download(spool, Array("short".utf8))
        defer { fd.closeQuietly() }

        let url = "http://127.0.0.1/a.png?x=1"
        let blob = try #require(dedup.publish(path, fd: fd, url: url, size: 5, kind: "png", etag: "\"e\""))
        let record = spool.urls + "/" + Dedup.urlKey(url)
        #expect(isLink(record))
        let stored = try #require(dedup.storedResult(of: url))
        #expect(stored.record.blob == blob && stored.record.etag == "\"e\"" && stored.record.size == 5)
        // Published again (a new response's validators): replaced whole, still a link.
        _ = dedup.publish(path, fd: fd, url: url, size: 5, kind: "png", etag: "\"f\"")
        #expect(isLink(record) && dedup.storedResult(of: url)?.record.etag == "\"f\"")

        let long = "http://127.0.0.1/" + String(repeating: "p", count: 5000)
        #expect(dedup.publish(path, fd: fd, url: long, size: 5, kind: "png") == blob)
        let longRecord = spool.urls + "/" + Dedup.urlKey(long)
        #expect(!isLink(longRecord) && FileManager.default.fileExists(atPath: longRecord))
        #expect(dedup.storedResult(of: long)?.record.url == long)

        let older = "http://127.0.0.1/file.png"
        let text = #"{"blob":"\#(blob)","kind":"png","size":5,"url":"\#(older)"}"# + "\n"
        #expect(FileManager.default.createFile(atPath: spool.urls + "/" + Dedup.urlKey(older), contents: Data(text.utf8)))
        #expect(dedup.storedResult(of: older)?.record.url == older)
        #expect(dedup.storedResult(of: "http://127.0.0.1/none.png") == nil)
    }
}
