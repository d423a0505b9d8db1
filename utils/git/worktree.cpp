// The work tree: path rules, .gitignore, stat data, status, writing trees from the index, and switching
// the work tree from one tree to another.
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

bool verify_path(std::string_view path) {
    if (path.empty() || path.front() == '/' || path.back() == '/') return false;
    size_t i = 0;
    while (i <= path.size()) {
        size_t e = path.find('/', i);
        if (e == std::string_view::npos) e = path.size();
        std::string_view c = path.substr(i, e - i);
        if (c.empty() || c == "." || c == "..") return false;
        // .git and its NTFS/HFS aliases (any case, trailing dots and spaces, 8.3 short name)
        std::string_view t = c;
        while (!t.empty() && (t.back() == '.' || t.back() == ' ')) t.remove_suffix(1);
        auto is = [&](std::string_view lower) {
            if (t.size() != lower.size()) return false;
            for (size_t k = 0; k < t.size(); ++k)
                if (char(t[k] >= 'A' && t[k] <= 'Z' ? t[k] + 32 : t[k]) != lower[k]) return false;
            return true;
        };
        if (is(".git") || is("git~1")) return false;
        if (c.find('\0') != std::string_view::npos || c.find('\\') != std::string_view::npos) return false;
        i = e + 1;
    }
    return true;
}

std::string quote_path(std::string_view path, bool quote_space) {
    bool need = false;
    for (unsigned char c : path)
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || (quote_space && c == ' ')) need = true;
    if (!need) return std::string(path);
    std::string out = "\"";
    for (unsigned char c : path) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\a': out += "\\a"; break;
            case '\b': out += "\\b"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\v': out += "\\v"; break;
            case '\f': out += "\\f"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20 || c >= 0x7f) {
                    char b[8];
                    snprintf(b, sizeof b, "\\%03o", c);
                    out += b;
                } else {
                    out += char(c);
                }
        }
    }
    return out + "\"";
}

std::string relative_to_prefix(const std::string& path, const std::string& prefix) {
    if (prefix.empty()) return path;
    // common leading directories
    size_t common = 0;
    for (size_t i = 0; i < prefix.size() && i < path.size() && prefix[i] == path[i]; ++i)
        if (prefix[i] == '/') common = i + 1;
    std::string out;
    for (size_t i = common; i < prefix.size(); ++i)
        if (prefix[i] == '/') out += "../";
    out += path.substr(common);
    return out.empty() ? "./" : out;
}

std::string to_repo_path(Repo& repo, const std::string& arg) {
    std::string abs = vfs::normalize_path(repo.ctx.resolve(arg));
    const std::string& wt = repo.worktree;
    if (abs == wt) return "";
    if (wt == "/" ) return abs.substr(1);
    if (abs.size() > wt.size() && abs.starts_with(wt) && abs[wt.size()] == '/') return abs.substr(wt.size() + 1);
    throw Fatal{arg + ": '" + arg + "' is outside repository at '" + wt + "'"};
}

// ---------------------------------------------------------------------------------------------------------
// wildmatch: git's glob (`*` stops at '/', `**/` spans directories, `?`, classes, `\` escapes)

namespace {
bool wm(std::string_view p, std::string_view t, bool pathname, int& budget) {
    while (!p.empty()) {
        if (--budget < 0) return false;
        char c = p.front();
        if (c == '*') {
            bool dbl = p.size() > 1 && p[1] == '*';
            if (dbl && pathname) {
                // "**/" at start or after '/', "/**" at end, "/**/" in the middle
                std::string_view rest = p.substr(2);
                if (rest.empty()) return true;
                if (rest.front() == '/') {
                    std::string_view after = rest.substr(1);
                    if (wm(after, t, pathname, budget)) return true;
                    for (size_t i = 0; i < t.size(); ++i)
                        if (t[i] == '/' && wm(after, t.substr(i + 1), pathname, budget)) return true;
                    return false;
                }
                p = p.substr(1);  // treat as a single star
                continue;
            }
            std::string_view rest = p.substr(1);
            while (!rest.empty() && rest.front() == '*') rest.remove_prefix(1);
            for (size_t i = 0; i <= t.size(); ++i) {
                if (wm(rest, t.substr(i), pathname, budget)) return true;
                if (i < t.size() && pathname && t[i] == '/') return false;
            }
            return false;
        }
        if (t.empty()) return false;
        if (c == '?') {
            if (pathname && t.front() == '/') return false;
            p.remove_prefix(1);
            t.remove_prefix(1);
            continue;
        }
        if (c == '[') {
            size_t i = 1;
            bool neg = false;
            if (i < p.size() && (p[i] == '!' || p[i] == '^')) neg = true, ++i;
            bool matched = false;
            size_t start = i;
            unsigned char tc = static_cast<unsigned char>(t.front());
            while (i < p.size() && (p[i] != ']' || i == start)) {
                unsigned char lo = static_cast<unsigned char>(p[i]);
                if (p[i] == '\\' && i + 1 < p.size()) lo = static_cast<unsigned char>(p[++i]);
                if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
                    unsigned char hi = static_cast<unsigned char>(p[i + 2]);
                    if (tc >= lo && tc <= hi) matched = true;
                    i += 3;
                } else {
                    if (tc == lo) matched = true;
                    ++i;
                }
            }
            if (i >= p.size()) return false;  // unterminated class
            if (matched == neg || (pathname && tc == '/')) return false;
            p = p.substr(i + 1);
            t.remove_prefix(1);
            continue;
        }
        if (c == '\\' && p.size() > 1) p.remove_prefix(1), c = p.front();
        if (t.front() != c) return false;
        p.remove_prefix(1);
        t.remove_prefix(1);
    }
    return t.empty();
}
}  // namespace

