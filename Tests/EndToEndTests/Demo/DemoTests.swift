import FarmJSON
import FarmRegistry
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// `farm demo` without a terminal: it runs the sample set to the end and prints the final status,
/// with exactly the planned errors, and leaves nothing running.
@Suite struct DemoTests {
    @Test func demoRunsToTheEndWithExactlyThePlannedErrors() throws {
        let dir = TemporaryDirectory()
        let spoolPath = dir.appending("spool")
        defer {
            // The demo stops what it started; should it fail to, end those processes by pid.
            if let spool = try? Spool(root: spoolPath, create: false) {
                for process in spool.registry.processes() { kill(process.pid, SIGKILL) }
            }
        }
        let result = try run("farm", ["demo", "--spool", spoolPath, "--port", "0"], timeout: 300)
        try #require(result.status == 0, "\(result.error)")
        #expect(result.output.contains("13/13 finished (2 failed)"), "\(result.output)")

        let status = try run("farm", ["status", "--json", "--spool", spoolPath])
        let document = try #require(JSON.decode(StatusDocument.self, from: Array(status.output.utf8)),
                                    "\(status.output)")
        let lists = document.lists
        #expect(lists.count == 4)
        #expect(lists.allSatisfy { $0.state == .finished })
        var errors: [String] = []
        for list in lists {
            let name = list.name
            let view = try run("farm", ["status", name, "--json", "--spool", spoolPath])
            let object = try #require(JSON.decode(ListStatus.self, from: Array(view.output.utf8)), "\(view.output)")
            for resource in object.resources ?? [] where resource.status == .error {
                errors.append("\(name) \(resource.index): \(resource.error ?? "?")")
            }
        }
        #expect(errors.sorted() == ["Documents.json 2: HTTP 404", "Photos.json 4: unsupported content"])
        let spool = try Spool(root: spoolPath, create: false)
        #expect(spool.registry.processes().isEmpty, "the demo left processes running")
    }

    /// The samples are served by a child, `farm-serve demo-origin`: a port already taken is refused in one line,
    /// and the child does not outlive farm demo, even killed with SIGKILL.
    @Test func theSampleOriginIsAChildThatEndsWithTheDemo() throws {
        let dir = TemporaryDirectory()
        let spoolPath = dir.appending("spool")
        defer {
            if let spool = try? Spool(root: spoolPath, create: false) {
                for process in spool.registry.processes() { kill(process.pid, SIGKILL) }
            }
        }
        let taken = try ListeningSocket()
        let refused = try run("farm", ["demo", "--spool", spoolPath, "--port", String(taken.port)], timeout: 120)
        #expect(refused.status == 1, "\(refused.status) \(refused.output) \(refused.error)")
        let lines = refused.error.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("cannot serve the samples on 127.0.0.1:\(taken.port)")
                && lines[0].contains("pick another with --port"), "\(refused.error)")

        let demo = try ChildProcess("farm", ["demo", "--spool", spoolPath, "--port", "0", "--workers", "1"])
        defer { demo.kill(SIGKILL); demo.wait(timeout: 15) }
        // (Its lines are buffered in a file: the child is looked for, not the line that names it.)
        var origin: Int32?
        #expect(poll(timeout: 120) {
            origin = children(of: demo.pid).first { executable(of: $0)?.hasSuffix("/farm-serve") == true }
            return origin != nil
        }, "no farm-serve child of farm demo: \(demo.standardError)")
        let pid = try #require(origin)
        demo.kill(SIGKILL)
        demo.wait(timeout: 15)
        // It sees its parent gone within 0.2 s once it serves; drawing the samples takes a few seconds first.
        #expect(poll(timeout: 120) { executable(of: pid) == nil }, "the sample origin \(pid) outlived farm demo")
        _ = try run("farm", ["stop", "--spool", spoolPath], timeout: 120)
    }

    /// The pids whose parent is `pid`.
    private func children(of pid: Int32) -> [Int32] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return all.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first == Substring(String(pid))
        }
    }

    private func executable(of pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }
}

/// A socket listening on 127.0.0.1 at a port the kernel picked, closed when released: a port in use.
private final class ListeningSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CommandFailed("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else { close(fd); throw CommandFailed("bind or listen: errno \(errno)") }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
