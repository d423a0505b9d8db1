#include <gtest/gtest.h>

#include "net/ip.hpp"

using bashkit::net::blocked_reason;
using bashkit::net::IpNetwork;
using bashkit::net::parse_ip;

namespace {

struct Case {
    const char* addr;
    bool blocked;
};

// Every registry entry is probed at its first address, its last address and just outside it.
const Case kCases[] = {
    // IPv4 public
    {"8.8.8.8", false}, {"1.1.1.1", false}, {"93.184.216.34", false}, {"9.255.255.255", false},
    {"11.0.0.0", false}, {"100.63.255.255", false}, {"100.128.0.0", false}, {"126.255.255.255", false},
    {"128.0.0.0", false}, {"169.253.255.255", false}, {"169.255.0.0", false}, {"172.15.255.255", false},
    {"172.32.0.0", false}, {"192.0.1.0", false}, {"192.0.3.0", false}, {"192.88.98.255", false},
    {"192.88.100.0", false}, {"192.167.255.255", false}, {"192.169.0.0", false}, {"198.17.255.255", false},
    {"198.20.0.0", false}, {"198.51.99.255", false}, {"198.51.101.0", false}, {"203.0.112.255", false},
    {"203.0.114.0", false}, {"223.255.255.255", false},
    // IPv4 special-purpose
    {"0.0.0.0", true}, {"0.255.255.255", true}, {"10.0.0.0", true}, {"10.255.255.255", true},
    {"100.64.0.0", true}, {"100.127.255.255", true}, {"127.0.0.1", true}, {"127.255.255.254", true},
    {"169.254.169.254", true}, {"172.16.0.1", true}, {"172.31.255.255", true}, {"192.0.0.1", true},
    {"192.0.0.255", true}, {"192.0.2.1", true}, {"192.88.99.1", true}, {"192.168.0.1", true},
    {"192.168.255.255", true}, {"198.18.0.0", true}, {"198.19.255.255", true}, {"198.51.100.7", true},
    {"203.0.113.9", true}, {"224.0.0.1", true}, {"239.255.255.255", true}, {"240.0.0.1", true},
    {"255.255.255.254", true}, {"255.255.255.255", true},
    // IPv6 public
    {"2606:4700:4700::1111", false}, {"2a00:1450:4001:80b::200e", false}, {"2001:4860:4860::8888", false},
    {"2001:200::1", false}, {"2003::1", false}, {"3fff:ffff::1", false},
    {"3fff:1000::1", false},
    // IPv6 special-purpose
    {"::", true}, {"::1", true}, {"[::1]", true}, {"0:0:0:0:0:0:0:1", true}, {"100::1", true},
    {"100::ffff:ffff:ffff:ffff", true}, {"2001::1", true}, {"2001:0:4136:e378::1", true},
    {"2001:1ff:ffff::1", true}, {"2001:db8::1", true}, {"fc00::1", true}, {"fd12:3456::1", true},
    {"fe80::1", true}, {"fe80::1%eth0", true}, {"febf::1", true}, {"fec0::1", true}, {"ff02::1", true},
    {"4000::1", true}, {"1::1", true},
    // IPv6 forms carrying IPv4: judged by the IPv4 inside
    {"::ffff:127.0.0.1", true}, {"::ffff:7f00:1", true}, {"::ffff:10.1.2.3", true}, {"::ffff:8.8.8.8", false},
    {"::127.0.0.1", true}, {"::8.8.8.8", false}, {"64:ff9b::127.0.0.1", true}, {"64:ff9b::a9fe:a9fe", true},
    {"64:ff9b::8.8.8.8", false}, {"64:ff9b:1::192.168.1.1", true}, {"64:ff9b:1::8.8.4.4", false},
    {"2002:7f00:1::", true}, {"2002:c0a8:101::1", true},
    // 6to4 is blocked whatever it carries, the RFC 9637 documentation prefix, a cloud host endpoint
    {"2002:0808:0808::1", true}, {"2002::", true}, {"2002:ffff:ffff:ffff::1", true},
    {"3fff::1", true}, {"3fff:fff:ffff::1", true}, {"168.63.129.16", true}, {"168.63.129.15", false},
    {"168.63.129.17", false},
};

TEST(IpRules, Table) {
    for (const auto& c : kCases) {
        auto ip = parse_ip(c.addr);
        ASSERT_TRUE(ip.has_value()) << c.addr;
        EXPECT_EQ(blocked_reason(*ip).has_value(), c.blocked) << c.addr << ": "
                                                             << blocked_reason(*ip).value_or("reachable");
    }
}

TEST(IpRules, ReasonNamesTheRange) {
    EXPECT_EQ(blocked_reason(*parse_ip("127.0.0.1")).value(), "loopback 127.0.0.0/8");
    EXPECT_NE(blocked_reason(*parse_ip("::ffff:127.0.0.1")).value().find("carrying 127.0.0.1"), std::string::npos);
}

TEST(IpRules, ExtraDenyList) {
    std::vector<IpNetwork> deny = {*IpNetwork::parse("8.8.8.0/24"), *IpNetwork::parse("2606:4700::/32")};
    EXPECT_TRUE(blocked_reason(*parse_ip("8.8.8.8"), deny).has_value());
    EXPECT_FALSE(blocked_reason(*parse_ip("8.8.4.4"), deny).has_value());
    EXPECT_TRUE(blocked_reason(*parse_ip("2606:4700:4700::1111"), deny).has_value());
    // the deny list also applies to the IPv4 inside a mapped address
    EXPECT_TRUE(blocked_reason(*parse_ip("::ffff:8.8.8.8"), deny).has_value());
}

TEST(IpParse, RejectsNonCanonicalForms) {
    for (const char* s : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433",
                          "127.1", "1.2.3.4 ", "01.2.3.4", ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::",
                          "1:", "12345::", "g::1", "::ffff:1.2.3", "[::1", "example.com", "1.2.3.4/8"}) {
        EXPECT_FALSE(parse_ip(s).has_value()) << s;
    }
}

TEST(IpParse, RoundTrip) {
    EXPECT_EQ(parse_ip("::ffff:127.0.0.1")->to_string(), "0:0:0:0:0:ffff:7f00:1");
    EXPECT_EQ(parse_ip("10.20.30.40")->to_string(), "10.20.30.40");
    EXPECT_EQ(*parse_ip("1:2:3:4:5:6:7:8"), parse_ip("1:2:3:4:5:6:0.7.0.8").value());
    EXPECT_EQ(*parse_ip("1::8"), *parse_ip("1:0:0:0:0:0:0:8"));
}

TEST(IpNetwork, Parse) {
    EXPECT_FALSE(IpNetwork::parse("10.0.0.0/33").has_value());
    EXPECT_FALSE(IpNetwork::parse("::/129").has_value());
    EXPECT_FALSE(IpNetwork::parse("10.0.0.0/").has_value());
    EXPECT_TRUE(IpNetwork::parse("0.0.0.0/0")->contains(*parse_ip("8.8.8.8")));
    EXPECT_FALSE(IpNetwork::parse("0.0.0.0/0")->contains(*parse_ip("::1")));
}

}  // namespace
