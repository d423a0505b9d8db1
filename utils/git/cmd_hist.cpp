// log, show, diff.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <queue>

#include "utils/git/core.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::git {

namespace {

using Flat = std::map<std::string, std::pair<uint32_t, std::string>>;

// Writes out the output gathered so far once it is large, so a long log streams.
void flush_big(Invocation& s, std::string& out) {
    if (out.size() > (1u << 16)) {
        s.out(out);
        out.clear();
    }
}


bool in_specs(const std::string& p, const std::vector<std::string>& specs) {
    if (specs.empty()) return true;
    for (auto& s : specs) {
        if (s.empty() || p == s || (p.size() > s.size() && p.starts_with(s) && p[s.size()] == '/')) return true;
        if (s.find_first_of("*?[") != std::string::npos && wildmatch(s, p, false)) return true;
    }
    return false;
}

struct DiffOpts {
    enum class Out { patch, stat, name_only, name_status, quiet, shortstat, numstat } out = Out::patch;
    int context = 3;
    bool patch_with_stat = false;
};

// One side of a diff: a flat tree, and a way to read a path's content.
struct Side {
    Flat files;
    bool worktree = false;  // contents come from the work tree (oids then are hashed)
};

std::string blob_of(Repo& repo, const Side& side, const std::string& path, const std::pair<uint32_t, std::string>& v) {
    if (v.first == 0160000) return "Subproject commit " + v.second + "\n";
    if (side.worktree) {
        auto st = repo.fs.lstat(repo.abs_of(path));
        if (!st) return "";
        return read_work_blob(repo, path, *st);
    }
    return repo.read(v.second).data;
}

}  // namespace

// The --stat lines as git draws them for an 80-column output (diff.c show_stats).
std::string diffstat_lines(const std::vector<std::pair<std::string, DiffStats>>& rows) {
    const int width = 80;
    int name_w = 0, max_change = 0;
    bool any_binary = false;
    for (auto& [p, d] : rows) {
        name_w = std::max(name_w, int(p.size()));
        max_change = std::max(max_change, d.added + d.deleted);
        any_binary = any_binary || d.binary;
    }
    int num_w = int(std::to_string(max_change).size());
    if (any_binary) num_w = std::max(num_w, 3);
    int graph_w = max_change;
    if (width < name_w + num_w + 6 + graph_w) {
        if (graph_w > width * 3 / 8 - num_w - 6) {
            graph_w = width * 3 / 8 - num_w - 6;
            if (graph_w < 6) graph_w = 6;
        }
        if (name_w > width - num_w - 6 - graph_w) name_w = width - num_w - 6 - graph_w;
        else graph_w = width - num_w - 6 - name_w;
    }
    auto scale = [&](int it) { return it == 0 ? 0 : 1 + int(int64_t(it) * (graph_w - 1) / max_change); };
    std::string o;
    for (auto& [path, d] : rows) {
        std::string name = path;
        if (int(name.size()) > name_w) name = "..." + name.substr(name.size() - size_t(name_w - 3));
        std::string line = " " + name + std::string(size_t(name_w) - name.size(), ' ') + " | ";
        if (d.binary) {
            o += line + "Bin " + std::to_string(d.size_a) + " -> " + std::to_string(d.size_b) + " bytes\n";
            continue;
        }
        std::string n = std::to_string(d.added + d.deleted);
        line += std::string(size_t(num_w) - n.size(), ' ') + n;
        int a = d.added, r = d.deleted;
        if (graph_w <= max_change) {
            int total = scale(a + r);
            if (total < 2 && a && r) total = 2;
            if (a < r) {
                a = scale(a);
                r = total - a;
            } else {
                r = scale(r);
                a = total - r;
            }
        }
        if (a + r) line += " " + std::string(size_t(a), '+') + std::string(size_t(r), '-');
        o += line + "\n";
    }
    return o;
}


std::string stat_summary(int files, int ins, int del);

// Diffs two sides limited to specs, printing as opts say. Returns whether anything differed.
static bool diff_sides(Invocation& s, Repo& repo, const Side& A, const Side& B, const std::vector<std::string>& specs,
                       const DiffOpts& opts, std::string& out) {
    std::set<std::string> paths;
    for (auto& [p, v] : A.files)
        if (in_specs(p, specs)) paths.insert(p);
    for (auto& [p, v] : B.files)
        if (in_specs(p, specs)) paths.insert(p);
    bool any = false;
    std::vector<std::pair<std::string, DiffStats>> stats;
    std::string patches;
    std::map<std::string, Rename> renames;
    std::set<std::string> rename_sources;
    if (!B.worktree) {
        FlatTree fa, fb;
        for (auto& [p, v] : A.files)
            if (in_specs(p, specs)) fa[p] = v;
        for (auto& [p, v] : B.files)
            if (in_specs(p, specs)) fb[p] = v;
        renames = find_renames(repo.ctx, fa, fb, [&](const std::string& oid) { return repo.read(oid).data; });
        for (auto& [to, r] : renames) rename_sources.insert(r.from);
    }
    for (auto& p : paths) {
        check_cancel(repo.ctx);
        auto a = A.files.find(p), b = B.files.find(p);
        bool ha = a != A.files.end(), hb = b != B.files.end();
        if (ha && hb && a->second == b->second) continue;
        if (rename_sources.count(p)) continue;
        if (auto r = renames.find(p); r != renames.end() && A.files.at(r->second.from).second != b->second.second) {
            // a rename with changes: the pair's patch from the source's content
            any = true;
            const std::string& from = r->second.from;
            const auto& va = A.files.at(from);
            if (opts.out == DiffOpts::Out::quiet) return true;
            if (opts.out == DiffOpts::Out::name_only) {
                out += quote_path(p) + "\n";
                continue;
            }
            char score[8];
            std::snprintf(score, sizeof score, "R%03d", r->second.percent);
            if (opts.out == DiffOpts::Out::name_status) {
                out += score + ("\t" + quote_path(from)) + "\t" + quote_path(p) + "\n";
                continue;
            }
            FilePair fp;
            fp.path = p;
            fp.from = from;
            fp.similarity = r->second.percent;
            fp.mode_a = va.first, fp.oid_a = va.second;
            fp.mode_b = b->second.first, fp.oid_b = b->second.second;
            fp.data_a = blob_of(repo, A, from, va);
            fp.data_b = blob_of(repo, B, p, b->second);
            if (opts.out == DiffOpts::Out::patch || opts.patch_with_stat) patches += format_patch(repo.ctx, fp, opts.context);
            if (opts.out != DiffOpts::Out::patch || opts.patch_with_stat)
                stats.emplace_back(pprint_rename(from, p), count_changes(repo.ctx, fp.data_a, fp.data_b));
            continue;
        }
        if (auto r = renames.find(p); r != renames.end()) {
            any = true;
            const auto& from = r->second.from;
            const auto& va = A.files.at(from);
            const auto& vb = b->second;
            switch (opts.out) {
                case DiffOpts::Out::quiet: return true;
                case DiffOpts::Out::name_only: out += quote_path(p) + "\n"; break;
                case DiffOpts::Out::name_status: out += "R100\t" + quote_path(from) + "\t" + quote_path(p) + "\n"; break;
                default: {
                    if (opts.out == DiffOpts::Out::patch || opts.patch_with_stat) {
                        patches += "diff --git " + quote_path("a/" + from) + " " + quote_path("b/" + p) + "\n";
                        if (va.first != vb.first)
                            patches += "old mode " + mode_string(va.first) + "\nnew mode " + mode_string(vb.first) + "\n";
                        patches += "similarity index 100%\nrename from " + quote_path(from) + "\nrename to " + quote_path(p) + "\n";
                    }
                    if (opts.out != DiffOpts::Out::patch || opts.patch_with_stat) stats.emplace_back(pprint_rename(from, p), DiffStats{});
                }
            }
            continue;
        }
        FilePair fp;
        fp.path = p;
        if (ha) fp.mode_a = a->second.first, fp.oid_a = a->second.second;
        if (hb) fp.mode_b = b->second.first, fp.oid_b = b->second.second;
        if (hb && B.worktree) {
            fp.data_b = blob_of(repo, B, p, b->second);
            fp.oid_b = fp.mode_b == 0160000 ? b->second.second : Repo::hash(ObjType::blob, fp.data_b);
            if (ha && fp.oid_b == fp.oid_a && fp.mode_a == fp.mode_b) continue;
        }
        any = true;
        if (opts.out == DiffOpts::Out::quiet) return true;
        if (opts.out == DiffOpts::Out::name_only) {
            out += quote_path(relative_to_prefix(p, "")) + "\n";
            continue;
        }
        if (opts.out == DiffOpts::Out::name_status) {
            out += std::string(!ha ? "A" : !hb ? "D" : "M") + "\t" + quote_path(p) + "\n";
            continue;
        }
        if (ha) fp.data_a = blob_of(repo, A, p, a->second);
        if (hb && !B.worktree) fp.data_b = blob_of(repo, B, p, b->second);
        if (opts.out == DiffOpts::Out::patch || opts.patch_with_stat) patches += format_patch(repo.ctx, fp, opts.context);
        if (opts.out != DiffOpts::Out::patch || opts.patch_with_stat) {
            DiffStats d = count_changes(repo.ctx, fp.data_a, fp.data_b);
            stats.emplace_back(p, d);
        }
    }
    (void)s;
    if (opts.out == DiffOpts::Out::numstat) {
        for (auto& [p, d] : stats)
            out += d.binary ? "-\t-\t" + p + "\n" : std::to_string(d.added) + "\t" + std::to_string(d.deleted) + "\t" + p + "\n";
    } else if (opts.out == DiffOpts::Out::stat || opts.out == DiffOpts::Out::shortstat || opts.patch_with_stat) {
        int ins = 0, del = 0;
        for (auto& [p, d] : stats) ins += d.added, del += d.deleted;
        if (!stats.empty()) {
            if (opts.out != DiffOpts::Out::shortstat) out += diffstat_lines(stats);
            out += stat_summary(int(stats.size()), ins, del);
        }
        if (opts.patch_with_stat && !patches.empty()) out += "\n" + patches;
    } else {
        out += patches;
    }
    return any;
}

