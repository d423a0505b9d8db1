// The HTTP client on the wire: real HTTP and HTTPS servers on 127.0.0.1, started here, no mock of libcurl.
// Only loopback addresses are ever connected to; "private" verdicts are staged with loopback addresses and
// the extra deny list, or with the default rules that refuse loopback before any connection.
#include <httplib.h>

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "net/http.hpp"

namespace bn = bashkit::net;
using namespace std::chrono_literals;

namespace {

// A self-signed certificate for localhost and 127.0.0.1, written to a temp folder.
struct TestCert {
    std::filesystem::path dir, cert, key;
    TestCert() {
        dir = std::filesystem::temp_directory_path() / ("bashkit-net-test-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        cert = dir / "cert.pem";
        key = dir / "key.pem";
        EVP_PKEY* pkey = EVP_EC_gen("P-256");
        X509* x = X509_new();
        ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
        X509_gmtime_adj(X509_getm_notBefore(x), -3600);
        X509_gmtime_adj(X509_getm_notAfter(x), 3600 * 24);
        X509_set_pubkey(x, pkey);
        X509_NAME* name = X509_get_subject_name(x);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
        X509_set_issuer_name(x, name);
        X509V3_CTX ctx;
        X509V3_set_ctx_nodb(&ctx);
        X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
        for (auto [nid, value] : {std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                                  std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
            X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
            X509_add_ext(x, ext, -1);
            X509_EXTENSION_free(ext);
        }
        X509_sign(x, pkey, EVP_sha256());
        FILE* f = std::fopen(cert.c_str(), "w");
        PEM_write_X509(f, x);
        std::fclose(f);
        f = std::fopen(key.c_str(), "w");
        PEM_write_PrivateKey(f, pkey, nullptr, nullptr, 0, nullptr, nullptr);
        std::fclose(f);
        X509_free(x);
        EVP_PKEY_free(pkey);
    }
    ~TestCert() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

// Routes shared by the HTTP and HTTPS servers. Every request is counted.
template <class Server>
void add_routes(Server& s, std::atomic<int>& hits) {
    s.set_pre_routing_handler([&hits](const httplib::Request&, httplib::Response&) {
        ++hits;
        return httplib::Server::HandlerResponse::Unhandled;
    });
    s.Get("/echo.*", [](const httplib::Request& req, httplib::Response& res) {
        std::string out = req.method + " " + req.path + "\n";
        for (const auto& [k, v] : req.headers) out += k + ": " + v + "\n";
        res.set_content(out, "text/plain");
    });
    s.Post("/echo.*", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content(req.method + " body=" + req.body, "text/plain");
    });
    auto redirect = [](const httplib::Request& req, httplib::Response& res) {
        res.status = req.has_param("code") ? std::stoi(req.get_param_value("code")) : 302;
        res.set_header("Location", req.get_param_value("to"));
    };
    s.Get("/redirect", redirect);
    s.Post("/redirect", redirect);
    s.Get("/loop", [](const httplib::Request&, httplib::Response& res) {
        res.status = 302;
        res.set_header("Location", "/loop");
    });
    s.Get("/big", [](const httplib::Request& req, httplib::Response& res) {
        size_t n = std::stoul(req.get_param_value("n"));
        res.set_content(std::string(n, 'x'), "application/octet-stream");
    });
    s.Get("/hang", [](const httplib::Request&, httplib::Response& res) {
        std::this_thread::sleep_for(3s);
        res.set_content("late", "text/plain");
    });
    s.Get("/trickle", [](const httplib::Request&, httplib::Response& res) {
        res.set_chunked_content_provider("text/plain", [](size_t offset, httplib::DataSink& sink) {
            if (offset >= 20) {
                sink.done();
                return true;
            }
            std::this_thread::sleep_for(400ms);
            return sink.write("x", 1);
        });
    });
    s.Get("/status/(\\d+)", [](const httplib::Request& req, httplib::Response& res) {
        res.status = std::stoi(req.matches[1]);
        res.set_content("status", "text/plain");
    });
}

struct Servers {
    TestCert cert;
    httplib::Server http;
    httplib::SSLServer https{cert.cert.c_str(), cert.key.c_str()};
    std::atomic<int> http_hits{0}, https_hits{0};
    int http_port = 0, https_port = 0;
    std::thread t1, t2;

    Servers() {
        add_routes(http, http_hits);
        add_routes(https, https_hits);
        http_port = http.bind_to_any_port("127.0.0.1");
        https_port = https.bind_to_any_port("127.0.0.1");
        t1 = std::thread([this] { http.listen_after_bind(); });
        t2 = std::thread([this] { https.listen_after_bind(); });
        while (!http.is_running() || !https.is_running()) std::this_thread::sleep_for(1ms);
    }
    ~Servers() {
        http.stop();
        https.stop();
        t1.join();
        t2.join();
    }
    std::string http_url(const std::string& path) const {
        return "http://127.0.0.1:" + std::to_string(http_port) + path;
    }
    std::string https_url(const std::string& path, const std::string& host = "127.0.0.1") const {
        return "https://" + host + ":" + std::to_string(https_port) + path;
    }
};

Servers& servers() {
    static Servers s;
    return s;
}

// Requests are built field by field: g++ 12 warns on designated initializers that omit members.
bn::HttpRequest get(std::string url, bool follow = false) {
    bn::HttpRequest r;
    r.url = std::move(url);
    r.follow_redirects = follow;
    return r;
}
bn::HttpRequest post(std::string url, std::string body, bool follow = false) {
    bn::HttpRequest r = get(std::move(url), follow);
    r.method = "POST";
    r.body = std::move(body);
    r.has_body = true;
    return r;
}
bn::HttpRequest with_timeout(bn::HttpRequest r, std::chrono::milliseconds t) {
    r.timeout = t;
    return r;
}
bn::HttpRequest with_header(bn::HttpRequest r, std::string k, std::string v) {
    r.headers.emplace_back(std::move(k), std::move(v));
    return r;
}

bn::ClientOptions open_loopback() {
    bn::ClientOptions o;
    o.network = bn::Network::all();
    o.block_private_ips = false;
    o.ca_file = servers().cert.cert.string();
    return o;
}

struct MapSecrets : bn::SecretStore {
    std::map<std::string, std::string> values;
    std::optional<std::string> get(const std::string& name) const override {
        auto it = values.find(name);
        if (it == values.end()) return std::nullopt;
        return it->second;
    }
};

TEST(HttpClient, LoopbackReachableWhenPrivateIpsAllowed) {
    bn::HttpClient c(open_loopback());
    auto r = c.perform(get(servers().http_url("/echo")));
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_EQ(r.response->status, 200);
    EXPECT_EQ(r.response->body.substr(0, 10), "GET /echo\n");
}

TEST(HttpClient, DefaultRulesRefuseLoopbackBeforeAnyConnection) {
    int before = servers().http_hits + servers().https_hits;
    bn::ClientOptions o;
    o.network = bn::Network::all();
    bn::HttpClient c(o);
    for (std::string url : {servers().http_url("/echo"), servers().https_url("/echo"),
                            "http://0x7f.1:" + std::to_string(servers().http_port) + "/echo",
                            "http://2130706433:" + std::to_string(servers().http_port) + "/echo",
                            "http://[::ffff:127.0.0.1]:" + std::to_string(servers().http_port) + "/echo",
                            "http://a.com@127.0.0.1:" + std::to_string(servers().http_port) + "/echo"}) {
        auto r = c.perform(get(url));
        ASSERT_FALSE(r.ok()) << url;
        EXPECT_TRUE(r.error->blocked) << url;
        EXPECT_NE(r.error->message.find("blocked by the sandbox"), std::string::npos) << r.error->message;
    }
    EXPECT_EQ(servers().http_hits + servers().https_hits, before);
}

TEST(HttpClient, NameResolvingToLoopbackIsRefused) {
    auto res = std::make_shared<bn::StaticResolver>();
    res->add("internal.test", {*bn::parse_ip("127.0.0.1")});
    res->add("mixed.test", {*bn::parse_ip("127.0.0.1"), *bn::parse_ip("::1")});
    bn::ClientOptions o;
    o.network = bn::Network::all();
    o.resolver = res;
    bn::HttpClient c(o);
    int before = servers().http_hits;
    auto r = c.perform(get("http://internal.test:" + std::to_string(servers().http_port) + "/echo"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error->blocked);
    EXPECT_NE(r.error->message.find("internal.test resolves to 127.0.0.1"), std::string::npos) << r.error->message;
    EXPECT_EQ(servers().http_hits, before);
}

TEST(HttpClient, NamesGoThroughTheResolverAndArePinned) {
    auto res = std::make_shared<bn::StaticResolver>();
    res->add("svc.test", {*bn::parse_ip("127.0.0.1")});
    auto o = open_loopback();
    o.resolver = res;
    bn::HttpClient c(o);
    auto r = c.perform(get("http://svc.test:" + std::to_string(servers().http_port) + "/echo"));
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_NE(r.response->body.find("Host: svc.test:"), std::string::npos);
    auto missing = c.perform(get("http://nothere.test/"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error->curl_code, 6);
    EXPECT_EQ(missing.error->message, "Could not resolve host: nothere.test");
}

TEST(HttpClient, RebindingOnRedirectIsCaught) {
    // First lookup: an allowed loopback address; the redirect's lookup answers with a denied one.
    auto res = std::make_shared<bn::StaticResolver>();
    res->add("rebind.test", {*bn::parse_ip("127.0.0.1")});
    res->add("rebind.test", {*bn::parse_ip("127.0.0.2")});
    auto o = open_loopback();
    o.resolver = res;
    o.extra_deny = {*bn::IpNetwork::parse("127.0.0.2/32")};
    bn::HttpClient c(o);
    std::string port = std::to_string(servers().http_port);
    auto r = c.perform(get("http://rebind.test:" + port + "/redirect?to=/echo", true));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error->blocked);
    EXPECT_NE(r.error->message.find("127.0.0.2"), std::string::npos) << r.error->message;
}

TEST(HttpClient, RedirectToDeniedAddressIsRefusedAtThatHop) {
    auto o = open_loopback();
    o.extra_deny = {*bn::IpNetwork::parse("127.0.0.2/32")};
    bn::HttpClient c(o);
    std::string target = "http://127.0.0.2:" + std::to_string(servers().http_port) + "/echo";
    auto r = c.perform(get(servers().http_url("/redirect?to=" + target), true));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error->blocked);
    // Without -L the redirect itself is the answer.
    auto r2 = c.perform(get(servers().http_url("/redirect?to=" + target)));
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(r2.response->status, 302);
}

TEST(HttpClient, RedirectToOtherSchemesIsRefused) {
    bn::HttpClient c(open_loopback());
    for (const char* to : {"file:///etc/passwd", "ftp://127.0.0.1/", "gopher://127.0.0.1/"}) {
        auto r = c.perform(get(servers().http_url(std::string("/redirect?to=") + to), true));
        ASSERT_FALSE(r.ok()) << to;
        EXPECT_EQ(r.error->curl_code, 1) << to;
    }
}

TEST(HttpClient, RedirectsAreFollowedAndCapped) {
    bn::HttpClient c(open_loopback());
    auto r = c.perform(get(servers().http_url("/redirect?to=/echo/after"), true));
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_EQ(r.response->redirects, 1);
    EXPECT_EQ(r.response->body.substr(0, 16), "GET /echo/after\n");
    auto loop = c.perform(get(servers().http_url("/loop"), true));
    ASSERT_FALSE(loop.ok());
    EXPECT_EQ(loop.error->curl_code, 47);
    EXPECT_EQ(loop.error->message, "Maximum (10) redirects followed");
}

TEST(HttpClient, PostBecomesGetAfter303) {
    bn::HttpClient c(open_loopback());
    auto r = c.perform(post(servers().http_url("/echo"), "a=1"));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.response->body, "POST body=a=1");
    auto r2 = c.perform(post(servers().http_url("/redirect?code=303&to=/echo"), "a=1", true));
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(r2.response->body.substr(0, 10), "GET /echo\n");
}

TEST(HttpClient, ResponseSizeIsCapped) {
    auto o = open_loopback();
    o.max_response_bytes = 1000;
    bn::HttpClient c(o);
    auto ok = c.perform(get(servers().http_url("/big?n=1000")));
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok.response->body.size(), 1000u);
    auto r = c.perform(get(servers().http_url("/big?n=200000")));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->curl_code, 63);
    EXPECT_NE(r.error->message.find("Exceeded the maximum allowed file size (1000)"), std::string::npos);
}

