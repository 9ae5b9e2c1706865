import FarmSystem
import Glibc
import SystemPackage

/// `farm demo`'s sample origin: `farm-serve demo-origin`, a child of this process that draws the samples
/// and serves them from 127.0.0.1 (farm links no HTTP server; see `ServerExecutable`). Its first line, read
/// through a pipe from its standard output, is its address and the number of resources, or why it could not
/// serve.
struct DemoOriginChild {
    let pid: Int32
    /// `http://127.0.0.1:PORT/`.
    let url: String
    let resources: Int
    /// The pipe's end we read, open until the child is stopped: a write after its first line must not
    /// kill it with SIGPIPE.
    private let output: FileDescriptor

    /// Starts the origin on 127.0.0.1:`port`; returns once it serves. Throws its reason when it cannot.
    static func start(port: Int) throws -> DemoOriginChild {
        let path = try ServerExecutable.path()
        let (read, write) = try FileDescriptor.pipe()
        let pid: Int32
        do {
            // The child's standard output: our pipe, reopened through /proc before exec. Its standard error is
            // ours: what it says there (the dynamic linker's LD_DEBUG, a crash) is the user's, not our line.
            pid = try Processes.spawn(path, ["farm", "demo-origin", "--port", String(port),
                                             "--parent", String(Processes.current())],
                                      output: "/proc/self/fd/\(write.rawValue)", keepingErrors: true)
        } catch {
            try? write.close()
            try? read.close()
            throw FarmError("cannot run \(path): \(error)")
        }
        try? write.close()
        let line = firstLine(read)
        let words = line.split(separator: " ")
        guard words.count == 2, words[0].hasPrefix("http://"), let resources = Int(words[1]) else {
            _ = Processes.exit(ofChild: pid, blocking: true)
            try? read.close()
            let why = line.isEmpty ? "it ended" : line
            throw FarmError("cannot serve the samples on 127.0.0.1:\(port) (\(why)); pick another with --port")
        }
        return DemoOriginChild(pid: pid, url: String(words[0]), resources: resources, output: read)
    }

    /// `http://127.0.0.1:PORT` followed by `path` (which starts with a slash).
    func url(for path: String) -> String { String(url.dropLast()) + path }

    /// Stops the origin; returns once it has ended.
    func stop() {
        _ = Processes.send(.terminate, to: pid)
        _ = Processes.exit(ofChild: pid, blocking: true)
        try? output.close()
    }

    /// The first line written to `descriptor`, without its newline (what came before end of file, if none).
    private static func firstLine(_ descriptor: FileDescriptor) -> String {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while withUnsafeMutableBytes(of: &byte, { try? descriptor.read(into: $0) }) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}
