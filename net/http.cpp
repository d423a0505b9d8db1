#include "net/http.hpp"

#include "base/strings.hpp"
#include "net/curl_api.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>

namespace bashkit::net {

namespace {

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl().curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        auto l = [](char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); };
        if (l(a[i]) != l(b[i])) return false;
    }
    return true;
}

using base::trim;

std::optional<IpAddress> from_sockaddr(const sockaddr* sa) {
    if (sa->sa_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
        IpAddress ip;
        std::memcpy(ip.bytes.data(), &in->sin_addr, 4);
        return ip;
    }
    if (sa->sa_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
        IpAddress ip;
        ip.v6 = true;
        std::memcpy(ip.bytes.data(), &in6->sin6_addr, 16);
        return ip;
    }
    return std::nullopt;
}

std::string host_for_url(const std::string& host) {
    return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

HttpError blocked(const std::string& why) {
    return HttpError{7, "blocked by the sandbox: " + why, true};
}

// Why an address may not be connected to under these options, or nullopt.
std::optional<std::string> address_refusal(const ClientOptions& o, const IpAddress& ip) {
    if (o.block_private_ips) return blocked_reason(ip, o.extra_deny);
    for (const auto& n : o.extra_deny) {
        if (n.contains(ip)) return std::string("denied by the embedder's list");
    }
    return std::nullopt;
}

// State shared with libcurl's callbacks during one hop.
struct HopState {
    const ClientOptions* options = nullptr;
    std::set<std::string> pinned;  // addresses the name resolved to (empty for an IP literal host)
    std::optional<IpAddress> literal;
    std::optional<std::string> refused;  // set by the open-socket and resolver-start callbacks
    std::string host;                    // the hop's host (for messages)
    const std::atomic<bool>* cancel = nullptr;
    const std::function<void(std::string_view)>* on_body = nullptr;
    size_t body_bytes = 0;
    size_t max_bytes = 0;
    bool too_big = false;
    bool skip_redirect_body = false;  // following redirects: a redirect's own body is not the answer
    std::string body;
    std::string raw_headers;
    std::string status_line;
    std::vector<std::pair<std::string, std::string>> headers;
    std::vector<std::string> redact;  // secret values never to show
    std::string sent;                 // request headers as sent (redacted)
};

curl_socket_t open_socket(void* clientp, curlsocktype purpose, curl_sockaddr* addr) {
    auto* st = static_cast<HopState*>(clientp);
    if (st->refused) return CURL_SOCKET_BAD;  // one refusal ends the request: no fallback address
    if (purpose != CURLSOCKTYPE_IPCXN) {
        st->refused = "unexpected socket purpose";
        return CURL_SOCKET_BAD;
    }
    auto ip = from_sockaddr(&addr->addr);
    if (!ip) {
        st->refused = "unsupported address family";
        return CURL_SOCKET_BAD;
    }
    if (st->literal ? !(*st->literal == *ip) : st->pinned.count(ip->to_string()) == 0) {
        st->refused = "connection to " + ip->to_string() + " which the host did not resolve to";
        return CURL_SOCKET_BAD;
    }
    if (auto why = address_refusal(*st->options, *ip)) {
        st->refused = "address " + ip->to_string() + " is not allowed (" + *why + ")";
        return CURL_SOCKET_BAD;
    }
    return ::socket(addr->family, addr->socktype, addr->protocol);
}

// libcurl about to resolve a name itself: never (a DNS query would leave the machine for a name this
// client did not judge). Names are answered from the CURLOPT_RESOLVE entries; an IP literal needs no query.
int on_resolver_start(void*, void*, void* userp) {
    auto* st = static_cast<HopState*>(userp);
    if (st->literal) return 0;
    st->refused = "libcurl would resolve " + st->host + " itself";
    return 1;
}

bool is_redirect(long status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// Whether the response being received is a redirect this client will follow (so its body must not reach
// the caller's on_body: curl -L shows only the final answer's body).
bool will_follow(const HopState& st) {
    size_t sp = st.status_line.find(' ');
    if (sp == std::string::npos) return false;
    long status = std::atol(st.status_line.c_str() + sp + 1);
    if (!is_redirect(status)) return false;
    return std::any_of(st.headers.begin(), st.headers.end(),
                       [](const auto& h) { return iequals(h.first, "Location") && !h.second.empty(); });
}

size_t on_write(char* data, size_t size, size_t n, void* userp) {
    auto* st = static_cast<HopState*>(userp);
    size_t len = size * n;
    if (st->body_bytes + len > st->max_bytes) {
        st->too_big = true;
        return 0;
    }
    st->body_bytes += len;
    if (st->skip_redirect_body && will_follow(*st)) return len;
    if (st->on_body && *st->on_body) {
        (*st->on_body)(std::string_view(data, len));
    } else {
        st->body.append(data, len);
    }
    return len;
}

size_t on_header(char* data, size_t size, size_t n, void* userp) {
    auto* st = static_cast<HopState*>(userp);
    size_t len = size * n;
    std::string_view line(data, len);
    st->raw_headers.append(line);
    if (line.substr(0, 5) == "HTTP/") {  // a new response (e.g. after 100 Continue)
        st->status_line = trim(line);
        st->headers.clear();
    } else {
        size_t colon = line.find(':');
        if (colon != std::string_view::npos) {
            st->headers.emplace_back(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
        }
    }
    return len;
}

int on_progress(void* clientp, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* st = static_cast<HopState*>(clientp);
    return st->cancel && st->cancel->load() ? 1 : 0;
}

int on_debug(CURL*, curl_infotype type, char* data, size_t size, void* userp) {
    auto* st = static_cast<HopState*>(userp);
    if (type != CURLINFO_HEADER_OUT) return 0;
    std::string text(data, size);
    for (const auto& secret : st->redact) {
        if (secret.empty()) continue;
        for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
            text.replace(at, secret.size(), "[redacted by sandbox]");
        }
    }
    st->sent += text;
    return 0;
}

struct CurlHandle {
    CURL* h = curl().curl_easy_init();
    curl_slist* headers = nullptr;
    curl_slist* resolve = nullptr;
    ~CurlHandle() {
        curl().curl_slist_free_all(headers);
        curl().curl_slist_free_all(resolve);
        if (h) curl().curl_easy_cleanup(h);
    }
};

// Resolves `location` against `base` with libcurl's own rules.
std::optional<std::string> resolve_location(const std::string& base, const std::string& location) {
    CURLU* u = curl().curl_url();
    std::optional<std::string> out;
    if (curl().curl_url_set(u, CURLUPART_URL, base.c_str(), 0) == CURLUE_OK &&
        curl().curl_url_set(u, CURLUPART_URL, location.c_str(), CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
        char* s = nullptr;
        if (curl().curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK) out = s;
        curl().curl_free(s);
    }
    curl().curl_url_cleanup(u);
    return out;
}

}  // namespace

// ---------------------------------------------------------------- resolvers

std::vector<IpAddress> SystemResolver::resolve(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    std::vector<IpAddress> out;
    if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0) return out;
    for (addrinfo* p = res; p; p = p->ai_next) {
        if (auto ip = from_sockaddr(p->ai_addr)) {
            if (std::find(out.begin(), out.end(), *ip) == out.end()) out.push_back(*ip);
        }
    }
    ::freeaddrinfo(res);
    return out;
}

void StaticResolver::add(const std::string& host, std::vector<IpAddress> answer) {
    answers_[normalize_host(host)].push_back(std::move(answer));
}

std::vector<IpAddress> StaticResolver::resolve(const std::string& host) {
    auto it = answers_.find(normalize_host(host));
    if (it == answers_.end() || it->second.empty()) return {};
    size_t& i = next_[it->first];
    const auto& a = it->second[std::min(i, it->second.size() - 1)];
    ++i;
    return a;
}

// ---------------------------------------------------------------- URL helpers

std::optional<ParsedUrl> parse_url(const std::string& url, std::string* error) {
    // The gate of every libcurl use: loads it on the first URL.
    std::string why;
    if (!curl_api(&why)) {
        if (error) *error = "libcurl cannot be loaded: " + why;
        return std::nullopt;
    }
    global_init();
    CURLU* u = curl().curl_url();
    ParsedUrl out;
    bool ok = false;
    CURLUcode rc = curl().curl_url_set(u, CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME);
    if (rc == CURLUE_OK) {
        char *scheme = nullptr, *host = nullptr, *port = nullptr, *path = nullptr, *query = nullptr;
        curl().curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
        curl().curl_url_get(u, CURLUPART_HOST, &host, 0);
        curl().curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
        curl().curl_url_get(u, CURLUPART_PATH, &path, 0);
        curl().curl_url_get(u, CURLUPART_QUERY, &query, 0);
        if (scheme) {
            out.scheme = scheme;
            std::transform(out.scheme.begin(), out.scheme.end(), out.scheme.begin(),
                           [](unsigned char c) { return char(std::tolower(c)); });
            out.host = host ? host : "";
            if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') {
                out.host = out.host.substr(1, out.host.size() - 2);
                size_t zone = out.host.find('%');
                if (zone != std::string::npos) out.host.resize(zone);
            }
            // A trailing dot names the same host; drop it so "127.0.0.1." is judged as the address it is.
            if (out.host.size() > 1 && out.host.back() == '.') out.host.pop_back();
            out.port = port ? std::atoi(port) : 0;
            out.path = path && *path ? path : "/";
            if (query) out.path += std::string("?") + query;
            ok = true;
            if (out.host.empty() && (out.scheme == "http" || out.scheme == "https")) {
                ok = false;
                if (error) *error = "No host part in the URL";
            }
        }
        curl().curl_free(scheme);
        curl().curl_free(host);
        curl().curl_free(port);
        curl().curl_free(path);
        curl().curl_free(query);
    } else if (error) {
        *error = curl().curl_url_strerror(rc);
    }
    curl().curl_url_cleanup(u);
    if (!ok) return std::nullopt;
    return out;
}

