#include "net/ip.hpp"

#include <cstdio>

namespace bashkit::net {

namespace {

std::optional<std::array<uint8_t, 4>> parse_dotted_quad(std::string_view s) {
    std::array<uint8_t, 4> out{};
    size_t i = 0;
    for (int part = 0; part < 4; ++part) {
        if (part > 0) {
            if (i >= s.size() || s[i] != '.') return std::nullopt;
            ++i;
        }
        size_t start = i;
        unsigned v = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 3) v = v * 10 + unsigned(s[i++] - '0');
        if (i == start || v > 255) return std::nullopt;
        if (i - start > 1 && s[start] == '0') return std::nullopt;  // no octal-looking parts
        out[size_t(part)] = uint8_t(v);
    }
    if (i != s.size()) return std::nullopt;
    return out;
}

int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::array<uint8_t, 16>> parse_v6(std::string_view s) {
    // Split into groups around an optional "::"; the last group may be a dotted quad.
    std::array<uint16_t, 8> head{}, tail{};
    int nhead = 0, ntail = 0;
    bool compressed = false;
    size_t i = 0;
    if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
        compressed = true;
        i = 2;
    } else if (!s.empty() && s[0] == ':') {
        return std::nullopt;
    }
    while (i < s.size()) {
        // A dotted quad ends the address.
        size_t next_colon = s.find(':', i);
        std::string_view group = s.substr(i, next_colon == std::string_view::npos ? s.npos : next_colon - i);
        if (group.find('.') != std::string_view::npos) {
            if (next_colon != std::string_view::npos) return std::nullopt;
            auto q = parse_dotted_quad(group);
            if (!q) return std::nullopt;
            auto& arr = compressed ? tail : head;
            int& n = compressed ? ntail : nhead;
            if (n + 2 > 8) return std::nullopt;
            arr[size_t(n++)] = uint16_t((*q)[0] << 8 | (*q)[1]);
            arr[size_t(n++)] = uint16_t((*q)[2] << 8 | (*q)[3]);
            i = s.size();
            break;
        }
        if (group.empty() || group.size() > 4) return std::nullopt;
        unsigned v = 0;
        for (char c : group) {
            int h = hexval(c);
            if (h < 0) return std::nullopt;
            v = v << 4 | unsigned(h);
        }
        auto& arr = compressed ? tail : head;
        int& n = compressed ? ntail : nhead;
        if (n >= 8) return std::nullopt;
        arr[size_t(n++)] = uint16_t(v);
        i += group.size();
        if (i == s.size()) break;
        // at a colon
        ++i;
        if (i < s.size() && s[i] == ':') {
            if (compressed) return std::nullopt;  // a second "::"
            compressed = true;
            ++i;
        } else if (i == s.size()) {
            return std::nullopt;  // trailing single colon
        }
    }
    int total = nhead + ntail;
    if (compressed ? total > 7 : total != 8) return std::nullopt;
    std::array<uint16_t, 8> g{};
    for (int k = 0; k < nhead; ++k) g[size_t(k)] = head[size_t(k)];
    for (int k = 0; k < ntail; ++k) g[size_t(8 - ntail + k)] = tail[size_t(k)];
    std::array<uint8_t, 16> out{};
    for (size_t k = 0; k < 8; ++k) {
        out[2 * k] = uint8_t(g[k] >> 8);
        out[2 * k + 1] = uint8_t(g[k] & 0xff);
    }
    return out;
}

struct Rule {
    const char* cidr;
    const char* name;
};

// IANA IPv4 Special-Purpose Address Registry: entries that are not globally reachable.
constexpr Rule kV4Rules[] = {
    {"0.0.0.0/8", "\"this network\""},
    {"10.0.0.0/8", "private-use"},
    {"100.64.0.0/10", "shared address space (CGNAT)"},
    {"127.0.0.0/8", "loopback"},
    {"169.254.0.0/16", "link-local"},
    {"172.16.0.0/12", "private-use"},
    {"192.0.0.0/24", "IETF protocol assignments"},
    {"192.0.2.0/24", "documentation (TEST-NET-1)"},
    {"192.88.99.0/24", "6to4 relay anycast"},
    {"192.168.0.0/16", "private-use"},
    // Not in the registry, but a host endpoint of a cloud platform (Azure's WireServer), reachable from
    // every VM there like 169.254.169.254: blocked as SSRF filters do.
    {"168.63.129.16/32", "cloud platform host endpoint"},
    {"198.18.0.0/15", "benchmarking"},
    {"198.51.100.0/24", "documentation (TEST-NET-2)"},
    {"203.0.113.0/24", "documentation (TEST-NET-3)"},
    {"224.0.0.0/4", "multicast"},
    {"240.0.0.0/4", "reserved"},
    {"255.255.255.255/32", "limited broadcast"},
};

