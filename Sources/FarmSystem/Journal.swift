import Glibc

/// The systemd journal, for a farm run as a service (Sources/Packaging/farm@.service): there every line a
/// farm process logs goes to the journal too, where `systemctl status` and `journalctl -u` show it. Only
/// the supervisor's own output would reach it otherwise: its workers, watcher and follower write theirs to
/// the spool's log. Sent through syslog(3), which journald files under the service by the sender's cgroup.
/// Any process, any thread.
public enum Journal {
    /// Whether this process runs under systemd with its output in the journal: systemd sets JOURNAL_STREAM
    /// for the service's process, and every farm process it starts inherits it.
    public static let isConnected = Processes.environment("JOURNAL_STREAM") != nil

    /// Sends `line` to the journal when this process runs under systemd; nothing otherwise.
    public static func send(_ line: String) {
        guard isConnected else { return }
        line.withCString { text in
            withVaList([text]) { vsyslog(LOG_DAEMON | LOG_INFO, "%s", $0) }
        }
    }
}
