// describe: a commit named after the nearest tag that reaches it ("v1.2-3-gabc1234"); for-each-ref: refs
// listed through a format of %(field) atoms.
#include <algorithm>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

int cmd_describe(Invocation& s, const Args& a) {
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
            // git weighs the first ten tagged commits its walk meets (--candidates' default)
            walk_commits(repo, from_target, false, [&](Commit& c) {
                if (names.count(c.oid)) order.push_back(c.oid);
                return order.size() < 10;
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

namespace {

std::string short_ref(const std::string& r) {
    for (const char* p : {"refs/heads/", "refs/tags/", "refs/remotes/"})
        if (r.starts_with(p)) return r.substr(std::string(p).size());
    return r.starts_with("refs/") ? r.substr(5) : r;
}

// "refs/heads" matches refs/heads/x; a pattern with a glob is matched whole.
bool ref_matches(const std::string& ref, const std::vector<std::string>& patterns) {
    if (patterns.empty()) return true;
    for (auto& p : patterns) {
        if (p.find_first_of("*?[") != std::string::npos) {
            if (wildmatch(p, ref, true)) return true;
            continue;
        }
        if (ref == p || (ref.starts_with(p) && (p.ends_with("/") || ref[p.size()] == '/'))) return true;
    }
    return false;
}

}  // namespace

int cmd_for_each_ref(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    std::string format = "%(objectname) %(objecttype)\t%(refname)";
    std::string sort = "refname";
    long count = -1;
    std::vector<std::string> patterns;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x.starts_with("--format=")) format = x.substr(9);
        else if (x == "--format" && i + 1 < a.size()) format = a[++i];
        else if (x.starts_with("--sort=")) sort = x.substr(7);
        else if (x == "--sort" && i + 1 < a.size()) sort = a[++i];
        else if (x.starts_with("--count=")) count = atol(x.c_str() + 8);
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option `" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else patterns.push_back(x);
    }
    struct Ref {
        std::string name, oid;
        Object obj;
    };
    std::vector<Ref> refs;
    interp::MemoryCharge held(repo.ctx.memory);
    for (auto& [name, oid] : repo.refs("refs/")) {
        check_cancel(repo.ctx);
        if (!ref_matches(name, patterns)) continue;
        auto obj = repo.try_read(oid);
        if (!obj) continue;
        held.add(obj->data.size() + name.size() + 64);
        refs.push_back({name, oid, std::move(*obj)});
    }
    // the commit (or tag) behind a ref: its dates and people
    auto sig = [&](const Ref& r, bool committer) -> std::optional<Signature> {
        if (r.obj.type == ObjType::commit) {
            Commit c = parse_commit(r.obj.data, r.oid);
            return committer ? c.committer : c.author;
        }
        if (r.obj.type == ObjType::tag) return parse_tag(r.obj.data).tagger;
        return std::nullopt;
    };
    bool desc = sort.starts_with("-");
    std::string key = desc ? sort.substr(1) : sort;
    if (key != "refname" && key != "committerdate" && key != "creatordate" && key != "authordate" && key != "objectname")
        throw Fatal{"unknown field name: " + key};
    auto time_of = [&](const Ref& r) -> int64_t {
        auto sg = sig(r, key != "authordate");
        return sg ? sg->time : 0;
    };
    std::stable_sort(refs.begin(), refs.end(), [&](const Ref& x, const Ref& y) {
        if (key == "refname") return desc ? y.name < x.name : x.name < y.name;
        if (key == "objectname") return desc ? y.oid < x.oid : x.oid < y.oid;
        int64_t tx = time_of(x), ty = time_of(y);
        if (tx != ty) return desc ? tx > ty : tx < ty;
        return x.name < y.name;
    });
    const std::string head = repo.head_ref();
    std::string out;
    long shown = 0;
    for (const Ref& r : refs) {
        check_cancel(repo.ctx);
        if (count >= 0 && shown >= count) break;
        ++shown;
        std::string line;
        for (size_t i = 0; i < format.size(); ++i) {
            if (format[i] != '%' || i + 1 >= format.size()) {
                line += format[i];
                continue;
            }
            if (format[i + 1] == '%') {
                line += '%';
                ++i;
                continue;
            }
            if (isxdigit(static_cast<unsigned char>(format[i + 1])) && i + 2 < format.size() &&
                isxdigit(static_cast<unsigned char>(format[i + 2]))) {
                line += char(std::stoi(format.substr(i + 1, 2), nullptr, 16));
                i += 2;
                continue;
            }
            if (format[i + 1] != '(') {
                line += '%';
                continue;
            }
            size_t close = format.find(')', i);
            if (close == std::string::npos) throw Fatal{"malformed format string " + format.substr(i)};
            std::string atom = format.substr(i + 2, close - i - 2);
            i = close;
            std::string subject, body;
            if (r.obj.type == ObjType::commit) subject = commit_subject(parse_commit(r.obj.data, r.oid).message);
            else if (r.obj.type == ObjType::tag) subject = commit_subject(parse_tag(r.obj.data).message);
            auto upstream = [&]() -> std::string {
                if (!r.name.starts_with("refs/heads/")) return "";
                std::string b = r.name.substr(11);
                auto remote = repo.config.get("branch." + b + ".remote"), merge = repo.config.get("branch." + b + ".merge");
                if (!remote || !merge) return "";
                if (*remote == ".") return *merge;
                // through the remote's fetch refspecs ("+refs/heads/*:refs/remotes/origin/*"); none: no upstream
                for (std::string spec : repo.config.get_all("remote." + *remote + ".fetch")) {
                    if (spec.starts_with("+")) spec = spec.substr(1);
                    size_t colon = spec.find(':');
                    if (colon == std::string::npos) continue;
                    std::string src = spec.substr(0, colon), dst = spec.substr(colon + 1);
                    size_t star = src.find('*');
                    if (star == std::string::npos) {
                        if (src == *merge) return dst;
                        continue;
                    }
                    std::string pre = src.substr(0, star), post = src.substr(star + 1);
                    if (merge->size() >= pre.size() + post.size() && merge->starts_with(pre) && merge->ends_with(post)) {
                        std::string mid = merge->substr(pre.size(), merge->size() - pre.size() - post.size());
                        size_t dstar = dst.find('*');
                        return dstar == std::string::npos ? dst : dst.substr(0, dstar) + mid + dst.substr(dstar + 1);
                    }
                }
                return "";
            };
            if (atom == "refname") line += r.name;
            else if (atom == "refname:short") line += short_ref(r.name);
            else if (atom.starts_with("refname:lstrip=") || atom.starts_with("refname:strip=")) {
                int n = atoi(atom.c_str() + atom.find('=') + 1);
                std::string v = r.name;
                for (int k = 0; k < n && v.find('/') != std::string::npos; ++k) v = v.substr(v.find('/') + 1);
                line += v;
            } else if (atom == "objectname") line += r.oid;
            else if (atom == "objectname:short") line += repo.abbrev(r.oid);
            else if (atom == "objecttype") line += type_name(r.obj.type);
            else if (atom == "subject" || atom == "contents:subject") line += subject;
            else if (atom == "HEAD") line += r.name == head ? "*" : " ";
            else if (atom == "upstream") line += upstream();
            else if (atom == "upstream:short") line += short_ref(upstream());
            else if (atom == "authorname" || atom == "committername" || atom == "taggername") {
                bool want_tag = atom == "taggername";
                if ((r.obj.type == ObjType::tag) == want_tag)
                    if (auto sg = sig(r, atom == "committername")) line += sg->name;
            } else if (atom == "authoremail" || atom == "committeremail" || atom == "taggeremail") {
                bool want_tag = atom == "taggeremail";
                if ((r.obj.type == ObjType::tag) == want_tag)
                    if (auto sg = sig(r, atom == "committeremail")) line += "<" + sg->email + ">";
            } else if (atom == "symref") {
                if (auto raw = repo.read_ref_raw(r.name); raw && raw->starts_with("ref: ")) {
                    std::string t = raw->substr(5);
                    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
                    line += t;
                }
            } else throw Fatal{"unknown field name: " + atom};
        }
        out += line + "\n";
    }
    s.out(out);
    return 0;
}

}  // namespace bashkit::utils::git
