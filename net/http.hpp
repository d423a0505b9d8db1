// The SSRF-safe HTTP client: libcurl under the sandbox's rules.
//
// Every request is judged before any byte is sent and again at every connect:
//  - the URL is parsed by libcurl's own parser (curl_url), so the host judged is the host libcurl would
//    connect to (0x7f.1, 2130706433, %31%32%37.0.0.1, userinfo tricks all normalise to 127.0.0.1);
//  - only http and https, also on redirects, which this client follows itself (each hop re-judged);
//  - the Network policy (none, all, allow-list) decides the host and port;
//  - names are resolved through a Resolver; when block_private_ips is on, a name with any blocked answer is
//    refused, and the answers are pinned into libcurl (CURLOPT_RESOLVE) so libcurl cannot resolve again;
//  - CURLOPT_OPENSOCKETFUNCTION checks the address actually connected to, on every attempt; after one
//    refusal the whole request fails (a refused address is never replaced by the next answer);
//  - no proxy ever (CURLOPT_PROXY "", the environment's proxy variables are ignored);
//  - response bodies are counted as they arrive and capped; connect and total timeouts; a cancel flag.
//  - libcurl never resolves a name itself (CURLOPT_RESOLVER_START_FUNCTION refuses): the policy is decided
//    from the URL first, and only a name the policy may reach goes to the Resolver; a trailing-dot name
//    ("api.example.com.") is the same name for the policy, the resolver, the pinning and the bindings;
//  - a header name or value with CR, LF or NUL is refused before anything is sent;
//  - a transfer slower than low_speed_bytes_per_second over low_speed_window is cut.
// Header bindings add secret headers on the wire for (host, path prefix) over verified HTTPS only. The prefix
// is compared on the decoded, normalised path (normalise_request_path); a request to a bound host whose
// path has an encoded '/' or a '..' segment is refused, and so is a script-set Host header on a request
// that carries a bound secret (it would send the secret to another virtual host on the same address).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/ip.hpp"
#include "net/policy.hpp"