static Flat index_flat(Repo& repo) {
    Flat f;
    for (auto& e : repo.read_index())
        if (e.stage() == 0) f[e.path] = {e.mode, e.oid};
    return f;
}

static Flat work_flat(Repo& repo, const Flat& index) {
    // the tracked files as they are in the work tree (a missing file is absent)
    Flat f;
    auto entries = repo.read_index();
    int64_t im = index_mtime(repo);
    for (auto& e : entries) {
        check_cancel(repo.ctx);
        if (e.stage() != 0) continue;
        auto st = repo.fs.lstat(repo.abs_of(e.path));
        if (!st || st->is_directory()) continue;
        uint32_t mode = git_mode_of(*st);
        if (!repo.config.get_bool("core.filemode", true) && st->is_regular()) mode = e.mode;
        if (entry_unchanged(repo, e, *st, im)) f[e.path] = {e.mode, e.oid};
        else f[e.path] = {mode, "worktree"};
    }
    (void)index;
    return f;
}

static bool parse_diff_opt(const std::string& x, DiffOpts& o) {
    if (x == "--stat") o.out = DiffOpts::Out::stat;
    else if (x == "--shortstat") o.out = DiffOpts::Out::shortstat;
    else if (x == "--numstat") o.out = DiffOpts::Out::numstat;
    else if (x == "--name-only") o.out = DiffOpts::Out::name_only;
    else if (x == "--name-status") o.out = DiffOpts::Out::name_status;
    else if (x == "-p" || x == "-u" || x == "--patch") o.out = DiffOpts::Out::patch;
    else if (x == "--patch-with-stat") o.patch_with_stat = true;
    else if (x.starts_with("-U") && x.size() > 2) o.context = std::max(0, atoi(x.c_str() + 2));
    else if (x.starts_with("--unified=")) o.context = std::max(0, atoi(x.c_str() + 10));
    else if (x == "--no-color" || x == "--no-ext-diff" || x == "--no-renames" || x == "--color=never") {
    } else if (x == "-M" || x == "--find-renames" || (x.starts_with("-M") && isdigit(static_cast<unsigned char>(x[2]))) ||
               x.starts_with("--find-renames=")) {
        // renames are found (exact ones: the same blob) whether asked or not, as with diff.renames
    } else return false;
    return true;
}

