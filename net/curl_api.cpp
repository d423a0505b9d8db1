#include "net/curl_api.hpp"

namespace bashkit::net {

BASHKIT_DEFINE_API(CurlApi, curl_api, BASHKIT_SONAME_CURL, BASHKIT_CURL_FUNCTIONS)

}  // namespace bashkit::net
