import FarmSystem
import Foundation
import Glibc

/// A real HTTP proxy on 127.0.0.1 for plain-http requests, which logs the head of every request that
/// passes through it: what a company's proxy sees. One request a connection (it asks the origin to
/// close, and closes after the answer), enough for a client that opens another. `stop()` ends it.
public final class LoggingProxy: @unchecked Sendable {
    public private(set) var port = 0
    private let listener: Int32
    private let heads = Locked<[String]>([])

    public init() throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw CommandFailed("the proxy cannot listen on 127.0.0.1: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in accepting() }
    }

    /// Stops accepting; the connections under way end with their answers.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The heads (request line and headers) of every request it passed on, in order.
    public var requests: [String] { heads.withLock { $0 } }

    private func accepting() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in
                defer { close(client) }
                relay(client)
            }
        }
    }

    /// Reads one request's head from `client`, logs it, sends it on in origin form and copies the answer
    /// back until the origin closes.
    private func relay(_ client: Int32) {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(client, &buffer, 1)
            guard count == 1 else { return }
            head.append(buffer[0])
        }
        let text = String(decoding: head, as: UTF8.self)
        heads.withLock { $0.append(text) }
        var lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3, let target = URL(string: String(parts[1])), let host = target.host,
              let upstream = connectTCP(host, target.port ?? 80) else {
            _ = write(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 66)
            return
        }
        defer { close(upstream) }
        let path = target.path.isEmpty ? "/" : target.path + (target.query.map { "?" + $0 } ?? "")
        lines[0] = "\(parts[0]) \(path) \(parts[2])"
        lines.removeAll { line in
            let name = line.prefix { $0 != ":" }.lowercased()
            return ["connection", "proxy-connection", "proxy-authorization", "keep-alive"].contains(name)
        }
        let forwarded = Array((lines.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8)
        guard write(upstream, forwarded, forwarded.count) == forwarded.count else { return }
        while true {
            let count = read(upstream, &buffer, buffer.count)
            guard count > 0, write(client, buffer, count) == count else { return }
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