std::optional<std::string> normalise_request_path(std::string_view path) {
    size_t q = path.find('?');
    if (q != std::string_view::npos) path = path.substr(0, q);
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string decoded;
    for (size_t i = 0; i < path.size(); ++i) {
        char c = path[i];
        if (c == '%' && i + 2 < path.size() && hex(path[i + 1]) >= 0 &&
            hex(path[i + 2]) >= 0) {
            char d = char(hex(path[i + 1]) * 16 + hex(path[i + 2]));
            // An encoded separator, backslash or NUL means different paths to different servers.
            if (d == '/' || d == '\\' || d == '\0') return std::nullopt;
            decoded += d;
            i += 2;
            continue;
        }
        if (c == '\\') return std::nullopt;
        decoded += c;
    }
    std::string out;
    size_t start = 0;
    while (start <= decoded.size()) {
        size_t end = decoded.find('/', start);
        if (end == std::string::npos) end = decoded.size();
        std::string_view seg(decoded.data() + start, end - start);
        if (seg == "..") return std::nullopt;
        if (!seg.empty() && seg != ".") {
            out += '/';
            out += seg;
        }
        start = end + 1;
    }
    if (out.empty() || (decoded.size() > 1 && decoded.back() == '/')) out += '/';
    return out;
}

bool path_matches_prefix(std::string_view path, std::string_view prefix) {
    if (prefix.empty() || prefix == "/") return true;
    size_t q = path.find('?');
    if (q != std::string_view::npos) path = path.substr(0, q);
    if (path.substr(0, prefix.size()) != prefix) return false;
    return path.size() == prefix.size() || prefix.back() == '/' || path[prefix.size()] == '/';
}

