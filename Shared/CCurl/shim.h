#ifndef HEARTH_CCURL_SHIM_H
#define HEARTH_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these wrappers
// give each kind of value a fixed signature.

static inline CURLcode hearth_curl_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hearth_curl_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hearth_curl_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// The body's and the headers' callback (`CURLOPT_WRITEFUNCTION`, `CURLOPT_HEADERFUNCTION`).
typedef size_t (*hearth_curl_data)(char *data, size_t size, size_t count, void *context);

static inline CURLcode hearth_curl_data_function(CURL *handle, CURLoption option, hearth_curl_data function) {
    return curl_easy_setopt(handle, option, function);
}

/// The progress callback (`CURLOPT_XFERINFOFUNCTION`): non-zero aborts the transfer.
typedef int (*hearth_curl_progress)(void *context, curl_off_t, curl_off_t, curl_off_t, curl_off_t);

static inline CURLcode hearth_curl_progress_function(CURL *handle, hearth_curl_progress function) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}

static inline CURLcode hearth_curl_info_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
