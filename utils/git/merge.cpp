// Three-way merging as `git merge` does it with its default "ort" strategy: the merge bases of two commits,
// the line merge of one file (the rules of git's xdiff merge at its default "zealous" level and "merge"
// conflict style), and the merge of three trees into the index and the work tree.
//
// Not done (said in the README): rename detection between the base and either side, directory/file
// conflicts, a virtual merge base for criss-cross histories (the newest common ancestor is taken), and the
// diff3/zdiff3 conflict styles.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

// ---------------------------------------------------------------------------------------------------------
// Merge bases

std::set<std::string> ancestors(Repo& repo, const std::string& oid) {
    std::set<std::string> seen;
    std::vector<std::string> todo{oid};
    while (!todo.empty()) {
        check_cancel(repo.ctx);
        std::string c = std::move(todo.back());
        todo.pop_back();
        if (!seen.insert(c).second) continue;
        for (auto& p : repo.commit(c).parents) todo.push_back(p);
    }
    return seen;
}

std::string unmerged_list(Repo& repo) {
    std::string u;
    for (auto& e : repo.read_index())
        if (e.stage() != 0 && !u.ends_with("\t" + quote_path(e.path) + "\n")) u += "U\t" + quote_path(e.path) + "\n";
    return u;
}

std::vector<std::string> merge_bases(Repo& repo, const std::string& a, const std::string& b) {
    const std::set<std::string> of_a = ancestors(repo, a);
    std::vector<std::string> todo;
    // From b, the first commits that a reaches too: every common ancestor is one of them or behind one.
    std::vector<std::string> found;
    std::set<std::string> seen;
    todo = {b};
    while (!todo.empty()) {
        check_cancel(repo.ctx);
        std::string c = std::move(todo.back());
        todo.pop_back();
        if (!seen.insert(c).second) continue;
        if (of_a.count(c)) {
            found.push_back(c);
            continue;
        }
        for (auto& p : repo.commit(c).parents) todo.push_back(p);
    }
    std::vector<std::string> best;
    for (auto& c : found) {
        bool behind = false;
        for (auto& d : found)
            if (d != c && is_ancestor(repo, c, d)) {
                behind = true;
                break;
            }
        if (!behind) best.push_back(c);
    }
    // Newest first (committer date), as git lists them.
    std::sort(best.begin(), best.end(), [&](const std::string& x, const std::string& y) {
        return repo.commit(x).committer.time > repo.commit(y).committer.time;
    });
    return best;
}

// ---------------------------------------------------------------------------------------------------------
// The line merge of one file

namespace {
// A file as records: each line with its newline (a last line without one is a different record).
struct Records {
    std::vector<std::string_view> recs;
    std::vector<int> ids;
};
Records records(std::string_view d, std::unordered_map<std::string_view, int>& ids) {
    Records r;
    size_t i = 0;
    while (i < d.size()) {
        size_t nl = d.find('\n', i);
        size_t e = nl == std::string_view::npos ? d.size() : nl + 1;
        std::string_view rec = d.substr(i, e - i);
        r.recs.push_back(rec);
        r.ids.push_back(ids.emplace(rec, int(ids.size())).first->second);
        i = e;
    }
    return r;
}

// A change of one side against the base: base [i1, i1+chg1) became side [i2, i2+chg2).
struct LineChange {
    long i1, chg1, i2, chg2;
};
std::vector<LineChange> changes(const CommandContext& ctx, const Records& base, const Records& side) {
    std::vector<LineChange> out;
    for (const ChangeBlock& b : change_blocks(ctx, base.ids, side.ids)) out.push_back({b.a0, b.a1 - b.a0, b.b0, b.b1 - b.b0});
    return out;
}

// A region of the result: mode 1 takes ours, 2 theirs, 0 is a conflict, 4 the same change on both sides.
// i0/chg0 in the base, i1/chg1 in ours, i2/chg2 in theirs.
struct Region {
    int mode;
    long i0, chg0, i1, chg1, i2, chg2;
};

void append(std::vector<Region>& v, int mode, long i0, long chg0, long i1, long chg1, long i2, long chg2) {
    if (!v.empty()) {
        Region& m = v.back();
        // Touching or overlapping the previous region: one region (a conflict when the modes differ).
        if (i1 <= m.i1 + m.chg1 || i2 <= m.i2 + m.chg2) {
            if (mode != m.mode) m.mode = 0;
            m.chg0 = i0 + chg0 - m.i0;
            m.chg1 = i1 + chg1 - m.i1;
            m.chg2 = i2 + chg2 - m.i2;
            return;
        }
    }
    v.push_back({mode, i0, chg0, i1, chg1, i2, chg2});
}

bool same_lines(const Records& a, long ia, const Records& b, long ib, long n) {
    for (long k = 0; k < n; ++k)
        if (a.ids[size_t(ia + k)] != b.ids[size_t(ib + k)]) return false;
    return true;
}
}  // namespace