bool wildmatch(std::string_view pat, std::string_view text, bool pathname) {
    int budget = 100000;
    return wm(pat, text, pathname, budget);
}

Ignore::Ignore(Repo& repo) : repo_(repo) {
    if (auto t = repo.fs.read_file(repo.gitdir + "/info/exclude", kMaxConfigBytes)) parse(*t, "", global_);
    if (auto x = repo.config.get("core.excludesfile")) {
        std::string p = *x;
        if (p.starts_with("~/"))
            if (const std::string* h = repo.ctx.env.get("HOME")) p = *h + p.substr(1);
        std::vector<Pattern> g;
        if (auto t = repo.fs.read_file(repo.ctx.resolve(p), kMaxConfigBytes)) parse(*t, "", g);
        global_.insert(global_.begin(), g.begin(), g.end());
    }
}

void Ignore::parse(std::string_view text, const std::string& base, std::vector<Pattern>& out) {
    size_t i = 0;
    while (i < text.size()) {
        size_t nl = text.find('\n', i);
        if (nl == std::string_view::npos) nl = text.size();
        std::string line(text.substr(i, nl - i));
        i = nl + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        // trailing spaces unless escaped
        while (!line.empty() && line.back() == ' ' && !(line.size() > 1 && line[line.size() - 2] == '\\')) line.pop_back();
        Pattern p;
        p.base = base;
        if (line[0] == '!') p.negate = true, line.erase(0, 1);
        else if (line[0] == '\\' && line.size() > 1 && (line[1] == '!' || line[1] == '#')) line.erase(0, 1);
        if (!line.empty() && line.back() == '/') p.dir_only = true, line.pop_back();
        if (line.empty() || line.size() > 4096) continue;  // bounded patterns (the matcher recurses per star)
        if (line.find('/') != std::string::npos) {
            p.anchored = true;
            if (line[0] == '/') line.erase(0, 1);
        }
        p.pat = line;
        out.push_back(std::move(p));
    }
}

void Ignore::load(const std::string& dir) {
    if (by_dir_.count(dir)) return;
    std::vector<Pattern> list;
    std::string path = repo_.worktree + (repo_.worktree == "/" ? "" : "/") + dir + ".gitignore";
    if (auto t = repo_.fs.read_file(path, kMaxConfigBytes)) parse(*t, dir, list);
    by_dir_[dir] = std::move(list);
}

std::optional<bool> Ignore::match_list(const std::vector<Pattern>& list, const std::string& rel, bool dir) {
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
        const Pattern& p = *it;
        if (p.dir_only && !dir) continue;
        if (!rel.starts_with(p.base)) continue;
        std::string_view sub = std::string_view(rel).substr(p.base.size());
        bool m;
        if (p.anchored) {
            m = wildmatch(p.pat, sub, true);
        } else {
            size_t slash = sub.rfind('/');
            m = wildmatch(p.pat, slash == std::string_view::npos ? sub : sub.substr(slash + 1), true);
        }
        if (m) return !p.negate;
    }
    return std::nullopt;
}

bool Ignore::ignored(const std::string& rel, bool dir) {
    // The .gitignore files from rel's own directory up to the top, then info/exclude and core.excludesFile.
    auto one = [&](const std::string& path, bool is_dir) {
        size_t last = path.rfind('/');
        std::string base = last == std::string::npos ? "" : path.substr(0, last + 1);
        std::vector<std::string> bases;
        for (std::string b = base;;) {
            bases.push_back(b);
            if (b.empty()) break;
            size_t cut = b.size() >= 2 ? b.rfind('/', b.size() - 2) : std::string::npos;
            b = cut == std::string::npos ? "" : b.substr(0, cut + 1);
        }
        for (auto& b : bases) {
            load(b);
            if (auto r = match_list(by_dir_[b], path, is_dir)) return *r;
        }
        return match_list(global_, path, is_dir).value_or(false);
    };
    // A path inside an ignored directory is ignored.
    for (size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1))
        if (one(rel.substr(0, slash), true)) return true;
    return one(rel, dir);
}

// ---------------------------------------------------------------------------------------------------------
// Stat data

uint32_t git_mode_of(const vfs::Stat& st) {
    if (st.is_symlink()) return 0120000;
    if (st.is_directory()) return 040000;
    return (st.mode & 0111) ? 0100755 : 0100644;
}

std::string abs_path(Repo& repo, const std::string& rel) {
    return repo.worktree == "/" ? "/" + rel : repo.worktree + "/" + rel;
}