TEST(HttpClient, StreamingBodyCallback) {
    bn::HttpClient c(open_loopback());
    size_t got = 0;
    auto r = c.perform(get(servers().http_url("/big?n=300000")), nullptr,
                       [&](std::string_view chunk) { got += chunk.size(); });
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(got, 300000u);
    EXPECT_TRUE(r.response->body.empty());
}

TEST(HttpClient, TimeoutAndCancel) {
    bn::HttpClient c(open_loopback());
    auto r = c.perform(with_timeout(get(servers().http_url("/hang")), 300ms));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->curl_code, 28);

    std::atomic<bool> cancel{false};
    std::thread t([&] {
        std::this_thread::sleep_for(200ms);
        cancel = true;
    });
    auto r2 = c.perform(get(servers().http_url("/hang")), &cancel);
    t.join();
    ASSERT_FALSE(r2.ok());
    EXPECT_EQ(r2.error->curl_code, 42);
}

TEST(HttpClient, PolicyNoneAndAllowList) {
    bn::ClientOptions none;
    bn::HttpClient c0(none);
    auto r0 = c0.perform(get("https://example.com/"));
    ASSERT_FALSE(r0.ok());
    EXPECT_TRUE(r0.error->blocked);
    EXPECT_EQ(r0.error->message, "blocked by the sandbox: network access is disabled in this sandbox");

    auto o = open_loopback();
    o.network = bn::Network::allow({"127.0.0.1:" + std::to_string(servers().https_port)});
    bn::HttpClient c(o);
    auto ok = c.perform(get(servers().https_url("/echo")));
    ASSERT_TRUE(ok.ok()) << ok.error->message;
    auto http = c.perform(get("http://127.0.0.1:" + std::to_string(servers().https_port) + "/echo"));
    ASSERT_FALSE(http.ok());
    EXPECT_TRUE(http.error->blocked);
    auto other_port = c.perform(get(servers().http_url("/echo")));
    ASSERT_FALSE(other_port.ok());
    EXPECT_TRUE(other_port.error->blocked);
}

