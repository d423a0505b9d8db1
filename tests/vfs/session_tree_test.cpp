// The session tree: folder names, layout, reopening (in this process and in a second one), isolation of
// instance ids, the ephemeral mode, and limits on a session.
#include "vfs/session_tree.hpp"

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"

extern char** environ;

namespace bashkit::vfs {
namespace {

using testing_util::TempDir;

TEST(SessionTree, Sha256KnownAnswers) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000, 'a')).substr(0, 16), "41edece42d63e8d9");
}

TEST(SessionTree, FolderNamesAreSafeBoundedAndDistinct) {
    struct Row {
        std::string instance, session, prefix;
    };
    const std::vector<Row> rows = {
        {"", "s1", "s1-"},
        {"inst", "s1", "inst--s1-"},
        {"../../etc", "x/y", "_._.._etc--x_y-"},
        {"..", "..", "_.--_.-"},
        {".hidden", "a b\nc", "_hidden--a_b_c-"},
        {"", std::string("nul\0byte", 8), "nul_byte-"},
        {"", std::string(500, 'z'), std::string(40, 'z') + "-"},
    };
    std::set<std::string> seen;
    for (const Row& r : rows) {
        std::string name = session_folder_name(r.instance, r.session);
        SCOPED_TRACE(name);
        EXPECT_EQ(name.rfind(r.prefix, 0), 0u);
        EXPECT_EQ(name.size(), r.prefix.size() + 16);
        EXPECT_EQ(name.find('/'), std::string::npos);
        EXPECT_NE(name, "..");
        EXPECT_NE(name[0], '.');
        EXPECT_LE(name.size(), 40u + 2 + 40 + 1 + 16);
        for (char c : name) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
        EXPECT_TRUE(seen.insert(name).second);
    }
    // Ids that sanitise alike stay apart; so do splits of the same bytes between the two ids.
    EXPECT_NE(session_folder_name("", "a/b"), session_folder_name("", "a_b"));
    EXPECT_NE(session_folder_name("", "a:b"), session_folder_name("", "a;b"));
    EXPECT_NE(session_folder_name("a", "bc"), session_folder_name("ab", "c"));
    EXPECT_NE(session_folder_name("", "s"), session_folder_name("_", "s"));
    EXPECT_NE(session_folder_name("", std::string(41, 'z')), session_folder_name("", std::string(42, 'z')));
    EXPECT_EQ(session_folder_name("i", "s"), session_folder_name("i", "s"));  // stable
}

TEST(SessionTree, LayoutAndReopenInTheSameProcess) {
    TempDir base("sessions");
    SessionTreeOptions o;
    o.base_dir = base.path;
    o.instance_id = "agent-1";
    o.session_id = "sess-42";
    {
        auto tree = open_session_tree(o);
        BK_ASSERT_OK(tree);
        EXPECT_EQ(tree->cwd, "/workspace");
        EXPECT_EQ(tree->home, "/home/user");
        EXPECT_EQ(tree->host_dir, base.path + "/" + session_folder_name("agent-1", "sess-42"));
        FileSystem& fs = *tree->fs;
        EXPECT_TRUE(fs.is_directory("/workspace"));
        EXPECT_TRUE(fs.is_directory("/home/user"));
        EXPECT_TRUE(fs.is_directory("/tmp"));
        EXPECT_EQ(fs.stat("/tmp").value().mode, 0777u);  // no sticky bit on the host (vfs/host_fs.hpp)
        EXPECT_EQ(fs.stat("/workspace").value().uid, 1000u);
        BK_ASSERT_OK(fs.write_file("/workspace/notes.txt", "remember me"));
        BK_ASSERT_OK(fs.symlink("/workspace/notes.txt", "/home/user/link"));
        EXPECT_EQ(testing_util::host_read(tree->host_dir + "/workspace/notes.txt"), "remember me");
    }
    auto again = open_session_tree(o);
    BK_ASSERT_OK(again);
    EXPECT_EQ(again->fs->read_file("/home/user/link").value_or("?"), "remember me");
    BK_ASSERT_OK(delete_session_tree(o));
    EXPECT_EQ(testing_util::host_read(again->host_dir + "/workspace/notes.txt"), "<missing>");
}

