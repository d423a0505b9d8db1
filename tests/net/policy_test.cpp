#include <gtest/gtest.h>

#include <stdexcept>

#include "net/policy.hpp"

using bashkit::net::Network;
using bashkit::net::parse_host_port;

namespace {

TEST(Network, NoneRefusesEverything) {
    Network n = Network::none();
    EXPECT_FALSE(n.reaches("example.com"));
    EXPECT_EQ(n.refusal("https", "example.com", 443).value(), "network access is disabled in this sandbox");
    EXPECT_EQ(n.describe(), "none");
}

TEST(Network, AllAllowsHttpAndHttpsOnly) {
    Network n = Network::all();
    EXPECT_TRUE(n.reaches("example.com"));
    EXPECT_TRUE(n.reaches("example.com:8080"));
    EXPECT_FALSE(n.refusal("http", "example.com", 80).has_value());
    EXPECT_FALSE(n.refusal("https", "example.com", 443).has_value());
    EXPECT_TRUE(n.refusal("ftp", "example.com", 21).has_value());
    EXPECT_TRUE(n.refusal("file", "", 0).has_value());
}

TEST(Network, AllowIsExactHttpsAndPort443ByDefault) {
    Network n = Network::allow({"api.github.com", "Example.COM:8443", "[2606:4700::1]:9000"});
    EXPECT_TRUE(n.reaches("api.github.com"));
    EXPECT_TRUE(n.reaches("API.GitHub.com"));
    EXPECT_TRUE(n.reaches("api.github.com:443"));
    EXPECT_TRUE(n.reaches("api.github.com."));
    EXPECT_FALSE(n.reaches("api.github.com:8443"));
    EXPECT_FALSE(n.reaches("github.com"));
    EXPECT_FALSE(n.reaches("x.api.github.com"));
    EXPECT_FALSE(n.reaches("api.github.com.evil.com"));
    EXPECT_TRUE(n.reaches("example.com:8443"));
    EXPECT_FALSE(n.reaches("example.com"));
    EXPECT_TRUE(n.reaches("[2606:4700::1]:9000"));

    EXPECT_FALSE(n.refusal("https", "api.github.com", 443).has_value());
    EXPECT_FALSE(n.refusal("https", "API.GITHUB.COM.", 443).has_value());
    EXPECT_EQ(n.refusal("http", "api.github.com", 443).value(), "only https is allowed by the sandbox's allow list");
    EXPECT_EQ(n.refusal("https", "api.github.com", 8443).value(),
              "host 'api.github.com:8443' is not in the sandbox's allow list");
    EXPECT_EQ(n.refusal("https", "evil.com", 443).value(), "host 'evil.com' is not in the sandbox's allow list");
    EXPECT_FALSE(n.refusal("https", "[2606:4700::1]", 9000).has_value());
    EXPECT_EQ(n.describe(), "allow(api.github.com, example.com:8443, [2606:4700::1]:9000)");
}

TEST(Network, AllowRejectsBadEntries) {
    for (const char* bad : {"", "*.github.com", "https://api.github.com", "api.github.com/path", "user@host",
                            "host:", "host:0", "host:65536", "host:80x", "::1", "[::1", "[]", "a b", "[::1]x",
                            // an empty label: the host no request can name (found by url_fuzzer)
                            "127.0.0127..", "example.com..", ".example.com", "a..b:8443", "[2685:40::11..]", "[1.2.3.4]",
                            "[::1::2]"}) {
        EXPECT_THROW(Network::allow({bad}), std::invalid_argument) << bad;
        EXPECT_FALSE(parse_host_port(bad).value.has_value()) << bad;
        EXPECT_FALSE(parse_host_port(bad).error.empty()) << bad;
    }
}

TEST(Network, ParseHostPort) {
    auto r = parse_host_port("[::1]:8080");
    ASSERT_TRUE(r.value);
    EXPECT_EQ(r.value->host, "::1");
    EXPECT_EQ(r.value->port, 8080);
    r = parse_host_port("Host.Example.");
    ASSERT_TRUE(r.value);
    EXPECT_EQ(r.value->host, "host.example");
    EXPECT_EQ(r.value->port, 443);
}

}  // namespace
