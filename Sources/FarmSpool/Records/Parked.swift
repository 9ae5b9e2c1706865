import FarmSystem

// Parked jobs (FarmHosts): `queue/h<host>/p/<job>`, where <host> is the `raw` of FarmHosts' `HostKey`, a name
// escaped by `NameEscape`. The spool knows the batch's name only; what a host is, FarmHosts says.
extension Spool {
    /// The queue batch of the jobs parked for `host`, by its name in queue/ (`h<host>`).
    package static let parkedBatchPrefix = "h"
    package func parkedShard(ofHost host: String) -> String { queue + "/" + Self.parkedBatchPrefix + host + "/p" }

    /// The host (its escaped name) whose parked jobs the queue batch named `batch` holds; nil for any other.
    public static func parkedHost(ofBatch batch: String) -> String? {
        batch.hasPrefix(parkedBatchPrefix) && isHostName(batch.dropFirst()) ? String(batch.dropFirst()) : nil
    }

    /// Whether `name` can be a `HostKey`'s raw name: three parts, each escaped and not empty, joined by `_`.
    package static func isHostName(_ name: Substring) -> Bool {
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy({ !$0.isEmpty })
            && name.utf8.allSatisfy({ NameEscape.isPlain($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "_") })
    }
}
