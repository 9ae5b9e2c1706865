import ArgumentParser
import Foundation
import Glibc

/// nginx on 127.0.0.1 with a private configuration in a directory of its own: in the foreground
/// (`daemon off`, so it stays our child), keep-alive on, access log off unless connections are
/// counted, its error log, pid file and temporary paths under that directory. Ended by pid in `stop()`.
final class Nginx {
    let port: Int
    private let pid: pid_t
    private let directory: String
    private let scheme: String
    /// One line per request, in `ConnectionLog.format`.
    private var connectionLog: String { directory + "/connections.log" }

    /// Serves `root`; `extra` is added to the server block (e.g. a location that maps every path to one
    /// file), `modules` are loaded first (paths of dynamic modules). With `tls`, HTTPS with HTTP/2 on
    /// that certificate. With `countConnections`, every request is logged with its connection (see
    /// `connections()`); with `requestLog`, every request is logged there too, in nginx's `combined` format
    /// (see `RequestLog`).
    init(root: String, directory: String, extra: String = "", modules: [String] = [],
         tls: BenchmarkCertificates? = nil, countConnections: Bool = false, requestLog: String? = nil) throws {
        self.directory = directory
        scheme = tls == nil ? "http" : "https"
        try FileManager.default.createDirectory(atPath: directory + "/temp", withIntermediateDirectories: true)
        // Running as root, the workers would drop to `nobody`, who may not read a 0700 temporary corpus.
        let user = geteuid() == 0 ? "user root;\n" : ""
        let temp = directory + "/temp"
        let load = modules.map { "load_module \($0);\n" }.joined()
        let port = try Self.freePort()
        self.port = port
        let listen = tls.map { "\(port) ssl http2;\n    ssl_certificate \($0.certificate);\n"
            + "    ssl_certificate_key \($0.key);" } ?? "\(port);"
        let logs = (countConnections ? ["log_format connections \(ConnectionLog.format);",
                                        "access_log \(directory)/connections.log connections;"] : [])
            + (requestLog.map { ["access_log \($0);"] } ?? [])
        let log = logs.isEmpty ? "access_log off;" : logs.joined(separator: "\n    ")
        let config = """
            \(load)daemon off;
            master_process on;
            worker_processes 2;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            \(user)events { worker_connections 1024; }
            http {
                \(log)
                sendfile on;
                tcp_nopush on;
                keepalive_timeout 65;
                keepalive_requests 1000000;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                types { image/jpeg jpg; image/png png; application/pdf pdf; application/zip zip; }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(listen)
                    root \(root);
                    \(extra)
                }
            }

            """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        pid = try Spawned.start(Self.executable, ["-p", directory, "-c", directory + "/nginx.conf",
                                                  "-e", directory + "/error.log"], log: directory + "/stderr.log")
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port) {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid || Date() > deadline {
                kill(pid, SIGKILL)
                let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
                throw ValidationError("nginx did not start on 127.0.0.1:\(port): \(log.suffix(400))")
            }
            usleep(20_000)
        }
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)/" + path }

    /// The requests logged since the last call (see `ConnectionLog`); the log starts over. nginx writes
    /// its log with O_APPEND, so truncating it under nginx is safe.
    func connections() -> ConnectionLog {
        let text = (try? String(contentsOfFile: connectionLog, encoding: .utf8)) ?? ""
        truncate(connectionLog, 0)
        return ConnectionLog(text: text)
    }

    /// CPU seconds used so far by the master and its workers (its children, found by their parent
    /// pid in /proc): read before and after a run, the server's share of that run.
    func cpu() -> Double {
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(pid_t.init)
            .filter { Spawned.stat(of: $0).map { $0.count > 1 && pid_t($0[1]) == pid } ?? false }
        return ([pid] + children).map(Spawned.cpu(of:)).reduce(0, +)
    }

    /// Fast shutdown of the master (its workers follow it), then reaped.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(25_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    static var executable: String {
        ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first { access($0, X_OK) == 0 } ?? "nginx"
    }

    /// A port the kernel just found free on 127.0.0.1 (bound to 0, read back, closed).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw ValidationError("cannot find a free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
