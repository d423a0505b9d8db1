// sqlite3 beyond the differential table: hostile queries stopped by the limits, a database shared with the real
// sqlite3 through a host folder (HostFs) both ways, and the VFS keeping SQLite inside the virtual tree.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"
#include "tests/common/host_run.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bashkit;

struct Outcome {
    int status;
    std::string out, err;
};

Outcome run(vfs::FileSystem& tree, const std::string& script, interp::ExecutionLimits limits = {}) {
    interp::CommandRegistry registry;
    utils::register_all(registry);
    interp::ShellOptions opts;
    opts.limits = limits;
    interp::Shell sh(tree, registry, opts);
    auto r = sh.run(script);
    auto fin = sh.close();
    return {fin.exit_code, r.out + fin.out, r.err + fin.err};
}

std::unique_ptr<vfs::MemoryFs> memory_tree() {
    auto m = std::make_unique<vfs::MemoryFs>();
    EXPECT_TRUE(m->mkdir_all("/tmp").ok());
    return m;
}

// The real sqlite3 on a host folder: its stdout (status in *status).
std::string real_sqlite(const fs::path& dir, const std::string& args, int* status) {
    const auto r = bashkit::testing::run_host("cd '" + dir.string() + "' && /usr/bin/sqlite3 " + args + " 2>&1");
    *status = r.status;
    return r.out;
}

