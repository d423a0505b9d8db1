// The session tree: where a sandbox session keeps its files.
//
// On disk, a session lives in one folder under a base directory (by default
// "<system temp dir>/bashkit-sessions-<uid>", created 0700 and refused if it is a symlink, belongs to someone
// else or is writable by others). The folder is named from the instance id and the session id, each
// sanitised (only [A-Za-z0-9._-] kept, a leading dot made '_', at most 40 bytes: no separators, no "..", no
// hidden names) and followed by 16 hex digits of a SHA-256 of the exact pair, so ids that sanitise alike
// still get distinct folders:   "<instance>--<session>-<hash>"   or, without an instance id,
// "<session>-<hash>".
//
// The virtual layout is /workspace (the working directory at start), /tmp and /home/user (HOME). The tree is
// a HostFs rooted at the folder, wrapped in a LimitedFs with the given limits (usage already there counts).
// Reopening with the same ids, from this process or another, finds the files; two sessions share a folder
// only when both ids are equal. The ephemeral mode keeps everything in a MemoryFs and writes nothing to disk.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "vfs/filesystem.hpp"
#include "vfs/limited_fs.hpp"

namespace bashkit::vfs {

struct SessionTreeOptions {
    std::string session_id;   // required
    std::string instance_id;  // optional
    std::string base_dir;     // empty: default_session_base()
    bool ephemeral = false;   // in memory only, nothing on disk
    FsLimits limits;
    uint32_t uid = 1000;      // the virtual user
    uint32_t gid = 1000;
};

struct SessionTree {
    std::shared_ptr<FileSystem> fs;
    std::string host_dir;                 // the session's folder on the host; empty when ephemeral
    std::string cwd = "/workspace";
    std::string home = "/home/user";
    std::string tmp = "/tmp";
};

// Opens (creating it if needed) the session tree. invalid_argument for an empty session id; the host's error
// when the folders cannot be made; permission_denied for an unsafe default base directory.
Result<SessionTree> open_session_tree(const SessionTreeOptions& options);

// Removes a session's folder from disk (nothing to do when ephemeral).
Status delete_session_tree(const SessionTreeOptions& options);

// The folder name for a pair of ids (see above).
std::string session_folder_name(std::string_view instance_id, std::string_view session_id);

// "<system temp dir>/bashkit-sessions-<euid>": TMPDIR when set and absolute, else /tmp.
std::string default_session_base();

// Lowercase hex SHA-256 of data (used for the folder names; exposed for tests).
std::string sha256_hex(std::string_view data);

}  // namespace bashkit::vfs
