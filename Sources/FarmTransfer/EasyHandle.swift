import CFarmCurlLoader

/// One libcurl easy handle, kept for the life of a worker so connections are reused (keep-alive).
///
/// Owned by one thread at a time: libcurl handles are not thread-safe. Every request starts with
/// `curl_easy_reset`: options stick on a reused handle, and a stale progress callback or resume
/// offset from the previous request would otherwise leak into the next (a use-after-free of the
/// old context, or an HTTP 416).
public final class EasyHandle {
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_ALL)) }()

    let curl: UnsafeMutableRawPointer
    /// curl writes its last error message here (CURLOPT_ERRORBUFFER must outlive the request).
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// Where body bytes gather on their way to the file (see `TransferContext.write`). Its pages cost
    /// memory only once a body that large has come through.
    let bodyBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: EasyHandle.receiveBuffer, alignment: 64)
    /// The body bytes the last `download` put in its file, kept or not (what a failed attempt still
    /// added for a resume); 0 before any.
    public internal(set) var lastWritten = 0
    /// Whether a transfer of this handle had cookies: its cookie store must be emptied before the next.
    var cookieStoreUsed = false

    /// Where its transfers run: on a pool shared with the process's other handles, or by itself (nil).
    let pool: TransferPool?

    public init(pool: TransferPool? = nil) throws(TransferError) {
        if let missing = Self.loadLibrary() { throw TransferError(.permanent, missing) }
        Self.initializeGlobally()
        guard let curl = curl_easy_init() else { throw TransferError(.transient, "libcurl could not make a handle") }
        self.curl = curl
        self.pool = pool
    }

    static func initializeGlobally() { Self.globalInit }

    /// Loads libcurl, which farm loads on first use rather than at start-up (see curl_loader.h): nil
    /// once it is loaded, else why it cannot be. A process that forks workers calls it first, so
    /// that they start with libcurl in place instead of each loading it.
    @discardableResult
    public static func loadLibrary() -> String? {
        cfarm_curl_load().map { String(cString: $0) + " (install libcurl4-openssl-dev)" }
    }

    deinit {
        curl_easy_cleanup(curl)
        errorBuffer.deallocate()
        bodyBuffer.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) throws(TransferError) {
        try check(cfarm_curl_setopt_long(curl, option, value), option)
    }

    func set(_ option: CURLoption, offset value: Int) throws(TransferError) {
        try check(cfarm_curl_setopt_off(curl, option, curl_off_t(value)), option)
    }

    /// curl copies string options, so the Swift string need not outlive the call.
    func set(_ option: CURLoption, _ value: String) throws(TransferError) {
        try check(cfarm_curl_setopt_str(curl, option, value), option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(TransferError) {
        try check(cfarm_curl_setopt_ptr(curl, option, value), option)
    }

    /// The connections the last transfer had to open (0 when it reused one).
    public var connectionsOpened: Int { info(CURLINFO_NUM_CONNECTS) }

    func info(_ info: CURLINFO) -> Int {
        var value = 0
        _ = cfarm_curl_getinfo_long(curl, info, &value)
        return value
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(TransferError) {
        guard code == CURLE_OK else {
            throw TransferError(.permanent, "libcurl refused option \(option.rawValue): "
                + String(cString: curl_easy_strerror(code)), curlCode: Int(code.rawValue))
        }
    }

    var lastErrorMessage: String { String(cString: errorBuffer) }
}