std::string read_work_blob(Repo& repo, const std::string& rel, const vfs::Stat& st) {
    std::string p = abs_path(repo, rel);
    if (st.is_symlink()) {
        auto t = repo.fs.readlink(p);
        if (!t) throw Fatal{"unable to read symlink " + rel};
        return *t;
    }
    if (st.size > kMaxObjectBytes) throw Fatal{"file " + rel + " is too large"};
    interp::MemoryCharge held(repo.ctx.memory);
    held.add(st.size);
    auto d = repo.fs.read_file(p, kMaxObjectBytes);
    if (!d) throw Fatal{"unable to read " + rel + ": " + std::string(vfs::error_message(d.error()))};
    return std::move(*d);
}

IndexEntry entry_from_stat(const std::string& rel, const vfs::Stat& st, const std::string& oid) {
    IndexEntry e;
    e.ctime_s = uint32_t(st.ctime.sec);
    e.ctime_ns = uint32_t(st.ctime.nsec);
    e.mtime_s = uint32_t(st.mtime.sec);
    e.mtime_ns = uint32_t(st.mtime.nsec);
    e.dev = uint32_t(st.dev);
    e.ino = uint32_t(st.ino);
    e.mode = git_mode_of(st);
    e.uid = st.uid;
    e.gid = st.gid;
    e.size = uint32_t(st.size);
    e.oid = oid;
    e.path = rel;
    return e;
}

int64_t index_mtime(Repo& repo) {
    auto st = repo.fs.stat(repo.gitdir + "/index");
    if (!st) return 0;
    return st->mtime.sec * 1000000000 + st->mtime.nsec;
}

bool entry_unchanged(Repo& repo, const IndexEntry& e, const vfs::Stat& st, int64_t idx_mtime) {
    if (git_mode_of(st) != e.mode) {
        // core.filemode=false ignores the executable bit
        bool both_files = (e.mode & 0170000) == 0100000 && st.is_regular();
        if (!(both_files && !repo.config.get_bool("core.filemode", true))) return false;
    }
    bool no_stat = e.mtime_s == 0 && e.mtime_ns == 0;  // an entry set from a tree (reset): compare contents
    if (uint32_t(st.size) != e.size && !no_stat) return false;
    int64_t m = st.mtime.sec * 1000000000 + st.mtime.nsec;
    if (uint32_t(st.mtime.sec) == e.mtime_s && uint32_t(st.mtime.nsec) == e.mtime_ns && m < idx_mtime) return true;
    return Repo::hash(ObjType::blob, read_work_blob(repo, e.path, st)) == e.oid;
}

// ---------------------------------------------------------------------------------------------------------
// Status