MergedText merge_text(const CommandContext& ctx, std::string_view base_text, std::string_view ours_text,
                      std::string_view theirs_text, const std::string& name_ours, const std::string& name_theirs) {
    std::unordered_map<std::string_view, int> ids;
    const Records base = records(base_text, ids), ours = records(ours_text, ids), theirs = records(theirs_text, ids);
    const std::vector<LineChange> c1 = changes(ctx, base, ours), c2 = changes(ctx, base, theirs);
    const long nbase = long(base.recs.size()), nours = long(ours.recs.size()), ntheirs = long(theirs.recs.size());

    std::vector<Region> regions;
    size_t k1 = 0, k2 = 0;
    while (k1 < c1.size() && k2 < c2.size()) {
        check_cancel(ctx);
        const LineChange &x1 = c1[k1], &x2 = c2[k2];
        if (x1.i1 + x1.chg1 < x2.i1) {  // ours' change ends before theirs' begins
            append(regions, 1, x1.i1, x1.chg1, x1.i2, x1.chg2, x2.i2 - x2.i1 + x1.i1, x1.chg1);
            ++k1;
            continue;
        }
        if (x2.i1 + x2.chg1 < x1.i1) {
            append(regions, 2, x2.i1, x2.chg1, x1.i2 - x1.i1 + x2.i1, x2.chg1, x2.i2, x2.chg2);
            ++k2;
            continue;
        }
        if (x1.i1 != x2.i1 || x1.chg1 != x2.chg1 || x1.chg2 != x2.chg2 || !same_lines(ours, x1.i2, theirs, x2.i2, x1.chg2)) {
            // Overlapping changes: a conflict over the union of both base ranges.
            long off = x1.i1 - x2.i1;
            long ffo = off + x1.chg1 - x2.chg1;
            long i0 = x1.i1, i1 = x1.i2, i2 = x2.i2;
            if (off > 0) {
                i0 -= off;
                i1 -= off;
            } else {
                i2 += off;
            }
            long chg0 = x1.i1 + x1.chg1 - i0, chg1 = x1.i2 + x1.chg2 - i1, chg2 = x2.i2 + x2.chg2 - i2;
            if (ffo < 0) {
                chg0 -= ffo;
                chg1 -= ffo;
            } else {
                chg2 += ffo;
            }
            append(regions, 0, i0, chg0, i1, chg1, i2, chg2);
        }
        long e1 = x1.i1 + x1.chg1, e2 = x2.i1 + x2.chg1;
        if (e1 >= e2) ++k2;
        if (e2 >= e1) ++k1;
    }
    for (; k1 < c1.size(); ++k1) {
        const LineChange& x1 = c1[k1];
        append(regions, 1, x1.i1, x1.chg1, x1.i2, x1.chg2, x1.i1 + ntheirs - nbase, x1.chg1);
    }
    for (; k2 < c2.size(); ++k2) {
        const LineChange& x2 = c2[k2];
        append(regions, 2, x2.i1, x2.chg1, x2.i1 + nours - nbase, x2.chg1, x2.i2, x2.chg2);
    }

    // Refine each conflict to the lines where the two sides differ: what both sides added alike is no
    // conflict (the same change on both sides is no conflict at all).
    std::vector<Region> refined;
    for (const Region& m : regions) {
        check_cancel(ctx);
        if (m.mode != 0 || m.chg1 == 0 || m.chg2 == 0) {
            refined.push_back(m);
            continue;
        }
        std::span<const int> a(ours.ids.data() + m.i1, size_t(m.chg1)), b(theirs.ids.data() + m.i2, size_t(m.chg2));
        std::vector<ChangeBlock> diff = change_blocks(ctx, a, b);
        if (diff.empty()) {
            Region same = m;
            same.mode = 4;
            refined.push_back(same);
            continue;
        }
        for (const ChangeBlock& d : diff) refined.push_back({0, m.i0, m.chg0, m.i1 + d.a0, d.a1 - d.a0, m.i2 + d.b0, d.b1 - d.b0});
    }
    // Conflicts three lines or fewer apart are one conflict.
    std::vector<Region> merged;
    for (const Region& m : refined) {
        if (!merged.empty()) {
            Region& p = merged.back();
            if (p.mode == 0 && m.mode == 0 && m.i1 - (p.i1 + p.chg1) <= 3) {
                p.chg0 = m.i0 + m.chg0 - p.i0;
                p.chg1 = m.i1 + m.chg1 - p.i1;
                p.chg2 = m.i2 + m.chg2 - p.i2;
                continue;
            }
        }
        merged.push_back(m);
    }

    MergedText out;
    interp::MemoryCharge held(ctx.memory);
    auto copy = [&](const Records& r, long from, long n, bool add_nl) {
        for (long k = 0; k < n; ++k) out.text.append(r.recs[size_t(from + k)]);
        if (add_nl && n > 0 && out.text.back() != '\n') out.text += '\n';
        held.set(out.text.capacity());
    };
    const std::string open = name_ours.empty() ? "<<<<<<<\n" : "<<<<<<< " + name_ours + "\n";
    const std::string close = name_theirs.empty() ? ">>>>>>>\n" : ">>>>>>> " + name_theirs + "\n";
    long i = 0;  // the next line of ours not yet copied
    for (const Region& m : merged) {
        if (m.mode == 0) {
            copy(ours, i, m.i1 - i, false);
            out.text += open;
            copy(ours, m.i1, m.chg1, true);
            out.text += "=======\n";
            copy(theirs, m.i2, m.chg2, true);
            out.text += close;
            out.conflict = true;
        } else if (m.mode & 3) {
            copy(ours, i, m.i1 - i, false);
            if (m.mode & 1) copy(ours, m.i1, m.chg1, (m.mode & 2) != 0);
            if (m.mode & 2) copy(theirs, m.i2, m.chg2, false);
        } else {
            continue;
        }
        i = m.i1 + m.chg1;
    }
    copy(ours, i, nours - i, false);
    return out;
}

