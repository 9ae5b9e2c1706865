import ArgumentParser

/// farm-serve: the executable that holds farm's HTTP servers, so that the HTTP, TLS and WebSocket stack they
/// link (Hummingbird, NIO, NIOSSL) stays out of `farm`, the binary every worker runs. Nobody types it:
/// `farm serve ARGS` execs `farm-serve serve ARGS` (farm has checked them; its help documents them), and
/// `farm demo` runs `farm-serve demo-origin` for its samples.
@main
struct FarmServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm-serve",
        abstract: "farm's HTTP servers, run by farm: farm serve, and farm demo's sample origin.",
        subcommands: [Serve.self, DemoOrigin.self])
}