StatusData compute_status(Repo& repo, bool untracked_all, bool with_untracked) {
    StatusData out;
    std::unordered_map<std::string, std::string> cache_tree;
    auto index = repo.read_index(&cache_tree);
    interp::MemoryCharge head_held(repo.ctx.memory);
    head_held.add(cache_tree.size() * 128);
    // HEAD's files in path order, the index's order: one pass over both finds what is staged. A directory
    // whose tree in HEAD is the one the index's cache-tree holds for it has nothing staged: not read, and
    // its entries are taken as HEAD's (`skipped`, in path order).
    std::vector<FlatEntry> head;
    std::vector<std::string> skipped;
    std::string head_tree;
    if (auto h = repo.head_oid()) {
        head_tree = repo.commit(*h).tree;
        head = repo.flatten_sorted(
            head_tree,
            [&](const std::string& dir, const std::string& oid) {
                auto it = cache_tree.find(dir);
                return it != cache_tree.end() && it->second == oid;
            },
            &skipped);
    }
    for (const FlatEntry& f : head) head_held.add(sizeof(FlatEntry) + f.path.size() + f.oid.size());
    std::vector<bool> head_seen(head.size());
    size_t hi = 0, si = 0;
    int64_t im = index_mtime(repo);
    std::map<std::string, Change> changes;
    // Views into `index`, which outlives both.
    std::unordered_set<std::string_view> in_index;
    std::unordered_set<std::string_view> tracked_dirs;
    interp::MemoryCharge sets_held(repo.ctx.memory);
    sets_held.add(index.size() * 2 * (sizeof(std::string_view) + 2 * sizeof(void*)));
    in_index.reserve(index.size());
    bool staged_add = false;
    std::string_view last_dir;
    // The work tree's stat data, a directory at a time (the index is sorted, so a directory's files mostly
    // come together): one walk to the directory for all of them, not one per file.
    std::vector<vfs::Result<vfs::Stat>> stats;
    interp::MemoryCharge stats_held(repo.ctx.memory);
    size_t run_end = 0;
    for (size_t i = 0; i < index.size(); ++i) {
        const IndexEntry& e = index[i];
        check_cancel(repo.ctx);
        const std::string_view path = e.path;
        const size_t cut = path.rfind('/');
        const std::string_view dir = path.substr(0, cut == std::string_view::npos ? 0 : cut + 1);
        if (i == run_end) {
            std::vector<std::string> names;
            for (run_end = i; run_end < index.size() && index[run_end].path.size() > dir.size() &&
                              std::string_view(index[run_end].path).starts_with(dir) &&
                              index[run_end].path.find('/', dir.size()) == std::string::npos;
                 ++run_end)
                names.push_back(index[run_end].path.substr(dir.size()));
            if (run_end == i) names.push_back(e.path.substr(dir.size())), run_end = i + 1;
            stats_held.set(names.size() * (sizeof(vfs::Result<vfs::Stat>) + 64));
            stats = repo.fs.lstat_in(dir.empty() ? repo.worktree : abs_path(repo, std::string(dir)), names);
        }
        const vfs::Result<vfs::Stat>& st = stats[i - (run_end - stats.size())];
        in_index.insert(path);
        if (dir != last_dir) {
            last_dir = dir;
            for (size_t s = path.find('/'); s != std::string_view::npos; s = path.find('/', s + 1))
                tracked_dirs.insert(path.substr(0, s + 1));
        }
        while (hi < head.size() && std::string_view(head[hi].path) < path) ++hi;
        const FlatEntry* h = hi < head.size() && head[hi].path == path ? &head[hi] : nullptr;
        if (h) head_seen[hi] = true;
        while (si < skipped.size() && !path.starts_with(skipped[si]) && std::string_view(skipped[si]) < path) ++si;
        const bool as_head = si < skipped.size() && path.starts_with(skipped[si]);
        if (e.stage() != 0) {
            Change& c = changes[e.path];
            c.path = e.path;
            // git's short codes by the stages present: DD AU UD UA DU AA UU
            static const char* const kXY[8] = {"", "DD", "AU", "UD", "UA", "DU", "AA", "UU"};
            c.stages |= 1 << (e.stage() - 1);
            c.x = kXY[c.stages][0];
            c.y = kXY[c.stages][1];
            continue;
        }
        char x = ' ', y = ' ';
        if (as_head) x = ' ';
        else if (!h) x = 'A', staged_add = true;
        else if (h->oid != e.oid || h->mode != e.mode) x = 'M';
        if (!st || st->is_directory()) y = 'D';
        else if (!entry_unchanged(repo, e, *st, im)) y = 'M';
        if (x == ' ' && y == ' ') continue;
        Change& c = changes[e.path];
        c.path = e.path;
        c.x = x;
        c.y = y;
    }
    bool staged_delete = false;
    for (size_t k = 0; k < head.size(); ++k)
        if (!head_seen[k]) {
            Change& c = changes[head[k].path];
            c.path = head[k].path;
            c.x = 'D';
            staged_delete = true;
        }
    // Staged renames: a path gone from HEAD whose content (the same blob, or one similar enough) is at a new
    // path of the index.
    if (staged_add && staged_delete) {
        FlatTree before, staged;
        if (skipped.empty())
            for (auto& f : head) before.emplace_hint(before.end(), f.path, std::make_pair(f.mode, f.oid));
        else
            before = repo.flatten(head_tree);
        for (auto& e : index)
            if (e.stage() == 0) staged[e.path] = {e.mode, e.oid};
        for (auto& [to, r] : find_renames(repo.ctx, before, staged, [&](const std::string& oid) { return repo.read(oid).data; })) {
            Change& c = changes[to];
            c.x = 'R';
            c.orig = r.from;
            changes.erase(r.from);
        }
    }
    for (auto& [p, c] : changes)
        if (c.x != ' ' || c.y != ' ') out.changes.push_back(c);
    if (!with_untracked) return out;
    Ignore ign(repo);
    // The entry's type from readdir when the file system knows it (one lstat less per file).
    auto is_dir_entry = [&](const vfs::DirEntry& e, const std::string& rel) {
        if (e.type != vfs::FileType::unknown) return e.type == vfs::FileType::directory;
        auto st = repo.fs.lstat(abs_path(repo, rel));
        return st && st->is_directory();
    };
    // Does dir (relative, with '/') hold a file that is neither tracked nor ignored?
    std::function<bool(const std::string&, int)> has_untracked = [&](const std::string& dir, int depth) -> bool {
        check_cancel(repo.ctx);
        if (depth > 256) return false;
        auto entries = repo.fs.readdir(abs_path(repo, dir));
        if (!entries) return false;
        for (auto& e : *entries) {
            std::string rel = dir + e.name;
            if (is_dir_entry(e, rel)) {
                if (e.name == ".git") continue;
                if (ign.ignored(rel, true)) continue;
                if (has_untracked(rel + "/", depth + 1)) return true;
            } else if (!in_index.count(rel) && !ign.ignored(rel, false)) {
                return true;
            }
        }
        return false;
    };
    std::function<void(const std::string&, int)> walk = [&](const std::string& dir, int depth) {
        check_cancel(repo.ctx);
        if (depth > 256) return;
        auto entries = repo.fs.readdir(dir.empty() ? repo.worktree : abs_path(repo, dir));
        if (!entries) return;
        std::sort(entries->begin(), entries->end(), [](const vfs::DirEntry& x, const vfs::DirEntry& y) { return x.name < y.name; });
        for (auto& ent : *entries) {
            const std::string& name = ent.name;
            std::string rel = dir + name;
            if (!is_dir_entry(ent, rel)) {
                if (!in_index.count(rel) && !ign.ignored(rel, false)) out.untracked.push_back(rel);
                continue;
            }
            {
                if (name == ".git") continue;
                if (in_index.count(rel)) continue;
                if (ign.ignored(rel, true)) continue;
                std::string d = rel + "/";
                bool nested_repo = static_cast<bool>(repo.fs.stat(abs_path(repo, rel) + "/.git"));
                if (nested_repo) {
                    if (!tracked_dirs.count(d)) out.untracked.push_back(d);
                    continue;
                }
                if (!untracked_all && !tracked_dirs.count(d)) {
                    if (has_untracked(d, depth + 1)) out.untracked.push_back(d);
                    continue;
                }
                walk(d, depth + 1);
            }
        }
    };
    walk("", 0);
    std::sort(out.untracked.begin(), out.untracked.end());
    return out;
}

