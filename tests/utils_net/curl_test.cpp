// curl on the wire: scripts run in a Shell whose CommandContext::http reaches the loopback servers.
#include <gtest/gtest.h>

#include "tests/utils_net/harness.hpp"

namespace {

using namespace nettest;

// One script and what it must produce. `out` is compared exactly unless `out_has` is set (then each of the
// strings must occur); `err_has` must occur in stderr.
struct Case {
    const char* name;
    const char* script;
    int status;
    const char* out = nullptr;
    std::vector<const char*> out_has = {};
    const char* err_has = nullptr;
};

void check(Session& s, const Case& c) {
    SCOPED_TRACE(c.name);
    auto r = s.run(c.script);
    EXPECT_EQ(r.status, c.status) << c.script << "\nstdout: " << r.out << "\nstderr: " << r.err;
    if (c.out) {
        EXPECT_EQ(r.out, c.out) << c.script << "\nstderr: " << r.err;
    }
    for (const char* h : c.out_has) EXPECT_NE(r.out.find(h), std::string::npos) << h << " in:\n" << r.out;
    if (c.err_has) {
        EXPECT_NE(r.err.find(c.err_has), std::string::npos) << "stderr: " << r.err;
    }
}

TEST(Curl, RequestTable) {
    const Case cases[] = {
        {"get", "curl -s $HTTP/echo/a", 0, nullptr, {"GET /echo/a\n", "User-Agent: curl/7.88.1\n", "Accept: */*\n"}},
        {"scheme guessed", "curl -s 127.0.0.1:$HTTP_PORT/file.txt", 0, "file content\n"},
        {"https verified with the test CA", "curl -s $HTTPS/file.txt", 0, "file content\n"},
        {"data joined with &", "curl -s -d a=1 -d b=2 $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=a=1&b=2"},
        {"data from a file strips newlines", "printf 'x=1\\ny=2\\n' > f; curl -s -d @f $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=x=1y=2"},
        {"data-binary keeps them", "printf 'x=1\\ny=2\\n' > f; curl -s --data-binary @f $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=x=1\ny=2\n"},
        {"data-raw keeps the @", "curl -s --data-raw @f $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=@f"},
        {"data from stdin", "echo -n 'from=stdin' | curl -s -d @- $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=from=stdin"},
        {"data-urlencode", "curl -s --data-urlencode 'q=a b&c/d' --data-urlencode '=x y' $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=q=a+b%26c%2Fd&x+y"},
        {"data-urlencode from a file", "echo 'a b' > v; curl -s --data-urlencode name@v $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=name=a+b%0A"},
        {"missing data file warns and posts empty", "curl -d @nothere $HTTP/echo", 0,
         "POST /echo ct=application/x-www-form-urlencoded body=", {},
         "Warning: Couldn't read data from file \"nothere\", this makes an empty POST."},
        {"-G puts the data in the query", "curl -s -G -d a=1 --data-urlencode 'b=x y' $HTTP/echo/q", 0, nullptr,
         {"GET /echo/q?a=1&b=x+y\n"}},
        {"json", "curl -s --json '{\"a\":1}' $HTTP/echo", 0,
         "POST /echo ct=application/json body={\"a\":1} accept=application/json"},
        {"-X with data", "curl -s -X PUT -d v=1 $HTTP/echo/x", 0,
         "PUT /echo/x ct=application/x-www-form-urlencoded body=v=1"},
        {"-X DELETE", "curl -s -X DELETE $HTTP/echo/x", 0, "DELETE /echo/x ct= body="},
        {"explicit content type wins", "curl -s -H 'Content-Type: text/csv' -d 'a,b' $HTTP/echo", 0,
         "POST /echo ct=text/csv body=a,b"},
        {"headers", "curl -s -H 'X-Test: yes' -H 'X-Other:  two words ' $HTTP/echo", 0, nullptr,
         {"X-Test: yes\n", "X-Other: two words\n"}},
        {"a header cannot carry a second line", "o=$(curl -s -H $'X-A: 1\\r\\nX-B: 2' $HTTP/echo); [[ $o == *'X-A: 1'* && $o != *X-B* ]] && echo ok",
         0, "ok\n"},
        {"-w to stderr", "curl -s -o /dev/null -w 'out%{stderr}err' $HTTP/file.txt 2>/dev/null", 0, "out"},
        {"removing a default header", "curl -s -H 'User-Agent:' $HTTP/echo", 0, nullptr, {"GET /echo\n"}},
        {"basic auth", "curl -s -u user:pw $HTTP/echo", 0, nullptr, {"Authorization: Basic dXNlcjpwdw==\n"}},
        {"agent and referer", "curl -s -A 'agent/1' -e 'http://ref/' $HTTP/echo", 0, nullptr,
         {"User-Agent: agent/1\n", "Referer: http://ref/\n"}},
        {"bundled flags and attached values", "curl -sSLo out $HTTP/file.txt; echo \"$(<out)\"", 0, "file content\n"},
        {"abbreviated long options", "curl --sil --max-t 5 -o out $HTTP/file.txt && echo \"$(<out)\"", 0,
         "file content\n"},
        {"-o writes a file", "curl -s -o got.txt $HTTP/file.txt; echo \"[$(<got.txt)]\"", 0, "[file content]\n"},
        {"-O takes the remote name", "curl -s -O $HTTP/file.txt?x=1; echo \"$(<file.txt)\"", 0, "file content\n"},
        {"-O without a name", "curl -sS -O $HTTP/", 23, "", {},
         "curl: Remote file name has no length!\ncurl: (23) Failed writing received data to disk/application"},
        {"-o into a missing folder", "curl -o nodir/x $HTTP/file.txt", 23, "", {},
         "Warning: Failed to open the file nodir/x: No such file or directory\n"
         "curl: (23) Failure writing output to destination\n"},
        {"--create-dirs", "curl -s --create-dirs -o a/b/c.txt $HTTP/file.txt; echo \"$(<a/b/c.txt)\"", 0,
         "file content\n"},
        {"empty answer still makes the file", "curl -s -o e $HTTP/empty; [[ -f e ]] && echo yes", 0, "yes\n"},
        {"-o /dev/null with -w", "curl -s -o /dev/null -w '%{http_code}\\n' $HTTP/file.txt", 0, "200\n"},
        {"-I shows the headers only", "curl -sI $HTTP/file.txt", 0, nullptr,
         {"HTTP/1.1 200 OK\r\n", "Content-Type: text/plain\r\n", "Content-Length: 13\r\n"}},
        {"-i shows headers then body", "curl -si $HTTP/file.txt", 0, nullptr, {"HTTP/1.1 200 OK\r\n", "\r\n\r\nfile content\n"}},
        {"404 without -f is a success", "curl -s -w ' %{http_code}' $HTTP/status/404", 0, "status body\n 404"},
        {"-f fails with 22 and no body", "curl -sS -f -w '%{http_code}' $HTTP/status/404", 22, "404", {},
         "curl: (22) The requested URL returned error: 404\n"},
        {"-s hides the -f message", "curl -sf $HTTP/status/500 2>&1; echo \"status=$?\"", 0, "status=22\n"},
        {"--fail-with-body", "curl -s --fail-with-body $HTTP/status/404; echo \" $?\"", 0, "status body\n 22\n"},
        {"-f -o leaves no file", "curl -sf -o x $HTTP/status/404; [[ -e x ]] || echo none", 0, "none\n"},
        {"redirect without -L", "curl -s -w '%{http_code} %{redirect_url}' $HTTP/redirect?to=/file.txt", 0,
         nullptr, {"redirect body\n302 http://127.0.0.1:"}},
        {"-L shows only the final body", "curl -sL $HTTP/redirect?to=/file.txt", 0, "file content\n"},
        {"-L -w counts redirects",
         "curl -sL -o /dev/null -w '%{num_redirects} %{http_code} %{url_effective}' $HTTP/redirect?to=/file.txt",
         0, nullptr, {"1 200 http://127.0.0.1:", "/file.txt"}},
        {"-L -i shows every hop", "curl -sLi $HTTP/redirect?to=/file.txt", 0, nullptr,
         {"HTTP/1.1 302 Found\r\n", "HTTP/1.1 200 OK\r\n", "file content\n"}},
        {"303 turns POST into GET", "curl -sL -d a=1 \"$HTTP/redirect?code=303&to=/echo/after\"", 0, nullptr,
         {"GET /echo/after\n"}},
        {"redirect loop", "curl -sSL $HTTP/loop", 47, "", {}, "curl: (47) Maximum (10) redirects followed\n"},
        {"--compressed inflates gzip", "curl -s --compressed $HTTP/gzip", 0, "hello, compressed world\n"},
        {"--compressed undoes every coding", "curl -s --compressed $HTTP/gzip-text", 0, "twice\n"},
        {"without --compressed the bytes stay", "[[ $(curl -s $HTTP/gzip 2>/dev/null) == hello* ]] || echo raw", 0,
         "raw\n"},
        {"-w variables",
         "curl -s -o /dev/null -w '%{http_code}|%{content_type}|%{size_download}|%{method}|%{scheme}|"
         "%{http_version}|%{exitcode}|%{errormsg}|%header{content-length}|%%|\\t|\\q\\n' $HTTP/file.txt",
         0, "200|text/plain|13|GET|HTTP|1.1|0||13|%|\t|\\q\n"},
        {"-w on an error", "curl -s -w '%{http_code} %{exitcode}' $CLOSED/", 7, "000 7"},
        {"-w unknown variable", "curl -s -o /dev/null -w '%{bogus}x' $HTTP/file.txt", 0, "x", {},
         "curl: unknown --write-out variable: 'bogus'\n"},
        {"-w @file", "echo -n '%{http_code}' > fmt; curl -s -o /dev/null -w @fmt $HTTP/file.txt", 0, "200"},
        {"-D dumps headers", "curl -s -D h.txt -o /dev/null $HTTP/file.txt; head=$(<h.txt); echo \"${head:0:15}\"",
         0, "HTTP/1.1 200 OK\n"},
        {"-J uses Content-Disposition", "curl -s -OJ $HTTP/disposition; echo \"$(<report.csv)\"", 0, "a,b\n1,2\n"},
        {"several URLs, one -o", "o=$(curl -s -o one $HTTP/file.txt $HTTP/echo/two); echo \"${o:0:13}\"; echo \"$(<one)\"",
         0, "GET /echo/two\nfile content\n"},
        {"exit status of the last URL", "curl -s $CLOSED/ $HTTP/file.txt; echo $?; curl -s $HTTP/file.txt $CLOSED/; echo $?",
         0, "file content\n0\nfile content\n7\n"},
        {"multipart form",
         "echo 'up data' > up.txt; curl -s -F name=value -F 'file=@up.txt' -F 'typed=x;type=text/x-t' $HTTP/form",
         0, nullptr,
         {"name filename= type= content=value\n", "file filename=up.txt type=text/plain content=up data\n\n",
          "typed filename= type=text/x-t content=x\n"}},
        {"-F and -d conflict", "curl -s -F a=1 -d b=2 $HTTP/form", 2, "", {}, "You can only select one HTTP request method"},
        {"-T uploads with PUT", "echo -n payload > p.bin; curl -s -T p.bin $HTTP/echo/", 0,
         "PUT /echo/p.bin ct= body=payload"},
        {"range header", "curl -s -r 0-4 $HTTP/file.txt", 0, "file "},
        {"--oauth2-bearer", "curl -s --oauth2-bearer tok $HTTP/echo", 0, nullptr, {"Authorization: Bearer tok\n"}},
    };
    Session s;
    for (const auto& c : cases) check(s, c);
}

TEST(Curl, ErrorTable) {
    const Case cases[] = {
        {"connection refused", "curl $CLOSED/x", 7, "", {}, "curl: (7) Failed to connect to 127.0.0.1 port "},
        {"-s hides it", "curl -s $CLOSED/x 2>&1", 7, ""},
        {"-sS shows it", "curl -sS $CLOSED/x 2>&1", 7, nullptr, {"curl: (7) ", "Couldn't connect to server\n"}},
        {"unresolvable", "curl -sS http://nothere.test/", 6, "", {}, "curl: (6) Could not resolve host: nothere.test\n"},
        {"timeout", "curl -sS -m 0.3 $HTTP/hang", 28, "", {}, "curl: (28) Operation timed out after "},
        {"unsupported scheme", "curl -sS ftp://127.0.0.1/", 1, "", {},
         "curl: (1) Protocol \"ftp\" not supported or disabled in libcurl\n"},
        {"no URL", "curl -s", 2, "", {}, "curl: no URL specified!\ncurl: try 'curl --help' or 'curl --manual' for more information\n"},
        {"unknown option", "curl --bogus $HTTP/", 2, "", {},
         "curl: option --bogus: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n"},
        {"unknown short option", "curl -Z $HTTP/", 2, "", {}, "curl: option -Z: is unknown\n"},
        {"missing parameter", "curl $HTTP/ -o", 2, "", {}, "curl: option -o: requires parameter\n"},
        {"bad number", "curl -m abc $HTTP/", 2, "", {}, "curl: option -m: expected a proper numerical parameter\n"},
        {"-k refused", "curl -k $HTTPS/file.txt", 2, "", {}, "curl: option -k: not allowed in the sandbox"},
        {"--insecure refused", "curl --insecure $HTTPS/file.txt", 2, "", {}, "curl: option --insecure: not allowed in the sandbox"},
        {"proxy refused", "curl -x http://127.0.0.1:1 $HTTP/", 2, "", {}, "curl: option -x: not allowed in the sandbox"},
        {"response too big", "curl -sS -o /dev/null $HTTP/big?n=30000000", 63, "", {},
         "curl: (63) Exceeded the maximum allowed file size (10485760)"},
        {"help", "h=$(curl --help); nl=$'\\n'; echo \"${h%%$nl*}\"", 0, "Usage: curl [options...] <url>\n"},
    };
    Session s;
    for (const auto& c : cases) check(s, c);
}

TEST(Curl, RetryOnTransientHttpError) {
    Session s;
    auto r = s.run("curl --retry 2 -S $HTTP/flaky?id=curl1");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "ok after 2\n");
    EXPECT_NE(r.err.find("Warning: Problem : HTTP error. Will retry in 1 seconds. 2 retries left.\n"), std::string::npos)
        << r.err;
    // -s silences the warning; without --retry the 503 is the answer.
    r = s.run("curl -s $HTTP/flaky?id=curl2; curl -s --retry 1 $HTTP/flaky?id=curl3");
    EXPECT_EQ(r.out, "busy\nok after 2\n");
    EXPECT_EQ(r.err, "");
}

