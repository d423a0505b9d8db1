// libFuzzer target for URL parsing and the network policy. Input: allow-list entries separated by commas,
// NUL, a URL, NUL, a header binding's path prefix, NUL, an address or CIDR.
//
// Properties: no crash, sanitizer report or hang; an entry that parses is reached by the policy built from
// it; what the policy lets through for a parsed URL the allow-list reaches; a precheck refusal is also a
// judge refusal; normalised request paths have no empty, "." or ".." segments. Names resolve only
// through a StaticResolver with no answers, so nothing leaves the process.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "net/http.hpp"
#include "net/ip.hpp"
#include "net/policy.hpp"

namespace net = bashkit::net;
using bashkit::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 2048) return 0;
    bashkit::fuzz::Fields in(data, size);
    std::vector<std::string> entries;
    std::string_view list = in[0];
    while (!list.empty()) {
        size_t comma = list.find(',');
        entries.emplace_back(list.substr(0, comma));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    for (const std::string& e : entries) {
        net::HostPortParse hp = net::parse_host_port(e);
        if (!hp.value) {
            if (hp.error.empty()) finding("a refused entry without a reason", e);
            continue;
        }
        net::Network one = net::Network::allow({e});
        if (!one.reaches(e)) finding("an allowed entry is not reached", e);
        if (one.refusal("https", hp.value->host, hp.value->port)) finding("an allowed host:port is refused", e);
        (void)net::normalize_host(e);
    }
    net::Network policy = net::Network::none();
    try {
        policy = net::Network::allow(entries);
    } catch (const std::invalid_argument&) {
        policy = net::Network::all();
    }
    (void)policy.describe();

    std::string url(in[1]);
    std::string err;
    std::optional<net::ParsedUrl> p = net::parse_url(url, &err);
    if (p) {
        if (p->path.empty() || p->path[0] != '/') finding("a parsed path that does not start with /", url, p->path);
        if (!policy.refusal(p->scheme, p->host, p->port) && policy.kind() == net::Network::Kind::Allow &&
            !policy.reaches(p->host + ":" + std::to_string(p->port)) &&
            !policy.reaches("[" + p->host + "]:" + std::to_string(p->port))) {
            finding("the policy lets through a host it does not reach", url, p->host);
        }
        std::optional<std::string> norm = net::normalise_request_path(p->path);
        if (norm) {
            // Not idempotent by design: "%2541" decodes once to "%41", as the server decodes it.
            if (norm->empty() || (*norm)[0] != '/' || norm->find("//") != std::string::npos ||
                norm->find("/../") != std::string::npos || norm->find("/./") != std::string::npos ||
                norm->ends_with("/..") || norm->ends_with("/.")) {
                finding("a normalised path keeps empty, . or .. segments", p->path, *norm);
            }
            if (!net::path_matches_prefix(*norm, *norm)) finding("a path does not match itself", *norm);
            (void)net::path_matches_prefix(*norm, in[2]);
        }
    }
    net::ClientOptions co;
    co.network = policy;
    co.resolver = std::make_shared<net::StaticResolver>();
    if (auto cidr = net::IpNetwork::parse(in[3])) {
        co.extra_deny.push_back(*cidr);
        if (!cidr->contains(cidr->base)) finding("a network does not contain its base", in[3]);
    }
    if (auto ip = net::parse_ip(in[3])) {
        (void)net::blocked_reason(*ip, co.extra_deny);
        if (net::parse_ip(ip->to_string()) != ip) finding("an address does not survive printing", in[3], ip->to_string());
    }
    net::HttpClient client(co);
    if (client.precheck(url) && !client.judge(url)) finding("precheck refuses what judge allows", url);
    return 0;
}
