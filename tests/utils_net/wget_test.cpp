// wget on the wire: scripts run in a Shell whose CommandContext::http reaches the loopback servers.
#include <gtest/gtest.h>

#include "tests/utils_net/harness.hpp"

namespace {

using namespace nettest;

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(Wget, SavesUnderTheUrlName) {
    Session s;
    auto r = s.run("wget $HTTP/file.txt");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(s.file("/home/user/file.txt"), "file content\n");
    EXPECT_TRUE(has(r.err, "--  " + servers().http_base() + "/file.txt\n")) << r.err;
    EXPECT_TRUE(has(r.err, "Connecting to 127.0.0.1:" + std::to_string(servers().http_port) + "... connected.\n"))
        << r.err;
    EXPECT_TRUE(has(r.err, "HTTP request sent, awaiting response... 200 OK\n")) << r.err;
    EXPECT_TRUE(has(r.err, "Length: 13 [text/plain]\n")) << r.err;
    EXPECT_TRUE(has(r.err, "Saving to: 'file.txt'\n\n")) << r.err;
    EXPECT_TRUE(has(r.err, " - 'file.txt' saved [13/13]\n\n")) << r.err;

    // A second download does not overwrite: file.txt.1, then file.txt.2.
    r = s.run("wget -q $HTTP/file.txt; wget -q $HTTP/file.txt; echo \"$(<file.txt.2)\"");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, "file content\n");
    EXPECT_TRUE(s.exists("/home/user/file.txt.1"));

    // A directory URL is index.html; the query stays in the name.
    r = s.run("wget -q $HTTP/echo/; wget -q \"$HTTP/echo/q?a=1\"");
    EXPECT_TRUE(has(s.file("/home/user/index.html"), "GET /echo/\n"));
    EXPECT_TRUE(has(s.file("/home/user/q?a=1"), "GET /echo/q?a=1\n"));
}

TEST(Wget, OutputDocument) {
    Session s;
    auto r = s.run("wget -qO- $HTTP/file.txt");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "file content\n");
    EXPECT_EQ(r.err, "");
    r = s.run("wget -q -O - $HTTP/file.txt; wget -q --output-document=out.txt $HTTP/echo/x; echo \"${?}\"");
    EXPECT_EQ(r.out, "file content\n0\n");
    EXPECT_TRUE(has(s.file("/home/user/out.txt"), "GET /echo/x\n"));
    r = s.run("wget -O - $HTTP/file.txt 2>/dev/null");
    EXPECT_EQ(r.out, "file content\n");
    r = s.run("wget -O - $HTTP/file.txt 2>&1 >/dev/null");
    EXPECT_TRUE(has(r.out, "Saving to: 'STDOUT'\n")) << r.out;
    EXPECT_TRUE(has(r.out, " - written to stdout [13/13]\n")) << r.out;
    // -P puts the file in a folder.
    r = s.run("wget -q -P dl $HTTP/file.txt; echo \"$(<dl/file.txt)\"");
    EXPECT_EQ(r.out, "file content\n") << r.err;
}

TEST(Wget, ErrorsAndExitCodes) {
    Session s;
    // A server error answer: exit 8, nothing kept (the name came from the URL).
    auto r = s.run("wget $HTTP/status/404");
    EXPECT_EQ(r.status, 8);
    EXPECT_TRUE(has(r.err, "HTTP request sent, awaiting response... 404 Not Found\n")) << r.err;
    EXPECT_TRUE(has(r.err, " ERROR 404: Not Found.\n")) << r.err;
    EXPECT_FALSE(s.exists("/home/user/404"));
    // With -O the file was created first and stays, empty.
    r = s.run("wget -q -O got $HTTP/status/500");
    EXPECT_EQ(r.status, 8);
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(s.file("/home/user/got"), "");
    r = s.run("wget -qO- $HTTP/status/404");
    EXPECT_EQ(r.status, 8);
    EXPECT_EQ(r.out, "");

    r = s.run("wget $CLOSED/x");
    EXPECT_EQ(r.status, 4);
    EXPECT_TRUE(has(r.err, "... failed: Connection refused.\n")) << r.err;
    r = s.run("wget http://nothere.test/");
    EXPECT_EQ(r.status, 4);
    EXPECT_TRUE(has(r.err, "Resolving nothere.test (nothere.test)... failed: Name or service not known.\n")) << r.err;
    EXPECT_TRUE(has(r.err, "wget: unable to resolve host address 'nothere.test'\n")) << r.err;
    r = s.run("wget -T 0.3 --tries=1 $HTTP/hang");
    EXPECT_EQ(r.status, 4);
    EXPECT_TRUE(has(r.err, "Giving up.\n")) << r.err;
    EXPECT_FALSE(s.exists("/home/user/hang"));
    r = s.run("wget -O nodir/x $HTTP/file.txt");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "nodir/x: No such file or directory\n");

    r = s.run("wget");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n");
    r = s.run("wget --bogus x");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "wget: unrecognized option '--bogus'\n")) << r.err;
    r = s.run("wget -z x");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "wget: invalid option -- 'z'\n")) << r.err;
    r = s.run("wget --no-check-certificate $HTTPS/file.txt");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "not allowed in the sandbox")) << r.err;
}

