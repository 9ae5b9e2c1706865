import Foundation
import Glibc
import Testing

/// nginx on 127.0.0.1 serving a directory over HTTPS with HTTP/2 (ALPN), with a certificate of a private
/// CA, as a real server a user's farm would meet: every request logged with its connection, so that a
/// test sees from the server's side how many connections (each a TLS handshake) and streams farm used.
/// One process (`master_process off`), ended by its pid.
public final class NginxServer {
    /// One request as the server logged it.
    public struct Request: Sendable {
        /// The connection's serial number: requests of one connection share it.
        public let connection: Int
        /// `HTTP/2.0` or `HTTP/1.1`.
        public let proto: String
        /// When the response began and ended (seconds since the epoch, to the millisecond).
        public let started: Double
        public let ended: Double
        public let status: Int
        public let path: String
    }

    public let port: Int
    private let directory: String
    private let server: ChildProcess

    /// Serves `root` with `certificates`; each response is sent at `bytesPerSecond` at most.
    public init(root: String, certificates: TestCA, bytesPerSecond: Int, in dir: TemporaryDirectory) throws {
        directory = dir.appending("nginx")
        try FileManager.default.createDirectory(atPath: directory + "/temp", withIntermediateDirectories: true)
        port = try freePort()
        // Running as root, nginx would serve as `nobody`, who may not read the test's 0700 directory.
        let user = geteuid() == 0 ? "user root;" : ""
        let config = """
            daemon off;
            master_process off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            \(user)
            events { worker_connections 256; }
            http {
                log_format requests '$connection $server_protocol $msec $request_time $status $uri';
                access_log \(directory)/requests.log requests;
                client_body_temp_path \(directory)/temp/body;
                proxy_temp_path \(directory)/temp/proxy;
                fastcgi_temp_path \(directory)/temp/fastcgi;
                uwsgi_temp_path \(directory)/temp/uwsgi;
                scgi_temp_path \(directory)/temp/scgi;
                types { image/jpeg jpg; image/png png; }
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(certificates.certificate);
                    ssl_certificate_key \(certificates.key);
                    root \(root);
                    limit_rate \(bytesPerSecond);
                }
            }

            """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        server = try ChildProcess("/usr/sbin/nginx", ["-p", directory, "-c", directory + "/nginx.conf",
                                                      "-e", directory + "/error.log"])
        let port = port
        guard poll(timeout: 20, every: 0.05, { connectTCP("127.0.0.1", port).map(close) != nil }) else {
            server.kill()
            let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
            throw NginxError(message: "nginx did not come up on 127.0.0.1:\(port): \(server.standardError) \(log)")
        }
    }

    public struct NginxError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)/" + path }

    /// Every request logged so far (nginx writes a line as each response ends).
    public var requests: [Request] {
        let text = (try? String(contentsOfFile: directory + "/requests.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 6, let connection = Int(fields[0]), let ended = Double(fields[2]),
                  let took = Double(fields[3]), let status = Int(fields[4]) else { return nil }
            return Request(connection: connection, proto: fields[1], started: ended - took, ended: ended,
                           status: status, path: fields[5])
        }
    }

    /// The most requests the server was sending a response to at one instant.
    public static func mostAtOnce(_ requests: [Request]) -> Int {
        // An end before a start at the same instant: a response that ended as another began is not "at once".
        var edges: [(at: Double, step: Int)] = []
        for request in requests {
            edges.append((request.started, 1))
            edges.append((request.ended, -1))
        }
        edges.sort { a, b in a.at < b.at || (a.at == b.at && a.step < b.step) }
        var now = 0, most = 0
        for (_, step) in edges {
            now += step
            most = max(most, now)
        }
        return most
    }

    deinit { server.kill() }
}
