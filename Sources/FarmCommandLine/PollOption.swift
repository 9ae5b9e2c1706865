import ArgumentParser

/// `--poll`, shared by the commands that follow the spool live: `start` (kept for the watcher and the
/// views of the spool), `watch`, `top`, `serve` and `wait` (see FarmChangeFeed's `Polling`).
public struct PollOption: ParsableArguments {
    public init() {}

    @Flag(help: """
        Poll the spool instead of trusting inotify, as is done without asking on FUSE (GlusterFS), NFS and \
        other file systems that other hosts share.
        """)
    public var poll = false
}