TEST(HttpClient, TlsIsVerified) {
    auto o = open_loopback();
    o.ca_file.clear();  // the system's CAs do not trust the test certificate
    bn::HttpClient c(o);
    auto r = c.perform(get(servers().https_url("/echo")));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->curl_code, 60);
}

TEST(HeaderBindings, SecretSentOnlyWhereBoundAndNeverShown) {
    auto secrets = std::make_shared<MapSecrets>();
    secrets->values["GH_TOKEN"] = "s3cr3t-value";
    auto o = open_loopback();
    o.secrets = secrets;
    std::string hostport = "127.0.0.1:" + std::to_string(servers().https_port);
    bn::HeaderBinding b;
    b.host = hostport;
    b.header = "Authorization";
    b.secret_name = "GH_TOKEN";
    b.path_prefix = "/echo/api";
    b.prefix = "Bearer ";
    o.header_bindings = {b};
    bn::HttpClient c(o);

    // Bound path: the header is on the wire, replacing the script's own.
    auto r = c.perform(with_header(get(servers().https_url("/echo/api/repos")), "Authorization", "Bearer mine"));
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_NE(r.response->body.find("Authorization: Bearer s3cr3t-value"), std::string::npos) << r.response->body;
    EXPECT_EQ(r.response->body.find("Bearer mine"), std::string::npos);
    ASSERT_EQ(r.response->sent_headers.size(), 1u);
    EXPECT_EQ(r.response->sent_headers[0].find("s3cr3t"), std::string::npos);
    EXPECT_NE(r.response->sent_headers[0].find("Authorization: Bearer [redacted by sandbox]"), std::string::npos);

    // Exactly on the prefix, and not on a sibling that merely shares the characters.
    auto exact = c.perform(get(servers().https_url("/echo/api")));
    ASSERT_TRUE(exact.ok());
    EXPECT_NE(exact.response->body.find("s3cr3t-value"), std::string::npos);
    auto sibling = c.perform(get(servers().https_url("/echo/apix")));
    ASSERT_TRUE(sibling.ok());
    EXPECT_EQ(sibling.response->body.find("s3cr3t"), std::string::npos);

    // Another host name for the same server, and plain HTTP: never.
    auto res = std::make_shared<bn::StaticResolver>();
    res->add("localhost", {*bn::parse_ip("127.0.0.1")});
    auto o2 = o;
    o2.resolver = res;
    bn::HttpClient c2(o2);
    auto other = c2.perform(get(servers().https_url("/echo/api/x", "localhost")));
    ASSERT_TRUE(other.ok()) << other.error->message;
    EXPECT_EQ(other.response->body.find("s3cr3t"), std::string::npos);
    auto plain = c.perform(get("http://" + hostport + "/echo/api/x"));
    EXPECT_TRUE(!plain.ok() || plain.response->body.find("s3cr3t") == std::string::npos);

    // A redirect to another host does not carry it.
    std::string to = servers().http_url("/echo/after");
    auto redir = c.perform(get(servers().https_url("/redirect?to=" + to), true));
    ASSERT_TRUE(redir.ok()) << redir.error->message;
    EXPECT_EQ(redir.response->body.find("s3cr3t"), std::string::npos);
    EXPECT_EQ(redir.response->body.find("Authorization"), std::string::npos);
}

