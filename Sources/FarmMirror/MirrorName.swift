/// The name a fetched URL gets under `--out DIR` by default: wget's `url_file_name` with `-r` on Unix.
/// "host[:port]/dir/…/file", where a non-default port is kept after a ":", a path ending in "/" gets
/// "index.html", a query is kept after a "?" (even an empty one), each segment is percent-decoded, and
/// what a file name cannot hold is encoded again: "/" and control bytes as %XX, a ".." segment as
/// "%2E%2E"; empty segments are dropped. A redirected download is named after the URL asked for, not the
/// one it ended at (wget without `--trust-server-names`).
public enum MirrorName {
    public static func relativePath(for url: WebURL) -> String {
        var parts: [String] = [url.host == ".." ? "%2E%2E" : url.host]
        if let port = url.explicitPort { parts[0] += ":\(port)" }
        let segments = url.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for segment in segments.dropLast() where !segment.isEmpty {
            parts.append(fileSafe(Array(segment.utf8)))
        }
        let file = segments.last.map { $0.isEmpty ? "index.html" : String($0) } ?? "index.html"
        var fileBytes = Array(file.utf8)
        if let query = url.query { fileBytes += Array("?".utf8) + Array(query.utf8) }
        parts.append(fileSafe(fileBytes))
        return parts.joined(separator: "/")
    }

    /// One segment: decoded, then "/" , NUL and control bytes (and DEL) encoded; ".." defanged.
    static func fileSafe(_ escaped: [UInt8]) -> String {
        let decoded = WebURL.percentDecodedBytes(escaped)
        if decoded == Array("..".utf8) { return "%2E%2E" }
        var output: [UInt8] = []
        for byte in decoded {
            if byte == 0x2F || byte < 0x20 || byte == 0x7F {
                output += [0x25, WebURL.hexDigits[Int(byte >> 4)], WebURL.hexDigits[Int(byte & 0xF)]]
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
