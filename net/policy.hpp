// Where scripts may connect: the network policy of a sandbox.
//
//   Network::none()                      default: every request is refused
//   Network::all()                       any http or https URL (private addresses stay blocked unless the
//                                        client's block_private_ips is turned off)
//   Network::allow({"api.github.com", "example.com:8443"})
//                                        HTTPS only, only these hosts: exact and case-insensitive, no
//                                        wildcards, no subdomains, port 443 unless the entry names another.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::net {

struct HostPort {
    std::string host;  // lower case, no trailing dot; IPv6 without brackets
    int port = 443;
    friend bool operator==(const HostPort&, const HostPort&) = default;
};

// Parses "host", "host:port", "[v6]" or "[v6]:port" (default port 443). Returns an error message for
// anything else: wildcards, schemes, paths, userinfo, empty hosts, bad ports.
struct HostPortParse {
    std::optional<HostPort> value;
    std::string error;
};
HostPortParse parse_host_port(std::string_view entry);

// Lower-cases a host name and drops one trailing dot, as a resolver would treat it.
std::string normalize_host(std::string_view host);

class Network {
public:
    enum class Kind { None, All, Allow };

    static Network none() { return Network(Kind::None, {}); }
    static Network all() { return Network(Kind::All, {}); }
    // Throws std::invalid_argument naming the bad entry.
    static Network allow(const std::vector<std::string>& hosts);

    Kind kind() const { return kind_; }
    const std::vector<HostPort>& hosts() const { return hosts_; }

    // Whether a request to this host (entry form: "host" means port 443, "host:port") is allowed by the
    // policy. Address rules (block_private_ips) are judged separately, at connect time.
    bool reaches(std::string_view host_or_host_port) const;

    // Why a request is refused by the policy, or nullopt when allowed. scheme is "http" or "https";
    // host as libcurl parsed it.
    std::optional<std::string> refusal(std::string_view scheme, std::string_view host, int port) const;

    std::string describe() const;  // "none", "all", "allow(api.github.com, example.com:8443)"

private:
    Network(Kind k, std::vector<HostPort> h) : kind_(k), hosts_(std::move(h)) {}
    Kind kind_;
    std::vector<HostPort> hosts_;
};

}  // namespace bashkit::net