TEST(Wget, HeadersPostAndRedirects) {
    Session s;
    auto r = s.run("wget -qO- --header 'X-One: 1' --header='X-Two: 2' $HTTP/echo/h");
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(has(r.out, "X-One: 1\n")) << r.out;
    EXPECT_TRUE(has(r.out, "X-Two: 2\n")) << r.out;
    EXPECT_TRUE(has(r.out, "User-Agent: Wget/1.21.3\n")) << r.out;
    r = s.run("wget -qO- --post-data 'a=1&b=2' $HTTP/echo");
    EXPECT_EQ(r.out, "POST /echo ct=application/x-www-form-urlencoded body=a=1&b=2");
    r = s.run("echo -n 'k=v' > body; wget -qO- --post-file=body $HTTP/echo");
    EXPECT_EQ(r.out, "POST /echo ct=application/x-www-form-urlencoded body=k=v");

    // Redirects are followed; only the final body is saved.
    r = s.run("wget -O r.txt \"$HTTP/redirect?to=/file.txt\"");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(s.file("/home/user/r.txt"), "file content\n");
    EXPECT_TRUE(has(r.err, "302 Found\nLocation: /file.txt [following]\n")) << r.err;
    EXPECT_TRUE(has(r.err, "--  " + servers().http_base() + "/file.txt\n")) << r.err;

    // -S prints the response headers, indented.
    r = s.run("wget -S -O /dev/null $HTTP/file.txt");
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(has(r.err, "awaiting response... \n  HTTP/1.1 200 OK\n")) << r.err;
    EXPECT_TRUE(has(r.err, "  Content-Length: 13\n")) << r.err;
    // -q silences -S.
    r = s.run("wget -q -S -O /dev/null $HTTP/file.txt");
    EXPECT_EQ(r.err, "");
    // -nv: one line.
    r = s.run("wget -nv -O nv.txt $HTTP/file.txt");
    EXPECT_TRUE(has(r.err, " URL:" + servers().http_base() + "/file.txt [13/13] -> \"nv.txt\" [1]\n")) << r.err;
}

TEST(Wget, LargeBodyStreamsToTheFile) {
    Session s;
    auto r = s.run("wget -q $HTTP/big?n=2500000");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(s.file("/home/user/big?n=2500000").size(), 2'500'000u);
}

TEST(Wget, NetworkOffAndBlocked) {
    {
        Session s(std::nullopt);
        auto r = s.run("wget -q $HTTP/file.txt");
        EXPECT_EQ(r.status, 4);
        EXPECT_EQ(r.err, "wget: blocked by the sandbox: network access is disabled in this sandbox\n");
        EXPECT_FALSE(s.exists("/home/user/file.txt"));
    }
    bn::ClientOptions o;
    o.network = bn::Network::all();
    Session s(o);
    int before = servers().seen.hits;
    auto r = s.run("wget -q $HTTP/file.txt");
    EXPECT_EQ(r.status, 4);
    EXPECT_TRUE(has(r.err, "wget: blocked by the sandbox: ")) << r.err;
    EXPECT_FALSE(s.exists("/home/user/file.txt"));
    EXPECT_EQ(servers().seen.hits, before);
}

}  // namespace
