// The repository layer of git: hashes, zlib, the object database (loose objects and packs), refs, config,
// the index and the work tree walk, all over the session's FileSystem. The commands (cmd_*.cpp) use it.
//
// Errors: anything wrong with the repository or the request throws Fatal, which the `git` entry point
// prints as "fatal: MESSAGE" with its status (128 like git, unless said otherwise); Cancelled when the
// session's cancel token fires (status 130). Every buffer that grows with the repository is charged to the
// session's memory budget.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "utils/common/io.hpp"
#include "interp/command.hpp"

namespace bashkit::utils::git {

using interp::CommandContext;

struct Fatal {
    std::string message;
    int status = 128;
    bool prefixed = true;  // printed as "fatal: message"; false: message is printed as is (already formatted)
};
struct Cancelled {};

// Throws Cancelled when the session is cancelled.
void check_cancel(const CommandContext& ctx);

// Bounds on what a hostile repository may make us allocate or loop over.
constexpr uint64_t kMaxObjectBytes = uint64_t{1} << 30;  // one inflated object
constexpr int kMaxDeltaDepth = 10000;                    // delta chain length in a pack (git's own cap is 4095)
constexpr uint64_t kMaxIndexBytes = uint64_t{1} << 30;
constexpr uint64_t kMaxConfigBytes = 16u << 20;

// ---- hashes and encodings
std::string sha1_raw(std::string_view data);  // 20 bytes
std::string to_hex(std::string_view raw);
std::string from_hex(std::string_view hex);  // 40 hex -> 20 bytes; empty when not hex
// Appends v as 4 bytes, most significant first (the index's and the pack index's integers).
inline void put32(std::string& out, uint32_t v) {
    out += char(v >> 24);
    out += char(v >> 16);
    out += char(v >> 8);
    out += char(v);
}
bool is_hex_oid(std::string_view s);
extern const std::string kNullOid;        // 40 zeros
extern const std::string kEmptyTreeOid;   // 4b825dc...
extern const std::string kEmptyBlobOid;   // e69de29...

// zlib: inflates `in` completely (output at most max_out bytes, else Fatal); *consumed gets the bytes of
// input used when not null.
std::string inflate_all(const CommandContext& ctx, std::string_view in, uint64_t max_out, size_t* consumed,
                        const std::string& what);
std::string deflate_all(std::string_view in);
// Applies a git delta (pack format) to base; Fatal when the delta is corrupt.
std::string apply_delta(const CommandContext& ctx, std::string_view base, std::string_view delta);

// ---- objects
enum class ObjType { none = 0, commit = 1, tree = 2, blob = 3, tag = 4 };
std::string_view type_name(ObjType t);
ObjType type_from_name(std::string_view n);

struct Object {
    ObjType type = ObjType::none;
    std::string data;
};

struct TreeEntry {
    uint32_t mode = 0;
    std::string name;
    std::string oid;  // hex
    bool is_tree() const { return mode == 040000; }
};
// One file of a flattened tree (Repo::flatten_sorted).
struct FlatEntry {
    std::string path;
    uint32_t mode = 0;
    std::string oid;
};
std::vector<TreeEntry> parse_tree(std::string_view data, const std::string& oid);
std::string format_tree(std::vector<TreeEntry> entries);  // sorts as git does
std::string mode_string(uint32_t mode);                  // "100644", "40000"

struct Signature {
    std::string name, email;
    int64_t time = 0;
    int tz = 0;  // minutes east of UTC
    std::string tz_text = "+0000";
    std::string raw;  // "Name <email> 123 +0000"
};
Signature parse_signature(std::string_view raw);
struct Commit {
    std::string oid;
    std::string tree;
    std::vector<std::string> parents;
    Signature author, committer;
    std::string message;  // everything after the blank line
};
Commit parse_commit(std::string_view data, const std::string& oid);
struct Tag {
    std::string object, type, tag;
    Signature tagger;
    std::string message;
};
Tag parse_tag(std::string_view data);

// ---- config: "section.sub.key" (section and key lower-cased) -> values in file order
class Config {
public:
    void load_text(std::string_view text);
    void set_override(const std::string& key, const std::string& value);
    std::optional<std::string> get(const std::string& key) const;  // last value
    std::vector<std::string> get_all(const std::string& key) const;
    bool get_bool(const std::string& key, bool fallback) const;
    const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

private:
    std::vector<std::pair<std::string, std::string>> entries_;
};
// Normalises "Section.Sub.Key" to "section.Sub.key"; empty when it has no section or no key.
std::string normalize_key(std::string_view key);
// Edits a config file's text: sets (value) or unsets (nullopt) every assignment of key; all=false sets only
// the last one. Returns the new text; *found tells whether the key existed.
std::string config_edit(std::string_view text, const std::string& key, const std::optional<std::string>& value,
                        bool* found);
std::vector<std::pair<std::string, std::string>> parse_config_text(std::string_view text);

// ---- the index
struct IndexEntry {
    uint32_t ctime_s = 0, ctime_ns = 0, mtime_s = 0, mtime_ns = 0, dev = 0, ino = 0, mode = 0, uid = 0, gid = 0,
             size = 0;
    std::string oid;  // hex
    uint16_t flags = 0;  // the stage is (flags >> 12) & 3
    uint16_t extended = 0;
    std::string path;
    int stage() const { return (flags >> 12) & 3; }
};

// ---- the repository
class Repo {
public:
    Repo(CommandContext& ctx, std::string gitdir, std::string worktree);
    CommandContext& ctx;
    vfs::FileSystem& fs;
    std::string gitdir;    // absolute
    std::string worktree;  // absolute; empty when bare
    std::string prefix;    // cwd relative to the work tree ("" or "sub/dir/")
    // The absolute path of `rel`, a path relative to the work tree.
    std::string abs_of(const std::string& rel) const { return worktree == "/" ? "/" + rel : worktree + "/" + rel; }
    Config config;         // system < global < repo < -c

