import FarmSystem
import FarmTransfer

extension Control {
    /// The request options of `farm add` (SPEC §12), checked: `headers` as typed (`Name: value`, or
    /// `@FILE` for a file of such lines, which keeps a secret out of the command line), a cookie file in
    /// the Netscape format, a user agent, a proxy URL. Throws `.badRequestOption` with one sentence that
    /// shows no secret value. Nil when none is given: the list's requests carry nothing of their own.
    public static func requestOptions(headers: [String], cookieFile: String?, userAgent: String?,
                                      proxy: String?, connections: Int? = nil,
                                      minPiece: String? = nil, accept: String? = nil,
                                      fileURLs: Bool = false) throws(ControlError)
        -> RequestOptions? {
        do throws(RequestOptionError) {
            var options = RequestOptions()
            for header in headers {
                if header.hasPrefix("@") {
                    for line in try lines(ofFile: String(header.dropFirst()), "header") where !line.isEmpty {
                        options.headers.append(try RequestOptions.header(line))
                    }
                } else {
                    options.headers.append(try RequestOptions.header(header))
                }
            }
            if let cookieFile {
                let bytes: [UInt8]
                do { bytes = try FileSystem.readFile(cookieFile) } catch {
                    throw RequestOptionError("cannot read the cookie file \(cookieFile): \(error)")
                }
                options.cookies = try CookieFile.cookies(bytes)
            }
            if let userAgent {
                guard !userAgent.isEmpty, userAgent.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
                else { throw RequestOptionError("the user agent must be one line of text") }
                options.userAgent = userAgent
            }
            options.proxy = try proxy.map { (proxy) throws(RequestOptionError) in try RequestOptions.proxy(proxy) }
            if let connections {
                guard (1...RequestOptions.maxConnections).contains(connections) else {
                    throw RequestOptionError("--connections must be from 1 to \(RequestOptions.maxConnections)")
                }
                options.connections = connections > 1 ? connections : nil
            }
            if let minPiece {
                guard let bytes = try? Self.bandwidth(minPiece), bytes >= 16 << 10 else {
                    throw RequestOptionError("--min-piece must be a size of at least 16K (such as 512K or 4M)")
                }
                options.minPiece = bytes
            }
            if let accept {
                // Only "any" for now (SPEC §15); without the option, the kinds farm converts.
                guard accept == "any" else { throw RequestOptionError("--accept takes 'any' (bytes of any kind)") }
                options.acceptAny = true
            }
            if fileURLs { options.fileURLs = true }
            return options.isEmpty ? nil : options
        } catch {
            throw ControlError(.badRequestOption, error.description)
        }
    }
}

extension RequestOptions? {
    /// These options with `hooks` too (none given: as they are).
    public func adding(hooks: ListHooks?) -> RequestOptions? {
        guard let hooks else { return self }
        var options = self ?? RequestOptions()
        options.hooks = hooks
        return options
    }
}

extension Control {
    private static func lines(ofFile path: String, _ what: String) throws(RequestOptionError) -> [String] {
        do {
            let bytes = try FileSystem.readFile(path)
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
                String($0.hasSuffix("\r") ? $0.dropLast() : $0)
            }
        } catch {
            throw RequestOptionError("cannot read the \(what) file \(path): \(error)")
        }
    }
}
