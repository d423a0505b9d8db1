// jq from several sessions at once: libjq runs under one process-wide mutex that each jq releases while it
// blocks on a pipe, so concurrent sessions and jq-to-jq pipelines finish with the right answers.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "builtins/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit {
namespace {

std::string run_script(const std::string& script) {
    vfs::MemoryFs fs;
    EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
    interp::CommandRegistry registry;
    builtins::register_all(registry);
    interp::ShellOptions opts;
    opts.limits.timeout = std::chrono::seconds(60);
    interp::Shell sh(fs, registry, opts);
    auto res = sh.run(script, "");
    auto fin = sh.close();
    return res.out + fin.out + res.err + fin.err;
}

TEST(JqConcurrency, SessionsAndPipelines) {
    const std::string script =
        "jq -n '[range(2000)] | add'; "
        "jq -n 'range(10000)' | jq -c '{v: .}' | jq -s 'length'; "
        "printf '{\"a\":[1,2,3]}' | jq -c '.a | map(. * 2)'\n";
    const std::string expected = "1999000\n10000\n[2,4,6]\n";
    std::vector<std::string> outs(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < outs.size(); ++i) threads.emplace_back([&, i] { outs[i] = run_script(script); });
    for (auto& t : threads) t.join();
    for (const auto& o : outs) EXPECT_EQ(o, expected);
}

TEST(JqConfinement, NoHostFilesOrEnvironment) {
    // $ENV is the session's environment, files come from the sandbox, modules are refused.
    EXPECT_EQ(run_script("export ONLY_HERE=1; jq -nc '[$ENV.ONLY_HERE, env.ONLY_HERE]'"), "[\"1\",\"1\"]\n");
    EXPECT_EQ(run_script("jq . /etc/passwd 2>&1; echo $?"),
              "jq: error: Could not open file /etc/passwd: No such file or directory\n2\n");
    EXPECT_EQ(run_script("jq -n --rawfile x /etc/hostname '$x' 2>&1; echo $?"),
              "jq: Bad JSON in --rawfile x /etc/hostname: Could not open /etc/hostname: No such file or directory\n2\n");
    EXPECT_EQ(run_script("jq -n 'import \"passwd\" as $p {search: \"/etc\"}; $p' 2>&1; echo $?"),
              "jq: error: import/include: modules are not available in the sandbox\njq: 1 compile error\n3\n");
    EXPECT_EQ(run_script("jq -n '  # c\n include \"x\"; 1' 2>&1; echo $?"),
              "jq: error: import/include: modules are not available in the sandbox\njq: 1 compile error\n3\n");
    EXPECT_EQ(run_script("jq -n '\"x\" | stderr | empty' 2>&1"), "\"x\"");
}

}  // namespace
}  // namespace bashkit