// ---------------------------------------------------------------- client

HttpClient::HttpClient(ClientOptions options) : options_(std::move(options)) {
    if (!options_.resolver) options_.resolver = std::make_shared<SystemResolver>();
}

HttpClient::~HttpClient() = default;

std::optional<HttpError> HttpClient::precheck(const std::string& url) const {
    std::string why;
    auto p = parse_url(url, &why);
    if (!p) return HttpError{3, "URL rejected: " + why, false};
    if (p->scheme != "http" && p->scheme != "https") {
        return HttpError{1, "Protocol \"" + p->scheme + "\" not supported or disabled in libcurl", true};
    }
    if (auto refusal = options_.network.refusal(p->scheme, p->host, p->port)) return blocked(*refusal);
    if (auto ip = parse_ip(p->host)) {
        if (auto r = address_refusal(options_, *ip)) {
            return blocked("address " + ip->to_string() + " is not allowed (" + *r + ")");
        }
    }
    return std::nullopt;
}

std::optional<HttpError> HttpClient::resolve_hop(const ParsedUrl& p, std::vector<IpAddress>& addrs,
                                                 std::optional<IpAddress>& literal) const {
    if (auto ip = parse_ip(p.host)) {
        literal = *ip;
        return std::nullopt;
    }
    addrs = options_.resolver->resolve(normalize_host(p.host));  // one spelling per name: lower case, no dot
    if (addrs.empty()) return HttpError{6, "Could not resolve host: " + p.host, false};
    for (const auto& a : addrs) {
        if (auto why = address_refusal(options_, a)) {
            return blocked(p.host + " resolves to " + a.to_string() + " (" + *why + ")");
        }
    }
    return std::nullopt;
}

