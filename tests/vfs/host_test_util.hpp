// Helpers for tests that touch the host: temporary folders, host-side file operations, snapshots.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "vfs/host_fs.hpp"

namespace bashkit::vfs::testing_util {

// A fresh folder under the system temp dir.
inline std::string make_temp_dir(const std::string& tag) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/bashkit-test-" + tag + "-XXXXXX";
    char* made = ::mkdtemp(tmpl.data());
    return made ? std::string(made) : std::string();
}

// Removes the folder when the scope ends.
struct TempDir {
    explicit TempDir(const std::string& tag) : path(make_temp_dir(tag)) {}
    ~TempDir() { (void)remove_host_tree(path); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path;
};

inline bool host_write(const std::string& path, const std::string& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << data;
    return static_cast<bool>(out);
}

inline std::string host_read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "<missing>";
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Everything below a host folder (not following symlinks): path -> type, mode, size, mtime, link count and
// content (for files) or target (for links). Equal snapshots mean nothing was created, changed or deleted.
inline std::map<std::string, std::string> host_snapshot(const std::string& root) {
    std::map<std::string, std::string> out;
    std::vector<std::string> stack{""};
    while (!stack.empty()) {
        std::string rel = stack.back();
        stack.pop_back();
        std::string full = root + rel;
        struct stat st;
        if (::lstat(full.c_str(), &st) != 0) {
            out[rel] = "missing";
            continue;
        }
        std::ostringstream d;
        d << std::oct << st.st_mode << std::dec << " n" << st.st_nlink << " s" << st.st_size << " m"
          << st.st_mtim.tv_sec << "." << st.st_mtim.tv_nsec;
        if (S_ISREG(st.st_mode)) d << " data:" << host_read(full);
        if (S_ISLNK(st.st_mode)) {
            char buf[4096];
            ssize_t n = ::readlink(full.c_str(), buf, sizeof buf);
            d << " ->" << std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
        }
        out[rel.empty() ? "." : rel] = d.str();
        if (S_ISDIR(st.st_mode)) {
            if (DIR* dir = ::opendir(full.c_str())) {
                while (struct dirent* e = ::readdir(dir)) {
                    std::string name = e->d_name;
                    if (name != "." && name != "..") stack.push_back(rel + "/" + name);
                }
                ::closedir(dir);
            }
        }
    }
    return out;
}

}  // namespace bashkit::vfs::testing_util