    // objects
    std::optional<Object> try_read(const std::string& oid);
    Object read(const std::string& oid);  // Fatal when missing or corrupt
    Object read_typed(const std::string& oid, ObjType want);
    bool has(const std::string& oid);
    std::string write(ObjType type, std::string_view data);  // returns the oid
    static std::string hash(ObjType type, std::string_view data);
    // Every object id that starts with the hex prefix (loose and packed).
    std::vector<std::string> find_prefix(const std::string& hex_prefix);
    Commit commit(const std::string& oid);
    std::vector<TreeEntry> tree(const std::string& oid);
    // The flattened tree: path -> (mode, oid) of every non-tree entry.
    std::map<std::string, std::pair<uint32_t, std::string>> flatten(const std::string& tree_oid);
    // The same as a vector in path order (byte order of the whole path, the index's order), charged to the
    // session's memory budget while it is built.
    // A subtree for which skip("dir/", oid) is true is not read; its directory is added to `skipped`.
    std::vector<FlatEntry> flatten_sorted(const std::string& tree_oid,
                                          const std::function<bool(const std::string&, const std::string&)>& skip = {},
                                          std::vector<std::string>* skipped = nullptr);

    // refs
    static bool valid_ref_name(const std::string& name);  // git's check-ref-format rules
    std::optional<std::string> read_ref_raw(const std::string& name);  // the file's content (or packed)
    std::optional<std::string> resolve_ref(const std::string& name, int depth = 0);  // oid
    std::string head_ref();  // "refs/heads/x" when HEAD is symbolic, "" when detached
    std::optional<std::string> head_oid() { return resolve_ref("HEAD"); }
    // Writes name (the ref HEAD points to, for HEAD, unless !deref) and its reflog: with a message, or
    // without one when log_without_message (update-ref), for the refs git logs (HEAD, refs/heads/,
    // refs/remotes/, refs/notes/) or that have a log.
    struct RefWrite {
        bool deref = true;
        bool log_without_message = false;
    };
    void update_ref(const std::string& name, const std::string& oid, const std::string& old_oid,
                    const std::string& reflog_msg, RefWrite how);
    void update_ref(const std::string& name, const std::string& oid, const std::string& old_oid,
                    const std::string& reflog_msg) {
        update_ref(name, oid, old_oid, reflog_msg, RefWrite{});
    }
    void delete_ref(const std::string& name);
    void set_symref(const std::string& name, const std::string& target);
    std::map<std::string, std::string> refs(const std::string& prefix);  // name -> oid, loose over packed
    // rev-parse: HEAD, names, abbreviated ids, ~N, ^N, ^{type}; nullopt when unknown; Fatal when ambiguous.
    std::optional<std::string> rev_parse(const std::string& spec);
    std::string must_rev(const std::string& spec);  // Fatal "ambiguous argument" when unknown
    std::string abbrev(const std::string& oid, size_t len = 7);

