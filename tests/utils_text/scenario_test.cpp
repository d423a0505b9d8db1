// Scenarios the differential table cannot express: a read-only filesystem, streaming over large or endless
// inputs, cancellation, and the registry's list of text utilities.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;

struct Env {
    vfs::MemoryFs fs;
    interp::CommandRegistry registry;
    std::unique_ptr<interp::Shell> sh;
    explicit Env(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        utils::register_all(registry);
        interp::ShellOptions opts;
        opts.limits.timeout = timeout;
        opts.env = {{"LC_ALL", "C"}};
        sh = std::make_unique<interp::Shell>(fs, registry, opts);
    }
};

struct RoCase {
    const char* script;
    const char* out;  // stdout with 2>&1
};

TEST(TextScenario, ReadOnlyFilesystemErrors) {
    const RoCase cases[] = {
        {"echo hi | tee f 2>&1; echo \"status=$?\"", "tee: f: Read-only file system\nhi\nstatus=1\n"},
        {"sort -o f in 2>&1; echo \"status=$?\"", "sort: open failed: f: Read-only file system\nstatus=2\n"},
        {"uniq in out 2>&1; echo \"status=$?\"", "uniq: out: Read-only file system\nstatus=1\n"},
        {"split -l 1 in 2>&1; echo \"status=$?\"", "split: xaa: Read-only file system\nstatus=1\n"},
        {"shuf -o out -e a 2>&1; echo \"status=$?\"", "shuf: out: Read-only file system\nstatus=1\n"},
        {"cat in; head -n 1 in; wc -l < in", "b\na\nb\n2\n"},
    };
    for (const auto& c : cases) {
        Env e;
        ASSERT_TRUE(e.fs.write_file("/home/user/in", "b\na\n").ok());
        e.fs.set_read_only(true);
        auto r = e.sh->run(c.script);
        EXPECT_EQ(r.out, c.out) << c.script << "\n" << r.err;
    }
}

struct StreamCase {
    const char* script;
    const char* out;
};

TEST(TextScenario, StreamingPipelinesEnd) {
    const StreamCase cases[] = {
        {"yes | head -n 2", "y\ny\n"},
        {"yes abc | head -c 7; echo", "abc\nabc\n"},
        {"seq 1 2000000 | tail -n 1", "2000000\n"},
        {"seq 1 1000000 | sort -n | uniq | wc -l", "1000000\n"},
        {"cat /dev/zero | head -c 100000 | wc -c", "100000\n"},
        {"head -c 5 /dev/zero | od -A n -t x1", " 00 00 00 00 00\n"},
        {"yes | cat | tr y n | head -n 1", "n\n"},
        {"seq 100000 | tee /dev/null | tail -n 1", "100000\n"},
        {"seq 3 | paste -sd,", "1,2,3\n"},
        {"echo hi | tee /dev/stderr 2>&1 >/dev/null", "hi\n"},
        {"seq 3 | sort -r -o /dev/stdout", "3\n2\n1\n"},
        {"head -c 16 /dev/urandom | wc -c", "16\n"},
        {"seq 5 | shuf --random-source=/dev/zero | wc -l", "5\n"},
        {"cat /dev/null; wc -c /dev/null", "0 /dev/null\n"},
    };
    for (const auto& c : cases) {
        Env e;
        auto t0 = std::chrono::steady_clock::now();
        auto r = e.sh->run(c.script);
        auto took = std::chrono::steady_clock::now() - t0;
        EXPECT_EQ(r.out, c.out) << c.script << "\n" << r.err;
        EXPECT_LT(took, std::chrono::seconds(15)) << c.script;
    }
}

TEST(TextScenario, EndlessInputIsCancelledByTimeout) {
    const char* scripts[] = {"yes > /dev/null", "cat /dev/zero > /dev/null", "sort /dev/zero", "tail /dev/zero",
                             "seq inf > /dev/null", "wc -l /dev/zero"};
    for (const char* s : scripts) {
        Env e(std::chrono::milliseconds(300));
        auto t0 = std::chrono::steady_clock::now();
        auto r = e.sh->run(s);
        auto took = std::chrono::steady_clock::now() - t0;
        EXPECT_EQ(r.exit_code, 124) << s << "\n" << r.err;
        EXPECT_LT(took, std::chrono::seconds(10)) << s;
    }
}

TEST(TextScenario, LargeFileTailReadsFromTheEnd) {
    Env e;
    std::string big;
    for (int i = 0; i < 300000; ++i) big += "line " + std::to_string(i) + "\n";
    ASSERT_TRUE(e.fs.write_file("/home/user/big", big).ok());
    auto r = e.sh->run("tail -n 2 big; tail -c 7 big; head -n -299999 big | wc -l; wc -l big");
    EXPECT_EQ(r.out, "line 299998\nline 299999\n299999\n1\n300000 big\n");
}

