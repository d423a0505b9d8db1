// Adversarial suite: attempts to reach host files outside a tree's root, run against HostFs (openat2 and the
// O_NOFOLLOW walk), OverlayFs (host lower and upper) and a MountTable mixing host folders and a read-only
// mount. Each attempt checks that the caller gets an error (or, for the few marked "contained", that what it
// did stayed inside), that no data from outside was read or listed, and that nothing outside the root was
// created, changed or deleted (a full snapshot of the host folders around the root, before and after).
//
// Host layout of one case (a fresh temporary folder per attempt and tree kind):
//   outside/outside-secret.txt "TOP SECRET"   outside/sub/inner.txt      <- must never be touched
//   root/  work/file.txt "inside"  work/dir/decoy.txt "decoy"            <- HostFs root, MountTable "/"
//   mnt/ (mounted at /mnt), ro/file.txt (mounted read-only at /ro)       <- MountTable only
//   lower/ (= root's content, read-only), upper/                         <- OverlayFs
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/mount_table.hpp"
#include "vfs/overlay_fs.hpp"

namespace bashkit::vfs {
namespace {

using testing_util::host_snapshot;
using testing_util::host_write;

enum class Kind { host_openat2, host_walk, overlay, mounts };

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::host_openat2: return "HostFsOpenat2";
        case Kind::host_walk: return "HostFsNofollowWalk";
        case Kind::overlay: return "OverlayFs";
        case Kind::mounts: return "MountTable";
    }
    return "?";
}

void PrintTo(Kind k, std::ostream* os) { *os << kind_name(k); }

struct Env {
    Kind kind;
    std::string dir;        // the case folder
    std::string outside;    // absolute host path of the folder that must stay untouched
    std::string host_work;  // the host folder that shows as /work
    std::string lower;      // overlay: the lower folder (must not change either)
    std::shared_ptr<FileSystem> fs;

    // A symlink put there on the host, behind the tree's back.
    void plant(const std::string& name, const std::string& target) const {
        ASSERT_EQ(::symlink(target.c_str(), (host_work + "/" + name).c_str()), 0) << name;
    }
    // Replaces /work/<name> by a symlink on the host.
    void swap_to_symlink(const std::string& name, const std::string& target) const {
        const std::string p = host_work + "/" + name;
        ASSERT_EQ(::rename(p.c_str(), (p + ".old").c_str()), 0);
        ASSERT_EQ(::symlink(target.c_str(), p.c_str()), 0);
    }
};

struct Outcome {
    Errc err = Errc::ok;
    std::string seen;  // whatever data or names came back
};

Outcome read(FileSystem& fs, const std::string& p) {
    auto r = fs.read_file(p);
    return r ? Outcome{Errc::ok, *r} : Outcome{r.error(), ""};
}
Outcome list(FileSystem& fs, const std::string& p) {
    auto r = fs.readdir(p);
    if (!r) return {r.error(), ""};
    std::string names;
    for (const DirEntry& e : *r) names += e.name + "\n";
    return {Errc::ok, names};
}
Outcome status(Status s) { return {s.error(), ""}; }
Outcome opened(const Result<std::unique_ptr<FileHandle>>& h) { return {h.error(), ""}; }
Outcome stat_of(FileSystem& fs, const std::string& p) {
    auto r = fs.stat(p);
    return r ? Outcome{Errc::ok, std::to_string(r->size)} : Outcome{r.error(), ""};
}

constexpr unsigned kMountsOnly = 1;    // needs /mnt and /ro
constexpr unsigned kHostChanges = 2;   // changes the host (inside the root) during the attack
constexpr unsigned kContained = 4;     // success is fine, only containment is checked
constexpr unsigned kOverlayOnly = 8;

struct Attempt {
    const char* name;
    std::function<void(Env&)> setup;  // may be empty
    std::function<Outcome(Env&)> attack;
    Errc expected;  // the error the caller must get (ignored with kContained)
    unsigned flags = 0;
};

