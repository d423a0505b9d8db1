// Path resolution for file systems made of other file systems (OverlayFs, MountTable).
//
// Such a tree cannot let a part resolve a path by itself: a symlink in one part may name a file of another
// part, and an absolute target starts at the root of the whole tree, not of the part. So the walk below goes
// one component at a time, asking the tree about each entry by its canonical path (no symlinks in it), and
// follows symlinks itself, with the same rules as MemoryFs and HostFs: an absolute target restarts at the
// virtual root, ".." goes to the parent of the directory reached so far and stays at the root, at most
// kMaxSymlinkHops links per resolution, a trailing slash on a link follows it.
//
// A Tree provides:
//   using Node = ...;            // what it knows of one entry; has a `FileType type` member
//   Node root();
//   Result<Node> child(const Node& dir, const std::string& path);   // Errc::no_such_file: no such entry
//   Result<std::string> target(const Node& link, const std::string& path);         // a symlink's target
// where path is the canonical path of the entry (dir's path + "/" + name). Optionally, a shortcut:
//   Result<Node> descend(const Node& dir, const std::string& path);
// the directory at `path`, which is dir's path plus several plain names, when the tree can tell at once that
// no symlink and nothing else that needs the slow walk lies on the way, and that the node it returns also
// describes every directory in between; any error means "walk instead".
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs::vwalk {

template <class Node>
struct Walked {
    std::vector<std::string> names;  // canonical names of the directory holding the final entry
    std::vector<Node> dirs;          // dirs[0] is the root, dirs.back() that directory
    std::string name;                // the final entry's name; empty when `dots`
    std::optional<Node> node;        // the final entry (the directory itself when `dots`), nullopt if missing
    const char* dots = "";           // "/", "." or "..": the path ends on a directory rather than a name
    bool trailing = false;           // the path ended with a slash

    bool is_name() const { return dots[0] == '\0'; }
    bool is_dir() const { return node && node->type == FileType::directory; }
    bool slash_on_non_dir() const { return trailing && node && node->type != FileType::directory; }
    const Node& dir() const { return dirs.back(); }
    // Canonical path of the directory holding the entry, and of the entry itself.
    std::string dir_path() const {
        if (names.empty()) return "/";
        std::string out;
        for (const std::string& n : names) {
            out += '/';
            out += n;
        }
        return out;
    }
    std::string path() const {
        std::string p = dir_path();
        if (!is_name()) return p;
        if (p.size() > 1) p += '/';
        p += name;
        return p;
    }
};

template <class Tree>
Errc walk(Tree& tree, std::string_view path, bool follow_last, Walked<typename Tree::Node>& w) {
    if (Errc e = check_path(path); e != Errc::ok) return e;
    w.trailing = path.size() > 1 && path.back() == '/';
    w.dirs.push_back(tree.root());
    std::vector<std::string> todo;
    for (std::string_view part : split_path(path)) todo.emplace_back(part);
    std::reverse(todo.begin(), todo.end());
    int hops = 0;
    const char* final_dots = "/";
    while (!todo.empty()) {
        std::string comp;
        comp.swap(todo.back());
        todo.pop_back();
        const bool last = todo.empty();
        if (comp == "." || comp == "..") {
            if (comp == ".." && !w.names.empty()) {
                w.names.pop_back();
                w.dirs.pop_back();
            }
            if (last) {
                final_dots = comp == "." ? "." : "..";
                break;
            }
            continue;
        }
        if (comp.size() > kMaxNameLength) return Errc::name_too_long;
        if constexpr (requires(const typename Tree::Node& n, const std::string& p) { tree.descend(n, p); }) {
            // This name and the following plain ones except the last, in one step when the tree can.
            std::size_t k = 0;
            while (k + 2 <= todo.size()) {
                const std::string& next = todo[todo.size() - 1 - k];
                if (next == "." || next == ".." || next.size() > kMaxNameLength) break;
                ++k;
            }
            if (!last && k > 0) {
                std::string p = w.dir_path();
                if (p.size() > 1) p += '/';
                p += comp;
                for (std::size_t i = 0; i < k; ++i) {
                    p += '/';
                    p += todo[todo.size() - 1 - i];
                }
                if (p.size() < kMaxPathLength) {
                    if (auto node = tree.descend(w.dirs.back(), p); node && node->type == FileType::directory) {
                        w.names.push_back(std::move(comp));
                        for (std::size_t i = 0; i < k; ++i) {
                            w.names.push_back(std::move(todo.back()));
                            todo.pop_back();
                        }
                        // descend() vouches for every level on the way: they get the deepest node.
                        w.dirs.resize(w.names.size() + 1, *node);
                        continue;
                    }
                }
            }
        }
        std::string child_path = w.dir_path();
        if (child_path.size() > 1) child_path += '/';
        child_path += comp;
        if (child_path.size() >= kMaxPathLength) return Errc::name_too_long;
        auto child = tree.child(w.dirs.back(), child_path);
        if (!child) {
            if (child.error() != Errc::no_such_file || !last) return child.error();
            w.name = std::move(comp);
            return Errc::ok;
        }
        const auto& node = *child;
        if (node.type == FileType::symlink && (!last || follow_last)) {
            if (++hops > kMaxSymlinkHops) return Errc::symlink_loop;
            auto target = tree.target(node, child_path);
            if (!target) return target.error();
            if (target->empty()) return Errc::no_such_file;
            std::vector<std::string_view> parts = split_path(*target);
            if (target->back() == '/' && !parts.empty()) todo.emplace_back(".");
            for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.emplace_back(*it);
            if (target->front() == '/') {
                w.names.clear();
                w.dirs.resize(1);
            }
            final_dots = "/";
            continue;
        }
        if (!last) {
            if (node.type != FileType::directory) return Errc::not_directory;
            w.names.push_back(std::move(comp));
            w.dirs.push_back(node);
            continue;
        }
        w.name = std::move(comp);
        w.node = node;
        return Errc::ok;
    }
    w.dots = final_dots;
    w.node = w.dirs.back();
    return Errc::ok;
}

// A handle of a part, with its Stat rewritten to the numbering of the whole tree (device, inode).
class MappedHandle final : public FileHandle {
public:
    MappedHandle(std::unique_ptr<FileHandle> inner, std::function<void(Stat&)> map)
        : inner_(std::move(inner)), map_(std::move(map)) {}
    Result<std::size_t> read(char* buf, std::size_t n) override { return inner_->read(buf, n); }
    Result<std::size_t> pread(char* buf, std::size_t n, uint64_t offset) override {
        return inner_->pread(buf, n, offset);
    }
    Result<std::size_t> write(std::string_view data) override { return inner_->write(data); }
    Result<std::size_t> pwrite(std::string_view data, uint64_t offset) override {
        return inner_->pwrite(data, offset);
    }
    Result<uint64_t> seek(int64_t offset, Whence whence) override { return inner_->seek(offset, whence); }
    Status truncate(uint64_t size) override { return inner_->truncate(size); }
    Result<Stat> stat() override {
        auto st = inner_->stat();
        if (st) map_(*st);
        return st;
    }

private:
    std::unique_ptr<FileHandle> inner_;
    std::function<void(Stat&)> map_;
};

}  // namespace bashkit::vfs::vwalk
