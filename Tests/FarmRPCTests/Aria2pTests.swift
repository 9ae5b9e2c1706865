import FarmJSON
import FarmOrigin
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// aria2's RPC driven by aria2p (PyPI, installed by bin/setup), a client farm did not write: drive_aria2p.py adds
/// URIs at mirrors with options, lists active, waiting and stopped downloads, pauses and resumes them, removes
/// one, changes the concurrency and the cap, hears the WebSocket's notifications, and checks the bytes on disk.
/// It runs against a real `farm serve` on a running farm, and the same script against a real `aria2c
/// --enable-rpc`, so what it checks is aria2's behaviour and not farm's reading of it (SPEC §16).
@Suite(.serialized) struct Aria2pTests {
    static let secret = "farm-rpc-secret"

    @Test func aria2pDrivesFarmServe() throws {
        let farm = try RunningFarm()
        let downloads = farm.dir.appending("downloads")
        let fixture = try Fixture(origin: farm.origin, folder: downloads)
        try farm.start(workers: 1)
        let serve = try ChildProcess("farm", ["serve", "--port", "0", "--spool", farm.spool.root,
                                              "--rpc-secret", Self.secret, "--rpc-dir", downloads])
        defer { stop(serve) }
        guard let line = serve.waitForLine(startingWith: "farm serve: ", timeout: 60),
              let address = line.range(of: "127.0.0.1:"),
              let port = Int(line[address.upperBound...].prefix { $0.isNumber }) else {
            Issue.record("farm serve printed no address: \(serve.standardOutput) \(serve.standardError)")
            return
        }
        try fixture.drive(port: port, in: farm.dir.path)
        // The bytes, as served, under the names asked for.
        #expect(FileManager.default.contents(atPath: downloads + "/quick.jpg") == Data(fixture.quick))
    }

    @Test func theSameScriptPassesAgainstARealAria2c() throws {
        let dir = TemporaryDirectory()
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        let downloads = dir.appending("downloads")
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let fixture = try Fixture(origin: origin, folder: downloads)
        let port = try freePort()
        let aria2c = try ChildProcess("/usr/bin/aria2c", [
            "--enable-rpc", "--rpc-listen-port", String(port), "--rpc-secret", Self.secret, "--no-conf", "--quiet",
            "--dir", downloads, "--input-file", "/dev/null",
        ])
        defer { stop(aria2c) }
        #expect(poll(timeout: 30, every: 0.1) { (try? fixture.version(port: port)) == true }, "aria2c does not answer")
        try fixture.drive(port: port, in: dir.path)
        #expect(FileManager.default.contents(atPath: downloads + "/quick.jpg") == Data(fixture.quick))
    }

    /// Ends a process this test started, by its pid.
    private func stop(_ child: ChildProcess) {
        guard child.process.isRunning else { return }
        child.kill(SIGTERM)
        if child.wait(timeout: 15) == nil {
            child.kill(SIGKILL)
            child.wait(timeout: 15)
        }
    }
}

/// What the script downloads, served by a local origin: a JPEG at two mirrors, two slow ones (about 8 s each),
/// and a URL answered 404.
private struct Fixture {
    let origin: Origin
    let folder: String
    let quick: [UInt8]
    let slow: [[UInt8]]
    /// Bytes of no kind farm converts (a tarball's): aria2's clients expect any file to download.
    let anyKind: [UInt8]

    init(origin: Origin, folder: String) throws {
        self.origin = origin
        self.folder = folder
        quick = try RunningFarm.noise(width: 200, height: 150, seed: 1)
        slow = try [2, 3].map { try RunningFarm.noise(width: 240, height: 180, seed: $0) }
        anyKind = [0x1F, 0x8B, 0x08, 0x00] + (0..<40_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        origin.serve(path: "/any/archive.tar.gz", bytes: anyKind)
        origin.serve(path: "/m1/quick.jpg", bytes: quick, contentType: "image/jpeg")
        origin.serve(path: "/m2/quick.jpg", bytes: quick, contentType: "image/jpeg")
        for (number, body) in slow.enumerated() {
            let path = "/slow/\(number).jpg"
            origin.serve(path: path, bytes: body, contentType: "image/jpeg")
            origin.inject(.throttle(bytesPerSecond: max(4096, body.count / 8)), at: path)
        }
    }

    /// Whether something answers aria2.getVersion on `port` with the secret.
    func version(port: Int) throws -> Bool {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:\#(Aria2pTests.secret)"]}"#
        let reply = try run("/usr/bin/curl", ["-s", "--max-time", "5", "-d", body, "http://127.0.0.1:\(port)/jsonrpc"])
        return reply.output.contains("\"version\"")
    }

    /// Runs drive_aria2p.py against the RPC on `port`; its lines are the test's record.
    func drive(port: Int, in dir: String) throws {
        let item = { (uri: String, bytes: [UInt8]) -> JSONValue in
            .object([JSONMember("uri", .string(origin.url(for: uri))), JSONMember("sha256", .string(sha256(bytes)))])
        }
        let config = JSONValue.object([
            JSONMember("port", .number(JSONNumber(port))),
            JSONMember("secret", .string(Aria2pTests.secret)),
            JSONMember("dir", .string(folder)),
            JSONMember("quick", .object([
                JSONMember("uris", .array(["/m1/quick.jpg", "/m2/quick.jpg"].map { .string(origin.url(for: $0)) })),
                JSONMember("out", .string("quick.jpg")),
                JSONMember("sha256", .string(sha256(quick))),
            ])),
            JSONMember("slow", .array(slow.enumerated().map { item("/slow/\($0.offset).jpg", $0.element) })),
            JSONMember("missing", .string(origin.url(for: "/missing.jpg"))),
            JSONMember("any", item("/any/archive.tar.gz", anyKind)),
            JSONMember("websocket", .bool(true)),
        ])
        let path = dir + "/aria2p-config.json"
        try Data(JSON.encode(config)).write(to: URL(fileURLWithPath: path))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("drive_aria2p.py").path
        let result = try run("/usr/bin/env", ["python3", script, path], timeout: 600)
        #expect(result.status == 0, "drive_aria2p.py:\n\(result.output)\n\(result.error)")
        #expect(result.output.contains(" passed, 0 failed"), "\(result.output)")
    }

    private func sha256(_ bytes: [UInt8]) -> String {
        let dir = TemporaryDirectory()
        let file = dir.appending("bytes")
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        let output = withExtendedLifetime(dir) { (try? run("/usr/bin/sha256sum", [file]).output) ?? "" }
        return String(output.prefix(64))
    }
}
