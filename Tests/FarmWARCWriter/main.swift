// farm-warc-writer: a child process for FarmWARCTests, which kills it.
//
//   farm-warc-writer loop DIR MAX_SIZE BODY_FILE   appends exchanges until killed (or stopped after 100,000),
//                                                  their bodies in turn bytes of varied length and BODY_FILE
//   farm-warc-writer once DIR BODY_FILE            appends one exchange whose body is BODY_FILE, closes
//   farm-warc-writer compact DIR FILE ID...        drops the responses ID... (and their requests) from FILE;
//                                                  with FARM_FAILPOINT=<point> set, SIGKILLs itself there
//
// After each append returns (the records are on the disk) it prints `ack <response ID> <file>`; `once` then
// prints `hwm <kB>`, its peak resident size, so a test can see a large body was streamed, not held.
import FarmSystem
import FarmWARC
import Glibc

func exchange(_ n: Int, body: WARCBody) -> WARCExchange {
    let request = "GET /item/\(n) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: farm\r\nAccept: */*\r\n\r\n"
    var responseHead = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
    if case .bytes(let bytes) = body { responseHead += "Content-Length: \(bytes.count)\r\n" }
    responseHead += "\r\n"
    return WARCExchange(targetURI: "http://127.0.0.1:8080/item/\(n)", ipAddress: "127.0.0.1",
                        request: WARCBlock(head: Array(request.utf8)),
                        response: WARCBlock(head: Array(responseHead.utf8), body: body))
}

func fail(_ message: String) -> Never {
    Standard.error("farm-warc-writer: \(message)\n")
    exit(1)
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "loop" where arguments.count == 5:
        guard let maxSize = Int(arguments[3]) else { fail("bad size \(arguments[3])") }
        let writer = try WARCWriter(directory: arguments[2], software: "farm/test", maxSize: maxSize)
        var generator = SplitMix64(seed: UInt64(getpid()))
        for n in 0..<100_000 {
            let body: WARCBody
            if n % 3 == 2 {
                body = .file(arguments[4])
            } else {
                let count = Int(generator.next() % 200_000)
                let fill = UInt8(truncatingIfNeeded: n)
                body = .bytes((0..<count).map { UInt8(truncatingIfNeeded: $0 * 31) ^ fill })
            }
            let written = try writer.write(exchange(n, body: body))
            Standard.output("ack \(written.responseID) \(written.file)\n")
        }
        try writer.close()
    case "once" where arguments.count == 4:
        let writer = try WARCWriter(directory: arguments[2], software: "farm/test")
        let written = try writer.write(exchange(0, body: .file(arguments[3])))
        try writer.close()
        Standard.output("ack \(written.responseID) \(written.file)\n")
        let status = String(decoding: try FileSystem.readFile("/proc/self/status"), as: UTF8.self)
        let hwm = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? "VmHWM: ?"
        Standard.output("hwm \(hwm.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "?")\n")
    case "compact" where arguments.count >= 5:
        if let point = getenv("FARM_FAILPOINT").map({ String(cString: $0) }) {
            Failpoint.install { passed in if passed == point { kill(getpid(), SIGKILL) } }
        }
        let outcome = try WARCCompaction.drop(responseIDs: Set(arguments[4...]), from: arguments[3], in: arguments[2])
        Standard.output("\(outcome)\n")
    default:
        fail("usage: farm-warc-writer loop DIR MAX_SIZE BODY_FILE | once DIR BODY_FILE | compact DIR FILE ID...")
    }
} catch {
    fail("\(error)")
}
