import ArgumentParser

/// The options every chaos run takes, on one machine or on a cluster.
struct RunOptions: ParsableArguments {
    @Option(help: "Seconds allowed for the farm to finish once the chaos is over.")
    var drainTimeout: Double = 600
    @Option(help: "The farm executable (default: `farm` next to this one).")
    var farm: String?
    @Option(help: "Where to put the spool and whatever else the run makes (default: a new temporary directory).")
    var dir: String?
    @Option(help: "Seed of the corpus and of the chaos (default: random).")
    var seed: UInt64?
    @Option(help: "Write the figures as JSON to this file.")
    var report: String?
    @Flag(help: "Also exit 1 when a timing or traffic goal is missed.")
    var strict = false
}
