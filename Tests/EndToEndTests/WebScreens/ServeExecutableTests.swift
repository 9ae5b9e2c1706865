import FarmTestSupport
import Foundation
import Testing

/// farm serve runs farm-serve, the executable that holds farm's HTTP servers, found beside farm: farm itself,
/// the binary every worker runs, links no HTTP, TLS or WebSocket code.
@Suite struct ServeExecutableTests {
    /// The symbols of the build's two executables: NIO, Hummingbird and NIOSSL are in farm-serve only.
    @Test func onlyFarmServeLinksTheHTTPServer() throws {
        let modules = ["7NIOCore", "11Hummingbird", "6NIOSSL", "20HummingbirdWebSocket"]
        for (executable, linked) in [("farm", false), ("farm-serve", true)] {
            let symbols = try run("/usr/bin/env", ["nm", "--defined-only", Executables.path(executable)], timeout: 300)
            #expect(symbols.status == 0, "\(symbols.error)")
            for module in modules {
                #expect(symbols.output.contains("$s\(module)") == linked,
                        "\(executable) \(linked ? "does not link" : "links") \(module.drop { $0.isNumber })")
            }
        }
    }

    /// ps shows the server as it was typed, `farm serve …`, while its executable is farm-serve, and a
    /// command line farm refuses never reaches farm-serve.
    @Test func theServerIsFarmServeUnderTheCommandTyped() throws {
        let dir = TemporaryDirectory()
        let serve = try ServeProcess(spool: dir.appending("spool"))
        let pid = serve.child.pid
        let commandLine = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
            .split(separator: "\0").map(String.init)
        #expect(Array(commandLine.prefix(2)) == ["farm", "serve"], "\(commandLine)")
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(executable.hasSuffix("/farm-serve"), "\(executable)")
        #expect(try serve.get("/api/status").status == 200)
        #expect(serve.stop() == 0)

        let refused = try run("farm", ["serve", "--tls-cert", "c.pem", "--spool", dir.appending("spool")])
        #expect(refused.status == 64, "\(refused.status) \(refused.error)")
        #expect(refused.error.contains("--tls-cert and --tls-key go together"), "\(refused.error)")
    }

    /// A farm copied without farm-serve says in one line what is missing, and listens nowhere.
    @Test func aFarmWithoutFarmServeSaysSoInOneLine() throws {
        let dir = TemporaryDirectory()
        let lone = dir.appending("bin")
        try FileManager.default.createDirectory(atPath: lone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Executables.path("farm"), toPath: lone + "/farm")
        let result = try run(lone + "/farm", ["serve", "--port", "0", "--spool", dir.appending("spool")])
        #expect(result.status == 1, "\(result.status) \(result.output) \(result.error)")
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("cannot find farm-serve"), "\(result.error)")
        #expect(!result.output.contains("farm serve: http"))
    }
}
