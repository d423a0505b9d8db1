// IP addresses and the special-purpose address rules the sandbox enforces whatever the policy says.
//
// An address is blocked when it is in one of the IANA IPv4/IPv6 special-purpose registries and is not
// globally reachable (loopback, private, link-local, CGNAT, documentation, multicast, reserved, ...), or when
// it is an IPv6 form that carries an IPv4 address (mapped, compatible, NAT64) and that IPv4 address is
// blocked. 6to4 (2002::/16), Teredo and the rest of 2001::/23 are blocked outright, whatever they carry; so
// are the documentation prefix 3fff::/20 (RFC 9637) and 168.63.129.16 (a cloud platform's host endpoint).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::net {

struct IpAddress {
    bool v6 = false;
    std::array<uint8_t, 16> bytes{};  // IPv4 uses bytes[0..3]

    static IpAddress v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
        IpAddress ip;
        ip.bytes = {a, b, c, d};
        return ip;
    }
    uint32_t v4_value() const {
        return uint32_t(bytes[0]) << 24 | uint32_t(bytes[1]) << 16 | uint32_t(bytes[2]) << 8 | bytes[3];
    }
    std::string to_string() const;
    friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// Parses the canonical text forms only: dotted-quad decimal IPv4 ("127.0.0.1"), and IPv6 with `::`
// compression and an optional trailing dotted quad, optionally in brackets and with a %zone suffix.
// Legacy IPv4 forms (0x7f.1, 2130706433, 0177.0.0.1, 127.1) are not accepted here: URLs are normalised by
// libcurl's parser first, which turns those into dotted quads exactly as it will connect.
std::optional<IpAddress> parse_ip(std::string_view text);

// A prefix such as 10.0.0.0/8 or fc00::/7.
struct IpNetwork {
    IpAddress base;
    unsigned prefix_len = 0;
    bool contains(const IpAddress& ip) const;
    static std::optional<IpNetwork> parse(std::string_view cidr);  // "10.0.0.0/8", "::1/128", "1.2.3.4"
};

// Why an address is blocked: the registry entry it falls in ("loopback 127.0.0.0/8"), or nullopt when it is
// globally reachable. `extra_deny` adds networks of the embedder's own.
std::optional<std::string> blocked_reason(const IpAddress& ip, const std::vector<IpNetwork>& extra_deny = {});

inline bool is_blocked(const IpAddress& ip, const std::vector<IpNetwork>& extra_deny = {}) {
    return blocked_reason(ip, extra_deny).has_value();
}

}  // namespace bashkit::net