int cmd_diff(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    DiffOpts opts;
    bool cached = false, exit_code = false, quiet = false, dashdash = false;
    std::vector<std::string> revs, paths;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (dashdash) paths.push_back(x);
        else if (x == "--") dashdash = true;
        else if (x == "--cached" || x == "--staged") cached = true;
        else if (x == "--exit-code") exit_code = true;
        else if (x == "--quiet") quiet = true, exit_code = true;
        else if (parse_diff_opt(x, opts)) {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"invalid option: " + x, 129};
        else if (repo.rev_parse(x.find("..") != std::string::npos ? x.substr(0, x.find("..")).empty() ? "HEAD" : x.substr(0, x.find("..")) : x) && paths.empty())
            revs.push_back(x);
        else if (!repo.worktree.empty() && repo.fs.lstat(repo.ctx.resolve(x))) paths.push_back(x);
        else
            throw Fatal{"ambiguous argument '" + x + "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
    }
    if (quiet) opts.out = DiffOpts::Out::quiet;
    std::vector<std::string> specs;
    for (auto& p : paths) {
        std::string r = to_repo_path(repo, p);
        specs.push_back(r);
    }
    if (revs.size() == 1 && revs[0].find("..") != std::string::npos) {
        std::string r = revs[0];
        size_t dd = r.find("..");
        std::string l = r.substr(0, dd), rr = r.substr(dd + 2);
        revs = {l.empty() ? "HEAD" : l, rr.empty() ? "HEAD" : rr};
    }
    Side A, B;
    auto tree_side = [&](const std::string& rev) {
        auto t = repo.rev_parse(rev + "^{tree}");
        if (!t) throw Fatal{"bad revision '" + rev + "'"};
        Side sd;
        sd.files = repo.flatten(*t);
        return sd;
    };
    if (revs.size() == 2) {
        A = tree_side(revs[0]);
        B = tree_side(revs[1]);
    } else if (cached) {
        if (revs.empty()) {
            auto h = repo.head_oid();
            if (h) A = tree_side("HEAD");
        } else {
            A = tree_side(revs[0]);
        }
        B.files = index_flat(repo);
    } else if (revs.size() == 1) {
        A = tree_side(revs[0]);
        Flat idx = index_flat(repo);
        B.files = work_flat(repo, idx);
        B.worktree = true;
    } else {
        if (repo.worktree.empty()) throw Fatal{"this operation must be run in a work tree"};
        A.files = index_flat(repo);
        B.files = work_flat(repo, A.files);
        B.worktree = true;
    }
    if (B.worktree) {
        // unchanged entries carry the index oid; changed ones are hashed in diff_sides
        for (auto& [p, v] : B.files)
            if (v.second == "worktree") v.second = kNullOid;
    }
    std::string out;
    // paths shown relative to the top (git diff prints a/ b/ paths from the top)
    bool any = diff_sides(s, repo, A, B, specs, opts, out);
    s.out(out);
    return exit_code && any ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// log and show

// Revisions as command lines give them: "A", "^A", "A..B" (either side may be empty: HEAD), "A...B".
bool is_rev_arg(Repo& repo, const std::string& x) {
    if (x.size() > 1 && x[0] == '^') return repo.rev_parse(x.substr(1)).has_value();
    size_t dd = x.find("..");
    if (dd == std::string::npos) return repo.rev_parse(x).has_value();
    std::string l = x.substr(0, dd), r = x.substr(dd + (x.compare(dd, 3, "...") == 0 ? 3 : 2));
    return repo.rev_parse(l.empty() ? "HEAD" : l) && repo.rev_parse(r.empty() ? "HEAD" : r);
}

bool add_ref_set(Repo& repo, const std::string& x, std::vector<std::string>& revs) {
    if (x != "--all" && x != "--branches" && x != "--tags" && x != "--remotes") return false;
    // Every ref of the set (--all: every ref, refs/stash included, and HEAD) that leads to a commit.
    std::string prefix = x == "--all" ? "refs/" : x == "--branches" ? "refs/heads/" : x == "--tags" ? "refs/tags/" : "refs/remotes/";
    for (const auto& [name, oid] : repo.refs(prefix))
        if (repo.rev_parse(oid + "^{commit}")) revs.push_back(oid);
    if (x == "--all")
        if (auto h = repo.head_oid()) revs.push_back(*h);
    return true;
}

void add_rev(Repo& repo, const std::string& r, RevRange& range) {
    auto commit_of = [&](const std::string& x) { return repo.must_rev((x.empty() ? "HEAD" : x) + "^{commit}"); };
    size_t dd = r.find("..");
    if (r.starts_with("^")) {
        range.hide.push_back(commit_of(r.substr(1)));
    } else if (dd != std::string::npos && r.compare(dd, 3, "...") == 0) {
        // the symmetric difference: what either side has that their merge bases do not
        std::string l = commit_of(r.substr(0, dd)), rr = commit_of(r.substr(dd + 3));
        range.starts.push_back(l);
        range.starts.push_back(rr);
        for (auto& b : merge_bases(repo, l, rr)) range.hide.push_back(b);
    } else if (dd != std::string::npos) {
        range.hide.push_back(commit_of(r.substr(0, dd)));
        range.starts.push_back(commit_of(r.substr(dd + 2)));
    } else {
        range.starts.push_back(commit_of(r));
    }
}

void walk_commits(Repo& repo, const RevRange& range, bool first_parent, const std::function<bool(Commit&)>& visit) {
    // hidden: everything reachable from hide
    std::set<std::string> hidden;
    for (auto& h : range.hide) {
        if (hidden.count(h)) continue;
        auto a = ancestors(repo, h);
        hidden.insert(a.begin(), a.end());
    }
    // newest committer date first; ties in the order they were reached
    struct Item {
        int64_t time;
        uint64_t seq;
        std::string oid;
    };
    auto cmp = [](const Item& x, const Item& y) { return x.time != y.time ? x.time < y.time : x.seq > y.seq; };
    std::priority_queue<Item, std::vector<Item>, decltype(cmp)> q(cmp);
    std::set<std::string> seen;
    uint64_t seq = 0;
    for (auto& st : range.starts)
        if (!hidden.count(st) && seen.insert(st).second) q.push({repo.commit(st).committer.time, seq++, st});
    while (!q.empty()) {
        check_cancel(repo.ctx);
        Item it = q.top();
        q.pop();
        Commit c = repo.commit(it.oid);
        for (size_t k = 0; k < c.parents.size(); ++k) {
            const auto& p = c.parents[k];
            if (first_parent && k > 0) break;
            if (!hidden.count(p) && seen.insert(p).second) q.push({repo.commit(p).committer.time, seq++, p});
        }
        if (!visit(c)) return;
    }
}

namespace {

struct LogOpts {
    enum class Fmt { medium, oneline, short_, full, raw, format } fmt = Fmt::medium;
    std::string format;
    bool tformat = true;
    long max = -1;
    long skip = 0;
    bool reverse = false;
    bool patch = false;
    bool stat = false;
    bool name_only = false, name_status = false;
    bool abbrev_commit = false;
    bool first_parent = false;
    bool merges = false, no_merges = false;
    bool graph = false;  // --graph: topological order, the graph at the left
    int context = 3;
    std::vector<std::string> specs;
    // Limiting by content (log_filter_matches): --grep, --author, --committer with -i/-E/-F, --all-match,
    // --invert-grep; -S/-G with --pickaxe-regex; --since/--until (committer dates, both ends included).
    std::vector<std::string> grep, author, committer;
    enum class Syntax { basic, extended, fixed } syntax = Syntax::basic;
    bool icase = false, all_match = false, invert_grep = false;
    char pickaxe_kind = 0;  // 'S' or 'G'
    std::string pickaxe;
    bool pickaxe_regex = false, pickaxe_all = false;
    std::optional<std::string> since_text, until_text;
    // compiled by compile_filters
    std::optional<int64_t> since, until;
    std::vector<std::shared_ptr<interp::Regex>> grep_re, author_re, committer_re;
    std::shared_ptr<interp::Regex> pickaxe_re;
};

std::string indent_message(const std::string& msg) {
    std::string o;
    size_t i = 0;
    std::string m = msg;
    while (!m.empty() && m.back() == '\n') m.pop_back();
    while (i <= m.size()) {
        size_t nl = m.find('\n', i);
        if (nl == std::string::npos) nl = m.size();
        std::string line = m.substr(i, nl - i);
        o += "    " + line + "\n";
        i = nl + 1;
        if (nl == m.size()) break;
    }
    return o;
}

}  // namespace

std::string commit_subject(const std::string& msg) {
    // the first paragraph joined with spaces
    std::string out;
    size_t i = 0;
    while (i < msg.size()) {
        size_t nl = msg.find('\n', i);
        if (nl == std::string::npos) nl = msg.size();
        std::string line = msg.substr(i, nl - i);
        if (line.empty()) {
            if (out.empty()) {
                i = nl + 1;
                continue;
            }
            break;
        }
        if (!out.empty()) out += " ";
        out += line;
        i = nl + 1;
    }
    return out;
}

static std::string body_of(const std::string& msg) {
    size_t i = 0;
    while (i < msg.size() && msg[i] == '\n') ++i;
    size_t blank = msg.find("\n\n", i);
    if (blank == std::string::npos) return "";
    size_t b = blank + 2;
    while (b < msg.size() && msg[b] == '\n') ++b;
    return msg.substr(b);
}

std::string format_commit(Repo& repo, const std::string& f, const Commit& c) {
    std::string o;
    for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] != '%' || i + 1 >= f.size()) {
            o += f[i];
            continue;
        }
        char k = f[++i];
        auto two = [&](char x) { return i + 1 < f.size() && f[i + 1] == x; };
        switch (k) {
            case '%': o += '%'; break;
            case 'n': o += '\n'; break;
            case 'H': o += c.oid; break;
            case 'h': o += repo.abbrev(c.oid); break;
            case 'T': o += c.tree; break;
            case 't': o += repo.abbrev(c.tree); break;
            case 'P':
                for (size_t p = 0; p < c.parents.size(); ++p) o += (p ? " " : "") + c.parents[p];
                break;
            case 'p':
                for (size_t p = 0; p < c.parents.size(); ++p) o += (p ? " " : "") + repo.abbrev(c.parents[p]);
                break;
            case 's': o += commit_subject(c.message); break;
            case 'b': o += body_of(c.message); break;
            case 'B': o += c.message; break;
            case 'a':
            case 'c': {
                const Signature& sg = k == 'a' ? c.author : c.committer;
                if (i + 1 >= f.size()) {
                    o += '%';
                    o += k;
                    break;
                }
                char w = f[++i];
                if (w == 'n') o += sg.name;
                else if (w == 'e') o += sg.email;
                else if (w == 'd') o += format_date_default(sg.time, sg.tz);
                else if (w == 't') o += std::to_string(sg.time);
                else if (w == 'i') o += format_date_iso(sg.time, sg.tz);
                else if (w == 'I') {
                    std::string iso = format_date_iso(sg.time, sg.tz);
                    iso[10] = 'T';
                    std::string tz = iso.substr(20);
                    o += iso.substr(0, 19) + tz.substr(0, 3) + ":" + tz.substr(3);
                } else {
                    o += '%';
                    o += k;
                    o += w;
                }
                break;
            }
            default:
                o += '%';
                o += k;
                (void)two;
        }
    }
    return o;
}