namespace {

// An operation in progress, as `git status` tells it (wt-status.c's state).
struct OpState {
    enum Kind { none, merge, rebase, cherry_pick } kind = none;
    bool interactive = false;  // rebase-merge/interactive: the sequencer's todo and done lists are shown
    std::string branch;        // the branch being rebased ("" when it was a detached HEAD)
    std::string onto;          // abbreviated
    std::string pick;          // the commit being cherry-picked, abbreviated
};

std::string read_git_file(Repo& repo, const std::string& rel) {
    auto r = repo.fs.read_file(repo.gitdir + "/" + rel, kMaxConfigBytes);
    if (!r) return "";
    std::string v = *r;
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    return v;
}

OpState op_state(Repo& repo) {
    OpState st;
    auto exists = [&](const std::string& rel) { return static_cast<bool>(repo.fs.stat(repo.gitdir + "/" + rel)); };
    if (exists("rebase-merge")) {
        st.kind = OpState::rebase;
        st.interactive = exists("rebase-merge/interactive");
        std::string b = read_git_file(repo, "rebase-merge/head-name");
        if (b.starts_with("refs/heads/")) st.branch = b.substr(11);
        else if (b.starts_with("refs/")) st.branch = b;
        std::string onto = read_git_file(repo, "rebase-merge/onto");
        st.onto = is_hex_oid(onto) ? repo.abbrev(onto) : onto.starts_with("refs/heads/") ? onto.substr(11) : onto;
    }
    if (exists("MERGE_HEAD")) st.kind = OpState::merge;
    else if (st.kind == OpState::none && exists("CHERRY_PICK_HEAD")) {
        std::string p = read_git_file(repo, "CHERRY_PICK_HEAD");
        if (is_hex_oid(p)) st.kind = OpState::cherry_pick, st.pick = repo.abbrev(p);
    }
    return st;
}

// The sequencer's list file (rebase-merge/done or git-rebase-todo): its commands without comments and blank
// lines, each command's object name abbreviated as git shows them.
std::vector<std::string> todo_lines(Repo& repo, const std::string& rel) {
    std::vector<std::string> out;
    std::string text = read_git_file(repo, rel);
    for (size_t i = 0; i < text.size();) {
        check_cancel(repo.ctx);
        size_t nl = text.find('\n', i);
        if (nl == std::string::npos) nl = text.size();
        std::string line = text.substr(i, nl - i);
        i = nl + 1;
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
        size_t lead = line.find_first_not_of(" \t");
        if (lead == std::string::npos || line[lead] == '#') continue;
        line = line.substr(lead);
        bool keep = line.starts_with("exec ") || line.starts_with("x ") || line.starts_with("label ") || line.starts_with("l ");
        size_t w1 = line.find(' ');
        if (!keep && w1 != std::string::npos) {
            size_t w2 = line.find(' ', w1 + 1);
            std::string name = line.substr(w1 + 1, w2 == std::string::npos ? std::string::npos : w2 - w1 - 1);
            if (auto oid = repo.rev_parse(name))
                line = line.substr(0, w1 + 1) + repo.abbrev(*oid) + (w2 == std::string::npos ? "" : line.substr(w2));
        }
        out.push_back(line);
    }
    return out;
}

// The paragraph git prints after the branch line while an operation is in progress (without the blank line
// that ends it).
std::string state_paragraph(Repo& repo, const OpState& st, bool unmerged) {
    std::string o;
    auto sequencer_lists = [&] {
        if (!st.interactive) return;
        auto done = todo_lines(repo, "rebase-merge/done"), todo = todo_lines(repo, "rebase-merge/git-rebase-todo");
        if (done.empty()) o += "No commands done.\n";
        else {
            std::string n = std::to_string(done.size());
            o += done.size() == 1 ? "Last command done (1 command done):\n" : "Last commands done (" + n + " commands done):\n";
            for (size_t i = done.size() > 2 ? done.size() - 2 : 0; i < done.size(); ++i) o += "   " + done[i] + "\n";
            if (done.size() > 2) o += "  (see more in file .git/rebase-merge/done)\n";
        }
        if (todo.empty()) o += "No commands remaining.\n";
        else {
            std::string n = std::to_string(todo.size());
            o += todo.size() == 1 ? "Next command to do (1 remaining command):\n" : "Next commands to do (" + n + " remaining commands):\n";
            for (size_t i = 0; i < 2 && i < todo.size(); ++i) o += "   " + todo[i] + "\n";
            o += "  (use \"git rebase --edit-todo\" to view and edit)\n";
        }
    };
    switch (st.kind) {
        case OpState::none: break;
        case OpState::merge:
            if (st.interactive) {
                sequencer_lists();
                o += "\n";
            }
            if (unmerged) o += "You have unmerged paths.\n  (fix conflicts and run \"git commit\")\n  (use \"git merge --abort\" to abort the merge)\n";
            else o += "All conflicts fixed but you are still merging.\n  (use \"git commit\" to conclude merge)\n";
            break;
        case OpState::rebase: {
            sequencer_lists();
            std::string who = st.branch.empty() ? "" : " branch '" + st.branch + "' on '" + st.onto + "'";
            if (unmerged)
                o += (st.branch.empty() ? std::string("You are currently rebasing.") : "You are currently rebasing" + who + ".") +
                     "\n  (fix conflicts and then run \"git rebase --continue\")\n  (use \"git rebase --skip\" to skip this patch)\n"
                     "  (use \"git rebase --abort\" to check out the original branch)\n";
            else if (!st.interactive || repo.fs.stat(repo.gitdir + "/MERGE_MSG"))
                o += (st.branch.empty() ? std::string("You are currently rebasing.") : "You are currently rebasing" + who + ".") +
                     "\n  (all conflicts fixed: run \"git rebase --continue\")\n";
            else
                o += (st.branch.empty() ? std::string("You are currently editing a commit during a rebase.")
                                        : "You are currently editing a commit while rebasing" + who + ".") +
                     "\n  (use \"git commit --amend\" to amend the current commit)\n"
                     "  (use \"git rebase --continue\" once you are satisfied with your changes)\n";
            break;
        }
        case OpState::cherry_pick:
            o += "You are currently cherry-picking commit " + st.pick + ".\n";
            o += unmerged ? "  (fix conflicts and run \"git cherry-pick --continue\")\n"
                          : "  (all conflicts fixed: run \"git cherry-pick --continue\")\n";
            o += "  (use \"git cherry-pick --skip\" to skip this patch)\n"
                 "  (use \"git cherry-pick --abort\" to cancel the cherry-pick operation)\n";
            break;
    }
    return o;
}

}  // namespace