struct HostDir {
    fs::path path;
    HostDir() {
        char tmpl[] = "/tmp/bashkit-sqlite-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~HostDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

TEST(SqliteHostile, EndlessRecursiveCteIsStoppedByTheTimeout) {
    auto tree = memory_tree();
    interp::ExecutionLimits limits;
    limits.timeout = std::chrono::milliseconds(800);
    const auto t0 = std::chrono::steady_clock::now();
    Outcome r = run(*tree,
                "sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c) "
                "select count(*) from c'",
                limits);
    const auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, 124) << r.err;
    EXPECT_LT(secs, 5.0);
}

TEST(SqliteHostile, TimeoutCommandStopsAQuery) {
    auto tree = memory_tree();
    Outcome r = run(*tree,
                "timeout 0.5 sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c) "
                "select max(x) from c'; echo \"rc=$?\"");
    EXPECT_EQ(r.out, "rc=124\n") << r.err;
}

TEST(SqliteHostile, HugeZeroblobIsTooBig) {
    auto tree = memory_tree();
    interp::ExecutionLimits limits;
    limits.max_memory_bytes = size_t{64} << 20;
    Outcome r = run(*tree, "sqlite3 :memory: 'select length(hex(zeroblob(100000000)))'; echo \"rc=$?\"", limits);
    EXPECT_EQ(r.out, "rc=18\n");  // SQLITE_TOOBIG, as the real shell exits
    EXPECT_NE(r.err.find("string or blob too big"), std::string::npos) << r.err;
    // Past SQLite's own compiled maximum too.
    r = run(*tree, "sqlite3 :memory: 'select zeroblob(2000000000)' 2>&1; echo \"rc=$?\"", limits);
    EXPECT_NE(r.out.find("too big"), std::string::npos) << r.out;
}

TEST(SqliteHostile, GrowingTemporaryTablesAreChargedToTheMemoryBudget) {
    auto tree = memory_tree();
    interp::ExecutionLimits limits;
    limits.max_memory_bytes = size_t{32} << 20;
    limits.timeout = std::chrono::seconds(60);
    // UNION (not UNION ALL) keeps every row seen in a temporary index: it grows until the budget stops it.
    Outcome r = run(*tree,
                "sqlite3 :memory: 'pragma cache_size=10; with recursive c(x) as (select 1 union select x+1 from c) "
                "select count(*) from c' 2>&1; echo \"rc=$?\"",
                limits);
    EXPECT_NE(r.out.find("database or disk is full"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("rc=13"), std::string::npos) << r.out;
}

TEST(SqliteVfs, UriFilenamesCannotNameAnotherVfs) {
    HostDir host;
    auto tree = memory_tree();
    const std::string target = (host.path / "escape.db").string();
    Outcome r = run(*tree, "sqlite3 :memory: \"attach 'file:" + target + "?vfs=unix' as x\" 2>&1; "
                       "sqlite3 :memory: \"create table t(a); vacuum into 'file:" + target + "?vfs=unix'\" 2>&1; "
                       "sqlite3 :memory: \"attach 'fi'||'le:" + target + "?vfs=unix' as x\" 2>&1; "
                       "sqlite3 'file:" + target + "?vfs=unix' 'create table t(a)' 2>&1; echo \"rc=$?\"");
    EXPECT_FALSE(fs::exists(target)) << r.out;
    EXPECT_NE(r.out.find("not authorized"), std::string::npos) << r.out;
    // A plain absolute path names a file of the virtual tree, never the host's.
    r = run(*tree, "sqlite3 :memory: \"attach '" + target + "' as x; create table x.t(a)\" 2>&1; echo \"rc=$?\"");
    EXPECT_FALSE(fs::exists(target));
    EXPECT_NE(r.out.find("unable to open database"), std::string::npos) << r.out;
    r = run(*tree, "sqlite3 /tmp/in-tree.db 'create table t(a)'; ls /tmp");
    EXPECT_EQ(r.out, "in-tree.db\n");
    EXPECT_FALSE(fs::exists("/tmp/in-tree.db"));
}

TEST(SqliteVfs, ExtensionsAndPointerTokenizersAreRefused) {
    auto tree = memory_tree();
    Outcome r = run(*tree, "sqlite3 :memory: \"select load_extension('/usr/lib/x.so')\" 2>&1; "
                       "sqlite3 :memory: \"select fts3_tokenizer('simple')\" 2>&1; "
                       "sqlite3 :memory: 'pragma hard_heap_limit=1000' 2>&1; echo done");
    EXPECT_NE(r.out.find("not authorized"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not authorized to use function: fts3_tokenizer"), std::string::npos) << r.out;
}

TEST(SqliteHostMount, BashkitWritesTheRealSqliteReads) {
    if (access("/usr/bin/sqlite3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/sqlite3";
    HostDir host;
    auto tree = vfs::HostFs::open(host.path.string());
    ASSERT_TRUE(tree.ok());
    Outcome r = run(**tree, "sqlite3 shared.db 'create table t(a, b)' \"insert into t values(1, 'one'), (2, 'two')\" "
                        "\"create index ti on t(b)\"");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(fs::exists(host.path / "shared.db-journal"));
    int st = 0;
    EXPECT_EQ(real_sqlite(host.path, "shared.db 'select * from t order by b desc' 'pragma integrity_check'", &st),
              "2|two\n1|one\nok\n");
    EXPECT_EQ(st, 0);
}

TEST(SqliteHostMount, TheRealSqliteWritesBashkitReads) {
    if (access("/usr/bin/sqlite3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/sqlite3";
    HostDir host;
    int st = 0;
    real_sqlite(host.path,
                "made.db 'create table t(a integer primary key, b text)' "
                "\"insert into t(b) select 'row ' || value from generate_series(1, 500)\"",
                &st);
    if (st != 0) {
        // generate_series is a CLI extension in 3.40: fall back to a recursive CTE.
        real_sqlite(host.path,
                    "made.db 'create table if not exists t(a integer primary key, b text)' "
                    "\"with recursive s(v) as (select 1 union all select v+1 from s where v<500) "
                    "insert into t(b) select 'row ' || v from s\"",
                    &st);
    }
    ASSERT_EQ(st, 0);
    auto tree = vfs::HostFs::open(host.path.string());
    ASSERT_TRUE(tree.ok());
    Outcome r = run(**tree, "sqlite3 -json made.db 'select count(*) as n, max(b) as m from t'; "
                        "sqlite3 made.db \"update t set b = 'changed' where a = 1\" 'pragma integrity_check'");
    EXPECT_EQ(r.out, "[{\"n\":500,\"m\":\"row 99\"}]\nok\n") << r.err;
    EXPECT_EQ(real_sqlite(host.path, "made.db 'select b from t where a = 1'", &st), "changed\n");
}

}  // namespace