// Every name it is asked for, answered from a table (127.0.0.1 for the names given).
struct RecordingResolver : bn::Resolver {
    std::vector<std::string> asked;
    std::set<std::string> known;
    std::vector<bn::IpAddress> resolve(const std::string& host) override {
        asked.push_back(host);
        if (known.count(host)) return {*bn::parse_ip("127.0.0.1")};
        return {};
    }
};

TEST(HttpClient, RefusedNamesAreNeverResolved) {
    auto rec = std::make_shared<RecordingResolver>();
    rec->known = {"allowed.invalid", "evil.invalid"};
    auto o = open_loopback();
    o.network = bn::Network::allow({"allowed.invalid:" + std::to_string(servers().https_port)});
    o.resolver = rec;
    bn::HttpClient c(o);
    const std::string port = std::to_string(servers().http_port);
    for (const std::string& url : std::vector<std::string>{"https://evil.invalid/", "http://evil.invalid:" + port + "/echo",
                            "http://evil.invalid.:" + port + "/echo", "http://allowed.invalid:1/echo",
                            "ftp://allowed.invalid/", "http:/127.0.0.1/", "http://[::1/", "http://a b/"}) {
        auto r = c.perform(get(url));
        EXPECT_FALSE(r.ok()) << url;
        auto j = c.judge(url);
        EXPECT_TRUE(j.has_value()) << url;
    }
    EXPECT_TRUE(rec->asked.empty()) << rec->asked.front();
    // An allowed name is resolved once per hop (then connected to: the certificate does not name it).
    auto tls = c.perform(get("https://allowed.invalid:" + std::to_string(servers().https_port) + "/echo"));
    ASSERT_FALSE(tls.ok());
    EXPECT_EQ(tls.error->curl_code, 60) << tls.error->message;
    EXPECT_EQ(rec->asked, (std::vector<std::string>{"allowed.invalid"}));
}