namespace bashkit::net {

// Name resolution, replaceable so tests can give names any answers (DNS rebinding, split horizon).
class Resolver {
public:
    virtual ~Resolver() = default;
    // All addresses of a name (empty when it does not resolve). Called once per request hop.
    virtual std::vector<IpAddress> resolve(const std::string& host) = 0;
};

// getaddrinfo.
class SystemResolver final : public Resolver {
public:
    std::vector<IpAddress> resolve(const std::string& host) override;
};

// Fixed answers, in the style of curl's --resolve: successive lookups of a name with several entries
// return them in turn (the last one repeats), which is how tests stage a rebinding attack.
class StaticResolver final : public Resolver {
public:
    void add(const std::string& host, std::vector<IpAddress> answer);
    std::vector<IpAddress> resolve(const std::string& host) override;

private:
    std::map<std::string, std::vector<std::vector<IpAddress>>> answers_;
    std::map<std::string, size_t> next_;
};

// Secrets live with the embedder; the client asks for them only when it builds a request's headers.
class SecretStore {
public:
    virtual ~SecretStore() = default;
    virtual std::optional<std::string> get(const std::string& name) const = 0;
};

struct HeaderBinding {
    std::string host;               // "api.github.com" or "api.github.com:8443" (port 443 by default)
    std::string header;             // "Authorization"
    std::string secret_name;        // looked up in the SecretStore
    std::string path_prefix = "/";  // applies when the request path starts with it on a segment boundary
    std::string prefix;             // header value = prefix + secret + suffix
    std::string suffix;
};

struct ClientOptions {
    Network network = Network::none();
    bool block_private_ips = true;
    std::vector<IpNetwork> extra_deny;
    std::shared_ptr<Resolver> resolver;  // null: SystemResolver
    std::vector<HeaderBinding> header_bindings;
    std::shared_ptr<const SecretStore> secrets;
    size_t max_response_bytes = 10 * 1024 * 1024;
    int max_redirects = 10;
    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds total_timeout{60'000};
    // A transfer slower than this many bytes per second over the whole window is cut (curl's
    // --speed-limit/--speed-time, exit 28): a server trickling a byte every 10 s cannot hold a command.
    // 0 turns it off.
    long low_speed_bytes_per_second = 1;
    std::chrono::milliseconds low_speed_window{30'000};
    std::string ca_file;  // extra CA bundle (tests); empty: the system's
};

struct HttpRequest {
    std::string method = "GET";
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool has_body = false;
    bool follow_redirects = false;  // -L
    bool head_only = false;         // -I
    std::optional<std::chrono::milliseconds> timeout;          // -m
    std::optional<std::chrono::milliseconds> connect_timeout;  // --connect-timeout
};

struct HttpResponse {
    long status = 0;
    std::string status_line;                                  // "HTTP/1.1 200 OK"
    std::vector<std::pair<std::string, std::string>> headers; // of the last hop
    std::string raw_headers;                                  // every hop's header block, as received
    std::string body;
    std::string effective_url;
    int redirects = 0;
    // The request headers of each hop as sent, with bound secrets replaced by "[redacted by sandbox]":
    // what `curl -v` may show.
    std::vector<std::string> sent_headers;
};

// Errors carry curl's exit code so the curl command can exit like curl does.
struct HttpError {
    int curl_code = 0;    // 1 protocol, 3 bad URL, 6 resolve, 7 connect, 28 timeout, 47 redirects, 63 size...
    std::string message;  // curl's wording, e.g. "Could not resolve host: example.invalid"
    bool blocked = false; // refused by the sandbox's policy or address rules
};

struct HttpResult {
    std::optional<HttpResponse> response;
    std::optional<HttpError> error;
    bool ok() const { return response.has_value(); }
};

// Parses a URL with libcurl's parser into (scheme, host as libcurl connects to it, port, path+query).
struct ParsedUrl {
    std::string scheme;
    std::string host;  // IPv6 without brackets
    int port = 0;
    std::string path;  // path and query, at least "/"
};
class HttpClient {
public:
    explicit HttpClient(ClientOptions options);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Performs the request (following redirects when asked). `cancel`, when set by another thread, aborts
    // the transfer. `on_body`, when given, receives body bytes as they arrive (they are still counted
    // against the cap; the response body then stays empty).
    HttpResult perform(const HttpRequest& request, const std::atomic<bool>* cancel = nullptr,
                       const std::function<void(std::string_view)>& on_body = {});

    // The verdict for a URL without sending anything: nullopt when allowed so far (address rules for names
    // are applied at resolve and connect time), else the refusal.
    std::optional<HttpError> precheck(const std::string& url) const;

    // The whole verdict for the first hop without connecting: precheck, then the name resolved through the
    // resolver and every answer judged. nullopt means perform() would connect.
    std::optional<HttpError> judge(const std::string& url) const;

    const ClientOptions& options() const { return options_; }

private:
    std::optional<HttpError> resolve_hop(const ParsedUrl& p, std::vector<IpAddress>& addrs,
                                         std::optional<IpAddress>& literal) const;
    ClientOptions options_;
};

std::optional<ParsedUrl> parse_url(const std::string& url, std::string* error = nullptr);

// The path a header binding is judged on: the query dropped, percent-decoded, "." segments and repeated
// slashes removed. nullopt when servers could read it two ways: an encoded '/' or '\\' (%2f, %5c), a
// literal '\\', an encoded NUL, or a ".." segment (plain or encoded, "%2e%2e"); a request with such a path
// to a host that has a binding is refused.
std::optional<std::string> normalise_request_path(std::string_view path);

// Whether a binding applies to a request path: path == prefix, or path starts with prefix at a segment
// boundary ("/api" matches "/api" and "/api/x", not "/apix"). The client passes normalise_request_path().
bool path_matches_prefix(std::string_view path, std::string_view prefix);

}  // namespace bashkit::net