// ---------------------------------------------------------------------------------------------------------
// Trees

namespace {
using Entry = std::optional<std::pair<uint32_t, std::string>>;  // mode, oid; nullopt when absent
bool regular(uint32_t mode) { return mode == 0100644 || mode == 0100755; }
Entry lookup(const FlatTree& t, const std::string& p) {
    auto it = t.find(p);
    return it == t.end() ? Entry() : Entry(it->second);
}
std::string tree_of(Repo& repo, const FlatTree& t) {
    std::vector<IndexEntry> entries;
    entries.reserve(t.size());
    for (auto& [p, v] : t) {
        IndexEntry e;
        e.path = p;
        e.mode = v.first;
        e.oid = v.second;
        entries.push_back(std::move(e));
    }
    return write_tree_from_index(repo, entries);
}
}  // namespace

TreeMerge merge_trees(Invocation& s, const std::string& base_tree, const std::string& ours_tree,
                      const std::string& theirs_tree, const std::string& name_ours, const std::string& name_theirs,
                      const char* op) {
    Repo& repo = *s.repo;
    TreeMerge r;
    const FlatTree base = base_tree.empty() ? FlatTree{} : repo.flatten(base_tree);
    const FlatTree ours = repo.flatten(ours_tree), theirs = repo.flatten(theirs_tree);

    // The index must match ours: a staged change would be lost or merged into the result unseen.
    {
        std::vector<std::string> staged;
        FlatTree index;
        for (auto& e : repo.read_index()) {
            if (e.stage() != 0) staged.push_back(e.path);
            else index[e.path] = {e.mode, e.oid};
        }
        std::set<std::string> paths;
        for (auto& [p, v] : index) paths.insert(p);
        for (auto& [p, v] : ours) paths.insert(p);
        for (auto& p : paths)
            if (lookup(index, p) != lookup(ours, p)) staged.push_back(p);
        if (!staged.empty()) {
            std::sort(staged.begin(), staged.end());
            staged.erase(std::unique(staged.begin(), staged.end()), staged.end());
            std::string msg = "error: Your local changes to the following files would be overwritten by " + std::string(op) + ":\n";
            for (auto& p : staged) msg += "  " + quote_path(p) + "\n";
            s.err(msg);
            r.refused = true;
            return r;
        }
    }

    FlatTree result = ours;                                      // what the work tree and index move to
    std::map<std::string, std::array<Entry, 3>> unmerged;        // path -> base, ours, theirs
    std::map<std::string, std::string> conflicted_text;          // path -> the file with conflict markers
    std::set<std::string> paths;
    for (auto& [p, v] : base) paths.insert(p);
    for (auto& [p, v] : ours) paths.insert(p);
    for (auto& [p, v] : theirs) paths.insert(p);
    for (const std::string& p : paths) {
        check_cancel(repo.ctx);
        const Entry b = lookup(base, p), o = lookup(ours, p), t = lookup(theirs, p);
        if (o == t || b == t) continue;  // the same on both sides, or only ours changed it
        if (b == o) {                    // only theirs changed it
            if (t) result[p] = *t;
            else result.erase(p);
            continue;
        }
        if (o && t) {
            r.messages.push_back("Auto-merging " + p);
            std::string bd = b && regular(b->first) ? repo.read(b->second).data : std::string();
            std::string od = repo.read(o->second).data, td = repo.read(t->second).data;
            uint32_t mode = o->first == t->first ? o->first : (b && b->first == o->first) ? t->first : o->first;
            bool mergeable = regular(o->first) && regular(t->first) && !is_binary(bd) && !is_binary(od) && !is_binary(td);
            if (mergeable) {
                MergedText m = merge_text(repo.ctx, bd, od, td, name_ours, name_theirs);
                if (!m.conflict) {
                    result[p] = {mode, repo.write(ObjType::blob, m.text)};
                    continue;
                }
                conflicted_text[p] = std::move(m.text);
            } else {
                r.messages.push_back("warning: Cannot merge binary files: " + p + " (" + name_ours + " vs. " + name_theirs + ")");
            }
            r.messages.push_back(std::string("CONFLICT (") + (b ? "content" : "add/add") + "): Merge conflict in " + p);
            unmerged[p] = {b, o, t};
            continue;
        }
        // Deleted on one side, changed on the other: the changed version stays in the work tree.
        const std::string& deleted_in = o ? name_theirs : name_ours;
        const std::string& kept = o ? name_ours : name_theirs;
        r.messages.push_back("CONFLICT (modify/delete): " + p + " deleted in " + deleted_in + " and modified in " + kept +
                             ".  Version " + kept + " of " + p + " left in tree.");
        unmerged[p] = {b, o, t};
        result[p] = o ? *o : *t;
    }

    if (!switch_trees(s, ours_tree, tree_of(repo, result), false, op)) {
        r.refused = true;
        return r;
    }
    if (unmerged.empty()) return r;
    for (auto& [p, text] : conflicted_text) {
        const Entry& o = unmerged[p][1];
        if (auto w = repo.fs.write_file(abs_path(repo, p), text, o->first == 0100755 ? 0755 : 0644); !w)
            throw Fatal{"unable to write file '" + p + "': " + std::string(vfs::error_message(w.error()))};
    }
    std::vector<IndexEntry> index;
    for (auto& e : repo.read_index())
        if (!unmerged.count(e.path)) index.push_back(std::move(e));
    for (auto& [p, sides] : unmerged) {
        r.conflicts.push_back(p);
        for (int stage = 1; stage <= 3; ++stage) {
            const Entry& v = sides[size_t(stage - 1)];
            if (!v) continue;
            IndexEntry e;
            e.path = p;
            e.mode = v->first;
            e.oid = v->second;
            e.flags = uint16_t(stage << 12);
            index.push_back(std::move(e));
        }
    }
    repo.write_index(std::move(index));
    return r;
}

}  // namespace bashkit::utils::git