    // index
    // The index's entries. With cache_tree, also the directories its cache-tree extension ("TREE", which
    // the real git writes) holds as valid: "dir/" ("" for the top) -> the tree object the index's entries
    // below it make.
    std::vector<IndexEntry> read_index(std::unordered_map<std::string, std::string>* cache_tree = nullptr);
    void write_index(std::vector<IndexEntry> entries);

    // identity
    // strict (commits, tags, stashes): no name and no email configured is git's "Author identity unknown".
    // Not strict (reflog lines): a fallback from $USER, as git's reflogs take one.
    Signature identity(bool committer, bool strict = true);

    std::string path_in_git(std::string_view rel) const { return gitdir + "/" + std::string(rel); }
    void write_file_atomic(const std::string& path, std::string_view data);
    // Forget what was read of objects/pack and packed-refs (after a fetch wrote new ones).
    void rescan() {
        packs_.clear();
        packs_loaded_ = false;
        packed_refs_.clear();
        packed_loaded_ = false;
    }

private:
    struct Pack;
    std::vector<std::shared_ptr<Pack>> packs_;
    bool packs_loaded_ = false;
    std::map<std::string, std::string> packed_refs_;
    bool packed_loaded_ = false;
    void load_packs();
    void load_packed_refs();
    std::optional<Object> read_packed(const std::string& oid, int depth);
    Object read_pack_at(Pack& pack, uint64_t offset, int depth);
    std::string reflog_identity();
};

// Finds the repository from cwd upwards ($GIT_DIR too); nullopt when none.
std::unique_ptr<Repo> discover(CommandContext& ctx, const std::vector<std::pair<std::string, std::string>>& overrides);
// Loads the global config (and overrides) into cfg.
void load_global_config(CommandContext& ctx, Config& cfg);
std::string global_config_path(CommandContext& ctx);

// ---- the work tree
struct WorkFile {
    std::string path;  // relative to the work tree
    vfs::Stat st;
};
class Ignore {
public:
    Ignore(Repo& repo);
    // Whether rel (a directory when dir) is ignored; loads the .gitignore files of its directories.
    bool ignored(const std::string& rel, bool dir);

private:
    struct Pattern {
        std::string pat;
        std::string base;  // directory of the .gitignore ("" or "a/b/")
        bool negate = false, dir_only = false, anchored = false;
    };
    Repo& repo_;
    std::map<std::string, std::vector<Pattern>> by_dir_;  // "" and "a/" -> patterns of that .gitignore
    std::vector<Pattern> global_;
    void load(const std::string& dir);
    static void parse(std::string_view text, const std::string& base, std::vector<Pattern>& out);
    std::optional<bool> match_list(const std::vector<Pattern>& list, const std::string& rel, bool dir);
};
bool wildmatch(std::string_view pat, std::string_view text, bool pathname);

// Every file of the work tree under dir (relative, "" for the top, else ending in '/'), in path order; ignored
// ones left out unless force (tracked ones always in); nested repositories are not entered.
void walk_files(Repo& repo, Ignore& ign, const std::string& dir, bool force, std::vector<std::string>& out,
                const std::set<std::string>& tracked, int depth = 0);
// Git's blob of a work tree file (a symlink's target for a link); mode as git records it.
uint32_t git_mode_of(const vfs::Stat& st);
std::string read_work_blob(Repo& repo, const std::string& rel, const vfs::Stat& st);
IndexEntry entry_from_stat(const std::string& rel, const vfs::Stat& st, const std::string& oid);
// Whether the work tree file still matches the index entry (stat data, then content when racy).
bool entry_unchanged(Repo& repo, const IndexEntry& e, const vfs::Stat& st, int64_t index_mtime);
int64_t index_mtime(Repo& repo);

// Paths: validity of a path from a tree or the index (no "..", ".git", absolute, empty components).
bool verify_path(std::string_view path);
// C-style quoting of unusual paths as git's core.quotePath does.
std::string quote_path(std::string_view path, bool quote_space = false);
// A path relative to the repository shown relative to the cwd prefix ("../a" from "sub/").
std::string relative_to_prefix(const std::string& path, const std::string& prefix);
// A command-line path made repository-relative (Fatal when outside the work tree). "" is the top.
std::string to_repo_path(Repo& repo, const std::string& arg);

// ---- line diff and unified output (git's format)
struct DiffStats {
    int added = 0, deleted = 0;
    bool binary = false;
    uint64_t size_a = 0, size_b = 0;  // bytes, for binary files
};
bool is_binary(std::string_view data);
// The hunks of a unified diff of a and b (without headers), git style (function context in @@ lines).
std::string unified_hunks(const CommandContext& ctx, std::string_view a, std::string_view b, int context,
                          DiffStats* stats);
DiffStats count_changes(const CommandContext& ctx, std::string_view a, std::string_view b);
// The lines a diff of a and b deletes and adds (without their newlines), for log -G.
std::vector<std::string_view> changed_lines(const CommandContext& ctx, std::string_view a, std::string_view b);
// The changed runs between two sequences of line ids (equal ids, equal lines): [a0,a1) of a replaced by
// [b0,b1) of b, in order. The same engine and boundary choices as the unified diff.
struct ChangeBlock {
    long a0, a1, b0, b1;
};
std::vector<ChangeBlock> change_blocks(const CommandContext& ctx, std::span<const int> a, std::span<const int> b);

// The output of git's "--- a/x / +++ b/x" file pair diff. side A/B: mode 0 when absent.
struct FilePair {
    std::string path;
    uint32_t mode_a = 0, mode_b = 0;
    std::string oid_a, oid_b;  // hex; may be kNullOid for a work tree file not hashed
    std::string data_a, data_b;
    std::string from;     // a rename: the path on side A ("" for none)
    int similarity = 0;   // of a rename, in percent
};
std::string format_patch(const CommandContext& ctx, const FilePair& p, int context);

std::string stat_summary(int files, int ins, int del);
std::string diffstat_lines(const std::vector<std::pair<std::string, DiffStats>>& rows);  // --stat  // " 1 file changed, 2 insertions(+)"

// Exact renames (git's 100% similarity pairs): destination -> source, among the paths only in `before`
// (sources) and only in `after` (destinations) that hold the same blob.
using FlatTree = std::map<std::string, std::pair<uint32_t, std::string>>;
std::map<std::string, std::string> exact_renames(const FlatTree& before, const FlatTree& after);
// Renames as diff -M finds them (git's diffcore-rename at its default 50%): the exact ones, then among the
// remaining deleted and added files, pairs whose similarity (the bytes of the destination found in the
// source, counted by lines or 64-byte chunks, against the larger size) reaches half, the best first.
// destination -> (source, score in percent); read_blob gives a blob's content.
struct Rename {
    std::string from;
    int percent = 100;
};
std::map<std::string, Rename> find_renames(const CommandContext& ctx, const FlatTree& before, const FlatTree& after,
                                           const std::function<std::string(const std::string&)>& read_blob);
// "a => b", "dir/{a => b}" as git prints a rename in --stat and summaries.
std::string pprint_rename(const std::string& a, const std::string& b);

// log --graph (graph.cpp): update() with each commit shown, in order, and its parents the log walks; then
// show_commit() is the graph up to and including the prefix of the commit's first line, show_text() the
// commit's text with the graph's prefix before each further line (and the rows the graph still needs),
// padding_line() the prefix of a line between commits or of a diff line.
class Graph {
public:
    void update(const std::string& oid, const std::vector<std::string>& parents);
    std::string show_commit();
    std::string show_text(std::string_view text);
    std::string padding_line();

private:
    enum class State { padding, skip, pre_commit, commit, post_merge, collapsing };
    std::string next_line();
    void set_state(State s);
    const std::string* row_column(size_t i, bool seen) const;
    int find_new_column(const std::string& oid) const;
    void insert_into_new_columns(const std::string& oid, int index);
    void update_columns();
    bool mapping_correct() const;
    int dashed_parents() const;
    bool needs_pre_commit_line() const;
    void pad(std::string& line) const;
    void pre_commit_line(std::string& line);
    void commit_line(std::string& line);
    void post_merge_line(std::string& line);
    void collapsing_line(std::string& line);

