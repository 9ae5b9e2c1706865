import ArgumentParser
import FarmLists
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `window --resources N`: how long `farm serve` (the `farm` next to this binary) takes to answer
/// windows of a list of N resources (SPEC §9: `GET /api/lists/<id>?offset=O&limit=L[&q=…]`), measured
/// from the request sent to the last byte read, over one kept-alive connection on 127.0.0.1.
///
/// The list is published through the spool's API, each resource with a title and a caption, and
/// half of it is done (claimed, then completed with an outcome record), as in the middle of a run:
/// a window reads the outcome records of its done resources. Measured: the first window (the table
/// read into memory), windows of 100 (the page's) and 500 (the most) at random offsets, the first
/// search (its keys built) and searches after it, and for comparison the whole list as
/// `GET /api/lists/<id>` without a window answers it.
struct WindowBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "window",
                                                    abstract: "farm serve's answer time for windows of a big list.")

    @OptionGroup var workspace: Workspace
    @Option(help: "Resources in the list.") var resources = 100_000
    @Option(help: "Windows measured at each size.") var samples = 300

    func run() throws {
        let base = try workspace.make("window")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let spool = try Spool(root: base + "/spool")
        let list = ListID.of(name: "Window.json")
        let jobs = (0..<resources).lazy.map {
            NewJob(name: JobName(list: list, index: $0),
                   record: JobRecord(url: "http://127.0.0.1:1/photos/folder-\($0 / 100)/photo-\($0).jpg",
                                     id: "r\($0)", title: "Photo \($0)", caption: "Caption \($0)"))
        }
        let record = ListRecord(name: "Window.json", total: resources, digest: "bench", source: "bench",
                                added: Timestamp.iso8601(Clock.wall()))
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: record.encoded())])
        let claimer = Claimer(spool: spool)
        for _ in 0..<resources / 2 {
            guard let claim = try claimer.claim() else { break }
            let path = spool.files + "/" + list + "/\(claim.job.index).jpg"
            let done = Sidecar(status: .done, bytes: 50_000, size: 50_000, kind: "jpg", file: path, image: path,
                               changed: Timestamp.iso8601(Clock.wall()))
            _ = try spool.complete(claim, .done, record: done)
        }
        // Settled: the server keeps a table in memory once its file is a second old.
        Thread.sleep(forTimeInterval: 1.1)

        let log = base + "/serve.log"
        let pid = try Spawned.start(Spawned.sibling("farm"), ["serve", "--port", "0", "--spool", spool.root], log: log)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        let client = try LoopbackClient(port: try Self.port(log))
        let path = "/api/lists/\(list)"
        print("a list of \(resources) resources, half of them done, on \(workspace.dir):")
        print("first window of 100 (table read): " + Self.millis(try client.time(path + "?offset=0&limit=100").seconds))
        var random = SplitMix64()
        for limit in [100, 500] {
            var times: [Double] = []
            for _ in 0..<samples {
                let offset = Int(random.next() % UInt64(max(1, resources - limit)))
                times.append(try client.time(path + "?offset=\(offset)&limit=\(limit)").seconds)
            }
            print("window of \(limit) at a random offset: " + Self.report(times))
        }
        print("first search (keys built): " + Self.millis(try client.time(path + "?q=photo%2042&limit=100").seconds))
        var searches: [Double] = []
        for _ in 0..<max(1, samples / 3) {
            searches.append(try client.time(path + "?q=photo%20\(random.next() % 10_000)&limit=100").seconds)
        }
        print("search by title, first 100 matches: " + Self.report(searches))
        let whole = try client.time(path)
        print("the whole list (no window): \(Self.millis(whole.seconds)), \(whole.bytes / 1_000_000) MB")
    }

    /// The port `farm serve` printed in its log ("farm serve: http://127.0.0.1:PORT/ …").
    private static func port(_ log: String) throws -> Int {
        let deadline = Clock.monotonic() + 30
        while Clock.monotonic() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression),
               let port = Int(text[range].dropFirst("http://127.0.0.1:".count).dropLast()) {
                return port
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ValidationError("farm serve printed no address within 30 s: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    private static func millis(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

    private static func report(_ values: [Double]) -> String {
        "p50 \(millis(values.quantile(0.5))), p99 \(millis(values.quantile(0.99))), max \(millis(values.quantile(1)))"
    }
}

/// One HTTP/1.1 connection to 127.0.0.1, kept alive between requests: a GET at a time, its body read to
/// the length its Content-Length says. Enough for farm serve's JSON answers; one thread.
final class LoopbackClient {
    private let socket: Int32
    private let host: String
    private var pending: [UInt8] = []

    init(port: Int) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, connected == 0 else {
            if fd >= 0 { close(fd) }
            throw ValidationError("cannot connect to 127.0.0.1:\(port): \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket = fd
        host = "127.0.0.1:\(port)"
    }

    deinit { close(socket) }

    /// GETs `path`; the time from sending to the last byte of the body, and the body's size. Throws
    /// on anything but a 200.
    func time(_ path: String) throws -> (seconds: Double, bytes: Int) {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nAccept: application/json\r\n\r\n".utf8)
        let start = Clock.monotonic()
        guard write(socket, request, request.count) == request.count else { throw ValidationError("write: \(errno)") }
        let head = try read(until: Array("\r\n\r\n".utf8))
        let text = String(decoding: head, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200") else { throw ValidationError("\(path): \(text.prefix(80))") }
        let length = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while pending.count < length { try fill() }
        pending.removeFirst(length)
        return (Clock.monotonic() - start, length)
    }

    /// The bytes up to and including `marker`, taken from what was read.
    private func read(until marker: [UInt8]) throws -> [UInt8] {
        while true {
            if let end = pending.firstRange(of: marker)?.upperBound {
                defer { pending.removeFirst(end) }
                return Array(pending[..<end])
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = Glibc.read(socket, &chunk, chunk.count)
        guard count > 0 else { throw ValidationError("the server closed the connection") }
        pending += chunk[0..<count]
    }
}