namespace {

// A date as --since/--until read it (git's approxidate, for the forms agents write): "@<seconds>", ISO dates
// with an optional time and zone (a date alone keeps the time of day of now, as git does), "now",
// "yesterday", "<n> <unit>[s] ago" (also written "<n>.<unit>.ago"). Anything else is now, as git takes it.
int64_t approx_date(Repo& repo, std::string v) {
    const int64_t now = repo.ctx.clock.now().sec;
    int64_t t;
    int tz;
    if (parse_date(v, t, tz)) {
        if (v.find_first_of("T ") == std::string::npos && v[0] != '@') t += now % 86400;  // a date alone
        return t;
    }
    for (char& ch : v)
        if (ch == '.') ch = ' ';
    if (v == "now") return now;
    if (v == "yesterday") return now - 86400;
    size_t i = 0;
    int64_t n = 0;
    while (i < v.size() && isdigit(static_cast<unsigned char>(v[i]))) n = n * 10 + (v[i++] - '0');
    if (i == 0 || !v.ends_with(" ago")) return now;
    std::string unit = v.substr(i, v.size() - 4 - i);
    while (!unit.empty() && unit[0] == ' ') unit.erase(0, 1);
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    static const std::pair<const char*, int64_t> kUnits[] = {{"second", 1},       {"minute", 60},
                                                             {"hour", 3600},      {"day", 86400},
                                                             {"week", 7 * 86400}, {"month", 30 * 86400},
                                                             {"year", 365 * 86400}};
    for (auto& [name, secs] : kUnits)
        if (unit == name) return now - n * secs;
    return now;
}

// Resolves the dates and compiles the patterns of o: a bad pattern is git's fatal ("command line, 'P': MSG" for --grep and friends,
// "invalid regex: MSG" for -S/-G).
void compile_filters(Repo& repo, LogOpts& o) {
    if (o.since_text) o.since = approx_date(repo, *o.since_text);
    if (o.until_text) o.until = approx_date(repo, *o.until_text);
    if (o.pickaxe_kind == 'G' || (o.pickaxe_kind == 'S' && o.pickaxe_regex)) {
        interp::RegexOptions ro;
        ro.icase = o.icase;
        ro.newline_sensitive = true;
        auto re = std::make_shared<interp::Regex>(interp::Regex::compile(o.pickaxe, interp::RegexSyntax::kExtended, ro));
        if (!re->ok()) throw Fatal{"invalid regex: " + re->message()};
        o.pickaxe_re = re;
    }
    // (git names where a pattern came from: the command line for --grep, a header for --author/--committer)
    auto compile = [&](const std::vector<std::string>& pats, std::vector<std::shared_ptr<interp::Regex>>& out,
                       const char* origin) {
        for (const std::string& p : pats) {
            std::string pat = p;
            if (o.syntax == LogOpts::Syntax::fixed) {
                pat.clear();
                for (char ch : p) {
                    if (std::string_view(".[]()*+?{}|^$\\").find(ch) != std::string_view::npos) pat += '\\';
                    pat += ch;
                }
            }
            interp::RegexOptions ro;
            ro.icase = o.icase;
            auto syntax = o.syntax == LogOpts::Syntax::basic ? interp::RegexSyntax::kBasic : interp::RegexSyntax::kExtended;
            auto re = std::make_shared<interp::Regex>(interp::Regex::compile(pat, syntax, ro));
            if (!re->ok()) throw Fatal{std::string(origin) + ", '" + p + "': " + re->message()};
            out.push_back(re);
        }
    };
    compile(o.grep, o.grep_re, "command line");
    compile(o.author, o.author_re, "header");
    compile(o.committer, o.committer_re, "header");
}

// How many times -S's string (or regex) occurs in a blob.
size_t pickaxe_count(const LogOpts& o, std::string_view data) {
    size_t n = 0;
    if (o.pickaxe.empty()) return 0;
    if (!o.pickaxe_re) {
        for (size_t at = data.find(o.pickaxe); at != std::string_view::npos; at = data.find(o.pickaxe, at + o.pickaxe.size())) ++n;
        return n;
    }
    std::vector<interp::RegexSpan> m;
    for (size_t from = 0; from <= data.size() && o.pickaxe_re->search(data, m, from); ++n)
        from = size_t(m[0].end) > from ? size_t(m[0].end) : from + 1;
    return n;
}

// The paths whose change in c (against its first parent, or nothing for a root commit) -S or -G finds.
// Merges are not diffed by log, so they have none.
std::vector<std::string> pickaxe_paths(Repo& repo, const Commit& c, const LogOpts& o) {
    std::vector<std::string> hits;
    if (c.parents.size() > 1) return hits;
    Flat now = repo.flatten(c.tree);
    Flat before = c.parents.empty() ? Flat{} : repo.flatten(repo.commit(c.parents[0]).tree);
    std::set<std::string> paths;
    for (auto& [p, v] : now) paths.insert(p);
    for (auto& [p, v] : before) paths.insert(p);
    for (const std::string& p : paths) {
        check_cancel(repo.ctx);
        if (!o.specs.empty() && !in_specs(p, o.specs)) continue;
        auto a = before.find(p), b = now.find(p);
        std::string da = a == before.end() ? "" : repo.read(a->second.second).data;
        std::string db = b == now.end() ? "" : repo.read(b->second.second).data;
        if (a != before.end() && b != now.end() && a->second.second == b->second.second) continue;
        bool hit;
        if (o.pickaxe_kind == 'S') {
            hit = pickaxe_count(o, da) != pickaxe_count(o, db);
        } else {
            hit = false;
            if (!is_binary(da) && !is_binary(db))
                for (std::string_view line : changed_lines(repo.ctx, da, db))
                    if (o.pickaxe_re->search(line)) {
                        hit = true;
                        break;
                    }
        }
        if (hit) hits.push_back(p);
    }
    return hits;
}

// The message and identity limits of log (--grep, --author, --committer, --since, --until). Several
// --grep match when one does (all of them with --all-match; --invert-grep takes the commits they do not
// match); several --author likewise when one does; the kinds must all match.
bool log_filter_matches(const Commit& c, const LogOpts& o) {
    if (o.since && c.committer.time < *o.since) return false;
    if (o.until && c.committer.time > *o.until) return false;
    auto ident_matches = [](const Signature& sig, const std::vector<std::shared_ptr<interp::Regex>>& res) {
        if (res.empty()) return true;
        const std::string text = sig.name + " <" + sig.email + ">";
        for (auto& re : res)
            if (re->search(text)) return true;
        return false;
    };
    if (!ident_matches(c.author, o.author_re) || !ident_matches(c.committer, o.committer_re)) return false;
    if (o.grep_re.empty()) return true;
    auto line_matches = [&](const interp::Regex& re) {
        std::string_view m = c.message;
        while (!m.empty()) {
            size_t nl = m.find('\n');
            if (re.search(m.substr(0, nl))) return true;
            if (nl == std::string_view::npos) break;
            m.remove_prefix(nl + 1);
        }
        return false;
    };
    size_t hits = 0;
    for (auto& re : o.grep_re) hits += line_matches(*re) ? 1 : 0;
    const bool match = o.all_match ? hits == o.grep_re.size() : hits > 0;
    return match != o.invert_grep;
}

std::string commit_header(Repo& repo, const Commit& c, const LogOpts& o) {
    std::string s;
    if (o.fmt == LogOpts::Fmt::oneline)
        return (o.abbrev_commit ? repo.abbrev(c.oid) : c.oid) + " " + commit_subject(c.message) + "\n";
    s += "commit " + (o.abbrev_commit ? repo.abbrev(c.oid) : c.oid) + "\n";
    if (c.parents.size() > 1) {
        s += "Merge:";
        for (auto& p : c.parents) s += " " + repo.abbrev(p);
        s += "\n";
    }
    s += "Author: " + c.author.name + " <" + c.author.email + ">\n";
    if (o.fmt == LogOpts::Fmt::full) s += "Commit: " + c.committer.name + " <" + c.committer.email + ">\n";
    if (o.fmt == LogOpts::Fmt::medium) s += "Date:   " + format_date_default(c.author.time, c.author.tz) + "\n";
    s += "\n";
    if (o.fmt == LogOpts::Fmt::short_) s += "    " + commit_subject(c.message) + "\n";
    else s += indent_message(c.message);
    return s;
}

bool touches(Repo& repo, const Commit& c, const std::vector<std::string>& specs) {
    if (specs.empty()) return true;
    Flat now = repo.flatten(c.tree);
    Flat before = c.parents.empty() ? Flat{} : repo.flatten(repo.commit(c.parents[0]).tree);
    for (auto& [p, v] : now)
        if (in_specs(p, specs)) {
            auto b = before.find(p);
            if (b == before.end() || b->second != v) return true;
        }
    for (auto& [p, v] : before)
        if (in_specs(p, specs) && !now.count(p)) return true;
    return false;
}

std::string commit_diff(Invocation& s, Repo& repo, const Commit& c, const LogOpts& o) {
    Side A, B;
    if (!c.parents.empty()) A.files = repo.flatten(repo.commit(c.parents[0]).tree);
    B.files = repo.flatten(c.tree);
    DiffOpts d;
    d.context = o.context;
    if (o.stat) d.out = DiffOpts::Out::stat;
    if (o.name_only) d.out = DiffOpts::Out::name_only;
    if (o.name_status) d.out = DiffOpts::Out::name_status;
    if (o.stat && o.patch) d.patch_with_stat = true, d.out = DiffOpts::Out::patch;
    std::string out;
    // -S/-G show the paths they found (all of the commit's with --pickaxe-all)
    if (o.pickaxe_kind && !o.pickaxe_all) {
        std::vector<std::string> hits = pickaxe_paths(repo, c, o);
        if (hits.empty()) return out;
        diff_sides(s, repo, A, B, hits, d, out);
        return out;
    }
    diff_sides(s, repo, A, B, o.specs, d, out);
    return out;
}

// An option with a value, "--name=V" or "--name" "V" (git's message when the value is missing).
bool valued_opt(const Args& a, size_t& i, const char* name, std::string& out) {
    const std::string& x = a[i];
    const size_t n = std::strlen(name);
    if (x.compare(0, n, name) != 0) return false;
    if (x.size() > n && x[n] == '=') {
        out = x.substr(n + 1);
        return true;
    }
    if (x.size() != n) return false;
    if (i + 1 >= a.size()) throw Fatal{std::string("Option '") + name + "' requires a value"};
    out = a[++i];
    return true;
}

bool parse_log_opt(const Args& a, size_t& i, LogOpts& o) {
    const std::string& x = a[i];
    std::string v;
    if (valued_opt(a, i, "--grep", v)) o.grep.push_back(v);
    else if (valued_opt(a, i, "--author", v)) o.author.push_back(v);
    else if (valued_opt(a, i, "--committer", v)) o.committer.push_back(v);
    else if (valued_opt(a, i, "--since", v) || valued_opt(a, i, "--after", v)) o.since_text = v;
    else if (valued_opt(a, i, "--until", v) || valued_opt(a, i, "--before", v)) o.until_text = v;
    else if (x == "-i" || x == "--regexp-ignore-case") o.icase = true;
    else if (x == "-E" || x == "--extended-regexp") o.syntax = LogOpts::Syntax::extended;
    else if (x == "-F" || x == "--fixed-strings") o.syntax = LogOpts::Syntax::fixed;
    else if (x == "--basic-regexp") o.syntax = LogOpts::Syntax::basic;
    else if (x == "--all-match") o.all_match = true;
    else if (x == "--invert-grep") o.invert_grep = true;
    else if (x == "--pickaxe-regex") o.pickaxe_regex = true;
    else if (x == "--pickaxe-all") o.pickaxe_all = true;
    else if (x.starts_with("-S") || x.starts_with("-G")) {
        if (x.size() == 2 && i + 1 >= a.size())
            throw Fatal{std::string("error: switch `") + x[1] + "' requires a value", 129, false};
        char kind = x[1];
        if (o.pickaxe_kind && o.pickaxe_kind != kind) throw Fatal{"options '-G', '-S', and '--find-object' cannot be used together"};
        o.pickaxe_kind = kind;
        o.pickaxe = x.size() > 2 ? x.substr(2) : a[++i];
    } else if (x == "--oneline") o.fmt = LogOpts::Fmt::oneline, o.abbrev_commit = true;
    else if (x == "-n" && i + 1 < a.size()) o.max = atol(a[++i].c_str());
    else if (x.starts_with("-n") && x.size() > 2) o.max = atol(x.c_str() + 2);
    else if (x.starts_with("--max-count=")) o.max = atol(x.c_str() + 12);
    else if (x.size() > 1 && x[0] == '-' && isdigit(static_cast<unsigned char>(x[1]))) o.max = atol(x.c_str() + 1);
    else if (x.starts_with("--skip=")) o.skip = atol(x.c_str() + 7);
    else if (x == "--reverse") o.reverse = true;
    else if (x == "--graph") o.graph = true;
    else if (x == "-p" || x == "-u" || x == "--patch") o.patch = true;
    else if (x == "--stat") o.stat = true;
    else if (x == "--name-only") o.name_only = true;
    else if (x == "--name-status") o.name_status = true;
    else if (x == "--abbrev-commit") o.abbrev_commit = true;
    else if (x == "--first-parent") o.first_parent = true;
    else if (x == "-M" || x == "--find-renames" || (x.starts_with("-M") && isdigit(static_cast<unsigned char>(x[2]))) ||
             x.starts_with("--find-renames=")) {
    } else if (x == "--no-merges") o.no_merges = true;
    else if (x == "--merges") o.merges = true;
    else if (x == "--no-decorate" || x == "--no-color" || x == "--decorate=no" || x == "--no-pager") {
    } else if (x.starts_with("-U") && x.size() > 2) o.context = atoi(x.c_str() + 2);
    else if (x.starts_with("--pretty=") || x.starts_with("--format=") || x == "--pretty") {
        std::string v = x == "--pretty" ? "medium" : x.substr(x.find('=') + 1);
        bool is_format = x.starts_with("--format=");
        if (v == "oneline") o.fmt = LogOpts::Fmt::oneline;
        else if (v == "short") o.fmt = LogOpts::Fmt::short_;
        else if (v == "medium") o.fmt = LogOpts::Fmt::medium;
        else if (v == "full") o.fmt = LogOpts::Fmt::full;
        else if (v.starts_with("format:")) o.fmt = LogOpts::Fmt::format, o.format = v.substr(7), o.tformat = false;
        else if (v.starts_with("tformat:")) o.fmt = LogOpts::Fmt::format, o.format = v.substr(8), o.tformat = true;
        else if (v.find('%') != std::string::npos || is_format) o.fmt = LogOpts::Fmt::format, o.format = v, o.tformat = true;
        else throw Fatal{"invalid --pretty format: " + v};
    } else return false;
    return true;
}

// git's --topo-order as --graph uses it: no parent before its children, and a line of history kept
// together (the parent found last is shown first; the tips in the order of the walk).
std::vector<Commit> topo_order(Repo& repo, std::vector<Commit> walked, bool first_parent) {
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < walked.size(); ++i) index[walked[i].oid] = i;
    std::vector<int> children(walked.size(), 0);
    auto parents_of = [&](const Commit& c) {
        std::vector<size_t> ps;
        for (size_t k = 0; k < c.parents.size() && (!first_parent || k == 0); ++k)
            if (auto it = index.find(c.parents[k]); it != index.end()) ps.push_back(it->second);
        return ps;
    };
    for (const Commit& c : walked)
        for (size_t p : parents_of(c)) ++children[p];
    std::vector<size_t> stack;
    for (size_t i = walked.size(); i-- > 0;)
        if (children[i] == 0) stack.push_back(i);
    std::vector<Commit> out;
    out.reserve(walked.size());
    while (!stack.empty()) {
        check_cancel(repo.ctx);
        size_t i = stack.back();
        stack.pop_back();
        for (size_t p : parents_of(walked[i]))
            if (--children[p] == 0) stack.push_back(p);
        out.push_back(std::move(walked[i]));
    }
    return out;
}

