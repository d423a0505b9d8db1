#include "net/policy.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

#include "net/ip.hpp"

namespace bashkit::net {

namespace {

bool host_char_ok(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

}  // namespace

std::string normalize_host(std::string_view host) {
    std::string h(host);
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); });
    if (h.size() > 1 && h.back() == '.') h.pop_back();
    return h;
}

HostPortParse parse_host_port(std::string_view entry) {
    auto fail = [&](const std::string& why) {
        return HostPortParse{std::nullopt, "invalid host entry '" + std::string(entry) + "': " + why};
    };
    if (entry.empty()) return fail("empty");
    if (entry.find("://") != std::string_view::npos) return fail("give a host, not a URL");
    if (entry.find_first_of("/?#@ \t") != std::string_view::npos) return fail("give a host, not a URL");
    if (entry.find('*') != std::string_view::npos) return fail("wildcards are not supported");
    std::string_view host = entry, port;
    if (entry.front() == '[') {
        size_t close = entry.find(']');
        if (close == std::string_view::npos) return fail("unclosed [");
        host = entry.substr(1, close - 1);
        std::string_view rest = entry.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return fail("expected :port after ]");
            port = rest.substr(1);
            if (port.empty()) return fail("empty port");
        }
        if (host.empty()) return fail("empty host");
        // A real IPv6 address: "[::1..]" would be stored as "::1." and never match a request.
        std::optional<IpAddress> ip = parse_ip(host);
        if (!ip || !ip->v6) return fail("bad IPv6 address");
    } else {
        size_t colon = entry.rfind(':');
        if (colon != std::string_view::npos) {
            if (entry.find(':') != colon) return fail("put an IPv6 address in brackets");
            host = entry.substr(0, colon);
            port = entry.substr(colon + 1);
            if (port.empty()) return fail("empty port");
        }
    }
    HostPort hp;
    hp.host = normalize_host(host);
    if (hp.host.empty() || hp.host == ".") return fail("empty host");
    if (entry.front() != '[') {
        for (char c : hp.host) {
            if (!host_char_ok(c)) return fail("bad character in host name");
        }
        // "a..b", ".a" or "a.." (one trailing dot is dropped above): no request ever names that host.
        if (hp.host.front() == '.' || hp.host.back() == '.' || hp.host.find("..") != std::string::npos) {
            return fail("empty label in host name");
        }
    }
    if (!port.empty()) {
        if (port.size() > 5) return fail("bad port");
        int p = 0;
        for (char c : port) {
            if (c < '0' || c > '9') return fail("bad port");
            p = p * 10 + (c - '0');
        }
        if (p < 1 || p > 65535) return fail("bad port");
        hp.port = p;
    }
    return HostPortParse{std::move(hp), {}};
}

Network Network::allow(const std::vector<std::string>& hosts) {
    std::vector<HostPort> parsed;
    for (const auto& h : hosts) {
        auto r = parse_host_port(h);
        if (!r.value) throw std::invalid_argument("Network::allow: " + r.error);
        if (std::find(parsed.begin(), parsed.end(), *r.value) == parsed.end()) parsed.push_back(*r.value);
    }
    return Network(Kind::Allow, std::move(parsed));
}

bool Network::reaches(std::string_view host_or_host_port) const {
    switch (kind_) {
        case Kind::None:
            return false;
        case Kind::All:
            return parse_host_port(host_or_host_port).value.has_value();
        case Kind::Allow: {
            auto r = parse_host_port(host_or_host_port);
            return r.value && std::find(hosts_.begin(), hosts_.end(), *r.value) != hosts_.end();
        }
    }
    return false;
}

std::optional<std::string> Network::refusal(std::string_view scheme, std::string_view host, int port) const {
    if (scheme != "http" && scheme != "https") return "protocol '" + std::string(scheme) + "' is not allowed";
    switch (kind_) {
        case Kind::None:
            return std::string("network access is disabled in this sandbox");
        case Kind::All:
            return std::nullopt;
        case Kind::Allow: {
            if (scheme != "https") return std::string("only https is allowed by the sandbox's allow list");
            std::string h = normalize_host(host);
            if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
            HostPort hp{h, port};
            if (std::find(hosts_.begin(), hosts_.end(), hp) != hosts_.end()) return std::nullopt;
            return "host '" + (port == 443 ? h : h + ":" + std::to_string(port)) +
                   "' is not in the sandbox's allow list";
        }
    }
    return std::string("refused");
}

std::string Network::describe() const {
    switch (kind_) {
        case Kind::None:
            return "none";
        case Kind::All:
            return "all";
        case Kind::Allow: {
            std::string out = "allow(";
            for (size_t i = 0; i < hosts_.size(); ++i) {
                if (i) out += ", ";
                bool v6 = hosts_[i].host.find(':') != std::string::npos;
                if (v6) out += '[';
                out += hosts_[i].host;
                if (v6) out += ']';
                if (hosts_[i].port != 443) {
                    out += ':';
                    out += std::to_string(hosts_[i].port);
                }
            }
            return out + ")";
        }
    }
    return "?";
}

}  // namespace bashkit::net
