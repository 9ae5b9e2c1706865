import FarmHosts
import FarmSpool
import FarmSystem
import FoundationEssentials

extension Control {
    /// What `farm get` is asked to fetch (SPEC §15), as the user gave it. A value.
    public struct GetRequest: Sendable, Equatable {
        /// http(s) URLs, and paths of text lists of them (SPEC §15), in the order given.
        public var sources: [String]
        /// The name of the one file fetched (`-o`): only with one URL.
        public var name: String?
        /// Where the files go (`--out`), made if missing; relative to the current folder.
        public var folder: String
        /// Connections at once for one resource, as pieces (SPEC §14); nil: one.
        public var connections: Int?
        /// `--link`: each file a hard link of the spool's (SPEC §12), not a file of the user's own.
        public var link: Bool

        public init(sources: [String], name: String? = nil, folder: String, connections: Int? = nil,
                    link: Bool = false) {
            self.sources = sources
            self.name = name
            self.folder = folder
            self.connections = connections
            self.link = link
        }
    }

    /// The list a `farm get` adds: a text list (SPEC §15) of its URLs, with `out=` for `-o`, and a name
    /// made from everything that decides what lands where, and how (the list's text, the real folder, a
    /// link or a file of the user's own). The same
    /// command again, from any folder that resolves to the same one, so names the same list and finds it
    /// with its partial bytes instead of adding another; a different command never names another's list.
    struct GetList: Equatable {
        let name: String
        let text: String

        /// Refuses, with one sentence (`.editRefused`: the CLI exits 2), an argument that is neither an
        /// http(s) URL nor a readable file, a JSON file, `-o` with anything but one URL, and no URL at all.
        init(_ request: GetRequest, folder: String) throws(ControlError) {
            var text = ""
            var urls = 0
            for given in request.sources {
                // host/path with no scheme is http, as wget and curl take it, unless a file has that name.
                let source = HostKey(url: given) == nil && !FileManager.default.fileExists(atPath: given)
                    ? Self.schemeless(given) ?? given : given
                if HostKey(url: source) != nil {
                    guard !source.contains(where: { $0.isWhitespace }) else {
                        throw ControlError(.editRefused, "\(source) is not a URL: it has white space in it")
                    }
                    text += source + "\n"
                    urls += 1
                    continue
                }
                guard let bytes = FileManager.default.contents(atPath: source) else {
                    throw ControlError(.editRefused, "\(source) is neither an http(s) URL nor a readable file")
                }
                let list = String(decoding: bytes, as: UTF8.self)
                if let first = list.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }), first == "[" || first == "{" {
                    throw ControlError(.editRefused, "\(source) is JSON: farm get reads text lists, one URL a line; "
                        + "`farm add \(source) --out DIR` takes JSON lists")
                }
                text += list.hasSuffix("\n") || list.isEmpty ? list : list + "\n"
                urls += 2  // a file counts as many: -o names one URL's file only
            }
            guard !text.isEmpty else { throw ControlError(.editRefused, "give farm get a URL, or a file of them") }
            if let name = request.name {
                guard urls == 1 else { throw ControlError(.editRefused, "-o names one file: give one URL with it") }
                guard !name.isEmpty, !name.contains("/"), !name.contains(where: \.isNewline), name != ".", name != ".."
                else {
                    throw ControlError(.editRefused, "-o takes a file name, without '/' (--out gives its folder)")
                }
                text += "  out=" + name + "\n"
            }
            var hash = FNV1a()
            hash.add(folder)
            hash.add(0)
            hash.add(text)
            if request.link {
                hash.add(0)
                hash.add("link")
            }
            self.name = "get-" + hash.hex + ".txt"
            self.text = text
        }

        /// `http://` + `source` when `source` is a host (a dotted name, `localhost`, an IPv4 address or
        /// `[IPv6]`), with a `:port` or a `/path` or both: `example.org/a.jpg`, `127.0.0.1:8080/x`. nil for
        /// anything else: a lone word is more likely a file name mistyped than a host.
        static func schemeless(_ source: String) -> String? {
            guard !source.contains("://"), !source.contains(where: { $0.isWhitespace }) else { return nil }
            let authority = source.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var host = authority, port: Substring?
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[...close]
                let rest = authority[authority.index(after: close)...]
                if !rest.isEmpty {
                    guard rest.hasPrefix(":") else { return nil }
                    port = rest.dropFirst()
                }
            } else if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            if let port, port.isEmpty || !port.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
            guard port != nil || authority.endIndex < source.endIndex else { return nil }
            let named = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
                && host.contains(".") && !host.hasPrefix(".") && !host.hasSuffix(".") && !host.hasPrefix("-")
            guard named || host == "localhost" || (host.hasPrefix("[") && host.count > 2) else { return nil }
            return "http://" + source
        }
    }
}
