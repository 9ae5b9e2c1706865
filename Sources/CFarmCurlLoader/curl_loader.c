// Each function below has the signature <curl/curl.h> declares (the compiler checks it) and forwards
// to the real one, found by dlsym in the library loaded on the first call. Only the functions farm
// calls are here: a new call needs a line.

// Without it curl.h wraps curl_easy_setopt and curl_easy_getinfo in type-checking macros.
#define CURL_DISABLE_TYPECHECK
#include "loader.h"
#include "curl_loader.h"

// The soname of libcurl4-openssl-dev's library (curl's ABI has been .so.4 since 2006).
#define CFARM_CURL_LIBRARY "libcurl.so.4"

#define CFARM_CURL_FUNCTIONS(X) \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_reset) X(curl_easy_perform) \
    X(curl_easy_setopt) X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_easy_pause) X(curl_slist_append) \
    X(curl_slist_free_all) \
    X(curl_multi_init) X(curl_multi_cleanup) X(curl_multi_add_handle) X(curl_multi_remove_handle) \
    X(curl_multi_perform) X(curl_multi_poll) X(curl_multi_wakeup) X(curl_multi_info_read) X(curl_multi_setopt) \
    X(curl_multi_strerror)

CFARM_LOADER_TABLE(CFARM_CURL_FUNCTIONS, CFARM_CURL_LIBRARY);

const char *cfarm_curl_load(void) { return cfarm_library_load(&library); }

CFARM_HIDDEN CURLcode curl_global_init(long flags) { return CALL(curl_global_init)(flags); }
CFARM_HIDDEN CURL *curl_easy_init(void) { return CALL(curl_easy_init)(); }
CFARM_HIDDEN void curl_easy_cleanup(CURL *curl) { CALL(curl_easy_cleanup)(curl); }
CFARM_HIDDEN void curl_easy_reset(CURL *curl) { CALL(curl_easy_reset)(curl); }
CFARM_HIDDEN CURLcode curl_easy_perform(CURL *curl) { return CALL(curl_easy_perform)(curl); }
CFARM_HIDDEN const char *curl_easy_strerror(CURLcode code) { return CALL(curl_easy_strerror)(code); }
CFARM_HIDDEN CURLcode curl_easy_pause(CURL *curl, int bitmask) { return CALL(curl_easy_pause)(curl, bitmask); }
CFARM_HIDDEN struct curl_slist *curl_slist_append(struct curl_slist *list, const char *string) {
    return CALL(curl_slist_append)(list, string);
}
CFARM_HIDDEN void curl_slist_free_all(struct curl_slist *list) { CALL(curl_slist_free_all)(list); }
CFARM_HIDDEN CURLM *curl_multi_init(void) { return CALL(curl_multi_init)(); }
CFARM_HIDDEN CURLMcode curl_multi_cleanup(CURLM *multi) { return CALL(curl_multi_cleanup)(multi); }
CFARM_HIDDEN CURLMcode curl_multi_add_handle(CURLM *multi, CURL *curl) { return CALL(curl_multi_add_handle)(multi, curl); }
CFARM_HIDDEN CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *curl) {
    return CALL(curl_multi_remove_handle)(multi, curl);
}
CFARM_HIDDEN CURLMcode curl_multi_perform(CURLM *multi, int *running) { return CALL(curl_multi_perform)(multi, running); }
CFARM_HIDDEN CURLMcode curl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout_ms,
                                       int *numfds) {
    return CALL(curl_multi_poll)(multi, extra, count, timeout_ms, numfds);
}
CFARM_HIDDEN CURLMcode curl_multi_wakeup(CURLM *multi) { return CALL(curl_multi_wakeup)(multi); }
CFARM_HIDDEN CURLMsg *curl_multi_info_read(CURLM *multi, int *queued) { return CALL(curl_multi_info_read)(multi, queued); }
CFARM_HIDDEN const char *curl_multi_strerror(CURLMcode code) { return CALL(curl_multi_strerror)(code); }

CURLMcode cfarm_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return CALL(curl_multi_setopt)(multi, option, value);
}
int cfarm_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int queued;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg != CURLMSG_DONE) continue;
        *easy = message->easy_handle;
        *result = message->data.result;
        return 1;
    }
    return 0;
}

CURLcode cfarm_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return CALL(curl_easy_setopt)(curl, option, value);
}
CURLcode cfarm_curl_setopt_off(CURL *curl, CURLoption option, curl_off_t value) {
    return CALL(curl_easy_setopt)(curl, option, value);
}
CURLcode cfarm_curl_setopt_str(CURL *curl, CURLoption option, const char *value) {
    return CALL(curl_easy_setopt)(curl, option, value);
}
CURLcode cfarm_curl_setopt_ptr(CURL *curl, CURLoption option, void *value) {
    return CALL(curl_easy_setopt)(curl, option, value);
}
CURLcode cfarm_curl_setopt_write(CURL *curl, cfarm_write_callback callback) {
    return CALL(curl_easy_setopt)(curl, CURLOPT_WRITEFUNCTION, callback);
}
CURLcode cfarm_curl_setopt_header(CURL *curl, cfarm_header_callback callback) {
    return CALL(curl_easy_setopt)(curl, CURLOPT_HEADERFUNCTION, callback);
}
CURLcode cfarm_curl_setopt_xferinfo(CURL *curl, cfarm_xferinfo_callback callback) {
    return CALL(curl_easy_setopt)(curl, CURLOPT_XFERINFOFUNCTION, callback);
}
CURLcode cfarm_curl_setopt_debug(CURL *curl, cfarm_debug_callback callback) {
    return CALL(curl_easy_setopt)(curl, CURLOPT_DEBUGFUNCTION, callback);
}

CURLcode cfarm_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return CALL(curl_easy_getinfo)(curl, info, value);
}
CURLcode cfarm_curl_getinfo_off(CURL *curl, CURLINFO info, curl_off_t *value) {
    return CALL(curl_easy_getinfo)(curl, info, value);
}
CURLcode cfarm_curl_getinfo_str(CURL *curl, CURLINFO info, const char **value) {
    return CALL(curl_easy_getinfo)(curl, info, value);
}
