// describe: a commit named after the nearest tag that reaches it ("v1.2-3-gabc1234").
#include <algorithm>

#include "builtins/git/core.hpp"

namespace bashkit::builtins::git {

int cmd_describe(Session& s, const Args& a) {
    Repo& repo = s.need_repo();
    bool tags = false, always = false, long_ = false, exact = false, dirty = false;
    std::string dirty_mark = "-dirty";
    int abbrev = 7;
    std::vector<std::string> matches, revs;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "--tags") tags = true;
        else if (x == "--always") always = true;
        else if (x == "--long") long_ = true;
        else if (x == "--exact-match") exact = true;
        else if (x == "--dirty") dirty = true;
        else if (x.starts_with("--dirty=")) dirty = true, dirty_mark = x.substr(8);
        else if (x.starts_with("--abbrev=")) {
            std::string v = x.substr(9);
            if (v.empty() || v.size() > 3 || !std::all_of(v.begin(), v.end(), ::isdigit)) throw Fatal{"option `abbrev' expects a numerical value", 129};
            abbrev = std::stoi(v);
            if (abbrev != 0) abbrev = std::clamp(abbrev, 4, 40);
        } else if (x == "--match" && i + 1 < a.size()) matches.push_back(a[++i]);
        else if (x.starts_with("--match=")) matches.push_back(x.substr(8));
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option `" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else revs.push_back(x);
    }
    if (dirty && !revs.empty()) throw Fatal{"option '--dirty' and commit-ishes cannot be used together"};
    if (exact) abbrev = 0;  // only the tag itself can do
    if (revs.empty()) revs.push_back("HEAD");

    // Every tag that leads to a commit: commit -> the names on it, the annotated ones first (git prefers
    // them even under --tags), the newest annotated tag first.
    struct Name {
        std::string tag;
        bool annotated = false;
        int64_t date = 0;
    };
    std::map<std::string, std::vector<Name>> names;
    bool any_tag = false, any_lightweight = false;
    for (const auto& [ref, oid] : repo.refs("refs/tags/")) {
        check_cancel(repo.ctx);
        std::string tag = ref.substr(10);
        if (!matches.empty() && std::none_of(matches.begin(), matches.end(), [&](const std::string& m) { return wildmatch(m, tag, false); }))
            continue;
        auto obj = repo.try_read(oid);
        if (!obj) continue;
        Name n{tag, obj->type == ObjType::tag, 0};
        if (n.annotated) n.date = parse_tag(obj->data).tagger.time;
        auto target = repo.rev_parse(oid + "^{commit}");
        if (!target) continue;
        any_tag = true;
        if (!n.annotated) {
            any_lightweight = true;
            if (!tags) continue;
        }
        names[*target].push_back(n);
    }
    for (auto& [c, list] : names)
        std::stable_sort(list.begin(), list.end(), [](const Name& x, const Name& y) {
            return x.annotated != y.annotated ? x.annotated : x.date > y.date;
        });

    if (!any_tag && !always) throw Fatal{"No names found, cannot describe anything."};
    std::string out;
    for (auto& r : revs) {
        auto resolved = repo.rev_parse(r);
        if (!resolved) throw Fatal{"Not a valid object name " + r};
        auto target_opt = repo.rev_parse(*resolved + "^{commit}");
        if (!target_opt) throw Fatal{r + " is neither a commit nor blob"};
        const std::string target = *target_opt;
        std::string suffix;
        if (dirty) {
            StatusData st = compute_status(repo, false, false);
            if (!st.changes.empty()) suffix = dirty_mark;
        }
        auto named = names.find(target);
        if (named != names.end() && !long_) {
            out += named->second.front().tag + suffix + "\n";
            continue;
        }
        if (exact) throw Fatal{"no tag exactly matches '" + target + "'"};
        // The candidate whose commit leaves the fewest commits of target's history out (git's depth); among
        // equals, the one the walk from target meets first (the newest).
        std::string best_tag, best_commit;
        size_t best_depth = 0;
        if (!names.empty()) {
            RevRange from_target;
            from_target.starts.push_back(target);
            std::vector<std::string> order;
            walk_commits(repo, from_target, false, [&](Commit& c) {
                if (names.count(c.oid)) order.push_back(c.oid);
                return true;
            });
            const std::set<std::string> of_target = ancestors(repo, target);
            for (auto& cand : order) {
                check_cancel(repo.ctx);
                const std::set<std::string> of_cand = ancestors(repo, cand);
                size_t depth = 0;
                for (auto& c : of_target) depth += of_cand.count(c) ? 0 : 1;
                if (best_tag.empty() || depth < best_depth) best_tag = names[cand].front().tag, best_commit = cand, best_depth = depth;
            }
        }
        if (best_tag.empty()) {
            if (always) {
                out += repo.abbrev(target, size_t(std::max(abbrev, 4))) + suffix + "\n";
                continue;
            }
            if (!any_tag) throw Fatal{"No names found, cannot describe anything."};
            if (!tags && any_lightweight)
                throw Fatal{"No annotated tags can describe '" + target + "'.\nHowever, there were unannotated tags: try --tags."};
            throw Fatal{"No tags can describe '" + target + "'.\nTry --always, or create some tags."};
        }
        if (abbrev == 0) out += best_tag + suffix + "\n";
        else out += best_tag + "-" + std::to_string(best_depth) + "-g" + repo.abbrev(target, size_t(abbrev)) + suffix + "\n";
    }
    s.out(out);
    return 0;
}

}  // namespace bashkit::builtins::git