// IANA IPv6 Special-Purpose Address Registry (the forms that embed IPv4 are handled in code).
constexpr Rule kV6Rules[] = {
    {"100::/64", "discard-only"},
    {"2001::/23", "IETF protocol assignments (incl. Teredo)"},
    {"2001:db8::/32", "documentation"},
    // 6to4 can carry any IPv4 address and is routed by relays the sandbox does not control: the whole prefix
    // is blocked, whatever it carries (as Smokescreen and ssrf_filter do).
    {"2002::/16", "6to4"},
    {"3fff::/20", "documentation (RFC 9637)"},
    {"fc00::/7", "unique local"},
    {"fe80::/10", "link-local"},
    {"fec0::/10", "site-local (deprecated)"},
    {"ff00::/8", "multicast"},
};

IpAddress v4_at(const IpAddress& ip, size_t offset) {
    return IpAddress::v4(ip.bytes[offset], ip.bytes[offset + 1], ip.bytes[offset + 2], ip.bytes[offset + 3]);
}

bool prefix_is(const IpAddress& ip, std::string_view cidr) {
    auto n = IpNetwork::parse(cidr);
    return n && n->contains(ip);
}

}  // namespace

std::string IpAddress::to_string() const {
    char buf[64];
    if (!v6) {
        std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", bytes[0], bytes[1], bytes[2], bytes[3]);
        return buf;
    }
    std::string out;
    for (size_t k = 0; k < 8; ++k) {
        if (k) out += ':';
        std::snprintf(buf, sizeof buf, "%x", unsigned(bytes[2 * k]) << 8 | bytes[2 * k + 1]);
        out += buf;
    }
    return out;
}

std::optional<IpAddress> parse_ip(std::string_view text) {
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
    if (text.find(':') != std::string_view::npos) {
        size_t zone = text.find('%');
        if (zone != std::string_view::npos) text = text.substr(0, zone);
        auto b = parse_v6(text);
        if (!b) return std::nullopt;
        IpAddress ip;
        ip.v6 = true;
        ip.bytes = *b;
        return ip;
    }
    auto q = parse_dotted_quad(text);
    if (!q) return std::nullopt;
    return IpAddress::v4((*q)[0], (*q)[1], (*q)[2], (*q)[3]);
}

bool IpNetwork::contains(const IpAddress& ip) const {
    if (ip.v6 != base.v6) return false;
    unsigned bits = prefix_len;
    for (size_t k = 0; bits > 0; ++k) {
        unsigned take = bits >= 8 ? 8 : bits;
        uint8_t mask = uint8_t(0xff00u >> take);
        if ((ip.bytes[k] & mask) != (base.bytes[k] & mask)) return false;
        bits -= take;
    }
    return true;
}

std::optional<IpNetwork> IpNetwork::parse(std::string_view cidr) {
    size_t slash = cidr.find('/');
    auto ip = parse_ip(cidr.substr(0, slash));
    if (!ip) return std::nullopt;
    unsigned max = ip->v6 ? 128 : 32;
    unsigned len = max;
    if (slash != std::string_view::npos) {
        std::string_view n = cidr.substr(slash + 1);
        if (n.empty() || n.size() > 3) return std::nullopt;
        len = 0;
        for (char c : n) {
            if (c < '0' || c > '9') return std::nullopt;
            len = len * 10 + unsigned(c - '0');
        }
        if (len > max) return std::nullopt;
    }
    return IpNetwork{*ip, len};
}

std::optional<std::string> blocked_reason(const IpAddress& ip, const std::vector<IpNetwork>& extra_deny) {
    for (const auto& n : extra_deny) {
        if (n.contains(ip)) return "denied by the embedder's list";
    }
    if (!ip.v6) {
        for (const auto& r : kV4Rules) {
            if (prefix_is(ip, r.cidr)) return std::string(r.name) + " " + r.cidr;
        }
        return std::nullopt;
    }
    if (prefix_is(ip, "::/128")) return "unspecified ::/128";
    if (prefix_is(ip, "::1/128")) return "loopback ::1/128";
    // Forms that carry an IPv4 address are judged by it.
    struct Embedded {
        const char* cidr;
        const char* name;
        size_t offset;
    };
    constexpr Embedded kEmbedded[] = {
        {"::ffff:0:0/96", "IPv4-mapped", 12},
        {"::/96", "IPv4-compatible", 12},
        {"64:ff9b::/96", "NAT64", 12},
        {"64:ff9b:1::/48", "local-use NAT64", 12},
    };
    for (const auto& e : kEmbedded) {
        if (prefix_is(ip, e.cidr)) {
            IpAddress inner = v4_at(ip, e.offset);
            if (auto why = blocked_reason(inner, extra_deny)) {
                return std::string(e.name) + " " + e.cidr + " carrying " + inner.to_string() + " (" + *why + ")";
            }
            return std::nullopt;
        }
    }
    for (const auto& r : kV6Rules) {
        if (prefix_is(ip, r.cidr)) return std::string(r.name) + " " + r.cidr;
    }
    // Everything outside global unicast 2000::/3 is unallocated or special: never a public host.
    if (!prefix_is(ip, "2000::/3")) return "outside global unicast 2000::/3";
    return std::nullopt;
}

}  // namespace bashkit::net