TEST(HttpClient, TrailingDotNamesAreTheSameNameAndLibcurlNeverResolves) {
    auto rec = std::make_shared<RecordingResolver>();
    rec->known = {"pinned.invalid"};  // no DNS server knows it: only the pin can answer
    auto o = open_loopback();
    o.resolver = rec;
    bn::HttpClient c(o);
    const std::string port = std::to_string(servers().http_port);
    auto r = c.perform(get("http://pinned.invalid.:" + port + "/echo"));
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_EQ(rec->asked, (std::vector<std::string>{"pinned.invalid"}));
    auto upper = c.perform(get("http://PINNED.invalid:" + port + "/echo"));
    ASSERT_TRUE(upper.ok()) << upper.error->message;
    EXPECT_EQ(rec->asked.back(), "pinned.invalid");
    // The policy sees the same name with or without the dot.
    auto o2 = o;
    const std::string tls_port = std::to_string(servers().https_port);
    o2.network = bn::Network::allow({"pinned.invalid:" + tls_port});
    bn::HttpClient c2(o2);
    auto allowed = c2.perform(get("https://pinned.invalid.:" + tls_port + "/echo"));
    ASSERT_FALSE(allowed.ok());
    EXPECT_EQ(allowed.error->curl_code, 60) << allowed.error->message;  // connected: the certificate differs
    o2.network = bn::Network::allow({"other.invalid"});
    bn::HttpClient c3(o2);
    const size_t before = rec->asked.size();
    EXPECT_FALSE(c3.perform(get("http://pinned.invalid.:" + port + "/echo")).ok());
    EXPECT_EQ(rec->asked.size(), before);
}