TEST(TextScenario, RegistryListsEveryTextUtilityWithHelp) {
    interp::CommandRegistry registry;
    utils::register_all(registry);
    const char* names[] = {"cat",    "head",  "tail", "wc",    "sort", "uniq",   "cut",      "tr",
                           "seq",    "tee",   "paste", "rev",  "tac",  "nl",     "fold",     "fmt",
                           "expand", "unexpand", "comm", "join", "column", "split", "yes",    "od",
                           "xxd",    "hexdump", "strings", "shuf"};
    for (const char* n : names) {
        const auto* c = registry.find(n);
        ASSERT_NE(c, nullptr) << n;
        EXPECT_EQ(c->help.rfind(n, 0), 0u) << n << ": help should start with the command name";
        Env e;
        auto r = e.sh->run(std::string(n) + " --help >/dev/null; echo $?");
        EXPECT_EQ(r.out, "0\n") << n;
    }
}

TEST(TextScenario, ShufSeedIsReproducible) {
    Env e;
    auto a = e.sh->run("seq 100 | shuf --seed=42 | head -n 5");
    auto b = e.sh->run("seq 100 | shuf -s 42 | head -n 5");
    auto c = e.sh->run("seq 100 | shuf --seed=43 | head -n 5");
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out, c.out);
    auto d = e.sh->run("seq 100 | shuf -s 7 | sort -n | tr '\\n' ' '");
    std::string want;
    for (int i = 1; i <= 100; ++i) want += std::to_string(i) + " ";
    EXPECT_EQ(d.out, want);
}

TEST(TextScenario, HostileInputsDoNotCrash) {
    Env e;
    const char* scripts[] = {
        "printf 'a\\n' | tr '[a*99999999999999999999]' x",
        "printf 'x' | cut -f 1-18446744073709551615",
        "printf 'x' | cut -b 99999999999999999999999-",
        "printf 'x\\n' | sort -k 99999999999999999999,99999999999999999999",
        "printf 'x\\n' | sort -k 1.99999999999999999999",
        "head -c 99999999999999999999999 /dev/null",
        "printf 'x\\n' | fold -w 99999999999999999999",
        "printf 'a\\tb\\n' | expand -t 99999999999999999999",
        "printf 'x\\n' | nl -w 99999999999",
        "printf 'x\\n' | od -w99999999999 -c",
        "printf 'x\\n' | xxd -c 999999",
        "printf '1 2\\n' | join -1 99999999999999999999 - /dev/null",
        "seq -f '%999999999f' 1 1",
        "printf 'a\\n' | uniq -w 99999999999999999999 -s 99999999999999999999 -f 99999999999999999999",
        "printf 'x\\n' | column -t -c 0",
        "printf '' | split -b 1 -a 99999",
        "printf 'a b\\n' | fmt -w 2500",
    };
    for (const char* s : scripts) {
        auto r = e.sh->run(s);
        SUCCEED() << s << " -> " << r.exit_code;
    }
}

}  // namespace

namespace {

// Timing smoke check, run by hand: utils_text_tests --gtest_also_run_disabled_tests
//   --gtest_filter='*PerfSmoke*' (the benchmarks proper live in bench/).
TEST(TextScenario, DISABLED_PerfSmoke) {
    Env e(std::chrono::seconds(300));
    std::string lines;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 1000000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        lines += std::to_string(x % 1000000000) + " word" + std::to_string(i % 97) + "\n";
    }
    ASSERT_TRUE(e.fs.write_file("/home/user/lines", lines).ok());
    std::string big;
    while (big.size() < 100u << 20) big += lines;
    ASSERT_TRUE(e.fs.write_file("/home/user/big", big).ok());
    const char* scripts[] = {"sort lines | tail -n 1", "sort -n lines | tail -n 1", "sort -k2,2 -k1,1n lines | tail -n 1",
                             "wc -l big", "wc big", "seq 1 1000000 | sort -n | uniq | wc -l", "cut -d' ' -f2 big | tail -n 1",
                             "tr a-z A-Z < big | tail -n 1", "tail -n 1 big", "uniq -c lines | tail -n 1"};
    for (const char* s : scripts) {
        auto t0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        auto r = e.sh->run(s);
        auto cpu_ms = static_cast<long long>((std::clock() - c0) * 1000 / CLOCKS_PER_SEC);
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%6lld ms wall %6lld ms cpu  %s -> %s", static_cast<long long>(ms), cpu_ms, s, r.out.c_str());
    }
}

}  // namespace
