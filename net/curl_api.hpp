// libcurl, loaded on first use (base/lazy_library.hpp): a process that never parses or fetches a URL does
// not load libcurl, OpenSSL, GnuTLS, LDAP, SSH... Everything in net/ calls libcurl through curl().
#pragma once

#include <curl/curl.h>

#include <string>

#include "base/lazy_library.hpp"

#define BASHKIT_CURL_FUNCTIONS(X)                                                                      \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_setopt) X(curl_easy_getinfo) \
    X(curl_easy_perform) X(curl_easy_strerror) X(curl_free) X(curl_slist_append) X(curl_slist_free_all)  \
    X(curl_url) X(curl_url_cleanup) X(curl_url_get) X(curl_url_set) X(curl_url_strerror)

namespace bashkit::net {

struct CurlApi {
    BASHKIT_CURL_FUNCTIONS(BASHKIT_API_MEMBER)
};

// libcurl's functions, or nullptr with *error set when the library cannot be loaded.
const CurlApi* curl_api(std::string* error = nullptr);

// The loaded API; only after curl_api() has returned non-null (parse_url, the gate of every libcurl use).
inline const CurlApi& curl() { return *curl_api(); }

}  // namespace bashkit::net
