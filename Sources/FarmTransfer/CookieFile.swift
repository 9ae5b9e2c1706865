/// A cookie file in the Netscape format that curl, wget and browsers' exporters write (SPEC §12): one
/// cookie a line, seven fields separated by tabs (domain, include subdomains, path, secure, expiry,
/// name, value), `#` comments and blank lines between. A line that starts `#HttpOnly_` is a cookie
/// (Firefox marks HTTP-only ones so); libcurl reads such lines as they are.
public enum CookieFile {
    /// The cookie lines of `bytes`, each as written (its CR dropped); throws the first line that is not
    /// one, by number and without its value.
    public static func cookies(_ bytes: some Collection<UInt8>) throws(RequestOptionError) -> [String] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RequestOptionError("the cookie file is not UTF-8 text")
        }
        var cookies: [String] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let body = line.hasPrefix(httpOnlyPrefix) ? line.dropFirst(httpOnlyPrefix.count) : line
            if body.allSatisfy({ $0 == " " || $0 == "\t" }) || body.hasPrefix("#") { continue }
            if let reason = problem(of: body) {
                throw RequestOptionError("the cookie file's line \(number) is not a cookie: \(reason)")
            }
            cookies.append(String(line))
        }
        return cookies
    }

    static let httpOnlyPrefix = "#HttpOnly_"

    /// What is wrong with a cookie line (its `#HttpOnly_` prefix dropped); nil when it is one.
    static func problem(of line: Substring) -> String? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        // Some exporters leave out the tab of an empty value.
        guard fields.count == 7 || fields.count == 6 else {
            return "\(fields.count) tab-separated fields, not 7"
        }
        guard !fields[0].isEmpty else { return "no domain" }
        guard fields[1] == "TRUE" || fields[1] == "FALSE" else { return "its second field is not TRUE or FALSE" }
        guard fields[2].hasPrefix("/") else { return "its path does not start with /" }
        guard fields[3] == "TRUE" || fields[3] == "FALSE" else { return "its fourth field is not TRUE or FALSE" }
        guard Int64(fields[4]) != nil else { return "its expiry is not a number" }
        guard !fields[5].isEmpty else { return "no name" }
        guard line.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F || $0 == "\t" }) else {
            return "it holds a control character"
        }
        return nil
    }
}
