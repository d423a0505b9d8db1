// libFuzzer target for the serve protocol (sandbox/PROTOCOL.md): raw HTTP requests, as a client could send
// them, to a SandboxServer on loopback (started once; sessions of 100 ms and 64 MiB per command). Input: up
// to 8 requests separated by NUL bytes, each sent on a connection of its own (a request may hold several,
// pipelined). In a request "@TOK" becomes the fuzzing token and "@ID" the id of the last session this input
// created (a stale or unknown id before).
//
// Properties: no crash, sanitizer report, leak or hang of the server; every response has a status line; a
// JSON response parses, and an error one (4xx, 5xx) is an object with "error" and "code"; no request gets 500
// (an internal error); after the input, its sessions are deleted and a session of another token, made at the
// start, still runs `echo ok`.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_input.hpp"
#include "sandbox/server/server.hpp"

using bashkit::fuzz::finding;
using json = nlohmann::json;

namespace {

constexpr const char* kToken = "fuzz-token";
constexpr const char* kCheckToken = "check-token";

struct Server {
    std::unique_ptr<bashkit::sandbox::SandboxServer> server;
    int port = 0;
    std::string check_id;  // a session of kCheckToken
};

// Whether raw holds whole responses only (each with its headers and Content-Length bytes of body).
bool whole(std::string_view raw) {
    if (raw.empty()) return false;
    while (!raw.empty()) {
        size_t end = raw.find("\r\n\r\n");
        if (end == std::string_view::npos) return false;
        std::string head(raw.substr(0, end));
        for (char& c : head) c = char(std::tolower(static_cast<unsigned char>(c)));
        raw.remove_prefix(end + 4);
        size_t length = 0;
        if (size_t at = head.find("\r\ncontent-length:"); at != std::string::npos)
            length = std::strtoull(head.c_str() + at + 17, nullptr, 10);
        if (length > raw.size()) return false;
        raw.remove_prefix(length);
    }
    return true;
}

// Sends the bytes on a new connection and returns what the server answers: everything until it closes the
// connection, or until no more comes for 30 ms after whole responses (a kept-alive connection), or nothing
// after 1 s (a request the server still waits the rest of). The connection is not half-closed: the server
// takes that for a client gone and answers nothing.
std::string send_raw(int port, std::string_view request) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) finding("socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) finding("the server does not accept");
    size_t off = 0;
    while (off < request.size()) {
        ssize_t n = ::send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;  // the server may close early on a bad request
        off += size_t(n);
    }
    std::string out;
    char buf[16384];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        int wait_ms = whole(out) ? 30 : 1000;
        if (::poll(&p, 1, wait_ms) <= 0) break;
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, size_t(n));
    }
    ::close(fd);
    return out;
}

struct Response {
    int status = 0;
    std::string content_type;
    std::string body;
};

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The responses in what the server sent (Content-Length bodies; a chunked one ends the parse).
std::vector<Response> parse(std::string_view raw, std::string_view request) {
    std::vector<Response> out;
    while (!raw.empty()) {
        size_t end = raw.find("\r\n\r\n");
        if (end == std::string_view::npos || !raw.starts_with("HTTP/1.1 ") || raw.size() < 12)
            finding("a response without a status line", request, raw);
        Response r;
        r.status = std::atoi(std::string(raw.substr(9, 3)).c_str());
        std::string_view head = raw.substr(0, end);
        raw.remove_prefix(end + 4);
        size_t length = 0;
        bool chunked = false;
        for (size_t pos = head.find("\r\n"); pos != std::string_view::npos;) {
            size_t next = head.find("\r\n", pos + 2);
            std::string line(head.substr(pos + 2, next == std::string_view::npos ? std::string_view::npos : next - pos - 2));
            pos = next;
            size_t colon = line.find(':');
            if (colon == std::string::npos) continue;
            std::string name = lower(line.substr(0, colon));
            std::string value = line.substr(colon + 1);
            while (!value.empty() && value[0] == ' ') value.erase(0, 1);
            if (name == "content-length") length = std::strtoull(value.c_str(), nullptr, 10);
            if (name == "content-type") r.content_type = value;
            if (name == "transfer-encoding") chunked = true;
        }
        if (chunked) {
            out.push_back(std::move(r));
            break;
        }
        if (length > raw.size()) break;  // cut short by the client's wait (not the server's doing)
        r.body = std::string(raw.substr(0, length));
        raw.remove_prefix(length);
        out.push_back(std::move(r));
    }
    return out;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
    return s;
}

std::string request(std::string_view method, const std::string& path, std::string_view token, std::string_view body) {
    return std::string(method) + " " + path + " HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer " + std::string(token) +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           std::string(body);
}

Server& server() {
    static Server* s = [] {
        auto* srv = new Server;
        bashkit::sandbox::SandboxServerOptions o;
        o.tokens = {kToken, kCheckToken};
        o.max_request_bytes = 64 * 1024;
        o.max_sessions_per_token = 8;
        o.max_exec_timeout_seconds = 0.5;  // the check asks for 5 s: it gets this much
        o.limits.timeout = std::chrono::milliseconds(100);
        o.limits.max_memory_bytes = size_t{64} << 20;
        o.limits.max_output_bytes = size_t{1} << 20;
        o.reap_interval_seconds = 0;
        srv->server = std::make_unique<bashkit::sandbox::SandboxServer>(std::move(o));
        srv->port = srv->server->start();
        std::string raw = send_raw(srv->port, request("POST", "/v1/sessions", kCheckToken, "{}"));
        auto r = parse(raw, "create");
        if (r.empty() || r[0].status != 201) finding("the check session could not be created", raw);
        srv->check_id = json::parse(r[0].body).at("id").get<std::string>();
        return srv;
    }();
    return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 16384) return 0;
    Server& srv = server();
    bashkit::fuzz::Fields in(data, size);
    std::vector<std::string> created;
    std::string id = "sbx-none";
    for (size_t i = 0; i < in.size() && i < 8; ++i) {
        std::string req = replace_all(replace_all(std::string(in[i]), "@TOK", kToken), "@ID", id);
        for (const Response& r : parse(send_raw(srv.port, req), req)) {
            if (r.status == 500) finding("an internal error", req, r.body);
            if (r.content_type.rfind("application/json", 0) != 0) continue;
            json j = json::parse(r.body, nullptr, false);
            if (j.is_discarded()) finding("a JSON response that does not parse", req, r.body);
            if (r.status >= 400 && (!j.is_object() || !j.contains("error") || !j.contains("code")))
                finding("an error response without error and code", req, r.body);
            if (r.status == 201 && j.is_object() && j.contains("id") && j["id"].is_string()) {
                id = j["id"].get<std::string>();
                created.push_back(id);
            }
        }
    }
    for (const std::string& c : created) (void)send_raw(srv.port, request("DELETE", "/v1/sessions/" + c, kToken, ""));
    std::string check = request("POST", "/v1/sessions/" + srv.check_id + "/exec", kCheckToken,
                                R"({"command": "echo ok", "timeout_seconds": 5})");
    auto r = parse(send_raw(srv.port, check), check);
    json j = r.empty() ? json() : json::parse(r[0].body, nullptr, false);
    if (r.empty() || r[0].status != 200 || !j.is_object() || j.value("stdout", "") != "ok\n")
        finding("the check session does not answer echo ok", r.empty() ? "" : r[0].body);
    return 0;
}
