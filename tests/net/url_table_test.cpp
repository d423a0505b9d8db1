// The adversarial URL table: every case judged under four policies, without connecting anywhere.
// Names resolve through a StaticResolver, so public-looking answers are never dialled.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "net/http.hpp"

namespace bn = bashkit::net;

namespace {

enum V { OK, BLOCKED, BADURL, NORESOLVE };

struct Row {
    const char* url;
    V all;    // Network::all(), block_private_ips = true (the default rules)
    V allow;  // Network::allow({"api.github.com", "example.com:8443", "[2606:4700::1111]"})
    V open;   // Network::all(), block_private_ips = false
};

// clang-format off
const Row kRows[] = {
    // plain public names and addresses
    {"https://api.github.com/repos", OK, OK, OK},
    {"https://API.GITHUB.COM/repos", OK, OK, OK},
    {"https://api.github.com./repos", OK, OK, OK},
    {"https://api.github.com:443/x", OK, OK, OK},
    {"http://api.github.com/x", OK, BLOCKED, OK},
    {"https://api.github.com:8443/x", OK, BLOCKED, OK},
    {"https://example.com:8443/", OK, OK, OK},
    {"https://example.com/", OK, BLOCKED, OK},
    {"https://EXAMPLE.com.:8443/", OK, OK, OK},
    {"https://www.example.com:8443/", OK, BLOCKED, OK},
    {"https://github.com/", OK, BLOCKED, OK},
    {"https://api.github.com.evil.test/", OK, BLOCKED, OK},
    {"https://evil.test/api.github.com", OK, BLOCKED, OK},
    {"https://api.github.com@evil.test/", OK, BLOCKED, OK},
    {"https://evil.test@api.github.com/", OK, OK, OK},
    {"https://user:pass@api.github.com/", OK, OK, OK},
    {"https://8.8.8.8/", OK, BLOCKED, OK},
    {"http://1.1.1.1/", OK, BLOCKED, OK},
    {"https://[2606:4700::1111]/", OK, OK, OK},
    {"https://[2606:4700::1111]:8443/", OK, BLOCKED, OK},
    {"https://[2606:4700:0:0:0:0:0:1111]/", OK, OK, OK},
    {"http://[2001:4860:4860::8888]/", OK, BLOCKED, OK},
    // loopback in every spelling libcurl accepts
    {"http://127.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://127.0.0.1:8080/", BLOCKED, BLOCKED, OK},
    {"https://127.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://127.1/", BLOCKED, BLOCKED, OK},
    {"http://127.0.1/", BLOCKED, BLOCKED, OK},
    {"http://0x7f.1/", BLOCKED, BLOCKED, OK},
    {"http://0x7f000001/", BLOCKED, BLOCKED, OK},
    {"http://0X7F.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://2130706433/", BLOCKED, BLOCKED, OK},
    {"http://017700000001/", BLOCKED, BLOCKED, OK},
    {"http://0177.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://0177.1/", BLOCKED, BLOCKED, OK},
    {"http://127.000.000.001/", BLOCKED, BLOCKED, OK},
    {"http://%31%32%37.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://127.0.0.1./", BLOCKED, BLOCKED, OK},
    {"http://127.255.255.254/", BLOCKED, BLOCKED, OK},
    {"http://[::1]/", BLOCKED, BLOCKED, OK},
    {"http://[0:0:0:0:0:0:0:1]/", BLOCKED, BLOCKED, OK},
    {"http://[::ffff:127.0.0.1]/", BLOCKED, BLOCKED, OK},
    {"http://[::ffff:7f00:1]/", BLOCKED, BLOCKED, OK},
    {"http://[0:0:0:0:0:ffff:127.0.0.1]/", BLOCKED, BLOCKED, OK},
    {"http://[::127.0.0.1]/", BLOCKED, BLOCKED, OK},
    {"http://[64:ff9b::127.0.0.1]/", BLOCKED, BLOCKED, OK},
    {"http://[64:ff9b::7f00:1]/", BLOCKED, BLOCKED, OK},
    {"http://[2002:7f00:1::]/", BLOCKED, BLOCKED, OK},
    {"http://[::1%25eth0]/", BLOCKED, BLOCKED, OK},
    {"http://a.com@127.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://8.8.8.8\\@127.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://user:pw@127.0.0.1:80/", BLOCKED, BLOCKED, OK},
    {"http://localhost/", BLOCKED, BLOCKED, OK},
    {"http://LOCALHOST/", BLOCKED, BLOCKED, OK},
    {"http://localhost./", BLOCKED, BLOCKED, OK},
    // "this network" and unspecified
    {"http://0.0.0.0/", BLOCKED, BLOCKED, OK},
    {"http://0/", BLOCKED, BLOCKED, OK},
    {"http://0.0.0.0:22/", BLOCKED, BLOCKED, OK},
    {"http://[::]/", BLOCKED, BLOCKED, OK},
    {"http://[::ffff:0.0.0.0]/", BLOCKED, BLOCKED, OK},
    // private ranges
    {"http://10.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://10.255.255.255/", BLOCKED, BLOCKED, OK},
    {"http://012.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://0xa.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://167772161/", BLOCKED, BLOCKED, OK},
    {"http://172.16.0.1/", BLOCKED, BLOCKED, OK},
    {"http://172.31.255.254/", BLOCKED, BLOCKED, OK},
    {"http://172.32.0.1/", OK, BLOCKED, OK},
    {"http://172.15.255.255/", OK, BLOCKED, OK},
    {"http://192.168.0.1/", BLOCKED, BLOCKED, OK},
    {"http://192.168.1.1:8443/", BLOCKED, BLOCKED, OK},
    {"http://0xc0a80101/", BLOCKED, BLOCKED, OK},
    {"http://3232235777/", BLOCKED, BLOCKED, OK},
    {"http://[::ffff:192.168.1.1]/", BLOCKED, BLOCKED, OK},
    {"http://[::ffff:c0a8:101]/", BLOCKED, BLOCKED, OK},
    {"http://[::ffff:10.0.0.1]/", BLOCKED, BLOCKED, OK},
    {"http://[2002:c0a8:101::1]/", BLOCKED, BLOCKED, OK},
    {"http://[64:ff9b::192.168.0.1]/", BLOCKED, BLOCKED, OK},
    {"http://[64:ff9b:1::10.0.0.1]/", BLOCKED, BLOCKED, OK},
    // CGNAT, link-local, metadata endpoints
    {"http://100.64.0.1/", BLOCKED, BLOCKED, OK},
    {"http://100.127.255.255/", BLOCKED, BLOCKED, OK},
    {"http://100.128.0.1/", OK, BLOCKED, OK},
    {"http://169.254.169.254/latest/meta-data/", BLOCKED, BLOCKED, OK},
    {"http://169.254.169.254./", BLOCKED, BLOCKED, OK},
    {"http://0xa9fea9fe/", BLOCKED, BLOCKED, OK},
    {"http://2852039166/", BLOCKED, BLOCKED, OK},
    {"http://0251.0376.0251.0376/", BLOCKED, BLOCKED, OK},
    {"http://[::ffff:169.254.169.254]/", BLOCKED, BLOCKED, OK},
    {"http://[fd00:ec2::254]/", BLOCKED, BLOCKED, OK},
    {"http://metadata.google.internal/", BLOCKED, BLOCKED, OK},
    {"http://[fe80::1]/", BLOCKED, BLOCKED, OK},
    {"http://[fe80::1%25lo]/", BLOCKED, BLOCKED, OK},
    // documentation, benchmarking, special-purpose
    {"http://192.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://192.0.2.1/", BLOCKED, BLOCKED, OK},
    {"http://192.88.99.1/", BLOCKED, BLOCKED, OK},
    {"http://198.18.0.1/", BLOCKED, BLOCKED, OK},
    {"http://198.19.255.255/", BLOCKED, BLOCKED, OK},
    {"http://198.51.100.1/", BLOCKED, BLOCKED, OK},
    {"http://203.0.113.1/", BLOCKED, BLOCKED, OK},
    {"http://[2001:db8::1]/", BLOCKED, BLOCKED, OK},
    {"http://[2001::1]/", BLOCKED, BLOCKED, OK},
    {"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", BLOCKED, BLOCKED, OK},
    {"http://[100::1]/", BLOCKED, BLOCKED, OK},
    {"http://[fc00::1]/", BLOCKED, BLOCKED, OK},
    {"http://[fd12:3456:789a::1]/", BLOCKED, BLOCKED, OK},
    {"http://[fec0::1]/", BLOCKED, BLOCKED, OK},
    // multicast, reserved, broadcast
    {"http://224.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://239.255.255.250/", BLOCKED, BLOCKED, OK},
    {"http://240.0.0.1/", BLOCKED, BLOCKED, OK},
    {"http://255.255.255.255/", BLOCKED, BLOCKED, OK},
    {"http://4294967295/", BLOCKED, BLOCKED, OK},
    {"http://[ff02::1]/", BLOCKED, BLOCKED, OK},
    {"http://[ff05::1:3]/", BLOCKED, BLOCKED, OK},
    // public addresses wrapped in IPv6 forms stay public
    {"http://[::ffff:8.8.8.8]/", OK, BLOCKED, OK},
    {"http://[64:ff9b::8.8.8.8]/", OK, BLOCKED, OK},
    {"http://[2002:808:808::1]/", BLOCKED, BLOCKED, OK},  // 6to4 blocked outright
    {"http://[3fff::1]/", BLOCKED, BLOCKED, OK},
    {"http://168.63.129.16/", BLOCKED, BLOCKED, OK},
    // names whose answers are private (the resolver below), and rebinding-style mixed answers
    {"http://internal.corp/", BLOCKED, BLOCKED, OK},
    {"https://internal.corp/", BLOCKED, BLOCKED, OK},
    {"http://mixed.test/", BLOCKED, BLOCKED, OK},
    {"http://v6loop.test/", BLOCKED, BLOCKED, OK},
    {"http://nat64.test/", BLOCKED, BLOCKED, OK},
    {"http://mapped.test/", BLOCKED, BLOCKED, OK},
    {"http://public.test/", OK, BLOCKED, OK},
    {"https://public.test:8443/", OK, BLOCKED, OK},
    {"http://nowhere.test/", NORESOLVE, BLOCKED, NORESOLVE},
    {"https://nowhere.test/", NORESOLVE, BLOCKED, NORESOLVE},
    // schemes other than http and https
    {"file:///etc/passwd", BLOCKED, BLOCKED, BLOCKED},
    {"file://localhost/etc/passwd", BLOCKED, BLOCKED, BLOCKED},
    {"ftp://8.8.8.8/", BLOCKED, BLOCKED, BLOCKED},
    {"ftps://8.8.8.8/", BLOCKED, BLOCKED, BLOCKED},
    {"gopher://127.0.0.1:6379/_INFO", BLOCKED, BLOCKED, BLOCKED},
    {"dict://127.0.0.1:11211/stat", BLOCKED, BLOCKED, BLOCKED},
    {"ldap://127.0.0.1/", BLOCKED, BLOCKED, BLOCKED},
    {"smtp://127.0.0.1/", BLOCKED, BLOCKED, BLOCKED},
    {"telnet://127.0.0.1/", BLOCKED, BLOCKED, BLOCKED},
    {"tftp://127.0.0.1/x", BLOCKED, BLOCKED, BLOCKED},
    {"scp://127.0.0.1/x", BLOCKED, BLOCKED, BLOCKED},
    {"ws://8.8.8.8/", BLOCKED, BLOCKED, BLOCKED},
    {"javascript:alert(1)", BADURL, BADURL, BADURL},
    {"HTTP://8.8.8.8/", OK, BLOCKED, OK},
    {"HtTpS://api.github.com/", OK, OK, OK},
    // malformed
    {"", BADURL, BADURL, BADURL},
    {"http://", BADURL, BADURL, BADURL},
    {"http:///path", NORESOLVE, BLOCKED, NORESOLVE},  // libcurl reads the host "path"
    {"http://[::1/", BADURL, BADURL, BADURL},
    {"http://[::g]/", BADURL, BADURL, BADURL},
    {"http://127.0.0.1:99999/", BADURL, BADURL, BADURL},
    {"http://127.0.0.1:0x50/", BADURL, BADURL, BADURL},
    {"http://exa mple.com/", BADURL, BADURL, BADURL},
    {"api.github.com", BADURL, BADURL, BADURL},
    {"//api.github.com/", BADURL, BADURL, BADURL},
};
// clang-format on

std::shared_ptr<bn::StaticResolver> resolver() {
    auto r = std::make_shared<bn::StaticResolver>();
    auto ip = [](const char* s) { return *bn::parse_ip(s); };
    r->add("api.github.com", {ip("140.82.112.6")});
    r->add("example.com", {ip("93.184.216.34"), ip("2606:2800:220:1:248:1893:25c8:1946")});
    r->add("www.example.com", {ip("93.184.216.34")});
    r->add("github.com", {ip("140.82.112.3")});
    r->add("evil.test", {ip("203.0.114.5")});
    r->add("api.github.com.evil.test", {ip("203.0.114.5")});
    r->add("public.test", {ip("9.9.9.9")});
    r->add("localhost", {ip("127.0.0.1"), ip("::1")});
    r->add("metadata.google.internal", {ip("169.254.169.254")});
    r->add("internal.corp", {ip("10.1.2.3")});
    r->add("mixed.test", {ip("8.8.8.8"), ip("192.168.1.10")});
    r->add("v6loop.test", {ip("::1")});
    r->add("nat64.test", {ip("64:ff9b::a00:1")});
    r->add("mapped.test", {ip("::ffff:172.16.0.1")});
    return r;
}

V verdict(const bn::HttpClient& c, const std::string& url) {
    auto e = c.judge(url);
    if (!e) return OK;
    if (e->blocked) return BLOCKED;
    if (e->curl_code == 3) return BADURL;
    if (e->curl_code == 6) return NORESOLVE;
    ADD_FAILURE() << url << ": unexpected error " << e->curl_code << " " << e->message;
    return BADURL;
}

const char* name(V v) {
    switch (v) {
        case OK: return "ok";
        case BLOCKED: return "blocked";
        case BADURL: return "bad url";
        case NORESOLVE: return "no resolve";
    }
    return "?";
}

TEST(UrlTable, AtLeast150Cases) { EXPECT_GE(std::size(kRows), 150u); }

TEST(UrlTable, VerdictsUnderEachPolicy) {
    auto res = resolver();
    bn::ClientOptions all;
    all.network = bn::Network::all();
    all.resolver = res;
    bn::ClientOptions allow = all;
    allow.network = bn::Network::allow({"api.github.com", "example.com:8443", "[2606:4700::1111]"});
    bn::ClientOptions open = all;
    open.block_private_ips = false;
    bn::ClientOptions none;
    none.resolver = res;
    bn::HttpClient c_all(all), c_allow(allow), c_open(open), c_none(none);
    for (const auto& row : kRows) {
        EXPECT_STREQ(name(verdict(c_all, row.url)), name(row.all)) << "all: " << row.url;
        EXPECT_STREQ(name(verdict(c_allow, row.url)), name(row.allow)) << "allow: " << row.url;
        EXPECT_STREQ(name(verdict(c_open, row.url)), name(row.open)) << "open: " << row.url;
        V n = verdict(c_none, row.url);
        EXPECT_TRUE(n == BLOCKED || n == BADURL) << "none: " << row.url;
    }
}

}  // namespace
