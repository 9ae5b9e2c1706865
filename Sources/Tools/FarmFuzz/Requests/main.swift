import FarmTransfer

/// libFuzzer's entry (`bin/fuzz requests`): any bytes as what `farm add` reads for a list's requests
/// (SPEC §12): a cookie file, and each of its lines as a header and as a proxy URL. A cookie file that
/// parses gives its cookies back when its cookies are read as a file again; a header that parses is
/// one line, parses to itself, and keeps its name; a proxy that parses has a scheme of SPEC §12 and is
/// shown without a password; the options round-trip through their 0600 file's JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequests(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    var options = RequestOptions()
    if let cookies = try? CookieFile.cookies(bytes) {
        let again = try? CookieFile.cookies(Array(cookies.joined(separator: "\n").utf8))
        precondition(again == cookies, "the cookies read back as \(String(describing: again)), not \(cookies)")
        options.cookies = cookies
    }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(16) {
        if let header = try? RequestOptions.header(String(line)) {
            precondition(!header.contains("\r") && !header.contains("\n"), "a header of two lines: \(header)")
            precondition((try? RequestOptions.header(header)) == header, "\(header) does not parse to itself")
            let name = header.prefix { $0 != ":" }
            precondition(line.hasPrefix(name), "\(header) lost the name of \(line)")
            options.headers.append(header)
        }
        if let proxy = try? RequestOptions.proxy(String(line)) {
            let scheme = String(proxy.prefix { $0 != ":" })
            precondition(RequestOptions.proxySchemes.contains(scheme), "\(proxy) has another scheme")
            options.proxy = proxy
            let shown = RequestOptions(proxy: proxy).shownProxy ?? ""
            let authority = proxy.drop { $0 != "@" }
            precondition(!authority.isEmpty || shown == proxy, "\(proxy) shown as \(shown)")
            if let at = proxy.lastIndex(of: "@"), let separator = proxy.firstRange(of: "://"), at > separator.upperBound {
                let userInfo = proxy[separator.upperBound..<at]
                precondition(!shown.contains("\(userInfo)@"), "\(proxy) shown with its password as \(shown)")
            }
        }
    }
    let decoded = RequestOptions.decoded(options.encoded())
    precondition(decoded == options, "\(options) reads back from its file as \(String(describing: decoded))")
    return 0
}
