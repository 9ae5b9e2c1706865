import ArgumentParser
import FarmCommandLine
import FarmServe
import FarmSpool
import FarmSystem
import FoundationEssentials

/// `farm serve` itself, exec'd by farm with the arguments farm checked (farm's Serve.swift documents them):
/// prints the address it listens on (one line), then serves until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "farm serve: the app in a browser, and aria2's RPC (see farm serve --help).")

    @OptionGroup var serve: ServeOptions

    func run() throws {
        let spool = try serve.options.open()
        StopSignal.install()
        let tls = serve.tlsCert.flatMap { cert in serve.tlsKey.map { (certificate: cert, key: $0) } }
        let password = try firstLine(of: serve.passwordFile, "password")
        let secret = try serve.rpcSecret ?? firstLine(of: serve.rpcSecretFile, "RPC secret")
        guard secret?.isEmpty != true else {
            Standard.error("Error: --rpc-secret may not be empty\n")
            throw ExitCode(2)
        }
        let server = try Self.server(spool: spool, host: serve.host, port: serve.port, poll: serve.polling.poll,
                                     password: password, tls: tls, rpcSecret: secret, rpcDir: serve.rpcDir)
        try server.start()
        // Written at once (print would buffer it in a pipe): whoever started us waits for this line.
        Standard.output("farm serve: \(server.url) (spool \(spool.root); ^C stops)\n")
        // The server runs on its own threads; this one only waits for ^C or SIGTERM.
        Clock.poll(every: 0.1, for: .infinity) { StopSignal.received }
        server.stop()
    }

    /// The server as asked for; what it refuses (a public address without a password, a certificate that
    /// does not read) is the user's to fix: one line, exit 2 (SPEC §12).
    private static func server(spool: Spool, host: String, port: Int, poll: Bool, password: String?,
                               tls: (certificate: String, key: String)?, rpcSecret: String?,
                               rpcDir: String?) throws -> WebServer {
        do {
            let folder = rpcDir.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
            return try WebServer(spool: spool, host: host, port: port, poll: poll, password: password, tls: tls,
                                 rpcSecret: rpcSecret, rpcFolder: folder)
        } catch {
            guard error.code == .badRequest else { throw error }
            Standard.error("Error: \(error)\n")
            throw ExitCode(2)
        }
    }

    /// The first line of --password-file or --rpc-secret-file; refused when it cannot be read or is empty.
    private func firstLine(of file: String?, _ what: String) throws -> String? {
        guard let file else { return nil }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            Standard.error("Error: cannot read the \(what) file \(file)\n")
            throw ExitCode(2)
        }
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) } ?? ""
        guard !line.isEmpty else {
            Standard.error("Error: the \(what) file \(file) has nothing on its first line\n")
            throw ExitCode(2)
        }
        return line
    }
}
