import FarmSpool
import FarmSystem

/// aria2's name of a download: 16 lowercase hex digits. farm's is a digest of the resource's list id and its
/// own id, so one resource keeps its GID for good (across restarts of `farm serve`, edits that move it, every
/// host), and every resource of the spool has one, whoever added it. Stateless.
public enum GID {
    public static func of(list: String, resource: String) -> String {
        var hash = FNV1a()
        hash.add(list)
        hash.add(0)
        hash.add(resource)
        return hash.hex
    }

    /// What a client may send: aria2 takes 1 to 16 hex digits, a prefix of one GID (`GroupId::expandUnique`).
    static func isWellFormed(_ text: String) -> Bool {
        (1...16).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }
}