// The commits of revs as log selects them (limits, --skip, merges, paths, the content filters), in the
// order shown; `walked`, when given, gets every commit of the range (the graph draws lines to them).
std::vector<Commit> select_commits(Repo& repo, const std::vector<std::string>& revs, const LogOpts& o,
                                   std::set<std::string>* walked = nullptr) {
    RevRange range;
    for (auto& r : revs) add_rev(repo, r, range);
    std::vector<Commit> shown;
    long skipped = 0;
    interp::MemoryCharge held(repo.ctx.memory);
    auto select = [&](Commit& c) {
        if (o.merges && c.parents.size() < 2) return true;
        if (o.no_merges && c.parents.size() > 1) return true;
        if (!touches(repo, c, o.specs)) return true;
        if (!log_filter_matches(c, o)) return true;
        if (o.pickaxe_kind && pickaxe_paths(repo, c, o).empty()) return true;
        if (skipped < o.skip) {
            ++skipped;
            return true;
        }
        if (o.max >= 0 && long(shown.size()) >= o.max) return false;
        held.add(c.message.size() + 256);
        shown.push_back(std::move(c));
        return true;
    };
    if (o.graph) {
        std::vector<Commit> all;
        walk_commits(repo, range, o.first_parent, [&](Commit& c) {
            held.add(c.message.size() + 256);
            if (walked) walked->insert(c.oid);
            all.push_back(std::move(c));
            return true;
        });
        for (Commit& c : topo_order(repo, std::move(all), o.first_parent))
            if (!select(c)) break;
    } else {
        walk_commits(repo, range, o.first_parent, select);
    }
    if (o.reverse) std::reverse(shown.begin(), shown.end());
    return shown;
}

