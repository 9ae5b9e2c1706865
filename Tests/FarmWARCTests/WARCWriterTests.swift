import FarmTestSupport
import Foundation
import Testing
@testable import FarmWARC

/// Files written by WARCWriter, read by warcio (PyPI), a reader nobody here wrote.
@Suite struct WARCWriterTests {
    @Test func warcioChecksTheFileAndIndexesExactlyTheRecordsWritten() throws {
        let dir = TemporaryDirectory("farm-warc")
        let warcs = dir.appending("warc")
        try WARCTools.write(WARCTools.random(300_000), to: dir.appending("body"))
        let writer = try WARCWriter(directory: warcs, software: "farm/test")
        // Raw as received, as wget stores it: a chunked, gzip-encoded body keeps its framing and compression.
        let gzFile = dir.appending("page.gz")
        let made = try run("/usr/bin/env", ["python3", "-c",
            "import sys,gzip; open(sys.argv[1],'wb').write(gzip.compress(b'<html>' + b'a' * 5000 + b'</html>'))", gzFile])
        try #require(made.status == 0)
        let gz = try WARCTools.bytes(gzFile)
        let chunked = Array("\(String(gz.count, radix: 16))\r\n".utf8) + gz + Array("\r\n0\r\n\r\n".utf8)
        let exchanges = [
            WARCTools.exchange("/small.txt", body: .bytes(Array("small".utf8))),
            WARCTools.exchange("/big.bin", body: .file(dir.appending("body"))),
            WARCTools.exchange("/page.html", body: .bytes(chunked), head: "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                + "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"),
            WARCTools.exchange("/empty", body: .bytes([]), head: "HTTP/1.1 204 No Content\r\n\r\n"),
        ]
        let written = try exchanges.map { try writer.write($0) }
        try writer.close()

        let files = WARCTools.finishedFiles(warcs)
        #expect(files.count == 1)
        #expect(WARCTools.openFiles(warcs).isEmpty)
        let path = warcs + "/" + files[0]
        let check = try WARCTools.check([path])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.components(separatedBy: "digest pass").count - 1 == 9, "\(check.output)")

        let entries = try WARCTools.index(path)
        var expected = [WARCTools.Entry(type: "warcinfo", id: entries.first?.id ?? "", uri: nil, concurrentTo: nil,
                                        filename: files[0])]
        for (exchange, ids) in zip(exchanges, written) {
            expected.append(.init(type: "response", id: ids.responseID.text, uri: exchange.targetURI, concurrentTo: nil, filename: nil))
            expected.append(.init(type: "request", id: ids.requestID.text, uri: exchange.targetURI,
                                  concurrentTo: ids.responseID.text, filename: nil))
        }
        #expect(entries == expected)
        #expect(written.allSatisfy { $0.file == files[0] })

        // The chunked page's payload digest is over the bytes stored (framing and gzip kept), as wget's is.
        let decoded = try run("/usr/bin/env", ["python3", "-c", """
            import sys
            from warcio.archiveiterator import ArchiveIterator
            for r in ArchiveIterator(open(sys.argv[1], 'rb')):
                if r.rec_type == 'response' and r.rec_headers.get_header('WARC-Target-URI').endswith('/page.html'):
                    print(r.rec_headers.get_header('WARC-Payload-Digest'))
                    print(r.content_stream().read().decode())
            """, path])
        try #require(decoded.status == 0, "\(decoded.error)")
        let lines = decoded.output.split(separator: "\n")
        #expect(lines.first.map(String.init) == (try WARCTools.pythonDigest(chunked)))
        #expect(lines.dropFirst().first == Substring("<html>" + String(repeating: "a", count: 5000) + "</html>"))
    }

    @Test func rotationMakesSeveralFilesEachOpeningWithWarcinfoNonePastTheSize() throws {
        let dir = TemporaryDirectory("farm-warc")
        let maxSize = 64 * 1024
        let writer = try WARCWriter(directory: dir.path, prefix: "rot", software: "farm/test", maxSize: maxSize)
        var responses: [String] = []
        for n in 0..<20 {
            let written = try writer.write(WARCTools.exchange("/\(n)", body: .bytes(WARCTools.random(15_000))))
            responses.append(written.responseID.text)
        }
        try writer.close()
        let files = WARCTools.finishedFiles(dir.path)
        #expect(files.count >= 4, "\(files)")
        #expect(files.allSatisfy { $0.hasPrefix("rot-") && $0.hasSuffix(".warc.gz") })
        let check = try WARCTools.check(files.map { dir.appending($0) })
        #expect(check.status == 0, "\(check.output)")
        var seen: [String] = []
        for file in files {
            let size = try FileManager.default.attributesOfItem(atPath: dir.appending(file))[.size] as? Int ?? .max
            #expect(size <= maxSize, "\(file): \(size) bytes")
            let entries = try WARCTools.index(dir.appending(file))
            #expect(entries.first?.type == "warcinfo")
            #expect(entries.first?.filename == file)
            #expect(entries.dropFirst().allSatisfy { $0.type != "warcinfo" })
            #expect(entries.count > 1)
            seen += entries.filter { $0.type == "response" }.map(\.id)
        }
        #expect(seen == responses)
    }

    @Test func aLargeBodyStreamsWithItsDigestsAndIsNotHeldInMemory() throws {
        let dir = TemporaryDirectory("farm-warc")
        let body = WARCTools.random(48 << 20)
        try WARCTools.write(body, to: dir.appending("body"))
        let payloadDigest = try WARCTools.pythonDigest(body)
        let once = try run("farm-warc-writer", ["once", dir.appending("warc"), dir.appending("body")], timeout: 300)
        #expect(once.status == 0, "\(once.error)")
        let hwm = once.output.split(separator: "\n").first { $0.hasPrefix("hwm ") }.flatMap { Int($0.dropFirst(4)) }
        // The writer's peak resident size stays far below the body's 48 MiB: it was streamed, twice.
        #expect((hwm ?? .max) < 32 * 1024, "peak \(hwm ?? -1) kB")
        let files = WARCTools.finishedFiles(dir.appending("warc"))
        try #require(files.count == 1)
        let path = dir.appending("warc/" + files[0])
        let check = try WARCTools.check([path])
        #expect(check.status == 0, "\(check.output)")
        let read = try run("/usr/bin/env", ["python3", "-c", """
            import sys, hashlib, base64
            from warcio.archiveiterator import ArchiveIterator
            for r in ArchiveIterator(open(sys.argv[1], 'rb')):
                if r.rec_type == 'response':
                    h = hashlib.sha1()
                    while True:
                        piece = r.content_stream().read(1 << 20)
                        if not piece: break
                        h.update(piece)
                    print(r.rec_headers.get_header('WARC-Payload-Digest'), 'sha1:' + base64.b32encode(h.digest()).decode())
            """, path], timeout: 300)
        try #require(read.status == 0, "\(read.error)")
        #expect(read.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(payloadDigest) \(payloadDigest)")
    }

    @Test func aBodyThatCannotBeReadStartsNoFileAndFailsWithItsPath() throws {
        let dir = TemporaryDirectory("farm-warc")
        let writer = try WARCWriter(directory: dir.path, software: "farm/test")
        #expect {
            try writer.write(WARCTools.exchange("/x", body: .file(dir.appending("missing"))))
        } throws: { error in
            "\(error)".contains(dir.appending("missing")) && "\(error)".contains("No such file")
        }
        try writer.close()
        #expect(WARCTools.finishedFiles(dir.path).isEmpty && WARCTools.openFiles(dir.path).isEmpty)
    }
}