TEST(Curl, VerboseShowsHeadersBothWays) {
    Session s;
    auto r = s.run("curl -sv -H 'X-Mine: 1' $HTTP/file.txt");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "file content\n");
    EXPECT_NE(r.err.find("> GET /file.txt HTTP/1.1\r\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("> Host: 127.0.0.1:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("> X-Mine: 1\r\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("< HTTP/1.1 200 OK\r\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("< Content-Length: 13\r\n"), std::string::npos) << r.err;
}

TEST(Curl, LargeBodiesStream) {
    Session s;
    const size_t n = 3'000'000;
    auto r = s.run("curl -s -o big.bin $HTTP/big?n=3000000");
    EXPECT_EQ(r.status, 0) << r.err;
    std::string f = s.file("/home/user/big.bin");
    ASSERT_EQ(f.size(), n);
    EXPECT_EQ(f[0], 'a');
    EXPECT_EQ(f[1000], 'b');
    EXPECT_EQ(f[n - 1], 'x');
    r = s.run("curl -s $HTTP/big?n=3000000");
    EXPECT_EQ(r.out.size(), n);
    // A reader that stops early: curl ends with a write failure, like curl | head.
    r = s.run("curl -sS $HTTP/big?n=3000000 | { read -r -n 3 x; echo \"$x\"; }; echo \"${PIPESTATUS[0]}\"");
    EXPECT_EQ(r.out, "axx\n23\n") << r.err;
}

TEST(Curl, NetworkOffRefusesEveryRequest) {
    Session s(std::nullopt);
    int before = servers().seen.hits;
    auto r = s.run("curl -s $HTTP/file.txt");
    EXPECT_EQ(r.status, 7);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "curl: (7) blocked by the sandbox: network access is disabled in this sandbox\n");
    r = s.run("curl -s -w '%{http_code}' https://example.com/");
    EXPECT_EQ(r.status, 7);
    EXPECT_EQ(r.out, "000");
    // Option errors still come first.
    r = s.run("curl --bogus");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(servers().seen.hits, before);
}

