import ArgumentParser

/// `--transfers`, `--lease`, `--max-size`: a worker's limits. `farm start` makes them the farm's (kept until
/// the next start or scale); `farm work` sets them for its one worker. Either way one not given is the
/// farm's. Parsed unconditionally, so that a negative number reaches the range check (`Control.check`) and
/// is refused by its range, not as a missing value.
struct WorkerLimits: ParsableArguments {
    @Option(parsing: .unconditional, help: """
        Transfers each worker runs at once (1 to 256; default: the farm's, the last `start` or `scale`, else 1, \
        which a worker not given it follows as it changes): workers × transfers resources download at once. \
        More than 1 pays where each request waits on the server, not on the CPU (many small files from a slow \
        or far server): a worker's transfers share its connections, TLS sessions and HTTP/2. Measured at 64 \
        at once from a server taking 20 ms a response: `--workers 4 --transfers 16` as fast as wget2 (0.95×) \
        in 4 processes instead of 64.
        """)
    var transfers: Int?

    @Option(parsing: .unconditional, help: "Seconds a claim stays valid without renewal (default: the farm's, else 10).")
    var lease: Double?

    @Option(parsing: .unconditional, help: "The most bytes one download may weigh (default: the farm's, else 1 GiB).")
    var maxSize: Int?
}