TEST(HttpClient, HeadersWithLineBreaksAreRefusedBeforeSending) {
    bn::HttpClient c(open_loopback());
    const int hits = servers().http_hits.load();
    for (auto [k, v] : {std::pair<std::string, std::string>{"X-A", "b\r\nAuthorization: evil"},
                        {"X-A", "b\nX-B: c"}, {"X-A", "b\rc"}, {"X-A\r\nX-B", "c"},
                        {"X-A", std::string("b\0c", 3)}}) {
        auto r = c.perform(with_header(get(servers().http_url("/echo")), k, v));
        ASSERT_FALSE(r.ok()) << k;
        EXPECT_TRUE(r.error->blocked);
        EXPECT_NE(r.error->message.find("CR, LF or NUL"), std::string::npos) << r.error->message;
    }
    EXPECT_EQ(servers().http_hits.load(), hits);
    EXPECT_TRUE(c.perform(with_header(get(servers().http_url("/echo")), "X-A", "b c")).ok());
}

TEST(HttpClient, AServerTricklingBytesIsCut) {
    auto o = open_loopback();
    o.low_speed_bytes_per_second = 100;
    o.low_speed_window = 1000ms;
    bn::HttpClient c(o);
    auto r = c.perform(get(servers().http_url("/trickle")));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->curl_code, 28);
    EXPECT_EQ(bn::ClientOptions{}.low_speed_bytes_per_second, 1);
    EXPECT_EQ(bn::ClientOptions{}.low_speed_window, 30'000ms);
}