// Each line of text after the graph's prefix for lines between commits.
std::string graph_prefixed(Graph& g, std::string_view text) {
    std::string out;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        out += g.padding_line();
        out.append(text.substr(0, nl == std::string_view::npos ? text.size() : nl + 1));
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    }
    return out;
}

// log --graph: each commit's text after the graph, as git's log-tree prints it.
int log_graph(Invocation& s, Repo& repo, std::vector<Commit>& shown, const std::set<std::string>& walked, const LogOpts& o) {
    Graph g;
    std::string out;
    bool first = true;
    const bool with_diff = o.patch || o.stat || o.name_only || o.name_status;
    const bool no_header = o.fmt == LogOpts::Fmt::format && o.format.empty();
    // oneline and tformat end each record with a newline; the others separate records by a blank line
    const bool terminator = o.fmt == LogOpts::Fmt::oneline || (o.fmt == LogOpts::Fmt::format && o.tformat);
    for (auto& c : shown) {
        check_cancel(repo.ctx);
        std::vector<std::string> parents;
        for (size_t k = 0; k < c.parents.size() && (!o.first_parent || k == 0); ++k)
            if (walked.count(c.parents[k])) parents.push_back(c.parents[k]);
        g.update(c.oid, parents);
        if (!first && !terminator) out += g.padding_line() + "\n";
        first = false;
        out += g.show_commit();
        std::string text;
        if (o.fmt == LogOpts::Fmt::format) text = format_commit(repo, o.format, c);
        else if (o.fmt == LogOpts::Fmt::oneline) text = (o.abbrev_commit ? repo.abbrev(c.oid) : c.oid) + " " + commit_subject(c.message);
        else text = commit_header(repo, c, o);
        out += g.show_text(text);
        if (terminator) out += "\n";
        if (with_diff && c.parents.size() < 2) {  // log shows no diff for a merge
            std::string d = commit_diff(s, repo, c, o);
            if (!d.empty()) {
                if (o.fmt != LogOpts::Fmt::oneline && !no_header) out += g.padding_line() + "\n";
                out += graph_prefixed(g, d);
            }
        }
        flush_big(s, out);
    }
    s.out(out);
    return 0;
}

}  // namespace