std::string long_status(Repo& repo, const StatusData& st, bool for_commit) {
    std::string o;
    std::string head = repo.head_ref();
    bool unborn = !repo.head_oid();
    const OpState op = op_state(repo);
    if (head.starts_with("refs/heads/")) o += "On branch " + head.substr(11) + "\n";
    else if (op.kind == OpState::rebase || (op.kind == OpState::merge && !op.onto.empty()))
        o += std::string(op.interactive ? "interactive rebase in progress; onto " : "rebase in progress; onto ") + op.onto + "\n";
    else {
        auto h = repo.head_oid();
        o += "HEAD detached at " + (h ? repo.abbrev(*h) : std::string("HEAD")) + "\n";
    }
    if (unborn) o += for_commit ? "\nInitial commit\n" : "\nNo commits yet\n";
    auto label = [](char c) -> std::string {
        switch (c) {
            case 'A': return "new file:   ";
            case 'M': return "modified:   ";
            case 'D': return "deleted:    ";
            case 'T': return "typechange: ";
            case 'R': return "renamed:    ";
            default: return "unknown:    ";
        }
    };
    auto show = [&](const std::string& p) { return quote_path(relative_to_prefix(p, repo.prefix)); };
    bool staged = false, unstaged = false, unmerged = false, deletions = false;
    bool both_deleted = false, del_mod = false, not_deleted = false;
    for (auto& c : st.changes) {
        if (c.stages) {
            unmerged = true;
            if (c.stages == 1) both_deleted = true;
            else if (c.stages == 3 || c.stages == 5) del_mod = true;
            else not_deleted = true;
            continue;
        }
        if (c.x != ' ') staged = true;
        if (c.y != ' ') unstaged = true;
        if (c.y == 'D') deletions = true;
    }
    // An operation in progress is told first; a merge or a cherry-pick leaves out the hints on unstaging
    // (the commit that ends it is not a plain one from HEAD).
    const bool merging = op.kind == OpState::merge || op.kind == OpState::cherry_pick;
    const std::string paragraph = state_paragraph(repo, op, unmerged);
    o += paragraph;
    const size_t after_paragraph = o.size();
    if (staged) {
        o += "\nChanges to be committed:\n";
        if (!merging)
            o += unborn ? "  (use \"git rm --cached <file>...\" to unstage)\n"
                        : "  (use \"git restore --staged <file>...\" to unstage)\n";
        for (auto& c : st.changes)
            if (c.x != ' ' && !c.stages)
                o += "\t" + label(c.x) + (c.x == 'R' ? show(c.orig) + " -> " : std::string()) + show(c.path) + "\n";
    }
    if (unmerged) {
        static const char* const kHow[8] = {"", "both deleted:    ", "added by us:     ", "deleted by them: ", "added by them:   ",
                                            "deleted by us:   ", "both added:      ", "both modified:   "};
        o += "\nUnmerged paths:\n";
        if (!merging) o += "  (use \"git restore --staged <file>...\" to unstage)\n";
        if (!both_deleted) o += del_mod ? "  (use \"git add/rm <file>...\" as appropriate to mark resolution)\n" : "  (use \"git add <file>...\" to mark resolution)\n";
        else if (!del_mod && !not_deleted) o += "  (use \"git rm <file>...\" to mark resolution)\n";
        else o += "  (use \"git add/rm <file>...\" as appropriate to mark resolution)\n";
        for (auto& c : st.changes)
            if (c.stages) o += "\t" + std::string(kHow[c.stages]) + show(c.path) + "\n";
    }
    if (unstaged) {
        o += "\nChanges not staged for commit:\n";
        {
            o += deletions ? "  (use \"git add/rm <file>...\" to update what will be committed)\n"
                           : "  (use \"git add <file>...\" to update what will be committed)\n";
            o += "  (use \"git restore <file>...\" to discard changes in working directory)\n";
        }
        for (auto& c : st.changes)
            if (c.y != ' ' && !c.stages) o += "\t" + label(c.y) + show(c.path) + "\n";
    }
    if (!st.untracked.empty()) {
        o += "\nUntracked files:\n";
        o += "  (use \"git add <file>...\" to include in what will be committed)\n";
        for (auto& u : st.untracked) o += "\t" + show(u) + "\n";
    }
    if (staged || unstaged || unmerged || !st.untracked.empty()) o += "\n";
    // A merge whose conflicts are all resolved can be committed as it is: git says nothing more.
    const bool merge_ready = op.kind == OpState::merge && !unmerged;
    if (!staged && !merge_ready) {
        if (unstaged || unmerged) o += "no changes added to commit (use \"git add\" and/or \"git commit -a\")\n";
        else if (!st.untracked.empty()) o += "nothing added to commit but untracked files present (use \"git add\" to track)\n";
        else if (unborn) o += "\nnothing to commit (create/copy files and use \"git add\" to track)\n";
        else o += "nothing to commit, working tree clean\n";
    }
    // The paragraph ends with a blank line, which is the one each section starts with here.
    if (!paragraph.empty() && o.compare(after_paragraph, 1, "\n") != 0) o.insert(after_paragraph, "\n");
    // "On branch x\n" followed directly by a section: git prints the first section without the blank line
    // when there is no "No commits yet" paragraph.
    if (!unborn && paragraph.empty()) {
        size_t nl = o.find('\n');
        if (nl != std::string::npos && o.compare(nl + 1, 1, "\n") == 0 && o.compare(nl + 2, 7, "nothing") != 0) o.erase(nl + 1, 1);
    }
    return o;
}