    std::string commit_;
    std::vector<std::string> parents_;
    std::vector<std::string> columns_, new_columns_;
    // screen position (two per column) -> the column of the next row its line goes to; -1 for none
    std::vector<int> mapping_, old_mapping_;
    size_t mapping_size_ = 0;
    int width_ = 0, expansion_row_ = 0;
    int commit_index_ = 0, prev_commit_index_ = 0;
    int merge_layout_ = 0, edges_added_ = 0, prev_edges_added_ = 0;
    State state_ = State::padding, prev_state_ = State::padding;
    bool shown_commit_line_ = false;
};

// Date formats.
std::string format_date_default(int64_t t, int tz_minutes);  // "Thu Apr 7 15:13:13 2005 -0700"
std::string format_date_iso(int64_t t, int tz_minutes);
bool parse_date(std::string_view s, int64_t& t, int& tz);

// Entry point of every subcommand.
using Args = std::vector<std::string>;
// One git command as it runs: its context, -c overrides, the repository it found and its buffered stdout.
struct Invocation {
    CommandContext& ctx;
    std::vector<std::pair<std::string, std::string>> overrides;  // -c
    std::unique_ptr<Repo> repo;  // null outside a repository
    utils::Output& output;    // stdout, buffered (utils/common/io.hpp: a closed pipe ends git with 141)
    void out(std::string_view s);
    void err(std::string_view s);  // flushes stdout first, so that the two keep their order
    Repo& need_repo();  // Fatal "not a git repository" when absent
    Repo& need_worktree();
};

int cmd_init(Invocation& s, const Args& a);
int cmd_config(Invocation& s, const Args& a);
int cmd_add(Invocation& s, const Args& a);
int cmd_rm(Invocation& s, const Args& a);
int cmd_commit(Invocation& s, const Args& a);
int cmd_status(Invocation& s, const Args& a);
int cmd_log(Invocation& s, const Args& a);
int cmd_show(Invocation& s, const Args& a);
int cmd_diff(Invocation& s, const Args& a);
int cmd_branch(Invocation& s, const Args& a);
int cmd_checkout(Invocation& s, const Args& a);
int cmd_switch(Invocation& s, const Args& a);
int cmd_rev_parse(Invocation& s, const Args& a);
int cmd_ls_files(Invocation& s, const Args& a);
int cmd_cat_file(Invocation& s, const Args& a);
int cmd_tag(Invocation& s, const Args& a);
int cmd_hash_object(Invocation& s, const Args& a);
int cmd_reset(Invocation& s, const Args& a);
int cmd_merge(Invocation& s, const Args& a);
int cmd_restore(Invocation& s, const Args& a);
int cmd_mv(Invocation& s, const Args& a);
int cmd_stash(Invocation& s, const Args& a);
int cmd_symbolic_ref(Invocation& s, const Args& a);
int cmd_update_ref(Invocation& s, const Args& a);
int cmd_cherry_pick(Invocation& s, const Args& a);  // cmd_pick.cpp
int cmd_rebase(Invocation& s, const Args& a);
int cmd_rev_list(Invocation& s, const Args& a);  // cmd_revs.cpp
int cmd_shortlog(Invocation& s, const Args& a);
int cmd_describe(Invocation& s, const Args& a);
int cmd_for_each_ref(Invocation& s, const Args& a);
int cmd_blame(Invocation& s, const Args& a);  // cmd_blame.cpp
// The network half (remote.cpp): smart HTTP through the session's HttpClient.
int cmd_clone(Invocation& s, const Args& a);
int cmd_fetch(Invocation& s, const Args& a);
int cmd_pull(Invocation& s, const Args& a);
int cmd_push(Invocation& s, const Args& a);
int cmd_remote(Invocation& s, const Args& a);
int cmd_ls_remote(Invocation& s, const Args& a);

// Status of the repository: used by status and commit.
struct Change {
    std::string path;
    std::string orig;  // the source of a staged rename (x == 'R')
    char x = ' ', y = ' ';  // index vs HEAD, work tree vs index
    int stages = 0;         // unmerged: the stages present (1 base, 2 ours, 4 theirs); x and y as git's XY
};
struct StatusData {
    std::vector<Change> changes;         // tracked, by path
    std::vector<std::string> untracked;  // "dir/" for untracked directories
};
StatusData compute_status(Repo& repo, bool untracked_all, bool with_untracked = true);
std::string long_status(Repo& repo, const StatusData& st, bool for_commit);

// The work tree: a repository-relative path's absolute path; a blob written there (parents created, never
// through a symlink); the directories a removal left empty removed.
std::string abs_path(Repo& repo, const std::string& rel);
void write_work_file(Repo& repo, const std::string& rel, uint32_t mode, const std::string& oid);
void remove_empty_parents(Repo& repo, std::string rel);

// Writes `tree` of the index (missing subtrees created); returns the root tree oid.
std::string write_tree_from_index(Repo& repo, const std::vector<IndexEntry>& entries);
// Checks out target tree over the work tree and index from current tree (two-way, refusing to overwrite
// local changes: Fatal with git's message). Returns false when refused.
// `op` names the command in the refusal ("checkout", "merge").
bool switch_trees(Invocation& s, const std::string& from_tree, const std::string& to_tree, bool force,
                  const char* op = "checkout");

std::string commit_summary(Repo& repo, const std::string& parent_tree, const std::string& tree);

// ---- walking history (cmd_hist.cpp; log, rev-list, shortlog)
// The commits to start from and those whose ancestors are left out.
struct RevRange {
    std::vector<std::string> starts, hide;
};
// Whether x names a revision as a command line gives them: "A", "^A", "A..B", "A...B" (an empty side: HEAD).
bool is_rev_arg(Repo& repo, const std::string& x);
// --all, --branches, --tags, --remotes: the commits their refs name added to revs (false for another word).
bool add_ref_set(Repo& repo, const std::string& x, std::vector<std::string>& revs);
// Adds such an argument to range (Fatal "ambiguous argument" when a side is unknown).
void add_rev(Repo& repo, const std::string& r, RevRange& range);
// The commits of range newest first (committer date, ties in the order reached), as `git log` lists them;
// `visit` returns false to stop. Polls the cancel token.
void walk_commits(Repo& repo, const RevRange& range, bool first_parent, const std::function<bool(Commit&)>& visit);
// A message's subject (its first paragraph on one line), and a commit expanded through a --format string.
std::string commit_subject(const std::string& msg);
std::string format_commit(Repo& repo, const std::string& fmt, const Commit& c);

// ---- merging (merge.cpp; the command in cmd_refs.cpp)
// Whether anc is desc or one of its ancestors.
bool is_ancestor(Repo& repo, const std::string& anc, const std::string& desc);
// Every commit reachable from oid, oid included.
std::set<std::string> ancestors(Repo& repo, const std::string& oid);
// A merge in progress forgotten (MERGE_HEAD, MERGE_MSG, MERGE_MODE, AUTO_MERGE), after its commit, --abort or
// a reset.
void clear_merge_state(Repo& repo);
// "U\tpath\n" for each unmerged path of the index, as git lists them when it refuses to commit.
std::string unmerged_list(Repo& repo);
// `git merge` of one commit into HEAD: fast-forward, or a three-way merge and its commit.
struct MergeRequest {
    std::string other;   // the commit merged
    std::string label;   // its name in conflict markers and messages
    std::string title;   // the merge commit's message when none is given ("Merge branch 'x'")
    std::string reflog;  // "merge x", "pull"
    std::optional<std::string> message;
    bool ff_only = false, no_ff = false, no_commit = false, quiet = false;
};
int run_merge(Invocation& s, const MergeRequest& req);
// title + " into <branch>" unless the current branch is main or master (git's fmt-merge-msg).
std::string merge_title_into(Repo& repo, const std::string& title);
// The best common ancestors of two commits (git merge-base --all), oldest-first order not promised.
std::vector<std::string> merge_bases(Repo& repo, const std::string& a, const std::string& b);
// A three-way line merge of one file as git's default (xdiff's "zealous" level, "merge" conflict style).
struct MergedText {
    std::string text;
    bool conflict = false;
};
MergedText merge_text(const CommandContext& ctx, std::string_view base, std::string_view ours, std::string_view theirs,
                      const std::string& name_ours, const std::string& name_theirs);
// A three-way merge of trees into the index and the work tree, as `git merge` (the "ort" strategy without
// rename detection) does: false, with git's message printed, when local changes are in the way.
struct TreeMerge {
    std::vector<std::string> messages;  // "Auto-merging x", "CONFLICT (...): ..." in path order
    std::vector<std::string> conflicts;  // paths left unmerged
    bool refused = false;
};
TreeMerge merge_trees(Invocation& s, const std::string& base_tree, const std::string& ours_tree,
                      const std::string& theirs_tree, const std::string& name_ours, const std::string& name_theirs,
                      const char* op);

}  // namespace bashkit::utils::git
