// The file system a CLI run works on, from the command-line flags, built from the vfs classes:
//
//   (default)              an in-memory MemoryFs with /workspace (the cwd), /tmp and /home/user (HOME)
//   --root DIR             the host folder DIR is "/" (HostFs). Nothing is created in it: the cwd is
//                          /workspace when DIR has one, else "/"; when DIR has no tmp/, an in-memory /tmp is
//                          mounted over it (so mktemp works without writing to DIR)
//   --mount HOST:VIRT[:ro] the host folder HOST at VIRT (HostFs in a MountTable; ":ro" refuses every change
//                          with "Read-only file system"; ":rw" is the default). Repeatable
//   --overlay HOST:VIRT    HOST at VIRT copy-on-write (OverlayFs: the HostFs below is only read, changes stay
//                          in memory and are gone when bashkit ends). Repeatable
//   --session ID [--instance ID]
//                          the session tree (vfs/session_tree.hpp): a folder under
//                          $TMPDIR/bashkit-sessions-<uid>/ named from both ids, with /workspace (the cwd),
//                          /tmp and /home/user; a later run with the same ids finds the files
//   --ephemeral            the session tree in memory only: nothing is written to disk
//   --cwd VIRT             the working directory at start (an absolute path of the tree)
//   --host                 the real file system: a HostFs rooted at the host's "/", so virtual paths are host
//                          paths; the cwd is the CLI's own
//
// Limits: every tree but --host's is bounded by FsLimits (the defaults, or --max-total-bytes, --max-file-bytes,
// --max-nodes, --max-open-files): tree_limits() gives them, and the shell builder (sandbox/configured_shell.hpp)
// wraps the tree in a LimitedFs with them. The in-memory default tree counts what it holds; a tree with a host
// folder in it (--root, --mount, --overlay) counts only what the script writes (Tree::count_existing false),
// never what the host folder already held. A session tree carries its own LimitedFs (usage on disk counted);
// with mounts over it, the whole tree gets one more, counting from zero.
//
// A mount or overlay at "/" replaces the default root. --root, --session/--ephemeral, a mount at "/" and
// --host each choose the root, so at most one of them may be given; --ephemeral cannot be combined with
// --root or --mount (both write to the host). Mounts go on top of the root, whatever it is.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vfs/filesystem.hpp"
#include "vfs/limited_fs.hpp"

namespace bashkit::cli {

struct MountFlag {
    std::string host;
    std::string virt;
    bool read_only = false;
    bool overlay = false;
};

struct FsFlags {
    std::optional<std::string> root;
    std::vector<MountFlag> mounts;
    std::optional<std::string> cwd;
    std::optional<std::string> session;
    std::optional<std::string> instance;
    bool ephemeral = false;
    bool host = false;
    uint32_t uid = 1000;  // owner reported for host files (the virtual user; the real one with --host)
    uint32_t gid = 1000;
    // FsLimits of the tree (--max-total-bytes, --max-file-bytes, --max-nodes, --max-open-files); unset: the
    // defaults of FsLimits.
    std::optional<uint64_t> max_total_bytes;
    std::optional<uint64_t> max_file_bytes;
    std::optional<uint64_t> max_nodes;
    std::optional<uint64_t> max_open_files;
};

// The FsLimits of the flags (FsLimits's defaults where no flag is given); nullopt with --host (the host's own
// file system: no sandbox, no limits).
std::optional<vfs::FsLimits> tree_limits(const FsFlags& flags);

// Parses the value of --mount (HOST:VIRT[:ro|:rw]) or --overlay (HOST:VIRT). HOST may itself contain ':';
// VIRT is the part after the last one. Returns an error message (without the "bashkit: " prefix).
std::optional<std::string> parse_mount(std::string_view flag, std::string_view value, bool overlay, MountFlag& out);

struct Tree {
    std::shared_ptr<vfs::FileSystem> fs;  // not yet under the FsLimits (unless a session tree's own)
    std::string cwd;
    bool count_existing = true;           // false when a host folder is part of the tree
};

// Builds the tree; on a bad combination or a host folder that cannot be opened, an error message such as
// "--root: /nope: No such file or directory".
struct TreeOrError {
    std::optional<Tree> tree;
    std::string error;
};
TreeOrError build_tree(const FsFlags& flags);

}  // namespace bashkit::cli
