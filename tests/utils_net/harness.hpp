// Shared by the curl and wget tests: loopback HTTP and HTTPS servers started by the tests (cpp-httplib,
// a self-signed certificate made here and trusted through ClientOptions::ca_file), and a helper that runs a
// script in a Shell with the utilities registered and a given HttpClient.
#pragma once

#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "net/http.hpp"
#include "vfs/memory_fs.hpp"

namespace nettest {

namespace bn = bashkit::net;
using namespace std::chrono_literals;

// A self-signed certificate for localhost and 127.0.0.1, written to a temp folder.
struct TestCert {
    std::filesystem::path dir, cert, key;
    TestCert() {
        dir = std::filesystem::temp_directory_path() / ("bashkit-utils-net-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        cert = dir / "cert.pem";
        key = dir / "key.pem";
        EVP_PKEY* pkey = EVP_EC_gen("P-256");
        X509* x = X509_new();
        ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
        X509_gmtime_adj(X509_getm_notBefore(x), -3600);
        X509_gmtime_adj(X509_getm_notAfter(x), 3600 * 24);
        X509_set_pubkey(x, pkey);
        X509_NAME* name = X509_get_subject_name(x);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"),
                                   -1, -1, 0);
        X509_set_issuer_name(x, name);
        X509V3_CTX ctx;
        X509V3_set_ctx_nodb(&ctx);
        X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
        const std::pair<int, const char*> exts[] = {{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                                                    {NID_basic_constraints, "critical,CA:TRUE"}};
        for (const auto& e : exts) {
            X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, e.first, e.second);
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

inline std::string gzip(const std::string& in) {
    z_stream zs{};
    deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, uLong(in.size())) + 32, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = uInt(in.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// What the servers saw, for checks on the wire.
struct Seen {
    std::mutex mu;
    std::atomic<int> hits{0};
    std::vector<std::string> authorization;  // Authorization header of every request to /record ("" if none)
    std::map<std::string, int> flaky;        // /flaky?id= -> times asked
    void clear() {
        std::lock_guard lock(mu);
        authorization.clear();
    }
};

template <class Server>
void add_routes(Server& s, Seen& seen) {
    s.set_pre_routing_handler([&seen](const httplib::Request&, httplib::Response&) {
        ++seen.hits;
        return httplib::Server::HandlerResponse::Unhandled;
    });
    // GET: the request line and headers (sorted by name, as httplib keeps them).
    s.Get("/echo.*", [](const httplib::Request& req, httplib::Response& res) {
        std::string out = req.method + " " + req.target + "\n";
        for (const auto& [k, v] : req.headers) {
            if (k == "REMOTE_ADDR" || k == "REMOTE_PORT" || k == "LOCAL_ADDR" || k == "LOCAL_PORT") continue;
            out += k + ": " + v + "\n";
        }
        res.set_content(out, "text/plain");
    });
    auto body_echo = [](const httplib::Request& req, httplib::Response& res) {
        std::string out = req.method + " " + req.target + " ct=" + req.get_header_value("Content-Type") +
                          " body=" + req.body;
        if (req.get_header_value("Accept") != "*/*") out += " accept=" + req.get_header_value("Accept");
        res.set_content(out, "text/plain");
    };
    s.Post("/echo.*", body_echo);
    s.Put("/echo.*", body_echo);
    s.Delete("/echo.*", body_echo);
    s.Patch("/echo.*", body_echo);
    s.Post("/form", [](const httplib::Request& req, httplib::Response& res) {
        std::string out;
        for (const auto& [name, f] : req.files) {
            out += name + " filename=" + f.filename + " type=" + f.content_type + " content=" + f.content + "\n";
        }
        res.set_content(out, "text/plain");
    });
    auto redirect = [](const httplib::Request& req, httplib::Response& res) {
        res.status = req.has_param("code") ? std::stoi(req.get_param_value("code")) : 302;
        res.set_header("Location", req.get_param_value("to"));
        res.set_content("redirect body\n", "text/plain");
    };
    s.Get("/redirect", redirect);
    s.Post("/redirect", redirect);
    s.Get("/loop", [](const httplib::Request&, httplib::Response& res) {
        res.status = 302;
        res.set_header("Location", "/loop");
    });
    s.Get("/big", [](const httplib::Request& req, httplib::Response& res) {
        size_t n = std::stoul(req.get_param_value("n"));
        std::string body(n, 'x');
        for (size_t i = 0; i < n; i += 1000) body[i] = char('a' + (i / 1000) % 26);
        res.set_content(body, "application/octet-stream");
    });
    s.Get("/hang", [](const httplib::Request&, httplib::Response& res) {
        std::this_thread::sleep_for(3s);
        res.set_content("late", "text/plain");
    });
    s.Get("/status/(\\d+)", [](const httplib::Request& req, httplib::Response& res) {
        res.status = std::stoi(req.matches[1]);
        res.set_content("status body\n", "text/plain");
    });
    s.Get("/gzip", [](const httplib::Request&, httplib::Response& res) {
        res.set_header("Content-Encoding", "gzip");
        // Not a text type, so that httplib does not compress it once more.
        res.set_content(gzip("hello, compressed world\n"), "application/x-data");
    });
    s.Get("/gzip-text", [](const httplib::Request&, httplib::Response& res) {
        // A text type: httplib compresses it once more for a client that accepts gzip (two codings).
        res.set_header("Content-Encoding", "gzip");
        res.set_content(gzip("twice\n"), "text/plain");
    });
    s.Get("/empty", [](const httplib::Request&, httplib::Response& res) { res.set_content("", "text/plain"); });
    s.Get("/file.txt", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("file content\n", "text/plain");
    });
    s.Get("/disposition", [](const httplib::Request&, httplib::Response& res) {
        res.set_header("Content-Disposition", "attachment; filename=\"report.csv\"");
        res.set_content("a,b\n1,2\n", "text/csv");
    });
    s.Get("/flaky", [&seen](const httplib::Request& req, httplib::Response& res) {
        int n;
        {
            std::lock_guard lock(seen.mu);
            n = ++seen.flaky[req.get_param_value("id")];
        }
        if (n == 1) {
            res.status = 503;
            res.set_content("busy\n", "text/plain");
        } else {
            res.set_content("ok after " + std::to_string(n) + "\n", "text/plain");
        }
    });
    s.Get("/record.*", [&seen](const httplib::Request& req, httplib::Response& res) {
        {
            std::lock_guard lock(seen.mu);
            seen.authorization.push_back(req.get_header_value("Authorization"));
        }
        res.set_header("X-Served-By", "record");
        res.set_content("recorded\n", "text/plain");
    });
}

struct Servers {
    TestCert cert;
    httplib::Server http;
    httplib::SSLServer https{cert.cert.c_str(), cert.key.c_str()};
    Seen seen;
    int http_port = 0, https_port = 0, closed_port = 0;
    std::thread t1, t2;

    Servers() {
        add_routes(http, seen);
        add_routes(https, seen);
        http_port = http.bind_to_any_port("127.0.0.1");
        https_port = https.bind_to_any_port("127.0.0.1");
        t1 = std::thread([this] { http.listen_after_bind(); });
        t2 = std::thread([this] { https.listen_after_bind(); });
        while (!http.is_running() || !https.is_running()) std::this_thread::sleep_for(1ms);
        // A port nothing listens on: bind a socket to a free port, note it, close it.
        int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        socklen_t len = sizeof addr;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
        closed_port = ntohs(addr.sin_port);
        ::close(fd);
    }
    ~Servers() {
        http.stop();
        https.stop();
        t1.join();
        t2.join();
    }
    std::string http_base() const { return "http://127.0.0.1:" + std::to_string(http_port); }
    std::string https_base() const { return "https://127.0.0.1:" + std::to_string(https_port); }
};

inline Servers& servers() {
    static Servers s;
    return s;
}

// The client the tests use to reach the loopback servers.
inline bn::ClientOptions loopback_options() {
    bn::ClientOptions o;
    o.network = bn::Network::all();
    o.block_private_ips = false;
    o.ca_file = servers().cert.cert.string();
    o.connect_timeout = 5s;
    o.total_timeout = 20s;
    return o;
}

struct Result {
    int status = 0;
    std::string out, err;
};

// A session: a MemoryFs with a home folder, the utilities, and $HTTP / $HTTPS / $CLOSED in the environment.
struct Session {
    bashkit::vfs::MemoryFs fs;
    bashkit::interp::CommandRegistry registry;
    std::unique_ptr<bn::HttpClient> client;
    std::unique_ptr<bashkit::interp::Shell> shell;

    // client_options: nullopt means the network is off (CommandContext::http is null).
    explicit Session(std::optional<bn::ClientOptions> client_options = loopback_options(),
                     std::chrono::milliseconds run_timeout = 60s) {
        bashkit::utils::register_all(registry);
        (void)fs.mkdir_all("/home/user");
        bashkit::interp::ShellOptions so;
        so.cwd = "/home/user";
        so.limits.timeout = run_timeout;
        so.env = {{"HTTP", servers().http_base()},
                  {"HTTPS", servers().https_base()},
                  {"CLOSED", "http://127.0.0.1:" + std::to_string(servers().closed_port)},
                  {"HTTP_PORT", std::to_string(servers().http_port)},
                  {"HTTPS_PORT", std::to_string(servers().https_port)}};
        if (client_options) {
            client = std::make_unique<bn::HttpClient>(*client_options);
            so.http = client.get();
        }
        shell = std::make_unique<bashkit::interp::Shell>(fs, registry, so);
    }
    Result run(const std::string& script, const std::string& stdin_data = {}) {
        auto r = shell->run(script, stdin_data);
        return {r.exit_code, r.out, r.err};
    }
    std::string file(const std::string& path) {
        auto r = fs.read_file(path);
        return r ? *r : std::string("<missing>");
    }
    bool exists(const std::string& path) { return fs.exists(path); }
};

}  // namespace nettest
