import FarmJSON
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// HTTPS from a server whose certificate comes from a private CA (a company's, a TLS-inspecting
/// proxy's): refused for good with its reason while the CA is unknown, fetched once farm is given it
/// (`farm start --ca-file`, or SSL_CERT_FILE). The server is `openssl s_server -WWW` on 127.0.0.1, with
/// a CA and a certificate made for the test.
@Suite(.serialized) struct TLSTests {
    /// A CA, a certificate it signed for 127.0.0.1, and a server of `www` with it; stopped by pid.
    final class PrivateServer {
        let dir = TemporaryDirectory()
        let certificates: TestCA
        var ca: String { certificates.ca }
        let port: Int
        let body: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<20_000).map { UInt8($0 % 251) }
        private var server: ChildProcess?

        init() throws {
            // One the kernel just handed out: a random one may be a connection's own (ephemeral) port.
            port = try freePort()
            certificates = try TestCA(in: dir)
            try FileManager.default.createDirectory(atPath: dir.appending("www"), withIntermediateDirectories: true)
            try Data(body).write(to: URL(fileURLWithPath: dir.appending("www/a.png")))
            // -WWW serves the files of its working directory.
            let server = try ChildProcess("/bin/sh", ["-c", "cd \(dir.appending("www")) && exec /usr/bin/openssl s_server "
                + "-accept 127.0.0.1:\(port) -cert \(certificates.certificate) -key \(certificates.key) -WWW"])
            self.server = server
            try #require(poll(timeout: 20, every: 0.05) {
                (try? run("/bin/sh", ["-c", "/usr/bin/openssl s_client -connect 127.0.0.1:\(port) </dev/null"]))?.status == 0
            }, "openssl s_server did not come up on \(port)")
        }

        var url: String { "https://127.0.0.1:\(port)/a.png" }

        deinit { server?.kill() }
    }

    /// A farm with one list of the server's one resource, started with `arguments` and `environment`;
    /// its resource's status once the list is Finished.
    private func fetch(from server: PrivateServer, start arguments: [String], environment: [String: String] = [:])
        throws -> (farm: RunningFarm, resource: ResourceStatus) {
        let farm = try RunningFarm()
        let manifest = farm.dir.appending("tls.json")
        try Data(JSON.encode([server.url])).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest])
        let started = try run("farm", ["start", "--workers", "1", "--spool", farm.spool.root] + arguments,
                              environment: environment)
        try #require(started.status == 0, "\(started.error)")
        _ = farm.processes()
        _ = try farm.farm(["wait", "--timeout", "120"])
        let output = try farm.must(["status", "tls.json", "--json"])
        let list = try #require(JSON.decode(ListStatus.self, from: Array(output.utf8)), "\(output)")
        return (farm, try #require(list.resources?.first))
    }

    @Test func anUntrustedCertificateFailsAtOnceWithItsReason() throws {
        let server = try PrivateServer()
        // The system's certificates only, whatever the environment of the test names.
        let (_, resource) = try fetch(from: server, start: [], environment: ["SSL_CERT_FILE": "", "CURL_CA_BUNDLE": ""])
        #expect(resource.status == .error, "\(resource)")
        let error = resource.error ?? ""
        #expect(error.contains("TLS certificate not trusted") && error.contains("--ca-file"), "\(error)")
        #expect(resource.attempts == 1, "a certificate that fails is not retried: \(resource)")
    }

    @Test func theCAGivenToFarmStartIsTrusted() throws {
        let server = try PrivateServer()
        let (farm, resource) = try fetch(from: server, start: ["--ca-file", server.ca])
        #expect(resource.status == .done, "\(resource)")
        let file = try #require(resource.file)
        #expect(FileManager.default.contents(atPath: file).map { [UInt8]($0) } == server.body)
        _ = farm
    }

    /// A worker started by exec rather than as the supervisor's copy (by hand, or by a supervisor with a
    /// second thread, as under a sanitizer) follows `farm start --ca-file` too: it reads the farm's
    /// settings, not only its command line.
    @Test func aWorkerStartedByExecTrustsTheCAGivenToFarmStart() throws {
        let server = try PrivateServer()
        let farm = try RunningFarm()
        let noCA = ["SSL_CERT_FILE": "", "CURL_CA_BUNDLE": ""]
        let started = try run("farm", ["start", "--workers", "1", "--spool", farm.spool.root, "--ca-file", server.ca],
                              environment: noCA)
        try #require(started.status == 0, "\(started.error)")
        _ = farm.processes()
        try farm.must(["stop"])
        let manifest = farm.dir.appending("tls.json")
        try Data(JSON.encode([server.url])).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest])
        let worked = try run("farm", ["work", "--exit-when-idle", "--spool", farm.spool.root], environment: noCA,
                             timeout: 120)
        #expect(worked.status == 0, "\(worked.error)")
        let output = try farm.must(["status", "tls.json", "--json"])
        let resource = try #require(JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources?.first, "\(output)")
        #expect(resource.status == .done, "\(resource)")
        let file = try #require(resource.file)
        #expect(FileManager.default.contents(atPath: file).map { [UInt8]($0) } == server.body)
    }

    @Test func theCANamedBySSLCertFileIsTrusted() throws {
        let server = try PrivateServer()
        // CURL_CA_BUNDLE, which comes first, empty: the environment of the test may set it.
        let (_, resource) = try fetch(from: server, start: [], environment: ["SSL_CERT_FILE": server.ca, "CURL_CA_BUNDLE": ""])
        #expect(resource.status == .done, "\(resource)")
    }

    @Test func anUnreadableCAFileIsRefusedInOneLine() throws {
        let farm = try RunningFarm()
        let result = try farm.farm(["start", "--ca-file", farm.dir.appending("nothing.pem")])
        #expect(result.status != 0)
        #expect(result.error.contains("cannot read the CA certificates file"), "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
        #expect(farm.processes().isEmpty, "nothing started")
    }
}