TEST(Curl, TransfersPerCommandAreCapped) {
    Session s;
    int before = servers().seen.hits;
    // 1001 URLs: refused whole, before any request.
    auto r = s.run("curl -s $(for i in $(seq 1001); do printf '%s ' \"$HTTP/file.txt?$i\"; done)");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "curl: (2) 1001 URLs in one command: the sandbox allows 1000\n");
    EXPECT_EQ(servers().seen.hits, before);
    // Brackets are no glob: one request.
    r = s.run("curl -s -o /dev/null -w '%{http_code}' \"$HTTP/file.txt?[1-100000]\"");
    EXPECT_EQ(servers().seen.hits, before + 1) << r.err;
}

TEST(Curl, DefaultRulesRefuseLoopbackWithoutConnecting) {
    bn::ClientOptions o;  // block_private_ips = true
    o.network = bn::Network::all();
    o.ca_file = servers().cert.cert.string();
    Session s(o);
    int before = servers().seen.hits;
    for (const char* script :
         {"curl -s $HTTP/file.txt", "curl -sL $HTTPS/file.txt", "curl -s -d x=1 $HTTP/echo",
          "curl -s http://0x7f.1:$HTTP_PORT/file.txt", "curl -s http://2130706433:$HTTP_PORT/file.txt",
          "curl -s http://[::ffff:127.0.0.1]:$HTTP_PORT/file.txt", "curl -s http://a.com@127.0.0.1:$HTTP_PORT/",
          "curl -s -o f $HTTP/file.txt"}) {
        auto r = s.run(script);
        EXPECT_EQ(r.status, 7) << script;
        EXPECT_EQ(r.out, "") << script;
        EXPECT_NE(r.err.find("curl: (7) blocked by the sandbox: "), std::string::npos) << script << ": " << r.err;
    }
    EXPECT_FALSE(s.exists("/home/user/f"));
    EXPECT_EQ(servers().seen.hits, before);
}

