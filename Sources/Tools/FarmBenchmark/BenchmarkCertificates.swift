import ArgumentParser
import Foundation

/// A private CA and a server certificate it signed for 127.0.0.1, made with the openssl command in
/// `directory`: what the HTTPS runs serve, and what each client is told to trust (none of them knows
/// the CA otherwise, as with a company's CA or a TLS-inspecting proxy's).
struct BenchmarkCertificates {
    /// The CA's certificate (PEM): the clients' trust.
    let ca: String
    /// The server's certificate and key (PEM), for nginx.
    let certificate: String
    let key: String

    init(directory: String) throws {
        ca = directory + "/ca.pem"
        certificate = directory + "/server.pem"
        key = directory + "/server.key"
        let caKey = directory + "/ca.key"
        let request = directory + "/server.csr"
        let extensions = directory + "/server.ext"
        let log = directory + "/openssl.log"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // P-256 keys: what a server today would most likely present, and quick to make.
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try Spawned.run("openssl", ["req", "-x509"] + newKey + ["-keyout", caKey, "-out", ca, "-days", "30",
                                                                 "-subj", "/CN=farm benchmark CA"], log: log)
        try Spawned.run("openssl", ["req"] + newKey + ["-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
                        log: log)
        try """
            subjectAltName = IP:127.0.0.1, DNS:localhost
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature
            extendedKeyUsage = serverAuth

            """.write(toFile: extensions, atomically: true, encoding: .utf8)
        try Spawned.run("openssl", ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial",
                                    "-out", certificate, "-days", "30", "-extfile", extensions], log: log)
    }
}