TEST(SessionTree, TwoInstanceIdsNeverSeeEachOthersFiles) {
    TempDir base("sessions");
    SessionTreeOptions a;
    a.base_dir = base.path;
    a.instance_id = "instance-a";
    a.session_id = "same-session";
    SessionTreeOptions b = a;
    b.instance_id = "instance-b";
    SessionTreeOptions none = a;
    none.instance_id = "";
    auto ta = open_session_tree(a);
    auto tb = open_session_tree(b);
    auto tn = open_session_tree(none);
    BK_ASSERT_OK(ta);
    BK_ASSERT_OK(tb);
    BK_ASSERT_OK(tn);
    EXPECT_NE(ta->host_dir, tb->host_dir);
    EXPECT_NE(ta->host_dir, tn->host_dir);
    BK_ASSERT_OK(ta->fs->write_file("/workspace/secret-a", "a"));
    BK_ASSERT_OK(tb->fs->write_file("/tmp/secret-b", "b"));
    for (auto* t : {&tb, &tn}) {
        EXPECT_FALSE((*t)->fs->lexists("/workspace/secret-a"));
        // Not by any path either: every climb stops at the session's own root.
        BK_EXPECT_ERR((*t)->fs->read_file("/../" + session_folder_name("instance-a", "same-session") +
                                         "/workspace/secret-a"),
                      Errc::no_such_file);
        EXPECT_TRUE((*t)->fs->readdir("/workspace").value().empty());
    }
    EXPECT_FALSE(ta->fs->lexists("/tmp/secret-b"));
    EXPECT_FALSE(tn->fs->lexists("/tmp/secret-b"));
    // A symlink made by one session pointing at the other's folder stays inside its own tree.
    BK_ASSERT_OK(tb->fs->symlink(ta->host_dir + "/workspace/secret-a", "/workspace/steal"));
    BK_EXPECT_ERR(tb->fs->read_file("/workspace/steal"), Errc::no_such_file);
    BK_ASSERT_OK(tb->fs->symlink("../../../../../../../../" + ta->host_dir + "/workspace", "/workspace/steal2"));
    BK_EXPECT_ERR(tb->fs->readdir("/workspace/steal2"), Errc::no_such_file);
}

// Run in a second process by ReopenedByASecondProcess (skipped otherwise): reopens the session named in the
// environment, checks what the parent wrote and writes an answer.
TEST(SessionTreeChild, ReopenAndAnswer) {
    const char* base = std::getenv("BASHKIT_TEST_SESSION_BASE");
    if (!base) GTEST_SKIP() << "only run as the child of SessionTree.ReopenedByASecondProcess";
    SessionTreeOptions o;
    o.base_dir = base;
    o.instance_id = std::getenv("BASHKIT_TEST_SESSION_INSTANCE");
    o.session_id = std::getenv("BASHKIT_TEST_SESSION_ID");
    auto tree = open_session_tree(o);
    BK_ASSERT_OK(tree);
    EXPECT_EQ(tree->fs->read_file("/workspace/from-parent").value_or("?"), "parent wrote this");
    EXPECT_EQ(tree->fs->readlink("/home/user/.profile-link").value_or("?"), "/workspace/from-parent");
    BK_EXPECT_OK(tree->fs->write_file("/workspace/from-child", std::to_string(::getpid())));
}