// ---------------------------------------------------------------------------------------------------------
// Trees from the index

std::string write_tree_from_index(Repo& repo, const std::vector<IndexEntry>& entries) {
    std::function<std::string(size_t, size_t, size_t, int)> build = [&](size_t b, size_t e, size_t strip,
                                                                         int depth) -> std::string {
        check_cancel(repo.ctx);
        if (depth > 4096) throw Fatal{"tree too deep"};
        std::vector<TreeEntry> out;
        size_t i = b;
        while (i < e) {
            const std::string& p = entries[i].path;
            if (entries[i].stage() != 0) throw Fatal{"cannot write a tree: unmerged entries (" + p + ")", 128};
            size_t slash = p.find('/', strip);
            if (slash == std::string::npos) {
                out.push_back({entries[i].mode, p.substr(strip), entries[i].oid});
                ++i;
                continue;
            }
            std::string dir = p.substr(0, slash + 1);
            size_t j = i;
            while (j < e && entries[j].path.starts_with(dir)) ++j;
            std::string sub = build(i, j, slash + 1, depth + 1);
            out.push_back({040000, p.substr(strip, slash - strip), sub});
            i = j;
        }
        return repo.write(ObjType::tree, format_tree(std::move(out)));
    };
    return build(0, entries.size(), 0, 0);
}

// ---------------------------------------------------------------------------------------------------------
// Switching trees

void remove_empty_parents(Repo& repo, std::string rel) {
    for (size_t s = rel.rfind('/'); s != std::string::npos; s = rel.rfind('/')) {
        rel = rel.substr(0, s);
        if (!repo.fs.rmdir(abs_path(repo, rel))) break;
    }
}

void write_work_file(Repo& repo, const std::string& rel, uint32_t mode, const std::string& oid) {
    if (!verify_path(rel)) throw Fatal{"invalid path '" + rel + "'"};
    std::string p = abs_path(repo, rel);
    // Parents must be real directories inside the work tree (never through a symlink).
    std::string cur = repo.worktree;
    for (size_t i = 0, s; (s = rel.find('/', i)) != std::string::npos; i = s + 1) {
        cur += (cur == "/" ? "" : "/") + rel.substr(i, s - i);
        auto st = repo.fs.lstat(cur);
        if (st && !st->is_directory()) (void)repo.fs.unlink(cur);
        if (!st || !st->is_directory())
            if (auto r = repo.fs.mkdir(cur, 0755); !r) throw Fatal{"cannot create directory at '" + rel + "'"};
    }
    Object o = repo.read_typed(oid, ObjType::blob);
    if (auto st = repo.fs.lstat(p); st) {
        if (st->is_directory()) (void)repo.fs.remove_all(p);
        else (void)repo.fs.unlink(p);
    }
    if (mode == 0120000) {
        if (auto r = repo.fs.symlink(o.data, p); !r) throw Fatal{"unable to create symlink '" + rel + "'"};
        return;
    }
    if (mode == 0160000) {
        (void)repo.fs.mkdir(p, 0755);
        return;
    }
    if (auto r = repo.fs.write_file(p, o.data, mode == 0100755 ? 0755 : 0644); !r)
        throw Fatal{"unable to write file '" + rel + "': " + std::string(vfs::error_message(r.error()))};
    if (mode == 0100755) (void)repo.fs.chmod(p, 0755 & ~repo.ctx.umask);
}

