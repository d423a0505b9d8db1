// blame: which commit last changed each line of a file.
//
// Each line starts blamed on the commit that holds the file (or, without a revision, on the work tree when
// its file differs from HEAD's). The newest commit still holding lines passes on to each parent in turn the
// lines the parent already had (the unchanged runs of their line diff, the same engine as `git diff`); what
// is left is that commit's. A root commit is a boundary ("^" in the output). Not done: following renames,
// -M/-C moves and copies, --reverse, ranges as `A..B`.
#include <algorithm>
#include <queue>
#include <unordered_map>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

namespace {

const std::string kWorkTree = "0000000000000000000000000000000000000000";

struct Line {
    std::string_view text;  // with its newline, when it has one
    std::string suspect;    // the commit blamed (or kWorkTree)
    long orig = 0;          // its line number (from 0) in the suspect's file
    bool boundary = false;
};

std::vector<std::string_view> split_lines(std::string_view d) {
    std::vector<std::string_view> out;
    for (size_t i = 0; i < d.size();) {
        size_t nl = d.find('\n', i);
        size_t e = nl == std::string_view::npos ? d.size() : nl + 1;
        out.push_back(d.substr(i, e - i));
        i = e;
    }
    return out;
}

// Parses -L's "a,b", "a", "a,+n", "a,-n" (1-based, inclusive) into [from, to).
bool parse_range(const std::string& v, long nlines, long& from, long& to) {
    auto num = [](std::string_view s, long& out) {
        if (s.empty() || s.size() > 12 || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
        out = std::stol(std::string(s));
        return true;
    };
    size_t comma = v.find(',');
    std::string_view a = std::string_view(v).substr(0, comma);
    long start = 1, end = nlines;
    if (!a.empty() && !num(a, start)) return false;
    if (comma != std::string::npos) {
        std::string_view b = std::string_view(v).substr(comma + 1);
        long n = 0;
        if (b.starts_with("+")) {
            if (!num(b.substr(1), n)) return false;
            end = n == 0 ? nlines : start + n - 1;
        } else if (b.starts_with("-")) {
            if (!num(b.substr(1), n)) return false;
            end = start;
            start = n == 0 ? start : std::max(1L, start - n + 1);
        } else if (!b.empty()) {
            if (!num(b, end)) return false;
        }
    }
    if (start < 1) start = 1;
    if (end < start) std::swap(start, end);
    from = start - 1;
    to = std::min(end, nlines);
    return true;
}

}  // namespace

int cmd_blame(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    bool porcelain = false, line_porcelain = false, no_author = false, show_email = false, long_oid = false;
    std::vector<std::string> ranges, words;
    bool dashdash = false;
    std::string path_arg;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (dashdash) {
            if (!path_arg.empty()) throw Fatal{"blame takes one path", 129};
            path_arg = x;
        } else if (x == "--") dashdash = true;
        else if (x == "-p" || x == "--porcelain") porcelain = true;
        else if (x == "--line-porcelain") porcelain = line_porcelain = true;
        else if (x == "-s") no_author = true;
        else if (x == "-e" || x == "--show-email") show_email = true;
        else if (x == "-l") long_oid = true;
        else if (x == "-L" && i + 1 < a.size()) ranges.push_back(a[++i]);
        else if (x.starts_with("-L") && x.size() > 2) ranges.push_back(x.substr(2));
        else if (x == "-w" || x == "--root" || x == "-f" || x == "--show-name") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option `" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else words.push_back(x);
    }
    std::string rev;
    if (path_arg.empty()) {
        if (words.empty() || words.size() > 2) {
            s.err("usage: git blame [<options>] [<rev-opts>] [<rev>] [--] <file>\n");
            return 129;
        }
        path_arg = words.back();
        if (words.size() == 2) rev = words[0];
    } else {
        if (words.size() > 1) throw Fatal{"blame takes one revision", 129};
        if (!words.empty()) rev = words[0];
    }
    std::string path = to_repo_path(repo, path_arg);
    const bool from_worktree = rev.empty() && !repo.worktree.empty();
    std::string start = rev.empty() ? "HEAD" : rev;
    auto start_oid = repo.rev_parse(start + "^{commit}");
    if (!start_oid) {
        if (rev.empty()) throw Fatal{"no such ref: HEAD"};
        if (!dashdash)
            throw Fatal{"ambiguous argument '" + rev + "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
        throw Fatal{"bad revision '" + rev + "'"};
    }

    interp::MemoryCharge held(repo.ctx.memory);
    // The file's text at each commit that took part (kept alive: lines are views into them).
    std::map<std::string, std::string> texts;
    auto blob_at = [&](const std::string& commit) -> std::optional<std::pair<std::string, std::string>> {
        FlatTree t = repo.flatten(repo.commit(commit).tree);
        auto it = t.find(path);
        if (it == t.end() || (it->second.first & 0170000) == 0160000) return std::nullopt;
        return std::make_pair(it->second.second, repo.read(it->second.second).data);
    };
    auto head_blob = blob_at(*start_oid);
    std::string final_text;
    std::string final_suspect = *start_oid;
    if (from_worktree) {
        auto st = repo.fs.lstat(abs_path(repo, path));
        if (!st || st->is_directory()) {
            if (!head_blob) throw Fatal{"no such path '" + path + "' in HEAD"};
            throw Fatal{"cannot stat path '" + path + "': " + std::string(vfs::error_message(st ? vfs::Errc::is_directory : st.error()))};
        }
        final_text = read_work_blob(repo, path, *st);
        if (!head_blob || head_blob->second != final_text) final_suspect = kWorkTree;
    } else {
        if (!head_blob) throw Fatal{"no such path " + path + " in " + rev};
        final_text = head_blob->second;
    }
    held.add(final_text.size());
    texts[final_suspect] = final_text;
    std::vector<std::string_view> final_lines = split_lines(texts[final_suspect]);
    const long nlines = long(final_lines.size());

    // The lines asked for.
    std::vector<std::pair<long, long>> want;
    for (auto& r : ranges) {
        long f = 0, t = 0;
        if (!parse_range(r, nlines, f, t)) {
            s.err("usage: git blame [<options>] [<rev-opts>] [<rev>] [--] <file>\n");
            return 129;
        }
        if (f >= nlines && !(f == 0 && nlines == 0)) throw Fatal{"file " + path + " has only " + std::to_string(nlines) + " line" + (nlines == 1 ? "" : "s")};
        want.emplace_back(f, t);
    }
    if (want.empty()) want.emplace_back(0, nlines);

    std::vector<Line> lines(final_lines.size());
    for (size_t i = 0; i < final_lines.size(); ++i) lines[i] = {final_lines[i], final_suspect, long(i), false};

    // Line ids for the diffs: equal text, equal id.
    std::unordered_map<std::string_view, int> ids;
    auto ids_of = [&](const std::vector<std::string_view>& ls) {
        std::vector<int> out;
        out.reserve(ls.size());
        for (auto& l : ls) out.push_back(ids.emplace(l, int(ids.size())).first->second);
        return out;
    };

    // Suspects, newest first; the work tree before every commit.
    struct Item {
        int64_t time;
        std::string oid;
    };
    auto cmp = [](const Item& x, const Item& y) { return x.time != y.time ? x.time < y.time : x.oid < y.oid; };
    std::priority_queue<Item, std::vector<Item>, decltype(cmp)> q(cmp);
    std::set<std::string> queued{final_suspect};
    q.push({final_suspect == kWorkTree ? INT64_MAX : repo.commit(final_suspect).committer.time, final_suspect});
    std::map<std::string, std::string> previous;  // commit -> "parent path" for --porcelain
    while (!q.empty()) {
        check_cancel(repo.ctx);
        std::string suspect = q.top().oid;
        q.pop();
        std::vector<size_t> mine;
        for (size_t i = 0; i < lines.size(); ++i)
            if (lines[i].suspect == suspect) mine.push_back(i);
        if (mine.empty()) continue;
        std::vector<std::string> parents = suspect == kWorkTree ? std::vector<std::string>{*start_oid} : repo.commit(suspect).parents;
        if (parents.empty()) {
            for (size_t i : mine) lines[i].boundary = true;
            continue;
        }
        const std::vector<std::string_view> suspect_lines = split_lines(texts[suspect]);
        const std::vector<int> suspect_ids = ids_of(suspect_lines);
        for (const std::string& parent : parents) {
            if (mine.empty()) break;
            auto blob = blob_at(parent);
            if (!blob) continue;
            if (!previous.count(suspect)) previous[suspect] = parent + " " + path;
            if (!texts.count(parent)) {
                held.add(blob->second.size());
                texts[parent] = std::move(blob->second);
            }
            const std::vector<std::string_view> parent_lines = split_lines(texts[parent]);
            // Where each of the suspect's lines was in the parent (-1: changed).
            std::vector<long> to_parent(suspect_lines.size(), -1);
            long pa = 0, pb = 0;
            auto same_until = [&](long a_end, long b_end) {
                while (pa < a_end && pb < b_end) to_parent[size_t(pb++)] = pa++;
            };
            for (const ChangeBlock& b : change_blocks(repo.ctx, ids_of(parent_lines), suspect_ids)) {
                same_until(b.a0, b.b0);
                pa = b.a1;
                pb = b.b1;
            }
            same_until(long(parent_lines.size()), long(suspect_lines.size()));
            std::vector<size_t> left;
            bool passed = false;
            for (size_t i : mine) {
                long p = to_parent[size_t(lines[i].orig)];
                if (p < 0) {
                    left.push_back(i);
                    continue;
                }
                lines[i].suspect = parent;
                lines[i].orig = p;
                passed = true;
            }
            mine = std::move(left);
            if (passed && queued.insert(parent).second) q.push({repo.commit(parent).committer.time, parent});
        }
    }

    // Output.
    std::map<std::string, Commit> commits;
    auto commit_of = [&](const std::string& oid) -> const Commit& {
        auto it = commits.find(oid);
        if (it != commits.end()) return it->second;
        Commit c;
        if (oid == kWorkTree) {
            c.oid = oid;
            // now, whatever GIT_COMMITTER_DATE says, as git does
            c.author.time = c.committer.time = repo.ctx.clock.now().sec;
            c.author.name = c.committer.name = "Not Committed Yet";
            c.author.email = c.committer.email = "not.committed.yet";
            c.message = "Version of " + path + " from " + path + "\n";
        } else {
            c = repo.commit(oid);
        }
        return commits.emplace(oid, std::move(c)).first->second;
    };
    std::string out;
    auto text_line = [](std::string_view t) { return "\t" + std::string(t) + (t.ends_with('\n') ? "" : "\n"); };
    if (porcelain) {
        std::set<std::string> described;
        for (auto [from, to] : want) {
            for (long i = from; i < to; ++i) {
                check_cancel(repo.ctx);
                const Line& l = lines[size_t(i)];
                long run = 1;
                bool first_of_run = i == from || lines[size_t(i - 1)].suspect != l.suspect || lines[size_t(i - 1)].orig + 1 != l.orig;
                if (first_of_run)
                    while (i + run < to && lines[size_t(i + run)].suspect == l.suspect && lines[size_t(i + run)].orig == l.orig + run) ++run;
                out += l.suspect + " " + std::to_string(l.orig + 1) + " " + std::to_string(i + 1);
                if (!first_of_run && !line_porcelain) {
                    out += "\n" + text_line(l.text);
                    continue;
                }
                if (first_of_run) out += " " + std::to_string(run);
                out += "\n";
                // the commit's details the first time it appears (every line with --line-porcelain), and
                // then the file name
                if (line_porcelain || described.insert(l.suspect).second) {
                    const Commit& c = commit_of(l.suspect);
                    auto who = [&](const char* k, const Signature& sg) {
                        return std::string(k) + " " + sg.name + "\n" + k + "-mail <" + sg.email + ">\n" + k + "-time " +
                               std::to_string(sg.time) + "\n" + k + "-tz " + sg.tz_text + "\n";
                    };
                    out += who("author", c.author) + who("committer", c.committer) + "summary " + commit_subject(c.message) + "\n";
                    if (l.boundary) out += "boundary\n";
                    if (auto p = previous.find(l.suspect); p != previous.end()) out += "previous " + p->second + "\n";
                    out += "filename " + path + "\n";
                }
                out += text_line(l.text);
            }
        }
        s.out(out);
        return 0;
    }
    // The columns: the commit (8 characters, or 40 with -l; "^" and one fewer for a boundary), the author
    // padded to the longest shown, the date, the line number padded to the largest.
    size_t who_w = 0;
    long last = 0;
    for (auto [from, to] : want)
        for (long i = from; i < to; ++i) {
            const Commit& c = commit_of(lines[size_t(i)].suspect);
            who_w = std::max(who_w, show_email ? c.author.email.size() + 2 : c.author.name.size());
            last = std::max(last, i + 1);
        }
    const size_t num_w = std::to_string(last).size();
    const size_t oid_w = long_oid ? 40 : 8;
    for (auto [from, to] : want) {
        for (long i = from; i < to; ++i) {
            check_cancel(repo.ctx);
            const Line& l = lines[size_t(i)];
            const Commit& c = commit_of(l.suspect);
            std::string id = l.boundary ? "^" + l.suspect.substr(0, oid_w - 1) : l.suspect.substr(0, oid_w);
            out += id + " ";
            if (!no_author) {
                std::string who = show_email ? "<" + c.author.email + ">" : c.author.name;
                out += "(" + who + std::string(who_w - who.size(), ' ') + " " + format_date_iso(c.author.time, c.author.tz) + " ";
            }
            std::string n = std::to_string(i + 1);
            out += std::string(num_w - n.size(), ' ') + n + ") " + std::string(l.text);
            if (!l.text.ends_with('\n')) out += "\n";
            if (out.size() > (1u << 16)) {
                s.out(out);
                out.clear();
            }
        }
    }
    s.out(out);
    return 0;
}

}  // namespace bashkit::utils::git