std::string repeat(const std::string& s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

// Flips host_work/race between a directory and a symlink to outside until stopped.
struct Flipper {
    explicit Flipper(const Env& env) : base(env.host_work + "/race"), target(env.outside) {
        thread = std::thread([this] {
            const std::string as_dir = base + ".dir";
            const std::string as_link = base + ".link";
            (void)::symlink(target.c_str(), as_link.c_str());
            while (!stop.load()) {
                (void)::rename(as_link.c_str(), base.c_str());  // now a symlink
                (void)::rename(base.c_str(), as_link.c_str());
                (void)::rename(as_dir.c_str(), base.c_str());   // now the directory
                (void)::rename(base.c_str(), as_dir.c_str());
            }
        });
    }
    ~Flipper() {
        stop.store(true);
        thread.join();
    }
    std::string base, target;
    std::atomic<bool> stop{false};
    std::thread thread;
};

std::vector<Attempt> attempts() {
    using E = Errc;
    const std::string S = "/outside-secret.txt";
    std::vector<Attempt> a = {
        // --- ".." chains and absolute host paths -----------------------------------------------------
        {"dotdot_read", {}, [](Env& e) { return read(*e.fs, "/../outside/outside-secret.txt"); }, E::no_such_file},
        {"dotdot_chain_read", {}, [](Env& e) { return read(*e.fs, "/work/../../../../../../outside/outside-secret.txt"); }, E::no_such_file},
        {"dotdot_200_read", {}, [](Env& e) { return read(*e.fs, "/" + repeat("../", 200) + "outside/outside-secret.txt"); }, E::no_such_file},
        {"host_absolute_read", {}, [S](Env& e) { return read(*e.fs, e.outside + S); }, E::no_such_file},
        {"host_absolute_after_dotdot", {}, [S](Env& e) { return read(*e.fs, "/work/../.." + e.outside + S); }, E::no_such_file},
        {"dotdot_list", {}, [](Env& e) { return list(*e.fs, "/../outside"); }, E::no_such_file},
        {"host_absolute_list", {}, [](Env& e) { return list(*e.fs, e.outside); }, E::no_such_file},
        {"dotdot_stat", {}, [](Env& e) { return stat_of(*e.fs, "/../outside/outside-secret.txt"); }, E::no_such_file},
        {"dotdot_create", {}, [](Env& e) { return status(e.fs->write_file("/../outside/new.txt", "x")); }, E::no_such_file},
        {"host_absolute_create", {}, [](Env& e) { return status(e.fs->write_file(e.outside + "/new.txt", "x")); }, E::no_such_file},
        {"dotdot_mkdir", {}, [](Env& e) { return status(e.fs->mkdir("/../outside/newdir")); }, E::no_such_file},
        {"dotdot_unlink", {}, [](Env& e) { return status(e.fs->unlink("/../outside/outside-secret.txt")); }, E::no_such_file},
        {"dotdot_rmdir", {}, [](Env& e) { return status(e.fs->rmdir("/../outside/sub")); }, E::no_such_file},
        {"dotdot_rename_out", {}, [](Env& e) { return status(e.fs->rename("/work/file.txt", "/../outside/moved")); }, E::no_such_file},
        {"dotdot_rename_in", {}, [](Env& e) { return status(e.fs->rename("/../outside/outside-secret.txt", "/work/stolen")); }, E::no_such_file},
        {"dotdot_chmod", {}, [](Env& e) { return status(e.fs->chmod("/../outside/outside-secret.txt", 0777)); }, E::no_such_file},
        {"dotdot_truncate", {}, [](Env& e) { return status(e.fs->truncate("/../outside/outside-secret.txt", 0)); }, E::no_such_file},
        {"dotdot_utimes", {}, [](Env& e) { return status(e.fs->utimes("/../outside/outside-secret.txt", TimeSet::now(), TimeSet::now())); }, E::no_such_file},
        {"dotdot_hard_link", {}, [](Env& e) { return status(e.fs->link("/../outside/outside-secret.txt", "/work/hl")); }, E::no_such_file},
        {"host_absolute_hard_link", {}, [S](Env& e) { return status(e.fs->link(e.outside + S, "/work/hl")); }, E::no_such_file},
        {"etc_passwd", {}, [](Env& e) { return read(*e.fs, "/etc/passwd"); }, E::no_such_file},
        {"etc_passwd_dotdot", {}, [](Env& e) { return read(*e.fs, "/work/../../../etc/passwd"); }, E::no_such_file},
        // --- symlinks made by the script -------------------------------------------------------------
        {"symlink_relative", [](Env& e) { (void)e.fs->symlink("../outside/outside-secret.txt", "/work/l"); },
         [](Env& e) { return read(*e.fs, "/work/l"); }, E::no_such_file},
        {"symlink_relative_deep", [](Env& e) { (void)e.fs->symlink(repeat("../", 8) + "outside/outside-secret.txt", "/work/l"); },
         [](Env& e) { return read(*e.fs, "/work/l"); }, E::no_such_file},
        {"symlink_absolute", [S](Env& e) { (void)e.fs->symlink(e.outside + S, "/work/l"); },
         [](Env& e) { return read(*e.fs, "/work/l"); }, E::no_such_file},
        {"symlink_absolute_dotdot", [S](Env& e) { (void)e.fs->symlink("/../../.." + e.outside + S, "/work/l"); },
         [](Env& e) { return read(*e.fs, "/work/l"); }, E::no_such_file},
        {"symlink_dir_absolute_list", [](Env& e) { (void)e.fs->symlink(e.outside, "/work/lo"); },
         [](Env& e) { return list(*e.fs, "/work/lo"); }, E::no_such_file},
        {"symlink_dir_relative_list", [](Env& e) { (void)e.fs->symlink("../../outside", "/work/lo"); },
         [](Env& e) { return list(*e.fs, "/work/lo"); }, E::no_such_file},
        {"symlink_chained_relative",
         [](Env& e) {
             (void)e.fs->symlink("c2", "/work/c1");
             (void)e.fs->symlink("c3", "/work/c2");
             (void)e.fs->symlink("../../../outside", "/work/c3");
         },
         [](Env& e) { return read(*e.fs, "/work/c1/outside-secret.txt"); }, E::no_such_file},
        {"symlink_chained_absolute",
         [](Env& e) {
             (void)e.fs->symlink("/work/c2", "/work/c1");
             (void)e.fs->symlink(e.outside, "/work/c2");
         },
         [](Env& e) { return read(*e.fs, "/work/c1/outside-secret.txt"); }, E::no_such_file},
        {"symlink_loop", [](Env& e) { (void)e.fs->symlink("b", "/work/a"); (void)e.fs->symlink("a", "/work/b"); },
         [](Env& e) { return read(*e.fs, "/work/a"); }, E::symlink_loop},
        {"symlink_loop_through_dotdot", [](Env& e) { (void)e.fs->symlink("l/../../outside", "/work/l"); },
         [](Env& e) { return read(*e.fs, "/work/l/outside-secret.txt"); }, E::symlink_loop},
        {"symlink_dot_then_climb", [](Env& e) { (void)e.fs->symlink(".", "/work/l"); },
         [](Env& e) { return read(*e.fs, "/work/l/l/l/../../../../outside/outside-secret.txt"); }, E::no_such_file},
        {"symlink_write_through_absolute", [](Env& e) { (void)e.fs->symlink(e.outside + "/created.txt", "/work/w"); },
         [](Env& e) { return status(e.fs->write_file("/work/w", "pwned")); }, E::no_such_file},
        {"symlink_write_through_relative", [](Env& e) { (void)e.fs->symlink("../../outside/created.txt", "/work/w"); },
         [](Env& e) { return status(e.fs->write_file("/work/w", "pwned")); }, E::no_such_file},
        {"symlink_append_to_secret", [S](Env& e) { (void)e.fs->symlink(e.outside + S, "/work/w"); },
         [](Env& e) { return status(e.fs->append_file("/work/w", "pwned")); }, E::no_such_file},
        {"symlink_mkdir_through", [](Env& e) { (void)e.fs->symlink("../../outside", "/work/lo"); },
         [](Env& e) { return status(e.fs->mkdir("/work/lo/newdir")); }, E::no_such_file},
        {"symlink_mkdir_all_through", [](Env& e) { (void)e.fs->symlink("../../outside", "/work/lo"); },
         [](Env& e) { return status(e.fs->mkdir_all("/work/lo/a/b")); }, E::file_exists},
        {"symlink_unlink_through", [](Env& e) { (void)e.fs->symlink(e.outside, "/work/lo"); },
         [](Env& e) { return status(e.fs->unlink("/work/lo/outside-secret.txt")); }, E::no_such_file},
        {"symlink_rmdir_through", [](Env& e) { (void)e.fs->symlink(e.outside, "/work/lo"); },
         [](Env& e) { return status(e.fs->rmdir("/work/lo/sub")); }, E::no_such_file},
        {"symlink_remove_all_through", [](Env& e) { (void)e.fs->symlink(e.outside, "/work/lo"); },
         [](Env& e) { return status(e.fs->remove_all("/work/lo/sub")); }, E::ok},  // missing: nothing to do
        {"symlink_rename_from_through", [](Env& e) { (void)e.fs->symlink(e.outside, "/work/lo"); },
         [](Env& e) { return status(e.fs->rename("/work/lo/outside-secret.txt", "/work/got")); }, E::no_such_file},
        {"symlink_rename_into_through", [](Env& e) { (void)e.fs->symlink(e.outside, "/work/lo"); },
         [](Env& e) { return status(e.fs->rename("/work/dir", "/work/lo/dir")); }, E::no_such_file},
        {"symlink_chmod_through", [S](Env& e) { (void)e.fs->symlink(e.outside + S, "/work/l"); },
         [](Env& e) { return status(e.fs->chmod("/work/l", 0777)); }, E::no_such_file},
        {"symlink_truncate_through", [S](Env& e) { (void)e.fs->symlink(e.outside + S, "/work/l"); },
         [](Env& e) { return status(e.fs->truncate("/work/l", 0)); }, E::no_such_file},
        {"symlink_utimes_through", [S](Env& e) { (void)e.fs->symlink(e.outside + S, "/work/l"); },
         [](Env& e) { return status(e.fs->utimes("/work/l", TimeSet::now(), TimeSet::now())); }, E::no_such_file},
        {"symlink_hard_link_through", [](Env& e) { (void)e.fs->symlink(e.outside, "/work/lo"); },
         [](Env& e) { return status(e.fs->link("/work/lo/outside-secret.txt", "/work/hl")); }, E::no_such_file},
        {"symlink_exclusive_create", [](Env& e) { (void)e.fs->symlink(e.outside + "/excl.txt", "/work/x"); },
         [](Env& e) { return opened(e.fs->open("/work/x", OpenFlags::write | OpenFlags::create | OpenFlags::exclusive)); }, E::file_exists},
        {"symlink_realpath", [](Env& e) { (void)e.fs->symlink("../../outside", "/work/lo"); },
         [](Env& e) { auto r = e.fs->realpath("/work/lo/outside-secret.txt"); return Outcome{r.error(), r.value_or("")}; }, E::no_such_file},
        // --- symlinks already on the host --------------------------------------------------------------
        {"planted_absolute", [S](Env& e) { e.plant("p", e.outside + S); },
         [](Env& e) { return read(*e.fs, "/work/p"); }, E::no_such_file},
        {"planted_relative", [](Env& e) { e.plant("p", "../../outside/outside-secret.txt"); },
         [](Env& e) { return read(*e.fs, "/work/p"); }, E::no_such_file},
        {"planted_dir_list", [](Env& e) { e.plant("pd", e.outside); },
         [](Env& e) { return list(*e.fs, "/work/pd"); }, E::no_such_file},
        {"planted_dir_write", [](Env& e) { e.plant("pd", e.outside); },
         [](Env& e) { return status(e.fs->write_file("/work/pd/new.txt", "pwned")); }, E::no_such_file},
        {"planted_dir_mkdir", [](Env& e) { e.plant("pd", "../../outside"); },
         [](Env& e) { return status(e.fs->mkdir("/work/pd/nd")); }, E::no_such_file},
        {"planted_dir_unlink", [](Env& e) { e.plant("pd", "../../outside"); },
         [](Env& e) { return status(e.fs->unlink("/work/pd/outside-secret.txt")); }, E::no_such_file},
        {"planted_hard_link_then_read", [S](Env& e) { e.plant("p", e.outside + S); },
         [](Env& e) {
             Status s = e.fs->link("/work/p", "/work/hl");  // no hard links on the host (EPERM)
             if (!s) return status(s);
             return read(*e.fs, "/work/hl");
         },
         E::not_permitted},
        {"planted_root_then_climb", [](Env& e) { e.plant("rootl", "/"); },
         [](Env& e) { return read(*e.fs, "/work/rootl/../outside/outside-secret.txt"); }, E::no_such_file},
        {"planted_proc_self_root", [S](Env& e) { e.plant("pr", "/proc/self/root" + e.outside + S); },
         [](Env& e) { return read(*e.fs, "/work/pr"); }, E::no_such_file},
        {"planted_proc_self_cwd", [](Env& e) { e.plant("pc", "/proc/self/cwd"); },
         [](Env& e) { return list(*e.fs, "/work/pc"); }, E::no_such_file},
        {"planted_proc_fd", [](Env& e) { e.plant("pf", "/proc/self/fd/0"); },
         [](Env& e) { return read(*e.fs, "/work/pf"); }, E::no_such_file},
        {"planted_fifo_does_not_hang", [](Env& e) { ASSERT_EQ(::mkfifo((e.host_work + "/fifo").c_str(), 0644), 0); },
         [](Env& e) { return read(*e.fs, "/work/fifo"); }, E::permission_denied},
        // --- /proc ------------------------------------------------------------------------------------
        {"proc_self_root", {}, [S](Env& e) { return read(*e.fs, "/proc/self/root" + e.outside + S); }, E::no_such_file},
        {"proc_self_cwd", {}, [](Env& e) { return list(*e.fs, "/proc/self/cwd"); }, E::no_such_file},
        {"proc_thread_self_root", {}, [](Env& e) { return read(*e.fs, "/proc/thread-self/root/etc/passwd"); }, E::no_such_file},
        {"symlink_to_proc_self_root", [](Env& e) { (void)e.fs->symlink("/proc/self/root", "/work/pr"); },
         [](Env& e) { return list(*e.fs, "/work/pr"); }, E::no_such_file},
        {"symlink_to_proc_self_cwd_dotdot", [](Env& e) { (void)e.fs->symlink("/proc/self/cwd/..", "/work/pr"); },
         [](Env& e) { return list(*e.fs, "/work/pr"); }, E::no_such_file},
        // --- bad bytes and lengths --------------------------------------------------------------------
        {"nul_in_path", {}, [](Env& e) { return status(e.fs->write_file(std::string("/work/a\0/../../outside/x", 24), "x")); }, E::invalid_argument},
        {"nul_in_symlink_target", {}, [](Env& e) { return status(e.fs->symlink(std::string("../outside\0x", 12), "/work/n")); }, E::invalid_argument},
        {"newline_in_name", {}, [](Env& e) { return status(e.fs->write_file("/work/a\nb", "x")); }, E::invalid_argument},
        {"control_byte_mkdir", {}, [](Env& e) { return status(e.fs->mkdir("/work/\x01")); }, E::invalid_argument},
        {"delete_byte_symlink", {}, [](Env& e) { return status(e.fs->symlink("x", "/work/\x7f")); }, E::invalid_argument},
        {"escape_byte_rename_target", {}, [](Env& e) { return status(e.fs->rename("/work/file.txt", "/work/bad\x1bname")); }, E::invalid_argument},
        {"name_of_256_bytes", {}, [](Env& e) { return status(e.fs->write_file("/work/" + std::string(256, 'a'), "x")); }, E::name_too_long},
        {"name_of_1000_bytes_of_dots", {}, [](Env& e) { return read(*e.fs, "/work/" + std::string(1000, '.')); }, E::name_too_long},
        {"path_of_4096_bytes", {}, [](Env& e) { return status(e.fs->write_file("/work/" + repeat("a/", 2046), "x")); }, E::name_too_long},
        {"path_of_4096_bytes_of_dotdot", {}, [](Env& e) { return read(*e.fs, "/" + repeat("../", 1400) + "outside/outside-secret.txt"); }, E::name_too_long},
        {"symlink_target_of_4096_bytes", {}, [](Env& e) { return status(e.fs->symlink(std::string(4096, 'a'), "/work/t")); }, E::name_too_long},
        {"symlink_target_1300_dotdots", [](Env& e) { (void)e.fs->symlink(repeat("../", 1300) + "outside/outside-secret.txt", "/work/t"); },
         [](Env& e) { return read(*e.fs, "/work/t"); }, E::no_such_file},
        // --- the host changes between two operations ------------------------------------------------
        {"swap_dir_for_absolute_symlink_read", {},
         [](Env& e) {
             if (!e.fs->is_directory("/work/dir")) return Outcome{Errc::io_error, "setup"};
             e.swap_to_symlink("dir", e.outside);
             return read(*e.fs, "/work/dir/outside-secret.txt");
         },
         E::no_such_file, kHostChanges},
        {"swap_dir_for_relative_symlink_write", {},
         [](Env& e) {
             if (!e.fs->is_directory("/work/dir")) return Outcome{Errc::io_error, "setup"};
             e.swap_to_symlink("dir", "../../outside");
             return status(e.fs->write_file("/work/dir/evil.txt", "pwned"));
         },
         E::no_such_file, kHostChanges},
        {"swap_dir_then_unlink", {},
         [](Env& e) {
             e.swap_to_symlink("dir", e.outside);
             return status(e.fs->unlink("/work/dir/outside-secret.txt"));
         },
         E::no_such_file, kHostChanges},
        {"swap_dir_then_rename", {},
         [](Env& e) {
             e.swap_to_symlink("dir", "../../outside");
             return status(e.fs->rename("/work/dir/outside-secret.txt", "/work/got"));
         },
         E::no_such_file, kHostChanges},
        {"swap_dir_then_list", {},
         [](Env& e) {
             e.swap_to_symlink("dir", e.outside);
             return list(*e.fs, "/work/dir");
         },
         E::no_such_file, kHostChanges},
        {"swap_file_for_symlink_read", {},
         [S](Env& e) {
             auto h = e.fs->open("/work/file.txt", OpenFlags::read);  // opened before the swap: keeps the old file
             e.swap_to_symlink("file.txt", e.outside + S);
             if (h) {
                 char buf[64];
                 auto n = (*h)->read(buf, sizeof buf);
                 if (!n || std::string(buf, *n) != "inside") return Outcome{Errc::io_error, n ? std::string(buf, *n) : ""};
             }
             return read(*e.fs, "/work/file.txt");
         },
         E::no_such_file, kHostChanges},
        {"swap_file_then_chmod", {},
         [S](Env& e) {
             e.swap_to_symlink("file.txt", e.outside + S);
             return status(e.fs->chmod("/work/file.txt", 0777));
         },
         E::no_such_file, kHostChanges},
        {"race_flip_read",
         [](Env& e) {
             ASSERT_EQ(::mkdir((e.host_work + "/race.dir").c_str(), 0755), 0);
             host_write(e.host_work + "/race.dir/outside-secret.txt", "decoy");
         },
         [](Env& e) {
             Flipper flip(e);
             Outcome all;
             for (int i = 0; i < 400; ++i) all.seen += read(*e.fs, "/work/race/outside-secret.txt").seen;
             return all;
         },
         E::ok, kHostChanges | kContained},
        {"race_flip_write",
         [](Env& e) { ASSERT_EQ(::mkdir((e.host_work + "/race.dir").c_str(), 0755), 0); },
         [](Env& e) {
             Flipper flip(e);
             for (int i = 0; i < 400; ++i) (void)e.fs->write_file("/work/race/new-" + std::to_string(i % 4), "x");
             for (int i = 0; i < 100; ++i) (void)e.fs->mkdir("/work/race/d" + std::to_string(i % 4));
             return Outcome{};
         },
         E::ok, kHostChanges | kContained},
        // --- mounts -------------------------------------------------------------------------------------
        {"ro_write", {}, [](Env& e) { return status(e.fs->write_file("/ro/new", "x")); }, E::read_only, kMountsOnly},
        {"ro_overwrite", {}, [](Env& e) { return status(e.fs->write_file("/ro/file.txt", "x")); }, E::read_only, kMountsOnly},
        {"ro_unlink", {}, [](Env& e) { return status(e.fs->unlink("/ro/file.txt")); }, E::read_only, kMountsOnly},
        {"ro_rename_out", {}, [](Env& e) { return status(e.fs->rename("/ro/file.txt", "/work/x")); }, E::cross_device, kMountsOnly},
        {"ro_rename_within", {}, [](Env& e) { return status(e.fs->rename("/ro/file.txt", "/ro/y")); }, E::read_only, kMountsOnly},
        {"ro_hard_link_out", {}, [](Env& e) { return status(e.fs->link("/ro/file.txt", "/work/h")); }, E::cross_device, kMountsOnly},
        {"ro_chmod", {}, [](Env& e) { return status(e.fs->chmod("/ro/file.txt", 0777)); }, E::read_only, kMountsOnly},
        {"ro_truncate", {}, [](Env& e) { return status(e.fs->truncate("/ro/file.txt", 0)); }, E::read_only, kMountsOnly},
        {"ro_through_symlink", [](Env& e) { (void)e.fs->symlink("/ro/file.txt", "/work/tor"); },
         [](Env& e) { return status(e.fs->write_file("/work/tor", "x")); }, E::read_only, kMountsOnly},
        {"mnt_symlink_out", [](Env& e) { (void)e.fs->symlink("../../outside/outside-secret.txt", "/mnt/l"); },
         [](Env& e) { return read(*e.fs, "/mnt/l"); }, E::no_such_file, kMountsOnly},
        {"mnt_dotdot", {}, [](Env& e) { return read(*e.fs, "/mnt/../../outside/outside-secret.txt"); }, E::no_such_file, kMountsOnly},
        {"mount_point_rename", {}, [](Env& e) { return status(e.fs->rename("/mnt", "/work/m")); }, E::busy, kMountsOnly},
        {"mount_point_rmdir", {}, [](Env& e) { return status(e.fs->rmdir("/ro")); }, E::busy, kMountsOnly},
        // --- hard links, owners, overlay names ---------------------------------------------------------
        {"hard_link_to_directory", {}, [](Env& e) { return status(e.fs->link("/work/dir", "/work/dl")); }, E::not_permitted},
        {"chown_to_root", {}, [](Env& e) { return status(e.fs->chown("/work/file.txt", 0, 0)); }, E::not_permitted},
        {"overlay_whiteout_name", {}, [](Env& e) { return status(e.fs->write_file("/work/.wh.file.txt", "")); }, E::not_permitted, kOverlayOnly},
        {"overlay_opaque_name", {}, [](Env& e) { return status(e.fs->mkdir("/work/dir/.wh..wh..opq")); }, E::not_permitted, kOverlayOnly},
    };
    return a;
}

std::shared_ptr<FileSystem> open_host(const std::string& path, HostFsOptions::Confinement how, bool ro = false) {
    HostFsOptions o;
    o.confinement = how;
    o.read_only = ro;
    auto fs = HostFs::open(path, o);
    return fs ? std::shared_ptr<FileSystem>(std::move(*fs)) : nullptr;
}

void make_tree(const std::string& at) {
    ASSERT_EQ(::mkdir(at.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((at + "/work").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((at + "/work/dir").c_str(), 0755), 0);
    ASSERT_TRUE(host_write(at + "/work/file.txt", "inside"));
    ASSERT_TRUE(host_write(at + "/work/dir/decoy.txt", "decoy"));
}

class Escape : public ::testing::TestWithParam<std::tuple<Kind, std::size_t>> {};

TEST_P(Escape, IsRefusedAndTouchesNothingOutside) {
    const Kind kind = std::get<0>(GetParam());
    const Attempt at = attempts()[std::get<1>(GetParam())];
    if ((at.flags & kMountsOnly) && kind != Kind::mounts) GTEST_SKIP() << "needs mounts";
    if ((at.flags & kOverlayOnly) && kind != Kind::overlay) GTEST_SKIP() << "overlay names";
    if (kind == Kind::host_openat2 && !host_has_openat2()) GTEST_SKIP() << "no openat2";

    testing_util::TempDir tmp("escape");
    Env env{kind, tmp.path, tmp.path + "/outside", "", "", nullptr};
    ASSERT_EQ(::mkdir(env.outside.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((env.outside + "/sub").c_str(), 0755), 0);
    ASSERT_TRUE(host_write(env.outside + "/outside-secret.txt", "TOP SECRET"));
    ASSERT_TRUE(host_write(env.outside + "/sub/inner.txt", "TOP SECRET inner"));
    switch (kind) {
        case Kind::host_openat2:
        case Kind::host_walk: {
            make_tree(tmp.path + "/root");
            auto how = kind == Kind::host_walk ? HostFsOptions::Confinement::nofollow_walk
                                               : HostFsOptions::Confinement::openat2;
            env.fs = open_host(tmp.path + "/root", how);
            env.host_work = tmp.path + "/root/work";
            break;
        }
        case Kind::overlay: {
            make_tree(tmp.path + "/lower");
            ASSERT_EQ(::mkdir((tmp.path + "/upper").c_str(), 0755), 0);
            env.fs = std::make_shared<OverlayFs>(
                open_host(tmp.path + "/lower", HostFsOptions::Confinement::automatic, true),
                open_host(tmp.path + "/upper", HostFsOptions::Confinement::automatic));
            env.host_work = tmp.path + "/lower/work";
            env.lower = tmp.path + "/lower";
            break;
        }
        case Kind::mounts: {
            make_tree(tmp.path + "/root");
            ASSERT_EQ(::mkdir((tmp.path + "/mnt").c_str(), 0755), 0);
            ASSERT_EQ(::mkdir((tmp.path + "/ro").c_str(), 0755), 0);
            ASSERT_TRUE(host_write(tmp.path + "/ro/file.txt", "ro data"));
            auto table = std::make_shared<MountTable>();
            BK_ASSERT_OK(table->mount("/", open_host(tmp.path + "/root", HostFsOptions::Confinement::automatic)));
            BK_ASSERT_OK(table->mount("/mnt", open_host(tmp.path + "/mnt", HostFsOptions::Confinement::automatic)));
            BK_ASSERT_OK(table->mount("/ro", open_host(tmp.path + "/ro", HostFsOptions::Confinement::automatic), true));
            env.fs = table;
            env.host_work = tmp.path + "/root/work";
            break;
        }
    }
    ASSERT_NE(env.fs, nullptr);
    if (at.setup) at.setup(env);
    ASSERT_FALSE(HasFatalFailure());

    const auto outside_before = host_snapshot(env.outside);
    const auto lower_before = env.lower.empty() ? decltype(outside_before){} : host_snapshot(env.lower);
    const auto ro_before = host_snapshot(tmp.path + "/ro");
    auto top_names = [&] {
        std::string names;
        for (const auto& [path, _] : host_snapshot(tmp.path)) {
            if (path.find('/', 1) == std::string::npos) names += path + " ";
        }
        return names;
    };
    const std::string top_before = top_names();

    Outcome out = at.attack(env);

    if (!(at.flags & kContained)) {
        EXPECT_EQ(out.err, at.expected) << "got " << error_name(out.err);
    }
    EXPECT_EQ(out.seen.find("TOP SECRET"), std::string::npos) << "read data from outside the root";
    EXPECT_EQ(out.seen.find("outside-secret"), std::string::npos) << "listed a folder outside the root";
    EXPECT_EQ(out.seen.find("root:x:0"), std::string::npos) << "read the host's /etc/passwd";
    EXPECT_EQ(host_snapshot(env.outside), outside_before) << "something outside the root changed";
    if (!env.lower.empty() && !(at.flags & kHostChanges)) {
        EXPECT_EQ(host_snapshot(env.lower), lower_before) << "the overlay's lower folder changed";
    }
    EXPECT_EQ(host_snapshot(tmp.path + "/ro"), ro_before) << "the read-only mount changed";
    EXPECT_EQ(top_names(), top_before) << "something was created next to the root";
}

std::vector<std::size_t> attempt_indices() {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < attempts().size(); ++i) out.push_back(i);
    return out;
}

INSTANTIATE_TEST_SUITE_P(All, Escape,
                         ::testing::Combine(::testing::Values(Kind::host_openat2, Kind::host_walk, Kind::overlay,
                                                              Kind::mounts),
                                            ::testing::ValuesIn(attempt_indices())),
                         [](const ::testing::TestParamInfo<std::tuple<Kind, std::size_t>>& info) {
                             return std::string(kind_name(std::get<0>(info.param))) + "_" +
                                    attempts()[std::get<1>(info.param)].name;
                         });

TEST(EscapeSuite, HasAtLeastSixtyAttempts) { EXPECT_GE(attempts().size(), 60u); }

}  // namespace
}  // namespace bashkit::vfs
