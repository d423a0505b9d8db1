// Timing of `grep -c PATTERN` over 100 MB against GNU grep on the same data. Disabled by default (timings
// are noisy on shared machines); run with
//   utils_search_tests --gtest_also_run_disabled_tests --gtest_filter='*Perf*'
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "tests/common/host_run.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;

std::string make_data(size_t bytes) {
    std::string data;
    data.reserve(bytes + 128);
    uint64_t x = 88172645463325252ull;
    static const char* kWords[] = {"alpha", "beta", "gamma", "delta", "error", "warning", "info", "request",
                                   "response", "timeout", "user", "session", "42", "1999", "handler", "queue"};
    while (data.size() < bytes) {
        const int words = 6 + static_cast<int>(x % 10);
        for (int w = 0; w < words; ++w) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            data += kWords[x % 16];
            data += w + 1 < words ? ' ' : '\n';
        }
    }
    return data;
}

double time_host_grep(const std::string& args, const std::string& path, std::string& out) {
    const std::string cmd = "LC_ALL=C /usr/bin/grep " + args + " " + path;
    const auto t0 = std::chrono::steady_clock::now();
    bashkit::testing::HostRun run = bashkit::testing::run_host(cmd);
    if (!run.ran) return -1;
    out = std::move(run.out);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(SearchPerf, DISABLED_GrepCountHundredMegabytes) {
    const std::string data = make_data(100u << 20);
    vfs::MemoryFs mfs;
    ASSERT_TRUE(mfs.mkdir_all("/home/user").ok());
    ASSERT_TRUE(mfs.write_file("/home/user/big", data).ok());
    const auto host = std::filesystem::temp_directory_path() / "bashkit-grep-perf.txt";
    std::ofstream(host, std::ios::binary) << data;
    interp::CommandRegistry registry;
    utils::register_all(registry);
    interp::ShellOptions opts;  // named: g++ 12 with ASan warns on the defaulted temporary
    interp::Shell sh(mfs, registry, opts);
    for (const std::string args : {"-c timeout", "-c 'err.r'", "-c -E 'user|queue'", "-c -i ERROR", "-c -v e",
                                   "-c -w 42", "-c 'q.*e.*x'", "-c -F session", "-l zzz", "-n handler"}) {
        std::string gnu_out;
        const double gnu = access("/usr/bin/grep", X_OK) == 0 ? time_host_grep(args, host.string(), gnu_out) : -1;
        const auto t0 = std::chrono::steady_clock::now();
        auto r = sh.run("grep " + args + " big" + (args.starts_with("-n") ? " | grep -c ." : ""));
        const double ours = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (args.starts_with("-n")) {
            std::string n;
            time_host_grep(args + " " + host.string() + " | /usr/bin/grep -c .", "", n);
            gnu_out = n;
        }
        std::printf("grep %-20s bashkit %.3fs  gnu %.3fs  ratio %.2f  out %s", args.c_str(), ours, gnu,
                    gnu > 0 ? ours / gnu : 0.0, r.out.c_str());
        if (gnu >= 0) {
            EXPECT_EQ(r.out, gnu_out) << args;
        }
    }
    std::filesystem::remove(host);
}

}  // namespace
