// CFarmCurlLoader: libcurl, loaded on first use, and typed entry points for its variadic calls.
//
// Linked normally, libcurl and its ~30 dependencies (TLS, Kerberos, LDAP, SSH, IDN, ...) cost every
// farm process its dynamic linking at start-up, though only workers and `farm add` of a URL
// download anything. So nothing links it: Swift sees its real header through this one, and
// curl_loader.c defines each function farm calls, under its own name, forwarding to the library it
// dlopen()s on the first call (as CFarmRenderLoader does for poppler and cairo). It pays: preloaded,
// libcurl adds 4.4 ms to the 5 ms of CPU a short command such as `farm status` takes (RESULTS.md).
#ifndef CFARM_CURL_LOADER_H
#define CFARM_CURL_LOADER_H

#include <curl/curl.h>

/// Loads libcurl once (thread-safe). Returns NULL when it is loaded, else why it is not.
const char *cfarm_curl_load(void);

// curl_easy_setopt and curl_easy_getinfo are variadic: Swift refuses to call them, so each argument
// type gets one typed entry point (as swift-corelibs-foundation's CFURLSessionInterface does).

typedef size_t (*cfarm_write_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*cfarm_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);
typedef size_t (*cfarm_header_callback)(char *data, size_t size, size_t count, void *context);
/// What curl tells a debug callback (CURLOPT_DEBUGFUNCTION, called only with CURLOPT_VERBOSE): the request's
/// header as sent comes as CURLINFO_HEADER_OUT, which is how a WARC request record gets it (SPEC §18).
typedef int (*cfarm_debug_callback)(CURL *curl, curl_infotype type, char *data, size_t size, void *context);

CURLcode cfarm_curl_setopt_long(CURL *curl, CURLoption option, long value);
CURLcode cfarm_curl_setopt_off(CURL *curl, CURLoption option, curl_off_t value);
CURLcode cfarm_curl_setopt_str(CURL *curl, CURLoption option, const char *value);
CURLcode cfarm_curl_setopt_ptr(CURL *curl, CURLoption option, void *value);
CURLcode cfarm_curl_setopt_write(CURL *curl, cfarm_write_callback callback);
CURLcode cfarm_curl_setopt_header(CURL *curl, cfarm_header_callback callback);
CURLcode cfarm_curl_setopt_xferinfo(CURL *curl, cfarm_xferinfo_callback callback);
CURLcode cfarm_curl_setopt_debug(CURL *curl, cfarm_debug_callback callback);

CURLMcode cfarm_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
/// The next transfer of `multi` that ended: its handle in `*easy` and its result in `*result`; 0 when no
/// transfer ended since the last call (CURLMsg's union, read here rather than in Swift).
int cfarm_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

CURLcode cfarm_curl_getinfo_long(CURL *curl, CURLINFO info, long *value);
CURLcode cfarm_curl_getinfo_off(CURL *curl, CURLINFO info, curl_off_t *value);
CURLcode cfarm_curl_getinfo_str(CURL *curl, CURLINFO info, const char **value);

#endif