std::optional<HttpError> HttpClient::judge(const std::string& url) const {
    if (auto e = precheck(url)) return e;
    std::vector<IpAddress> addrs;
    std::optional<IpAddress> literal;
    return resolve_hop(*parse_url(url), addrs, literal);
}

HttpResult HttpClient::perform(const HttpRequest& request, const std::atomic<bool>* cancel,
                               const std::function<void(std::string_view)>& on_body) {
    HttpResult result;
    HttpResponse resp;
    std::string url = request.url;
    std::string method = request.method;
    bool send_body = request.has_body;
    auto script_headers = request.headers;
    std::string first_host;
    // A CR or LF in a header would let the script write headers (or a whole request) of its own.
    for (const auto& [k, v] : script_headers) {
        auto bad = [](const std::string& s) { return s.find_first_of(std::string("\r\n\0", 3)) != std::string::npos; };
        if (bad(k) || bad(v)) {
            result.error = HttpError{43, "blocked by the sandbox: a CR, LF or NUL byte in the header '" +
                                             std::string(k.substr(0, k.find_first_of("\r\n"))) + "'", true};
            return result;
        }
    }

    for (int hop = 0;; ++hop) {
        if (auto e = precheck(url)) {
            result.error = *e;
            return result;
        }
        ParsedUrl p = *parse_url(url);
        if (hop == 0) {
            first_host = p.host;
        } else if (!iequals(p.host, first_host)) {
            // Like curl: credentials the script set are not sent to another host after a redirect.
            std::erase_if(script_headers, [](const auto& h) {
                return iequals(h.first, "Authorization") || iequals(h.first, "Cookie");
            });
        }

        HopState st;
        st.options = &options_;
        st.cancel = cancel;
        st.on_body = &on_body;
        st.max_bytes = options_.max_response_bytes;
        st.skip_redirect_body = request.follow_redirects;
        st.host = p.host;

        // Resolve and judge every answer before connecting.
        std::vector<IpAddress> addrs;
        if (auto e = resolve_hop(p, addrs, st.literal)) {
            result.error = *e;
            return result;
        }
        for (const auto& a : addrs) st.pinned.insert(a.to_string());

        CurlHandle c;
        if (!c.h) {
            result.error = HttpError{2, "Failed initialization", false};
            return result;
        }
        CURL* h = c.h;
        curl().curl_easy_setopt(h, CURLOPT_URL, url.c_str());
        curl().curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl().curl_easy_setopt(h, CURLOPT_PROXY, "");
        curl().curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        curl().curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        curl().curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
        curl().curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
        curl().curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
        if (!options_.ca_file.empty()) curl().curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str());
        curl().curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
        curl().curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &st);
        curl().curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
        curl().curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
        curl().curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl().curl_easy_setopt(h, CURLOPT_HEADERDATA, &st);
        curl().curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl().curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl().curl_easy_setopt(h, CURLOPT_XFERINFODATA, &st);
        curl().curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
        curl().curl_easy_setopt(h, CURLOPT_DEBUGDATA, &st);
        curl().curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);  // feeds on_debug only; nothing is printed
        auto ct = request.connect_timeout.value_or(options_.connect_timeout);
        auto tt = request.timeout.value_or(options_.total_timeout);
        curl().curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, long(ct.count()));
        curl().curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, long(tt.count()));
        if (options_.low_speed_bytes_per_second > 0 && options_.low_speed_window.count() > 0) {
            // A server trickling bytes (one every 10 s) is cut, whatever timeout the script asked for.
            curl().curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, long(options_.low_speed_bytes_per_second));
            curl().curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                                    long(std::max<int64_t>(1, options_.low_speed_window.count() / 1000)));
        }
        curl().curl_easy_setopt(h, CURLOPT_RESOLVER_START_FUNCTION, on_resolver_start);
        curl().curl_easy_setopt(h, CURLOPT_RESOLVER_START_DATA, &st);
        if (!addrs.empty()) {
            // The answers, pinned for the name and for its trailing-dot form (the same name).
            std::string answers;
            for (size_t i = 0; i < addrs.size(); ++i) {
                if (i) answers += ",";
                answers += addrs[i].v6 ? "[" + addrs[i].to_string() + "]" : addrs[i].to_string();
            }
            for (const std::string& name : {p.host, p.host + "."}) {
                std::string entry = host_for_url(name) + ":" + std::to_string(p.port) + ":" + answers;
                c.resolve = curl().curl_slist_append(c.resolve, entry.c_str());
            }
            curl().curl_easy_setopt(h, CURLOPT_RESOLVE, c.resolve);
        }

        // Headers: the script's, with bound headers replacing any of the same name.
        std::vector<std::pair<std::string, std::string>> bound;
        if (p.scheme == "https" && options_.secrets) {
            // A host with bindings gets only unambiguous paths: the prefix is compared on the decoded,
            // normalised path, and a path that servers may read two ways is refused.
            std::optional<std::string> norm;
            bool checked = false;
            for (const auto& b : options_.header_bindings) {
                auto hp = parse_host_port(b.host);
                if (!hp.value || hp.value->host != normalize_host(p.host) || hp.value->port != p.port) continue;
                if (!checked) {
                    norm = normalise_request_path(p.path);
                    checked = true;
                }
                if (!norm) {
                    result.error = blocked("an encoded '/' or '\\', or a '..' segment, in the path of a request to " +
                                           p.host + ", which has a header binding");
                    return result;
                }
                if (!path_matches_prefix(*norm, b.path_prefix)) continue;
                auto secret = options_.secrets->get(b.secret_name);
                if (!secret) continue;
                bound.emplace_back(b.header, b.prefix + *secret + b.suffix);
                st.redact.push_back(*secret);
            }
        }
        if (!bound.empty()) {
            for (const auto& kv : script_headers) {
                if (iequals(kv.first, "Host")) {
                    result.error = blocked("a Host header set by the script on a request carrying a bound secret");
                    return result;
                }
            }
        }
        for (const auto& kv : script_headers) {
            const std::string& k = kv.first;
            const std::string& v = kv.second;
            bool replaced = std::any_of(bound.begin(), bound.end(), [&](const auto& b) { return iequals(b.first, k); });
            if (replaced) continue;
            std::string line = v.empty() ? k + ";" : k + ": " + v;
            c.headers = curl().curl_slist_append(c.headers, line.c_str());
        }
        for (const auto& [k, v] : bound) c.headers = curl().curl_slist_append(c.headers, (k + ": " + v).c_str());
        if (c.headers) curl().curl_easy_setopt(h, CURLOPT_HTTPHEADER, c.headers);

        if (request.head_only) {
            curl().curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        } else if (send_body) {
            curl().curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
            curl().curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
            if (method != "POST") curl().curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
        } else if (method != "GET") {
            curl().curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
        }

        CURLcode rc = curl().curl_easy_perform(h);
        resp.sent_headers.push_back(st.sent);
        resp.raw_headers += st.raw_headers;
        if (st.refused) {
            result.error = blocked(*st.refused);
            return result;
        }
        if (rc != CURLE_OK) {
            HttpError e{int(rc), curl().curl_easy_strerror(rc), false};
            if (st.too_big) {
                e = HttpError{63,
                              "Exceeded the maximum allowed file size (" + std::to_string(options_.max_response_bytes) +
                                  ") with " + std::to_string(st.body_bytes) + " bytes",
                              false};
            } else if (rc == CURLE_ABORTED_BY_CALLBACK) {
                e.message = "Operation cancelled";
            } else if (rc == CURLE_COULDNT_CONNECT) {
                e.message = "Failed to connect to " + p.host + " port " + std::to_string(p.port);
            } else if (rc == CURLE_OPERATION_TIMEDOUT) {
                e.message = "Operation timed out";
            }
            result.error = e;
            return result;
        }
        long status = 0;
        curl().curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        resp.status = status;
        resp.status_line = st.status_line;
        resp.headers = st.headers;
        resp.body = std::move(st.body);
        resp.effective_url = url;

        if (!request.follow_redirects || !is_redirect(status)) break;
        std::string location;
        for (const auto& [k, v] : st.headers) {
            if (iequals(k, "Location")) location = v;
        }
        if (location.empty()) break;
        if (hop + 1 > options_.max_redirects) {
            result.error = HttpError{47, "Maximum (" + std::to_string(options_.max_redirects) + ") redirects followed", false};
            return result;
        }
        auto next = resolve_location(url, location);
        if (!next) {
            result.error = HttpError{3, "URL rejected: bad redirect location", false};
            return result;
        }
        url = *next;
        resp.redirects = hop + 1;
        if (status == 303 || ((status == 301 || status == 302) && method == "POST")) {
            method = "GET";
            send_body = false;
        }
    }
    result.response = std::move(resp);
    return result;
}

}  // namespace bashkit::net