TEST(HeaderBindings, PathsAreNormalisedAndAmbiguousOnesRefused) {
    EXPECT_EQ(bn::normalise_request_path("/api/x?q=%2f..").value_or("?"), "/api/x");
    EXPECT_EQ(bn::normalise_request_path("/api/./x").value_or("?"), "/api/x");
    EXPECT_EQ(bn::normalise_request_path("//api//x/").value_or("?"), "/api/x/");
    EXPECT_EQ(bn::normalise_request_path("/%61pi/%7e").value_or("?"), "/api/~");
    EXPECT_EQ(bn::normalise_request_path("/").value_or("?"), "/");
    EXPECT_EQ(bn::normalise_request_path("/a%zz%2").value_or("?"), "/a%zz%2");
    for (const char* bad : {"/api/../x", "/api/%2e%2e/x", "/api/%2E%2e", "/api/.%2e/x", "/api%2fx", "/api%2Fx",
                            "/api%5cx", "/api\\x", "/api/%00"}) {
        EXPECT_FALSE(bn::normalise_request_path(bad).has_value()) << bad;
    }

    auto secrets = std::make_shared<MapSecrets>();
    secrets->values["T"] = "s3cr3t-value";
    auto o = open_loopback();
    o.secrets = secrets;
    bn::HeaderBinding b;
    b.host = "127.0.0.1:" + std::to_string(servers().https_port);
    b.header = "Authorization";
    b.secret_name = "T";
    b.path_prefix = "/echo/api";
    o.header_bindings = {b};
    bn::HttpClient c(o);
    const int hits = servers().https_hits.load();
    // libcurl keeps %2e%2e as it is: a server decoding it would serve /echo/x with the secret.
    for (const char* path : {"/echo/api/%2e%2e/x", "/echo/api/%2E%2E/%2e%2e/x", "/echo/api%2f..%2fx",
                             "/echo/api/..%2fx", "/echo/%2e%2e/echo/api/x"}) {
        auto r = c.perform(get(servers().https_url(path)));
        ASSERT_FALSE(r.ok()) << path;
        EXPECT_TRUE(r.error->blocked) << path;
    }
    EXPECT_EQ(servers().https_hits.load(), hits);
    // Decoded and normalised paths under the prefix carry the secret; others do not.
    for (const char* path : {"/echo/%61pi/x", "/echo//api/x", "/echo/./api/x"}) {
        auto r = c.perform(get(servers().https_url(path)));
        ASSERT_TRUE(r.ok()) << path << ": " << r.error->message;
        EXPECT_NE(r.response->body.find("s3cr3t-value"), std::string::npos) << path;
    }
    auto other = c.perform(get(servers().https_url("/echo/apix")));
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(other.response->body.find("s3cr3t"), std::string::npos);
    // A Host header of the script's own is refused where a secret would go, and honoured elsewhere.
    auto host = c.perform(with_header(get(servers().https_url("/echo/api/x")), "Host", "internal.example"));
    ASSERT_FALSE(host.ok());
    EXPECT_TRUE(host.error->blocked);
    EXPECT_NE(host.error->message.find("Host header"), std::string::npos);
    auto host_ok = c.perform(with_header(get(servers().https_url("/echo/other")), "Host", "internal.example"));
    ASSERT_TRUE(host_ok.ok()) << host_ok.error->message;
    EXPECT_NE(host_ok.response->body.find("internal.example"), std::string::npos);
}

TEST(HttpClient, NoProxyFromEnvironment) {
    ::setenv("http_proxy", "http://127.0.0.1:1", 1);
    ::setenv("HTTP_PROXY", "http://127.0.0.1:1", 1);
    ::setenv("ALL_PROXY", "http://127.0.0.1:1", 1);
    bn::HttpClient c(open_loopback());
    auto r = c.perform(get(servers().http_url("/echo")));
    ::unsetenv("http_proxy");
    ::unsetenv("HTTP_PROXY");
    ::unsetenv("ALL_PROXY");
    ASSERT_TRUE(r.ok()) << r.error->message;
}

}  // namespace
