import Foundation
import Glibc

/// Prometheus' own tools for the metrics tests (Debian's `prometheus` package, which bin/setup installs):
/// `promtool check metrics`, a real Prometheus server, and the samples of a page in the text format.
public enum Prometheus {
    /// The path of `tool` on $PATH; throws, for the test to fail with the reason, when it is not there.
    public static func tool(_ tool: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where access("\(directory)/\(tool)", X_OK) == 0 {
            return "\(directory)/\(tool)"
        }
        throw CommandFailed("\(tool) is not on PATH: install Debian's prometheus package (bin/setup does)")
    }

    /// What `promtool check metrics` says of `page` (read from its standard input): its exit status and
    /// its complaints.
    public static func check(_ page: String) throws -> (status: Int32, output: String) {
        let promtool = try tool("promtool")
        let dir = TemporaryDirectory("farm-promtool")
        let file = dir.appending("metrics.txt")
        try Data(page.utf8).write(to: URL(fileURLWithPath: file))
        let result = try run("/bin/sh", ["-c", "exec \"$0\" check metrics < \"$1\"", promtool, file], timeout: 60)
        return (result.status, result.output + result.error)
    }

    /// The samples of a page in the text format, by series as written (`name{label="value"}`).
    public static func samples(_ page: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in page.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}

/// A real Prometheus server on 127.0.0.1 that scrapes `target` (host:port, path /metrics) every second,
/// its data in a temporary directory. Stopped by pid (SIGTERM, then SIGKILL) and its directory removed
/// when released.
public final class PrometheusServer {
    public let port: Int
    private let dir = TemporaryDirectory("farm-prometheus")
    private let child: ChildProcess

    public init(scraping target: String) throws {
        let prometheus = try Prometheus.tool("prometheus")
        port = try freePort()
        let config = dir.appending("prometheus.yml")
        try Data("""
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: farm
                scrape_interval: 1s
                static_configs:
                  - targets: ["\(target)"]

            """.utf8).write(to: URL(fileURLWithPath: config))
        child = try ChildProcess(prometheus, [
            "--config.file=\(config)", "--storage.tsdb.path=\(dir.appending("data"))",
            "--web.listen-address=127.0.0.1:\(port)",
        ])
    }

    /// `http://127.0.0.1:<port>`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// What the server printed, for failure messages.
    public var log: String { child.standardOutput + child.standardError }

    public var isRunning: Bool { child.process.isRunning }

    deinit {
        child.kill(SIGTERM)
        if child.wait(timeout: 15) == nil {
            child.kill(SIGKILL)
            child.wait(timeout: 15)
        }
    }
}