int cmd_log(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    LogOpts o;
    std::vector<std::string> revs;
    bool dashdash = false, ref_sets = false;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (dashdash) o.specs.push_back(to_repo_path(repo, x));
        else if (x == "--") dashdash = true;
        else if (add_ref_set(repo, x, revs)) ref_sets = true;
        else if (parse_log_opt(a, i, o)) {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unrecognized argument: " + x, 128};
        else if (is_rev_arg(repo, x)) revs.push_back(x);
        else if (!repo.worktree.empty() && repo.fs.lstat(repo.ctx.resolve(x))) o.specs.push_back(to_repo_path(repo, x));
        else
            throw Fatal{"ambiguous argument '" + x + "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
    }
    if (revs.empty() && ref_sets) return 0;  // --all in a repository without commits: nothing to show
    if (revs.empty()) {
        auto h = repo.head_oid();
        if (!h) {
            std::string ref = repo.head_ref();
            throw Fatal{"your current branch '" + (ref.starts_with("refs/heads/") ? ref.substr(11) : ref) + "' does not have any commits yet"};
        }
        revs.push_back(*h);
    }
    compile_filters(repo, o);
    if (o.graph && o.reverse) throw Fatal{"options '--reverse' and '--graph' cannot be used together"};
    std::set<std::string> walked;
    std::vector<Commit> shown = select_commits(repo, revs, o, &walked);
    if (o.graph) return log_graph(s, repo, shown, walked, o);
    std::string out;
    bool first = true;
    for (auto& c : shown) {
        check_cancel(repo.ctx);
        // log shows no diff for a merge
        bool with_diff = (o.patch || o.stat || o.name_only || o.name_status) && c.parents.size() < 2;
        // An empty --format= prints no header at all, and no blank line before the diff.
        const bool no_header = o.fmt == LogOpts::Fmt::format && o.format.empty();
        if (no_header) {
        } else if (o.fmt == LogOpts::Fmt::format) {
            if (!o.tformat && !first) out += "\n";
            out += format_commit(repo, o.format, c);
            if (o.tformat) out += "\n";
        } else {
            if (!first && o.fmt != LogOpts::Fmt::oneline) out += "\n";
            out += commit_header(repo, c, o);
        }
        if (with_diff) {
            std::string d = commit_diff(s, repo, c, o);
            if (!d.empty()) {
                if (o.fmt != LogOpts::Fmt::oneline && !no_header) out += "\n";
                out += d;
            }
        }
        first = false;
        flush_big(s, out);
    }
    s.out(out);
    return 0;
}

int cmd_show(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    LogOpts o;
    o.patch = true;
    std::vector<std::string> revs;
    bool dashdash = false, no_patch = false;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (dashdash) o.specs.push_back(to_repo_path(repo, x));
        else if (x == "--") dashdash = true;
        else if (x == "-s" || x == "--no-patch") no_patch = true;
        else if (parse_log_opt(a, i, o)) {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unrecognized argument: " + x, 128};
        else revs.push_back(x);
    }
    if (o.stat && !std::count(a.begin(), a.end(), "-p")) o.patch = false;
    if (no_patch) o.patch = o.stat = false;
    if (revs.empty()) revs.push_back("HEAD");
    std::string out;
    bool first = true;
    for (auto& r : revs) {
        auto oid = repo.rev_parse(r);
        if (!oid) {
            if (r == "HEAD") throw Fatal{"your current branch '" + repo.head_ref().substr(repo.head_ref().starts_with("refs/heads/") ? 11 : 0) + "' does not have any commits yet"};
            if (size_t colon = r.find(':'); colon != std::string::npos && colon > 0 && repo.rev_parse(r.substr(0, colon)))
                throw Fatal{"path '" + r.substr(colon + 1) + "' does not exist in '" + r.substr(0, colon) + "'"};
            throw Fatal{"ambiguous argument '" + r + "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
        }
        Object obj = repo.read(*oid);
        if (!first && obj.type == ObjType::commit && o.fmt != LogOpts::Fmt::oneline && !(o.fmt == LogOpts::Fmt::format && o.tformat))
            out += "\n";
        first = false;
        std::string cur = *oid;
        while (obj.type == ObjType::tag) {
            Tag t = parse_tag(obj.data);
            out += "tag " + t.tag + "\nTagger: " + t.tagger.name + " <" + t.tagger.email + ">\n";
            if (o.fmt == LogOpts::Fmt::format) out += "\n" + t.message;
            else out += "Date:   " + format_date_default(t.tagger.time, t.tagger.tz) + "\n\n" + t.message + "\n";
            cur = t.object;
            obj = repo.read(cur);
        }
        if (obj.type == ObjType::blob) {
            out += obj.data;
        } else if (obj.type == ObjType::tree) {
            out += "tree " + r + "\n\n";
            for (auto& e : parse_tree(obj.data, cur)) out += e.name + (e.is_tree() ? "/" : "") + "\n";
        } else if (obj.type == ObjType::commit) {
            Commit c = parse_commit(obj.data, cur);
            const bool no_header = o.fmt == LogOpts::Fmt::format && o.format.empty();
            if (no_header) {
            } else if (o.fmt == LogOpts::Fmt::format) {
                out += format_commit(repo, o.format, c);
                if (o.tformat) out += "\n";
            } else {
                out += commit_header(repo, c, o);
            }
            if (o.patch || o.stat || o.name_only || o.name_status) {
                std::string d = commit_diff(s, repo, c, o);
                if (!d.empty()) {
                    if (o.fmt != LogOpts::Fmt::oneline && !no_header) out += "\n";
                    out += d;
                }
            }
        }
    }
    s.out(out);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------
// rev-list and shortlog: the walk of log, printed as object names or as authors' lists

namespace {

const char* kAmbiguous =
    "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'";

// The revision and path arguments of rev-list and shortlog (after their own options were taken out).
void rev_and_path_args(Repo& repo, const Args& rest, std::vector<std::string>& revs, LogOpts& o) {
    bool dashdash = false;
    for (auto& x : rest) {
        if (dashdash) o.specs.push_back(to_repo_path(repo, x));
        else if (x == "--") dashdash = true;
        else if (add_ref_set(repo, x, revs)) {
        } else if (is_rev_arg(repo, x)) revs.push_back(x);
        else if (!repo.worktree.empty() && repo.fs.lstat(repo.ctx.resolve(x))) o.specs.push_back(to_repo_path(repo, x));
        else throw Fatal{"ambiguous argument '" + x + kAmbiguous};
    }
}


}  // namespace

int cmd_rev_list(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    LogOpts o;
    o.fmt = LogOpts::Fmt::raw;  // plain object names unless a format is asked for
    bool count = false, parents = false;
    Args rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "--") {
            rest.insert(rest.end(), a.begin() + long(i), a.end());
            break;
        }
        if (x == "--count") count = true;
        else if (x == "--parents") parents = true;
        else if (x == "--all" || x == "--branches" || x == "--tags" || x == "--remotes") rest.push_back(x);
        else if (parse_log_opt(a, i, o)) {
        } else if (x.size() > 1 && x[0] == '-') {
            s.err("usage: git rev-list [<options>] <commit>... [--] [<path>...]\n");
            return 129;
        } else rest.push_back(x);
    }
    if (o.patch || o.stat || o.name_only || o.name_status) throw Fatal{"rev-list does not support showing diffs here", 128};
    std::vector<std::string> revs;
    rev_and_path_args(repo, rest, revs, o);
    if (revs.empty()) {
        bool ref_set = std::any_of(rest.begin(), rest.end(), [](const std::string& x) { return x.starts_with("--") && x != "--"; });
        if (ref_set) {  // --all in a repository without commits
            if (count) s.out("0\n");
            return 0;
        }
        s.err("usage: git rev-list [<options>] <commit>... [--] [<path>...]\n");
        return 129;
    }
    compile_filters(repo, o);
    if (o.graph && o.reverse) throw Fatal{"options '--reverse' and '--graph' cannot be used together"};
    std::set<std::string> walked;
    std::vector<Commit> shown = select_commits(repo, revs, o, &walked);
    if (o.graph) return log_graph(s, repo, shown, walked, o);
    if (count) {
        s.out(std::to_string(shown.size()) + "\n");
        return 0;
    }
    std::string out;
    for (auto& c : shown) {
        check_cancel(repo.ctx);
        std::string name = o.abbrev_commit ? repo.abbrev(c.oid) : c.oid;
        if (parents)
            for (auto& p : c.parents) name += " " + p;  // parents stay whole, as git prints them
        switch (o.fmt) {
            case LogOpts::Fmt::raw: out += name + "\n"; break;
            case LogOpts::Fmt::oneline: out += name + " " + commit_subject(c.message) + "\n"; break;
            case LogOpts::Fmt::format:
                out += "commit " + name + "\n" + format_commit(repo, o.format, c);
                if (o.tformat || !out.ends_with("\n")) out += "\n";
                break;
            default: {
                std::string h = commit_header(repo, c, o);  // "commit <oid>\n..." with the name as rev-list shows it
                out += "commit " + name + h.substr(h.find('\n'));
            }
        }
        flush_big(s, out);
    }
    s.out(out);
    return 0;
}

int cmd_shortlog(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    LogOpts o;
    bool summary = false, numbered = false, email = false, committer = false;
    Args rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "--") {
            rest.insert(rest.end(), a.begin() + long(i), a.end());
            break;
        }
        if (x == "-s" || x == "--summary") summary = true;
        else if (x == "-n" || x == "--numbered") numbered = true;
        else if (x == "-e" || x == "--email") email = true;
        else if (x == "-c" || x == "--committer") committer = true;
        else if (x == "--all" || x == "--branches" || x == "--tags" || x == "--remotes") rest.push_back(x);
        else if (x.size() > 1 && x[0] == '-' && !isdigit(static_cast<unsigned char>(x[1])) && !x.starts_with("--max-count=") &&
                 !x.starts_with("--skip=") && x != "--reverse" && x != "--first-parent" && x != "--no-merges" && x != "--merges")
            throw Fatal{"unknown option `" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else if (parse_log_opt(a, i, o)) {
        } else rest.push_back(x);
    }
    // (name, subject) of each commit, in the order git reads them
    std::vector<std::pair<std::string, std::string>> items;
    interp::MemoryCharge held(repo.ctx.memory);
    std::vector<std::string> revs;
    rev_and_path_args(repo, rest, revs, o);
    if (revs.empty() && rest.empty()) {
        // No revision: git reads `git log` output from stdin (when it is not a terminal; here it never is).
        Input in;
        in.open_stdin(repo.ctx);
        LineReader lines(in);
        std::string_view line;
        const std::string_view key = committer ? "Commit: " : "Author: ";
        std::string who;
        bool want_subject = false;
        while (lines.next(line)) {
            check_cancel(repo.ctx);
            if (line.starts_with(key)) {
                who = std::string(line.substr(key.size()));
                want_subject = true;
                continue;
            }
            if (!want_subject || !line.starts_with("    ")) continue;
            size_t b = line.find_first_not_of(' ');
            if (b == std::string_view::npos) continue;
            std::string subject(line.substr(b));
            // "Name <email>": the name alone unless -e
            size_t lt = who.find(" <");
            std::string name = email || lt == std::string::npos ? who : who.substr(0, lt);
            held.add(name.size() + subject.size() + 64);
            items.emplace_back(std::move(name), std::move(subject));
            want_subject = false;
        }
        if (lines.error() == vfs::Errc::cancelled) throw Cancelled{};
    } else {
        if (revs.empty()) return 0;
        compile_filters(repo, o);
        for (auto& c : select_commits(repo, revs, o)) {
            const Signature& sg = committer ? c.committer : c.author;
            std::string name = email ? sg.name + " <" + sg.email + ">" : sg.name;
            held.add(name.size() + 64);
            items.emplace_back(std::move(name), commit_subject(c.message));
        }
    }
    // grouped by name (byte order), each group's subjects oldest first; -n: the largest groups first
    std::map<std::string, std::vector<std::string>> groups;
    for (auto& [n, subj] : items) groups[n].push_back(subj);
    std::vector<std::pair<std::string, std::vector<std::string>>> list(groups.begin(), groups.end());
    if (numbered)
        std::stable_sort(list.begin(), list.end(), [](const auto& x, const auto& y) { return x.second.size() > y.second.size(); });
    std::string out;
    for (auto& [name, subjects] : list) {
        check_cancel(repo.ctx);
        if (summary) {
            std::string n = std::to_string(subjects.size());
            out += std::string(n.size() < 6 ? 6 - n.size() : 0, ' ') + n + "\t" + name + "\n";
            continue;
        }
        out += name + " (" + std::to_string(subjects.size()) + "):\n";
        for (auto it = subjects.rbegin(); it != subjects.rend(); ++it) out += "      " + *it + "\n";
        out += "\n";
    }
    s.out(out);
    return 0;
}

}  // namespace bashkit::utils::git
