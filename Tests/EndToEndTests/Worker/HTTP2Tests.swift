import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// SPEC §13, seen from the server's side: a worker's transfers to one host share one connection, so one
/// TLS handshake, and go over it at once as HTTP/2 streams where the server offers HTTP/2 by ALPN. The
/// server is nginx over HTTPS with a private CA's certificate, each response slowed so that the streams
/// of a worker overlap.
@Suite struct HTTP2Tests {
    let dir = TemporaryDirectory()
    let certificates: TestCA
    let server: NginxServer
    /// The served files' bytes, by name.
    var bodies: [String: [UInt8]] = [:]

    init() throws {
        certificates = try TestCA(in: dir)
        let root = dir.appending("www")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for n in 0..<24 {
            let body: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ n &* 11) }
            try Data(body).write(to: URL(fileURLWithPath: root + "/\(n).png"))
            bodies["\(n).png"] = body
        }
        // 40 KB at 32 KB/s: each response takes over a second, so the transfers of a worker overlap.
        server = try NginxServer(root: root, certificates: certificates, bytesPerSecond: 32_000, in: dir)
    }

    /// Adds the server's files as one list to a new farm's spool.
    private func farmWithTheFiles() throws -> RunningFarm {
        let farm = try RunningFarm(environment: ["SSL_CERT_FILE": certificates.ca, "CURL_CA_BUNDLE": ""])
        let manifest = farm.dir.appending("Streams.json")
        try Data(JSON.encode(bodies.keys.sorted().map { server.url($0) })).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest])
        return farm
    }

    /// Every resource done, with the server's bytes.
    private func expectEveryFileDone(_ farm: RunningFarm) throws {
        #expect(farm.counts == [.done: bodies.count], "\(farm.counts)")
        let listed = try farm.must(["status", "Streams.json", "--json"])
        let resources = try #require(JSON.decode(ListStatus.self, from: Array(listed.utf8))?.resources, "\(listed)")
        for resource in resources {
            let name = String(resource.url.split(separator: "/").last ?? "")
            let file = try #require(resource.file, "\(resource)")
            #expect(FileManager.default.contents(atPath: file).map(Array.init) == bodies[name], "\(file)")
        }
    }

    @Test func aWorkersTransfersShareOneConnectionAsHTTP2StreamsAfterOneHandshake() throws {
        let farm = try farmWithTheFiles()
        let worked = try run("farm", ["work", "--transfers", "8", "--exit-when-idle", "--no-convert",
                                      "--spool", farm.spool.root], environment: farm.environment, timeout: 120)
        #expect(worked.status == 0, "\(worked.error)")
        try expectEveryFileDone(farm)

        let requests = server.requests
        #expect(requests.count == bodies.count, "\(requests.count) requests for \(bodies.count) files")
        #expect(requests.allSatisfy { $0.proto == "HTTP/2.0" && $0.status == 200 }, "\(requests)")
        // One connection: one TLS handshake for the 24 files.
        #expect(Set(requests.map(\.connection)).count == 1, "connections: \(Set(requests.map(\.connection)))")
        // Its streams at once, not one after another: the server sent several responses at one instant.
        #expect(NginxServer.mostAtOnce(requests) >= 4, "at most \(NginxServer.mostAtOnce(requests)) at once")
    }

    /// Two worker processes of 4 transfers each: at most one connection, so one handshake, a process.
    @Test func eachWorkerProcessHandshakesOnceWithAHost() throws {
        let farm = try farmWithTheFiles()
        try farm.must(["start", "--workers", "2", "--transfers", "4", "--ca-file", certificates.ca])
        let workers = Set(farm.pids(.worker))
        #expect(farm.waitUntilAllDone(bodies.count, timeout: 120))
        try expectEveryFileDone(farm)
        let requests = server.requests
        #expect(requests.count == bodies.count, "\(requests.count) requests for \(bodies.count) files")
        #expect(requests.allSatisfy { $0.proto == "HTTP/2.0" }, "\(requests)")
        let connections = Set(requests.map(\.connection))
        #expect(connections.count >= 1 && connections.count <= max(workers.count, 2), "connections: \(connections)")
    }
}