TEST(SessionTree, ReopenedByASecondProcess) {
    TempDir base("sessions");
    SessionTreeOptions o;
    o.base_dir = base.path;
    o.instance_id = "inst";
    o.session_id = "cross-process";
    {
        auto tree = open_session_tree(o);
        BK_ASSERT_OK(tree);
        BK_ASSERT_OK(tree->fs->write_file("/workspace/from-parent", "parent wrote this"));
        BK_ASSERT_OK(tree->fs->symlink("/workspace/from-parent", "/home/user/.profile-link"));
    }
    std::vector<std::string> env_strings;
    // Not the sharding variables ctest gives this binary: the child would run its share of one test, none.
    for (char** e = environ; *e; ++e)
        if (!std::string_view(*e).starts_with("GTEST_")) env_strings.emplace_back(*e);
    env_strings.push_back("BASHKIT_TEST_SESSION_BASE=" + base.path);
    env_strings.push_back("BASHKIT_TEST_SESSION_INSTANCE=inst");
    env_strings.push_back("BASHKIT_TEST_SESSION_ID=cross-process");
    std::vector<char*> envp;
    for (std::string& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string exe = "/proc/self/exe";
    std::string filter = "--gtest_filter=SessionTreeChild.ReopenAndAnswer";
    std::vector<char*> argv = {exe.data(), filter.data(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data()), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    auto tree = open_session_tree(o);
    BK_ASSERT_OK(tree);
    EXPECT_EQ(tree->fs->read_file("/workspace/from-child").value_or("?"), std::to_string(pid));
}

TEST(SessionTree, EphemeralLeavesNothingOnDisk) {
    TempDir base("sessions");
    SessionTreeOptions o;
    o.base_dir = base.path + "/never";
    o.session_id = "eph";
    o.ephemeral = true;
    auto tree = open_session_tree(o);
    BK_ASSERT_OK(tree);
    EXPECT_TRUE(tree->host_dir.empty());
    BK_ASSERT_OK(tree->fs->write_file("/workspace/x", "in memory"));
    EXPECT_TRUE(tree->fs->is_directory("/home/user"));
    EXPECT_EQ(testing_util::host_snapshot(base.path).size(), 1u);  // only the base itself
    auto other = open_session_tree(o);
    BK_ASSERT_OK(other);
    EXPECT_FALSE(other->fs->lexists("/workspace/x"));  // nothing kept between opens
}

TEST(SessionTree, BadIdsAndUnsafeBases) {
    SessionTreeOptions o;
    BK_EXPECT_ERR(open_session_tree(o), Errc::invalid_argument);
    o.session_id = "s";
    o.base_dir = "relative/base";
    BK_EXPECT_ERR(open_session_tree(o), Errc::invalid_argument);
    // The session folder replaced by a symlink is refused, never followed.
    TempDir base("sessions");
    TempDir elsewhere("elsewhere");
    o.base_dir = base.path;
    ASSERT_EQ(::symlink(elsewhere.path.c_str(), (base.path + "/" + session_folder_name("", "s")).c_str()), 0);
    BK_EXPECT_ERR(open_session_tree(o), Errc::permission_denied);
    EXPECT_EQ(testing_util::host_snapshot(elsewhere.path).size(), 1u);
}

TEST(SessionTree, LimitsApplyAndCountWhatIsAlreadyThere) {
    TempDir base("sessions");
    SessionTreeOptions o;
    o.base_dir = base.path;
    o.session_id = "limited";
    o.limits.max_total_bytes = 100;
    o.limits.max_file_bytes = 60;
    {
        auto tree = open_session_tree(o);
        BK_ASSERT_OK(tree);
        BK_ASSERT_OK(tree->fs->write_file("/workspace/a", std::string(50, 'a')));
        BK_EXPECT_ERR(tree->fs->write_file("/workspace/big", std::string(61, 'b')), Errc::file_too_large);
    }
    auto tree = open_session_tree(o);  // reopened: the 50 bytes are counted again
    BK_ASSERT_OK(tree);
    BK_EXPECT_ERR(tree->fs->write_file("/workspace/b", std::string(51, 'b')), Errc::no_space);
    BK_EXPECT_OK(tree->fs->write_file("/workspace/c", std::string(50, 'c')));
}

}  // namespace
}  // namespace bashkit::vfs
