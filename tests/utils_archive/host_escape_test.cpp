// Script-level escape attempts over real host folders: the utilities that write many paths at once (`tar -x`,
// `unzip`, `cp -r`, `mv`, `ln`) run by the interpreter over HostFs, OverlayFs (host lower, host upper) and a
// MountTable mixing a host root, a host mount and a read-only mount. The vfs-level suite (tests/vfs/
// escape_test.cpp) attacks the FileSystem calls directly; this one checks that no utility finds a way
// around them. Each case checks that the script fails (or stays inside), and that the host folders around
// the root — `outside/` above all — are exactly as before.
//
// Host layout of one case (a fresh temporary folder per case and tree kind):
//   outside/secret.txt "TOP SECRET"                    <- must never be read or touched
//   root/work/                                         <- the virtual /work (HostFs root, overlay lower, "/")
//   mnt/ (mounted at /mnt), ro/keep.txt (read-only at /ro)  <- MountTable only
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "tests/utils_archive/make_archive.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/mount_table.hpp"
#include "vfs/overlay_fs.hpp"

namespace bashkit {
namespace {

using testing::make_archive;
using testing::Member;
using vfs::testing_util::host_snapshot;
using vfs::testing_util::host_write;

enum class Kind { host, overlay, mounts };

std::string kind_name(Kind k) {
    switch (k) {
        case Kind::host: return "HostFs";
        case Kind::overlay: return "OverlayFs";
        case Kind::mounts: return "MountTable";
    }
    return "?";
}

std::shared_ptr<vfs::FileSystem> open_host(const std::string& path, bool read_only = false) {
    vfs::HostFsOptions o;
    o.read_only = read_only;
    auto fs = vfs::HostFs::open(path, o);
    return fs ? std::shared_ptr<vfs::FileSystem>(std::move(*fs)) : nullptr;
}

struct Attempt {
    std::string name;
    std::vector<Member> archive;  // written to /work/evil.tar (or evil.zip with zip = true) before the script
    bool zip = false;
    std::string script;
    bool must_fail = true;  // false: the script may succeed, as long as everything stayed inside
};

std::vector<Attempt> attempts() {
    const std::string up = "../../../../../../";
    return {
        {"tar_dotdot_members",
         {{Member::file, up + "outside/secret.txt", "owned\n"}, {Member::file, "../evil", "x"}},
         false,
         "tar -xf evil.tar"},
        {"tar_absolute_host_path", {{Member::file, "/tmp/../../outside/evil", "x"}}, false,
         "tar -xf evil.tar -C / && cat /outside/evil",
         false},
        {"tar_symlink_out_then_file_through_it",
         {{Member::symlink, "l", "", up + "outside"}, {Member::file, "l/secret.txt", "owned\n"}},
         false,
         "tar -xf evil.tar"},
        {"tar_hardlink_to_outside",
         {{Member::hardlink, "h", "", up + "outside/secret.txt"}},
         false,
         "tar -xf evil.tar && cat h"},
        {"tar_extract_dir_is_dotdot", {{Member::file, "evil", "x"}}, false, "tar -xf evil.tar -C " + up, false},
        {"unzip_dotdot_member", {{Member::file, up + "outside/evil", "x"}}, true, "unzip -o evil.zip"},
        {"cp_r_through_symlink_out", {}, false,
         "ln -s " + up + "outside o && cp -r o/. copy && cat copy/secret.txt", true},
        {"cp_rL_of_absolute_symlink", {}, false,
         "ln -s /../../../outside o && cp -rL o copy && cat copy/secret.txt", true},
        {"cp_r_into_dotdot", {}, false,
         "mkdir -p d && echo x > d/evil && cp -r d " + up + "outside/ && ls /outside", false},
        {"mv_out", {}, false, "echo x > f && mv f " + up + "outside/evil && ls " + up, false},
        {"ln_s_then_write", {}, false, "ln -s " + up + "outside/secret.txt l && echo owned > l && cat l", false},
        {"cat_dotdot", {}, false, "cat " + up + "outside/secret.txt"},
        {"find_delete_from_dotdot", {}, false, "find " + up + " -name secret.txt -delete; ls -R / | grep -c secret",
         false},
    };
}

// The names directly in the case folder.
std::string top_names(const std::string& dir) {
    std::string names;
    for (const auto& [path, _] : host_snapshot(dir))
        if (path.find('/', 1) == std::string::npos) names += path + " ";
    return names;
}

class ScriptEscape : public ::testing::TestWithParam<std::tuple<Kind, std::size_t>> {};

TEST_P(ScriptEscape, StaysInsideTheRoot) {
    const auto [kind, index] = GetParam();
    const Attempt at = attempts()[index];
    vfs::testing_util::TempDir tmp("script-escape");
    ASSERT_FALSE(tmp.path.empty());
    for (const char* d : {"/outside", "/root", "/root/work", "/lower", "/lower/work", "/upper", "/mnt", "/ro"})
        ASSERT_EQ(::mkdir((tmp.path + d).c_str(), 0755), 0) << d;
    ASSERT_TRUE(host_write(tmp.path + "/outside/secret.txt", "TOP SECRET\n"));
    ASSERT_TRUE(host_write(tmp.path + "/ro/keep.txt", "keep\n"));

    std::shared_ptr<vfs::FileSystem> fs;
    switch (kind) {
        case Kind::host: fs = open_host(tmp.path + "/root"); break;
        case Kind::overlay:
            fs = std::make_shared<vfs::OverlayFs>(open_host(tmp.path + "/lower", true), open_host(tmp.path + "/upper"));
            break;
        case Kind::mounts: {
            auto table = std::make_shared<vfs::MountTable>();
            ASSERT_TRUE(table->mount("/", open_host(tmp.path + "/root")).ok());
            ASSERT_TRUE(table->mount("/mnt", open_host(tmp.path + "/mnt")).ok());
            ASSERT_TRUE(table->mount("/ro", open_host(tmp.path + "/ro"), true).ok());
            fs = table;
            break;
        }
    }
    ASSERT_NE(fs, nullptr);
    if (!at.archive.empty()) {
        ASSERT_TRUE(fs->write_file(at.zip ? "/work/evil.zip" : "/work/evil.tar",
                                   make_archive(at.archive, at.zip ? "zip" : "tar"))
                        .ok());
    }

    const auto outside_before = host_snapshot(tmp.path + "/outside");
    const auto lower_before = host_snapshot(tmp.path + "/lower");
    const auto ro_before = host_snapshot(tmp.path + "/ro");
    const std::string top_before = top_names(tmp.path);

    interp::CommandRegistry registry;
    utils::register_all(registry);
    interp::ShellOptions opts;
    opts.cwd = "/work";
    opts.env = {{"LC_ALL", "C"}};
    opts.limits.timeout = std::chrono::seconds(30);
    interp::Shell sh(*fs, registry, opts);
    const interp::ExecResult r = sh.run(at.script);

    if (at.must_fail) {
        EXPECT_NE(r.exit_code, 0) << "stdout: " << r.out << "\nstderr: " << r.err;
    }
    EXPECT_EQ(r.out.find("TOP SECRET"), std::string::npos) << "read data from outside the root";
    EXPECT_EQ(host_snapshot(tmp.path + "/outside"), outside_before) << "something outside the root changed";
    EXPECT_EQ(host_snapshot(tmp.path + "/lower"), lower_before) << "the overlay's lower folder changed";
    EXPECT_EQ(host_snapshot(tmp.path + "/ro"), ro_before) << "the read-only mount changed";
    EXPECT_EQ(top_names(tmp.path), top_before) << "something was created next to the root";
}

std::vector<std::size_t> attempt_indices() {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < attempts().size(); ++i) out.push_back(i);
    return out;
}

INSTANTIATE_TEST_SUITE_P(All, ScriptEscape,
                         ::testing::Combine(::testing::Values(Kind::host, Kind::overlay, Kind::mounts),
                                            ::testing::ValuesIn(attempt_indices())),
                         [](const ::testing::TestParamInfo<std::tuple<Kind, std::size_t>>& info) {
                             return kind_name(std::get<0>(info.param)) + "_" + attempts()[std::get<1>(info.param)].name;
                         });

}  // namespace
}  // namespace bashkit
