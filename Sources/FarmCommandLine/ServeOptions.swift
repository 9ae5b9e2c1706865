import ArgumentParser

/// `farm serve`'s options, parsed twice: by `farm`, whose help, man page and completions show them and
/// which refuses a command line that does not parse, then by farm-serve, which `farm serve` execs with the
/// same arguments and which runs the server.
public struct ServeOptions: ParsableArguments {
    public init() {}

    /// The port served when none is given (FarmServe's `WebServer.defaultPort`; farm does not link FarmServe).
    public static let defaultPort = 8771

    @OptionGroup public var options: SpoolOptions

    @Option(help: "The address to listen on (0.0.0.0 for every interface; any but a loopback one needs --password-file).")
    public var host = "127.0.0.1"

    @Option(help: ArgumentHelp("A file whose first line is the password of user farm (HTTP Basic).", valueName: "file"))
    public var passwordFile: String?

    @Option(help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM, the server's first).", valueName: "pem"))
    public var tlsCert: String?

    @Option(help: ArgumentHelp("The private key of --tls-cert (PEM).", valueName: "pem"))
    public var tlsKey: String?

    @Option(help: "The port to listen on (0: any free port; the line printed says which).")
    public var port = ServeOptions.defaultPort

    @Option(help: ArgumentHelp("aria2's --rpc-secret: calls to /jsonrpc need token:SECRET first.", valueName: "secret"))
    public var rpcSecret: String?

    @Option(help: ArgumentHelp("A file whose first line is the RPC secret (kept off the command line).",
                               valueName: "file"))
    public var rpcSecretFile: String?

    @Option(help: ArgumentHelp("aria2's dir: where an addUri without its own dir delivers (default: the current folder).",
                               valueName: "dir"))
    public var rpcDir: String?

    @OptionGroup public var polling: PollOption

    public func validate() throws {
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: give both, or neither for plain HTTP")
        }
        guard rpcSecret == nil || rpcSecretFile == nil else {
            throw ValidationError("give --rpc-secret or --rpc-secret-file, not both")
        }
    }
}
