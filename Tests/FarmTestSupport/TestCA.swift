import Foundation
import Testing

/// A private CA (a company's, a TLS-inspecting proxy's) and a certificate it signed for 127.0.0.1, made
/// by openssl in `dir` for one test: what a server of the tests presents, and what farm must be told of.
public struct TestCA {
    public let dir: TemporaryDirectory
    /// The CA's certificate: what `--ca-file` or SSL_CERT_FILE names.
    public var ca: String { dir.appending("ca.pem") }
    /// The server's certificate and key, signed by the CA for the address 127.0.0.1.
    public var certificate: String { dir.appending("server.pem") }
    public var key: String { dir.appending("server.key") }

    public init(in dir: TemporaryDirectory) throws {
        self.dir = dir
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: dir.appending("ext.cnf"), atomically: true, encoding: .utf8)
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.appending("ca.key"), "-out", ca,
             "-days", "2", "-subj", "/CN=farm test CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", dir.appending("server.csr"),
             "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", dir.appending("server.csr"), "-CA", ca, "-CAkey", dir.appending("ca.key"),
             "-CAcreateserial", "-out", certificate, "-days", "2", "-extfile", dir.appending("ext.cnf")],
        ] {
            let made = try run("/usr/bin/openssl", arguments)
            try #require(made.status == 0, "openssl \(arguments[0]): \(made.error)")
        }
    }
}