bool switch_trees(Invocation& s, const std::string& from_tree, const std::string& to_tree, bool force, const char* op) {
    Repo& repo = *s.repo;
    auto from = from_tree.empty() ? std::map<std::string, std::pair<uint32_t, std::string>>{} : repo.flatten(from_tree);
    auto to = repo.flatten(to_tree);
    auto index = repo.read_index();
    int64_t im = index_mtime(repo);
    std::map<std::string, IndexEntry> idx;
    for (auto& e : index) idx[e.path] = e;
    std::set<std::string> paths;
    for (auto& [p, v] : from) paths.insert(p);
    for (auto& [p, v] : to) paths.insert(p);
    std::vector<std::string> conflicts, untracked_conflicts;
    std::vector<std::string> update, remove;
    for (const auto& p : paths) {
        check_cancel(repo.ctx);
        auto f = from.find(p), t = to.find(p);
        bool in_f = f != from.end(), in_t = t != to.end();
        if (in_f && in_t && f->second == t->second) continue;
        auto ie = idx.find(p);
        if (!force) {
            bool index_ok;
            if (ie == idx.end()) index_ok = !in_f;
            else index_ok = (in_f && ie->second.oid == f->second.second && ie->second.mode == f->second.first) ||
                            (in_t && ie->second.oid == t->second.second && ie->second.mode == t->second.first);
            auto st = repo.fs.lstat(abs_path(repo, p));
            bool work_ok = true;
            if (ie != idx.end()) {
                if (st && !st->is_directory()) work_ok = entry_unchanged(repo, ie->second, *st, im);
                else work_ok = !st;  // deleted locally: fine when the target drops it too
                if (!st && in_t) work_ok = true;
            } else if (st && !st->is_directory() && in_t) {
                // untracked file in the way
                if (Repo::hash(ObjType::blob, read_work_blob(repo, p, *st)) != t->second.second)
                    untracked_conflicts.push_back(p);
                continue;
            }
            if (!index_ok || !work_ok) {
                conflicts.push_back(p);
                continue;
            }
        }
        if (in_t) update.push_back(p);
        else remove.push_back(p);
    }
    if (!conflicts.empty() || !untracked_conflicts.empty()) {
        std::string msg;
        const std::string what = std::string(op), before = what == "checkout" ? "switch branches" : what;
        if (!conflicts.empty()) {
            msg += "error: Your local changes to the following files would be overwritten by " + what + ":\n";
            for (auto& p : conflicts) msg += "\t" + p + "\n";
            msg += "Please commit your changes or stash them before you " + before + ".\n";
        }
        if (!untracked_conflicts.empty()) {
            msg += "error: The following untracked working tree files would be overwritten by " + what + ":\n";
            for (auto& p : untracked_conflicts) msg += "\t" + p + "\n";
            msg += "Please move or remove them before you " + before + ".\n";
        }
        msg += "Aborting\n";
        s.err(msg);
        return false;
    }
    for (auto& p : remove) {
        check_cancel(repo.ctx);
        (void)repo.fs.unlink(abs_path(repo, p));
        remove_empty_parents(repo, p);
        idx.erase(p);
    }
    for (auto& p : update) {
        check_cancel(repo.ctx);
        auto& [mode, oid] = to[p];
        write_work_file(repo, p, mode, oid);
        auto st = repo.fs.lstat(abs_path(repo, p));
        IndexEntry e = st ? entry_from_stat(p, *st, oid) : IndexEntry{};
        e.path = p;
        e.oid = oid;
        e.mode = mode;
        idx[p] = e;
    }
    if (force) {
        // entries of the target missing from the index come back
        for (auto& [p, v] : to) {
            if (idx.count(p)) continue;
            check_cancel(repo.ctx);
            write_work_file(repo, p, v.first, v.second);
            if (auto st = repo.fs.lstat(abs_path(repo, p))) idx[p] = entry_from_stat(p, *st, v.second);
            idx[p].path = p;
            idx[p].oid = v.second;
            idx[p].mode = v.first;
        }
        // drop index entries not in the target; reset the rest to it
        for (auto it = idx.begin(); it != idx.end();) {
            auto t = to.find(it->first);
            if (t == to.end()) {
                (void)repo.fs.unlink(abs_path(repo, it->first));
                remove_empty_parents(repo, it->first);
                it = idx.erase(it);
                continue;
            }
            if (it->second.oid != t->second.second || it->second.mode != t->second.first) {
                write_work_file(repo, it->first, t->second.first, t->second.second);
                auto st = repo.fs.lstat(abs_path(repo, it->first));
                if (st) it->second = entry_from_stat(it->first, *st, t->second.second);
                it->second.mode = t->second.first;
            } else if (auto st = repo.fs.lstat(abs_path(repo, it->first)); !st || !entry_unchanged(repo, it->second, *st, im)) {
                write_work_file(repo, it->first, t->second.first, t->second.second);
                if (auto st2 = repo.fs.lstat(abs_path(repo, it->first))) it->second = entry_from_stat(it->first, *st2, t->second.second);
                it->second.mode = t->second.first;
            }
            ++it;
        }
    }
    std::vector<IndexEntry> out;
    for (auto& [p, e] : idx) out.push_back(e);
    repo.write_index(std::move(out));
    return true;
}

}  // namespace bashkit::utils::git