TEST(Curl, RedirectToPrivateAddressIsRefusedAtThatHop) {
    auto o = loopback_options();
    o.extra_deny = {*bn::IpNetwork::parse("127.0.0.2/32")};
    Session s(o);
    auto r = s.run("curl -sL \"$HTTP/redirect?to=http://127.0.0.2:$HTTP_PORT/file.txt\"");
    EXPECT_EQ(r.status, 7);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("blocked by the sandbox"), std::string::npos) << r.err;
}

struct MapSecrets : bn::SecretStore {
    std::map<std::string, std::string> values;
    std::optional<std::string> get(const std::string& name) const override {
        auto it = values.find(name);
        if (it == values.end()) return std::nullopt;
        return it->second;
    }
};

TEST(Curl, HeaderBindingSecretReachesTheServerButNotTheScript) {
    const std::string secret = "s3cr3t-t0ken-value";
    auto secrets = std::make_shared<MapSecrets>();
    secrets->values["API_TOKEN"] = secret;
    auto o = loopback_options();
    o.secrets = secrets;
    bn::HeaderBinding b;
    b.host = "127.0.0.1:" + std::to_string(servers().https_port);
    b.header = "Authorization";
    b.secret_name = "API_TOKEN";
    b.path_prefix = "/record";
    b.prefix = "Bearer ";
    o.header_bindings = {b};
    Session s(o);
    servers().seen.clear();

    auto r = s.run(
        "curl -sv -H 'Authorization: Bearer mine' -D hdrs.txt -o body.txt -w '%{http_code} %{header{x-served-by}}\\n' "
        "$HTTPS/record/a 2> verbose.txt; echo \"status=$?\"; "
        "curl -sS -i $HTTPS/record/b; curl -s -I $HTTPS/record/c; export -p; set");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("status=0"), std::string::npos) << r.out;
    {
        std::lock_guard lock(servers().seen.mu);
        ASSERT_EQ(servers().seen.authorization.size(), 3u);
        for (const auto& a : servers().seen.authorization) EXPECT_EQ(a, "Bearer " + secret);
    }
    std::string verbose = s.file("/home/user/verbose.txt");
    EXPECT_NE(verbose.find("> Authorization: Bearer [redacted by sandbox]\r\n"), std::string::npos) << verbose;
    for (const std::string& seen : {r.out, r.err, verbose, s.file("/home/user/hdrs.txt"), s.file("/home/user/body.txt")}) {
        EXPECT_EQ(seen.find(secret), std::string::npos) << seen;
        EXPECT_EQ(seen.find("s3cr3t"), std::string::npos) << seen;
    }

    // Over plain HTTP, on another path, or after a redirect to another port, the secret is not sent.
    servers().seen.clear();
    r = s.run("curl -s $HTTP/record/x; curl -s $HTTPS/recordings; curl -sL \"$HTTPS/redirect?to=$HTTP/record/y\"");
    EXPECT_EQ(r.out, "recorded\nrecorded\nrecorded\n");
    {
        std::lock_guard lock(servers().seen.mu);
        ASSERT_EQ(servers().seen.authorization.size(), 3u);
        for (const auto& a : servers().seen.authorization) EXPECT_EQ(a.find(secret), std::string::npos) << a;
    }
}

TEST(Curl, CancelledRunEndsTheTransfer) {
    Session s(loopback_options(), 500ms);
    auto start = std::chrono::steady_clock::now();
    auto r = s.run("curl -s $HTTP/hang; echo after");
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.out.find("late"), std::string::npos);
    EXPECT_LT(took, 2500ms);
}

}  // namespace
