#include "cli/tree.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "vfs/host_fs.hpp"
#include "vfs/limited_fs.hpp"
#include "vfs/memory_fs.hpp"
#include "vfs/mount_table.hpp"
#include "vfs/overlay_fs.hpp"
#include "vfs/session_tree.hpp"

namespace {

// The host's working directory. As bash does, a PWD inherited from the environment that names this
// directory (an absolute path without `.` or `..` parts, on the same device and inode as `.`) is taken as
// it is: no getcwd call, and a path through a symbolic link stays the one the caller's shell showed.
std::string host_cwd() {
    const char* pwd = std::getenv("PWD");
    if (pwd && pwd[0] == '/') {
        const std::string p(pwd);
        const bool plain = p.find("/./") == std::string::npos && p.find("/../") == std::string::npos &&
                           p.find("//") == std::string::npos && !p.ends_with("/.") && !p.ends_with("/..");
        struct stat a {}, b {};
        if (plain && ::stat(pwd, &a) == 0 && ::stat(".", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return p;
    }
    char buf[PATH_MAX];
    return ::getcwd(buf, sizeof buf) ? std::string(buf) : "/";
}

}  // namespace

namespace bashkit::cli {
namespace {

std::string message(vfs::Errc e) { return std::string(vfs::error_message(e)); }

std::shared_ptr<vfs::MemoryFs> memory_layout(const FsFlags& f) {
    vfs::MemoryFsOptions mo;
    mo.uid = f.uid;
    mo.gid = f.gid;
    auto fs = std::make_shared<vfs::MemoryFs>(mo);
    for (const char* d : {"/workspace", "/tmp", "/home/user"}) (void)fs->mkdir_all(d);
    (void)fs->chmod("/tmp", 01777);
    return fs;
}

vfs::Result<std::shared_ptr<vfs::FileSystem>> open_host(const FsFlags& f, const std::string& dir, bool read_only) {
    vfs::HostFsOptions ho;
    ho.uid = f.uid;
    ho.gid = f.gid;
    ho.read_only = read_only;
    auto host = vfs::HostFs::open(dir, ho);
    if (!host) return host.error();
    return std::shared_ptr<vfs::FileSystem>(std::move(*host));
}

std::string flag_of(const MountFlag& m) { return m.overlay ? "--overlay" : "--mount"; }

// What a mount flag puts at its VIRT: the host folder itself, or a copy-on-write view of it.
vfs::Result<std::shared_ptr<vfs::FileSystem>> open_mount(const FsFlags& f, const MountFlag& m) {
    auto host = open_host(f, m.host, m.overlay || m.read_only);
    if (!host || !m.overlay) return host;
    vfs::MemoryFsOptions mo;
    mo.uid = f.uid;
    mo.gid = f.gid;
    return std::shared_ptr<vfs::FileSystem>(
        std::make_shared<vfs::OverlayFs>(*host, std::make_shared<vfs::MemoryFs>(mo)));
}

}  // namespace

std::optional<std::string> parse_mount(std::string_view flag, std::string_view value, bool overlay, MountFlag& out) {
    const std::string form = overlay ? "HOST:VIRT" : "HOST:VIRT[:ro]";
    std::string_view v = value;
    out = MountFlag{};
    out.overlay = overlay;
    if (!overlay) {
        if (v.ends_with(":ro")) {
            out.read_only = true;
            v.remove_suffix(3);
        } else if (v.ends_with(":rw")) {
            v.remove_suffix(3);
        }
    }
    size_t colon = v.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == v.size()) {
        return std::string(flag) + ": expected " + form + ", got '" + std::string(value) + "'";
    }
    out.host = std::string(v.substr(0, colon));
    out.virt = std::string(v.substr(colon + 1));
    if (out.virt[0] != '/') {
        return std::string(flag) + ": VIRT must be an absolute path, got '" + out.virt + "'";
    }
    out.virt = vfs::normalize_path(out.virt);
    return std::nullopt;
}

std::optional<vfs::FsLimits> tree_limits(const FsFlags& f) {
    if (f.host) return std::nullopt;
    vfs::FsLimits limits;
    if (f.max_total_bytes) limits.max_total_bytes = *f.max_total_bytes;
    if (f.max_file_bytes) limits.max_file_bytes = *f.max_file_bytes;
    if (f.max_nodes) limits.max_nodes = *f.max_nodes;
    if (f.max_open_files) limits.max_open_files = *f.max_open_files;
    return limits;
}

TreeOrError build_tree(const FsFlags& f) {
    auto fail = [](std::string msg) { return TreeOrError{std::nullopt, std::move(msg)}; };

    // Who chooses the root: at most one.
    const MountFlag* root_mount = nullptr;
    for (const auto& m : f.mounts) {
        if (m.virt != "/") continue;
        if (root_mount) return fail(flag_of(m) + ": / is mounted twice");
        root_mount = &m;
    }
    if (f.instance && !f.session) return fail("--instance: needs --session");
    if (f.host) {
        if (f.root) return fail("--host: cannot be combined with --root");
        if (!f.mounts.empty()) return fail("--host: cannot be combined with " + flag_of(f.mounts.front()));
        if (f.session) return fail("--host: cannot be combined with --session");
        if (f.ephemeral) return fail("--host: cannot be combined with --ephemeral");
    }
    if (f.ephemeral) {
        if (f.root) return fail("--ephemeral: cannot be combined with --root (it writes to the host)");
        for (const auto& m : f.mounts)
            if (!m.overlay) return fail("--ephemeral: cannot be combined with --mount (it writes to the host)");
    }
    if (f.root && f.session) return fail("--root: cannot be combined with --session");
    if (root_mount && (f.root || f.session || f.ephemeral)) {
        return fail(flag_of(*root_mount) + ": / is already the root given by " +
                    (f.root ? "--root" : f.session ? "--session" : "--ephemeral"));
    }

    Tree tree;
    std::shared_ptr<vfs::FileSystem> root;
    bool host_root = false;  // a host folder chosen by the user: nothing is created in it
    if (f.host) {
        auto fs = open_host(f, "/", false);
        if (!fs) return fail("--host: /: " + message(fs.error()));
        root = *fs;
        tree.cwd = host_cwd();
    } else if (f.root) {
        auto fs = open_host(f, *f.root, false);
        if (!fs) return fail("--root: " + *f.root + ": " + message(fs.error()));
        root = *fs;
        host_root = true;
        tree.count_existing = false;
    } else if (root_mount) {
        auto fs = open_mount(f, *root_mount);
        if (!fs) return fail(flag_of(*root_mount) + ": " + root_mount->host + ": " + message(fs.error()));
        root = *fs;
        host_root = true;
        tree.count_existing = false;
    } else if (f.session || f.ephemeral) {
        vfs::SessionTreeOptions so;
        so.session_id = f.session.value_or("ephemeral");
        so.instance_id = f.instance.value_or("");
        so.ephemeral = f.ephemeral;
        so.uid = f.uid;
        so.gid = f.gid;
        if (auto limits = tree_limits(f)) so.limits = *limits;
        if (so.session_id.empty()) return fail("--session: the id must not be empty");
        auto st = vfs::open_session_tree(so);
        if (!st) return fail("--session: " + so.session_id + ": " + message(st.error()));
        root = st->fs;
        tree.cwd = st->cwd;
    } else {
        root = memory_layout(f);
        tree.cwd = "/workspace";
    }

    // Mounts on top of the root.
    std::shared_ptr<vfs::MountTable> table;
    auto mount = [&](const std::string& at, std::shared_ptr<vfs::FileSystem> fs, bool ro) -> std::optional<std::string> {
        if (!table) {
            table = std::make_shared<vfs::MountTable>();
            (void)table->mount("/", root, false);
        }
        tree.count_existing = false;
        vfs::Status s = table->mount(at, std::move(fs), ro);
        if (!s) return message(s.error());
        return std::nullopt;
    };
    for (const auto& m : f.mounts) {
        if (&m == root_mount) continue;
        auto fs = open_mount(f, m);
        if (!fs) return fail(flag_of(m) + ": " + m.host + ": " + message(fs.error()));
        if (auto e = mount(m.virt, *fs, m.read_only)) {
            return fail(flag_of(m) + ": " + m.virt + ": " + (*e == message(vfs::Errc::busy) ? "mounted twice" : *e));
        }
    }
    // A host folder as the root keeps its content as it is; scripts still get a /tmp (in memory).
    if (host_root && !(table ? *table : *root).is_directory("/tmp")) {
        vfs::MemoryFsOptions mo;
        mo.uid = f.uid;
        mo.gid = f.gid;
            mo.root_mode = 01777;
        auto tmp = std::make_shared<vfs::MemoryFs>(mo);
        if (auto e = mount("/tmp", tmp, false)) return fail("/tmp: " + *e);
    }
    tree.fs = table ? std::shared_ptr<vfs::FileSystem>(table) : root;

    if (f.cwd) {
        if (f.cwd->empty() || (*f.cwd)[0] != '/') return fail("--cwd: expected an absolute path, got '" + *f.cwd + "'");
        auto st = tree.fs->stat(*f.cwd);
        if (!st) return fail("--cwd: " + *f.cwd + ": " + message(st.error()));
        if (!st->is_directory()) return fail("--cwd: " + *f.cwd + ": " + message(vfs::Errc::not_directory));
        tree.cwd = vfs::normalize_path(*f.cwd);
    } else if (tree.cwd.empty()) {
        tree.cwd = tree.fs->is_directory("/workspace") ? "/workspace" : "/";
    }
    return TreeOrError{std::move(tree), {}};
}

}  // namespace bashkit::cli
