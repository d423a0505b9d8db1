// branch, checkout, switch, rev-parse, ls-files, cat-file, tag, hash-object, reset, merge (fast-forward).
#include <algorithm>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

std::string stat_summary(int files, int ins, int del);

namespace {



bool valid_branch_name(const std::string& n) {
    if (n.empty() || n[0] == '-' || n == "HEAD") return false;
    if (n.find("..") != std::string::npos || n.find("//") != std::string::npos || n.back() == '/' || n.back() == '.' ||
        n.front() == '/' || n.ends_with(".lock") || n.find("@{") != std::string::npos)
        return false;
    for (unsigned char c : n)
        if (c < 0x20 || c == 0x7f || c == ' ' || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' || c == '\\')
            return false;
    return true;
}

std::string current_branch(Repo& repo) {
    std::string h = repo.head_ref();
    return h.starts_with("refs/heads/") ? h.substr(11) : "";
}


std::string commit_tree(Repo& repo, const std::optional<std::string>& c) {
    return c ? repo.commit(*c).tree : std::string();
}

// Prints "M\tpath" for each local change carried over a switch (what git checkout shows).
void show_local_changes(Invocation& s, Repo& repo) {
    StatusData st = compute_status(repo, false, false);
    std::string o;
    for (auto& c : st.changes) {
        char k = c.y != ' ' ? c.y : c.x;
        o += std::string(1, k) + "\t" + quote_path(relative_to_prefix(c.path, repo.prefix)) + "\n";
    }
    s.out(o);
}

std::string detached_advice(const std::string& rev) {
    return "Note: switching to '" + rev +
           "'.\n\nYou are in 'detached HEAD' state. You can look around, make experimental\nchanges and commit them, and you can "
           "discard any commits you make in this\nstate without impacting any branches by switching back to a branch.\n\nIf "
           "you want to create a new branch to retain commits you create, you may\ndo so (now or later) by using -c with the "
           "switch command. Example:\n\n  git switch -c <new-branch-name>\n\nOr undo this operation with:\n\n  git switch "
           "-\n\nTurn off this advice by setting config variable advice.detachedHead to false\n\n";
}

int do_switch(Invocation& s, Repo& repo, const std::string& target, const std::string& new_branch, bool force,
              bool detach, bool is_switch, bool force_create = false, bool quiet = false) {
    auto head = repo.head_oid();
    std::string cur = current_branch(repo);
    if (!new_branch.empty()) {
        if (!valid_branch_name(new_branch)) throw Fatal{"'" + new_branch + "' is not a valid branch name"};
        if (repo.resolve_ref("refs/heads/" + new_branch) && !force_create)
            throw Fatal{"a branch named '" + new_branch + "' already exists"};
        std::optional<std::string> start = target.empty() ? head : repo.rev_parse(target + "^{commit}");
        if (!target.empty() && !start) throw Fatal{"'" + target + "' is not a commit and a branch '" + new_branch + "' cannot be created from it"};
        if (!start) {
            // unborn: just move HEAD
            repo.set_symref("HEAD", "refs/heads/" + new_branch);
            if (!quiet) s.err("Switched to a new branch '" + new_branch + "'\n");
            return 0;
        }
        if (!switch_trees(s, commit_tree(repo, head), repo.commit(*start).tree, force)) return 1;
        repo.update_ref("refs/heads/" + new_branch, *start, "", "branch: Created from " + (target.empty() ? "HEAD" : target));
        std::string from = cur.empty() ? (head ? *head : std::string("HEAD")) : cur;
        repo.set_symref("HEAD", "refs/heads/" + new_branch);
        if (auto lp = repo.fs.append_file(repo.gitdir + "/logs/HEAD", (head ? *head : kNullOid) + " " + *start + " " +
                                                                         repo.identity(true, false).raw + "\tcheckout: moving from " + from +
                                                                         " to " + new_branch + "\n");
            !lp) {
        }
        if (!quiet) s.err("Switched to a new branch '" + new_branch + "'\n");
        // From HEAD itself git leaves the work tree alone and says nothing of local changes.
        if (!quiet && !target.empty()) show_local_changes(s, repo);
        return 0;
    }
    bool is_branch = !detach && repo.resolve_ref("refs/heads/" + target).has_value();
    std::optional<std::string> oid = repo.rev_parse(target + "^{commit}");
    if (!oid) {
        if (is_switch) throw Fatal{"invalid reference: " + target};
        s.err("error: pathspec '" + target + "' did not match any file(s) known to git\n");
        return 1;
    }
    if (is_switch && !is_branch && !detach)
        throw Fatal{"a branch is expected, got '" + target + "'"};
    if (is_branch && target == cur) {
        if (!switch_trees(s, commit_tree(repo, head), repo.commit(*oid).tree, force)) return 1;
        if (!quiet) s.err("Already on '" + target + "'\n");
        if (!quiet) show_local_changes(s, repo);
        return 0;
    }
    if (!switch_trees(s, commit_tree(repo, head), repo.commit(*oid).tree, force)) return 1;
    std::string from = cur.empty() ? (head ? *head : std::string("HEAD")) : cur;
    std::string line = (head ? *head : kNullOid) + " " + *oid + " " + repo.identity(true, false).raw + "\tcheckout: moving from " + from +
                       " to " + target + "\n";
    if (is_branch) repo.set_symref("HEAD", "refs/heads/" + target);
    else repo.write_file_atomic(repo.gitdir + "/HEAD", *oid + "\n");
    (void)repo.fs.append_file(repo.gitdir + "/logs/HEAD", line);
    if (is_branch && !quiet) s.err("Switched to branch '" + target + "'\n");
    else {
        if (cur.empty() && head) {
            Commit c = repo.commit(*oid);
            if (!quiet) s.err("HEAD is now at " + repo.abbrev(*oid) + " " + c.message.substr(0, c.message.find('\n')) + "\n");
        } else {
            Commit c = repo.commit(*oid);
            if (!quiet) s.err(detached_advice(target) + "HEAD is now at " + repo.abbrev(*oid) + " " + c.message.substr(0, c.message.find('\n')) + "\n");
        }
    }
    if (!quiet) show_local_changes(s, repo);
    return 0;
}

// checkout -- paths: restore from the index (or a commit).
int checkout_paths(Invocation& s, Repo& repo, const std::string& source, const std::vector<std::string>& paths) {
    auto index = repo.read_index();
    std::map<std::string, std::pair<uint32_t, std::string>> src;
    if (!source.empty()) {
        auto t = repo.rev_parse(source + "^{tree}");
        if (!t) throw Fatal{"invalid reference: " + source};
        src = repo.flatten(*t);
    } else {
        for (auto& e : index) src[e.path] = {e.mode, e.oid};
    }
    std::map<std::string, IndexEntry> idx;
    for (auto& e : index) idx[e.path] = e;
    for (auto& p : paths) {
        std::string spec = to_repo_path(repo, p);
        bool matched = false;
        for (auto& [path, v] : src) {
            if (!(spec.empty() || path == spec || (path.starts_with(spec) && path[spec.size()] == '/'))) continue;
            matched = true;
            Object o = repo.read_typed(v.second, ObjType::blob);
            std::string ap = repo.abs_of(path);
            std::string dir = vfs::path_dirname(ap);
            (void)repo.fs.mkdir_all(dir, 0755);
            (void)repo.fs.unlink(ap);
            if (v.first == 0120000) (void)repo.fs.symlink(o.data, ap);
            else if (auto r = repo.fs.write_file(ap, o.data, v.first == 0100755 ? 0755 : 0644); !r)
                throw Fatal{"unable to write file " + path};
            if (auto st = repo.fs.lstat(ap)) {
                IndexEntry e = entry_from_stat(path, *st, v.second);
                e.mode = v.first;
                idx[path] = e;
            }
        }
        if (!matched) {
            s.err("error: pathspec '" + p + "' did not match any file(s) known to git\n");
            return 1;
        }
    }
    std::vector<IndexEntry> out;
    for (auto& [k, e] : idx) out.push_back(e);
    repo.write_index(std::move(out));
    return 0;
}

// Sets the index entries of paths to what `tree` has (removing those it lacks).
void reset_index_paths(Repo& repo, const std::map<std::string, std::pair<uint32_t, std::string>>& tree,
                       const std::vector<std::string>& paths) {
    auto index = repo.read_index();
    std::map<std::string, IndexEntry> idx;
    for (auto& e : index) idx[e.path] = e;
    for (auto& p : paths) {
        std::string spec = to_repo_path(repo, p);
        auto inspec = [&](const std::string& x) { return spec.empty() || x == spec || (x.starts_with(spec) && x[spec.size()] == '/'); };
        for (auto it = idx.begin(); it != idx.end();) {
            if (inspec(it->first) && !tree.count(it->first)) it = idx.erase(it);
            else ++it;
        }
        for (auto& [tp, v] : tree)
            if (inspec(tp)) {
                auto it = idx.find(tp);
                if (it == idx.end() || it->second.oid != v.second || it->second.mode != v.first) {
                    IndexEntry e;
                    e.path = tp;
                    e.mode = v.first;
                    e.oid = v.second;
                    idx[tp] = e;
                }
            }
    }
    std::vector<IndexEntry> out;
    for (auto& [k, e] : idx) out.push_back(e);
    repo.write_index(std::move(out));
}

}  // namespace

bool is_ancestor(Repo& repo, const std::string& anc, const std::string& desc) {
    std::vector<std::string> st{desc};
    std::set<std::string> seen;
    while (!st.empty()) {
        check_cancel(repo.ctx);
        std::string c = st.back();
        st.pop_back();
        if (c == anc) return true;
        if (!seen.insert(c).second) continue;
        for (auto& p : repo.commit(c).parents) st.push_back(p);
    }
    return false;
}

// A merge in progress forgotten (after its commit, --abort, or a reset).
void clear_merge_state(Repo& repo) {
    for (const char* f : {"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE"}) (void)repo.fs.unlink(repo.gitdir + "/" + f);
}

// `-` (@{-1}): where HEAD was before the last checkout or switch, from HEAD's reflog.
static std::string previous_checkout(Repo& repo) {
    auto log = repo.fs.read_file(repo.gitdir + "/logs/HEAD", kMaxConfigBytes);
    const std::string key = "\tcheckout: moving from ";
    if (log) {
        size_t end = log->size();
        while (end > 0) {
            check_cancel(repo.ctx);
            size_t start = log->rfind('\n', end - 1 == 0 ? 0 : end - 2);
            start = start == std::string::npos ? 0 : start + 1;
            std::string line = log->substr(start, end - start);
            size_t at = line.find(key);
            if (at != std::string::npos) {
                std::string rest = line.substr(at + key.size());
                size_t to = rest.find(" to ");
                if (to != std::string::npos) return rest.substr(0, to);
            }
            if (start == 0) break;
            end = start;
        }
    }
    throw Fatal{"invalid reference: @{-1}"};
}

int cmd_checkout(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    std::string new_branch, target;
    bool force = false, detach = false, dashdash = false, force_create = false, quiet = false;
    std::vector<std::string> paths, rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (dashdash) paths.push_back(x);
        else if (x == "--") dashdash = true;
        else if ((x == "-b" || x == "-B") && i + 1 < a.size()) new_branch = a[++i], force_create = x == "-B";
        else if (x == "-f" || x == "--force") force = true;
        else if (x == "--detach") detach = true;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown switch '" + x.substr(1) + "'", 129};
        else rest.push_back(x);
    }
    if (dashdash) {
        return checkout_paths(s, repo, rest.empty() ? "" : rest[0], paths);
    }
    if (rest.size() > 1) {
        if (repo.rev_parse(rest[0] + "^{commit}")) return checkout_paths(s, repo, rest[0], {rest.begin() + 1, rest.end()});
        return checkout_paths(s, repo, "", rest);
    }
    if (!rest.empty()) target = rest[0];
    if (target == "-" || target == "@{-1}") target = previous_checkout(repo);
    if (target.empty() && detach && new_branch.empty()) target = "HEAD";  // --detach alone: where HEAD is
    if (target.empty() && new_branch.empty()) {
        show_local_changes(s, repo);
        return 0;
    }
    if (new_branch.empty() && !repo.rev_parse(target + "^{commit}") && !repo.resolve_ref("refs/heads/" + target)) {
        // a path?
        if (repo.fs.lstat(repo.ctx.resolve(target))) return checkout_paths(s, repo, "", {target});
    }
    return do_switch(s, repo, target, new_branch, force, detach, false, force_create, quiet);
}

int cmd_switch(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    std::string new_branch, target;
    bool force = false, detach = false, force_create = false, quiet = false;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if ((x == "-c" || x == "--create" || x == "-C") && i + 1 < a.size()) new_branch = a[++i], force_create = x == "-C";
        else if (x == "-f" || x == "--force" || x == "--discard-changes") force = true;
        else if (x == "-d" || x == "--detach") detach = true;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown switch '" + x.substr(1) + "'", 129};
        else target = x;
    }
    if (target.empty() && detach && new_branch.empty()) target = "HEAD";
    if (target.empty() && new_branch.empty()) throw Fatal{"missing branch or commit argument"};
    if (target == "-" || target == "@{-1}") {
        target = previous_checkout(repo);
        if (is_hex_oid(target)) detach = true;  // the previous place was a detached HEAD
    }
    return do_switch(s, repo, target, new_branch, force, detach, true, force_create, quiet);
}

int cmd_branch(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    enum class Op { list, create, del, move, show_current } op = Op::list;
    bool force = false, verbose = false, locals = true, remotes = false, list_asked = false;
    std::string filter, filter_rev;        // --merged/--no-merged/--contains/--no-contains and its commit
    std::vector<std::string> patterns;     // --list <pattern>...
    std::vector<std::string> rest;
    bool dashdash = false;
    for (const auto& x : a) {
        if (dashdash) rest.push_back(x);
        else if (x == "--") dashdash = true;
        else if (x == "-a" || x == "--all") locals = remotes = true;
        else if (x == "-r" || x == "--remotes") locals = false, remotes = true;
        else if (x == "-d" || x == "--delete") op = Op::del;
        else if (x == "-D") op = Op::del, force = true;
        else if (x == "-m" || x == "--move") op = Op::move;
        else if (x == "-M") op = Op::move, force = true;
        else if (x == "-f" || x == "--force") force = true;
        else if (x == "--show-current") op = Op::show_current;
        else if (x == "-v" || x == "-vv" || x == "--verbose") verbose = true;
        else if (x == "--list" || x == "-l") list_asked = true;
        else if (x == "--merged" || x == "--no-merged" || x == "--contains" || x == "--no-contains") filter = x, filter_rev = "HEAD";
        else if (x.starts_with("--merged=") || x.starts_with("--no-merged=") || x.starts_with("--contains=") || x.starts_with("--no-contains="))
            filter = x.substr(0, x.find('=')), filter_rev = x.substr(x.find('=') + 1);
        else if (x == "--no-color") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option '" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else rest.push_back(x);
    }
    // `--merged X`, `--contains X`: a word after them that names a commit is theirs (HEAD otherwise)
    if (!filter.empty() && filter_rev == "HEAD" && !rest.empty() && std::find(a.begin(), a.end(), filter) != a.end()) {
        auto at = std::find(a.begin(), a.end(), filter);
        if (at + 1 != a.end() && !rest.empty() && *(at + 1) == rest.front() && repo.rev_parse(rest.front() + "^{commit}")) {
            filter_rev = rest.front();
            rest.erase(rest.begin());
        }
    }
    if (!filter.empty() || list_asked) {
        patterns = rest;  // listing: the words are patterns
        rest.clear();
    }
    if (op == Op::list && !rest.empty()) op = Op::create;
    std::string cur = current_branch(repo);
    if (op == Op::show_current) {
        if (!cur.empty()) s.out(cur + "\n");
        return 0;
    }
    if (op == Op::list) {
        auto refs = repo.refs("refs/heads/");
        std::string o;
        auto head = repo.head_oid();
        const bool detached_row = cur.empty() && head.has_value();
        // Names as listed: local branches, then remote-tracking ones ("remotes/origin/main" with -a,
        // "origin/main" with -r; a symbolic one as "origin/HEAD -> origin/main").
        struct Row {
            std::string name, oid, target;
            bool current = false;
        };
        std::vector<Row> rows;
        if (detached_row && locals) rows.push_back({"(HEAD detached at " + repo.abbrev(*head) + ")", *head, {}, true});
        if (locals)
            for (auto& [k, v] : refs) rows.push_back({k.substr(11), v, {}, k.substr(11) == cur});
        if (remotes) {
            std::string shown = locals ? "remotes/" : "";
            for (auto& [k, v] : repo.refs("refs/remotes/")) {
                Row r{shown + k.substr(13), v, {}, false};
                if (auto raw = repo.read_ref_raw(k); raw && raw->starts_with("ref: refs/remotes/")) r.target = raw->substr(18);
                rows.push_back(std::move(r));
            }
        }

        if (!patterns.empty() || !filter.empty()) {
            std::optional<std::string> against;
            if (!filter.empty()) {
                against = repo.rev_parse(filter_rev + "^{commit}");
                if (!against) throw Fatal{"malformed object name " + filter_rev};
            }
            std::vector<Row> kept;
            for (auto& r : rows) {
                check_cancel(repo.ctx);
                std::string plain = r.name.starts_with("remotes/") ? r.name.substr(8) : r.name;
                if (!patterns.empty() &&
                    std::none_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return wildmatch(p, plain, false); }))
                    continue;
                if (against) {
                    bool merged = is_ancestor(repo, r.oid, *against), contains = is_ancestor(repo, *against, r.oid);
                    if ((filter == "--merged" && !merged) || (filter == "--no-merged" && merged) ||
                        (filter == "--contains" && !contains) || (filter == "--no-contains" && contains))
                        continue;
                }
                kept.push_back(std::move(r));
            }
            rows = std::move(kept);
        }
        size_t w = 0;
        for (auto& r : rows) w = std::max(w, r.name.size());
        for (auto& r : rows) {
            std::string line = (r.current ? "* " : "  ") + r.name;
            if (!r.target.empty()) line += " -> " + r.target;
            else if (verbose) {
                Commit c = repo.commit(r.oid);
                line += std::string(w - r.name.size(), ' ') + " " + repo.abbrev(r.oid) + " " + c.message.substr(0, c.message.find('\n'));
            }
            o += line + "\n";
        }
        s.out(o);
        return 0;
    }
    if (op == Op::create) {
        const std::string& name = rest[0];
        if (!valid_branch_name(name)) throw Fatal{"'" + name + "' is not a valid branch name"};
        if (repo.resolve_ref("refs/heads/" + name) && !force) throw Fatal{"a branch named '" + name + "' already exists"};
        std::string start = rest.size() > 1 ? rest[1] : "HEAD";
        auto oid = repo.rev_parse(start + "^{commit}");
        if (!oid) throw Fatal{"not a valid object name: '" + (start == "HEAD" && !cur.empty() ? cur : start) + "'"};
        // Without a start point git names the current branch in the reflog (HEAD when detached).
        const std::string from = rest.size() > 1 || cur.empty() ? start : cur;
        repo.update_ref("refs/heads/" + name, *oid, "", "branch: Created from " + from);
        return 0;
    }
    if (op == Op::del) {
        if (rest.empty()) throw Fatal{"branch name required"};
        int rc = 0;
        for (auto& name : rest) {
            auto oid = repo.resolve_ref("refs/heads/" + name);
            if (!oid) {
                s.err("error: branch '" + name + "' not found.\n");
                rc = 1;
                continue;
            }
            if (name == cur) {
                s.err("error: Cannot delete branch '" + name + "' checked out at '" + repo.worktree + "'\n");
                rc = 1;
                continue;
            }
            auto head = repo.head_oid();
            if (!force && (!head || !is_ancestor(repo, *oid, *head))) {
                s.err("error: The branch '" + name + "' is not fully merged.\nIf you are sure you want to delete it, run 'git branch -D " + name + "'.\n");
                rc = 1;
                continue;
            }
            repo.delete_ref("refs/heads/" + name);
            s.out("Deleted branch " + name + " (was " + repo.abbrev(*oid) + ").\n");
        }
        return rc;
    }
    // move
    std::string from = rest.size() >= 2 ? rest[0] : cur, to = rest.size() >= 2 ? rest[1] : (rest.empty() ? "" : rest[0]);
    if (to.empty()) throw Fatal{"branch name required"};
    if (!valid_branch_name(to)) throw Fatal{"'" + to + "' is not a valid branch name"};
    auto oid = repo.resolve_ref("refs/heads/" + from);
    if (!oid) {
        if (from == cur) {  // unborn
            repo.set_symref("HEAD", "refs/heads/" + to);
            return 0;
        }
        throw Fatal{"no branch named '" + from + "'", 128};
    }
    if (repo.resolve_ref("refs/heads/" + to) && !force) throw Fatal{"a branch named '" + to + "' already exists"};
    repo.update_ref("refs/heads/" + to, *oid, "", "Branch: renamed refs/heads/" + from + " to refs/heads/" + to);
    repo.delete_ref("refs/heads/" + from);
    if (from == cur) repo.set_symref("HEAD", "refs/heads/" + to);
    return 0;
}

int cmd_rev_parse(Invocation& s, const Args& a) {
    std::string o;
    bool verify = false, quiet = false, short_ = false, abbrev_ref = false, symbolic_full = false;
    size_t short_len = 7;
    std::vector<std::string> revs;
    for (const auto& x : a) {
        if (x == "--is-inside-work-tree") {
            if (!s.repo) throw Fatal{"not a git repository (or any of the parent directories): .git"};
            o += s.repo->worktree.empty() ? "false\n" : "true\n";
        } else if (x == "--is-inside-git-dir") {
            if (!s.repo) throw Fatal{"not a git repository (or any of the parent directories): .git"};
            o += s.repo->worktree.empty() ? "true\n" : "false\n";
        } else if (x == "--is-bare-repository") {
            if (!s.repo) throw Fatal{"not a git repository (or any of the parent directories): .git"};
            o += s.repo->worktree.empty() ? "true\n" : "false\n";
        } else if (x == "--show-toplevel") {
            Repo& r = s.need_repo();
            if (r.worktree.empty()) throw Fatal{"this operation must be run in a work tree"};
            o += r.worktree + "\n";
        } else if (x == "--git-dir") {
            Repo& r = s.need_repo();
            std::string cwd = vfs::normalize_path(s.ctx.cwd);
            if (r.gitdir == (cwd == "/" ? "/.git" : cwd + "/.git")) o += ".git\n";
            else if (r.gitdir == cwd) o += ".\n";
            else o += r.gitdir + "\n";
        } else if (x == "--absolute-git-dir") {
            o += s.need_repo().gitdir + "\n";
        } else if (x == "--show-prefix") {
            o += s.need_repo().prefix + "\n";
        } else if (x == "--show-cdup") {
            std::string p = s.need_repo().prefix, up;
            for (char c : p)
                if (c == '/') up += "../";
            o += up + "\n";
        } else if (x == "--verify") verify = true;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--short") short_ = true;
        else if (x.starts_with("--short=")) short_ = true, short_len = size_t(std::max(4, atoi(x.c_str() + 8)));
        else if (x == "--abbrev-ref") abbrev_ref = true;
        else if (x == "--symbolic-full-name") symbolic_full = true;
        else if (x == "--") {
        } else if (x.size() > 1 && x[0] == '-') o += x + "\n";
        else revs.push_back(x);
    }
    if (!revs.empty()) {
        Repo& repo = s.need_repo();
        if (verify && revs.size() != 1) throw Fatal{"Needed a single revision"};
        for (auto& r : revs) {
            auto oid = repo.rev_parse(r);
            if (!oid) {
                if (verify) {
                    if (quiet) return 1;
                    throw Fatal{"Needed a single revision"};
                }
                s.out(o + r + "\n");
                throw Fatal{"ambiguous argument '" + r + "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
            }
            if (abbrev_ref || symbolic_full) {
                std::string name;
                if (r == "HEAD" || r == "@") {
                    std::string h = repo.head_ref();
                    name = h.empty() ? "HEAD" : h;
                } else if (repo.resolve_ref("refs/heads/" + r)) name = "refs/heads/" + r;
                else if (repo.resolve_ref("refs/tags/" + r)) name = "refs/tags/" + r;
                else if (r.starts_with("refs/")) name = r;
                else name = abbrev_ref ? r : "";
                if (abbrev_ref) {
                    if (name.starts_with("refs/heads/")) name = name.substr(11);
                    else if (name.starts_with("refs/tags/")) name = name.substr(10);
                }
                if (!name.empty()) o += name + "\n";
                continue;
            }
            o += (short_ ? repo.abbrev(*oid, short_len) : *oid) + "\n";
        }
    }
    s.out(o);
    return 0;
}

int cmd_ls_files(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool error_unmatch = false, unmerged = false;
    std::vector<std::string> raw_paths;
    bool stage = false, others = false, exclude_std = false, zero = false, modified = false, deleted = false, cached = false;
    std::vector<std::string> paths;
    for (const auto& x : a) {
        if (x == "-s" || x == "--stage") stage = true;
        else if (x == "-o" || x == "--others") others = true;
        else if (x == "--exclude-standard") exclude_std = true;
        else if (x == "-z") zero = true;
        else if (x == "-m" || x == "--modified") modified = true;
        else if (x == "-d" || x == "--deleted") deleted = true;
        else if (x == "-c" || x == "--cached") cached = true;
        else if (x == "--error-unmatch") error_unmatch = true;
        else if (x == "-u" || x == "--unmerged") unmerged = stage = true;
        else if (x == "--") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option '" + x + "'", 129};
        else paths.push_back(to_repo_path(repo, x)), raw_paths.push_back(x);
    }
    std::vector<bool> path_used(paths.size(), false);
    if (!others && !modified && !deleted && !unmerged) cached = true;
    char end = zero ? '\0' : '\n';
    auto ok = [&](const std::string& p) {
        if (!repo.prefix.empty() && !p.starts_with(repo.prefix)) return false;
        if (paths.empty()) return true;
        bool any = false;
        for (size_t k = 0; k < paths.size(); ++k) {
            const std::string& sp = paths[k];
            bool hit = sp.empty() || p == sp || (p.starts_with(sp) && p[sp.size()] == '/') ||
                       (sp.find_first_of("*?[") != std::string::npos && wildmatch(sp, p, false));
            if (hit) path_used[k] = true, any = true;
        }
        return any;
    };
    auto show = [&](const std::string& p) {
        std::string r = relative_to_prefix(p, repo.prefix);
        return zero ? r : quote_path(r);
    };
    std::string o;
    auto index = repo.read_index();
    int64_t im = index_mtime(repo);
    for (auto& e : index) {
        check_cancel(repo.ctx);
        if (!ok(e.path)) continue;
        if (unmerged && e.stage() != 0) o += mode_string(e.mode) + " " + e.oid + " " + std::to_string(e.stage()) + "\t" + show(e.path) + end;
        if (cached) {
            if (stage) o += mode_string(e.mode) + " " + e.oid + " " + std::to_string(e.stage()) + "\t" + show(e.path) + end;
            else o += show(e.path) + end;
        }
        if (modified || deleted) {
            auto st = repo.fs.lstat(repo.abs_of(e.path));
            if (deleted && !st) o += show(e.path) + end;
            if (modified && (!st || !entry_unchanged(repo, e, *st, im))) o += show(e.path) + end;
        }
    }
    if (others) {
        if (exclude_std) {
            StatusData st = compute_status(repo, true);
            for (auto& u : st.untracked)
                if (ok(u)) o += show(u) + end;
        } else {  // every file the index does not have, ignored ones too
            std::set<std::string> tracked;
            for (auto& e : index) tracked.insert(e.path);
            Ignore ign(repo);
            std::vector<std::string> found;
            walk_files(repo, ign, "", true, found, tracked);
            for (auto& f : found)
                if (!tracked.count(f) && ok(f)) o += show(f) + end;
        }
    }
    s.out(o);
    if (error_unmatch) {
        int rc = 0;
        for (size_t k = 0; k < paths.size(); ++k)
            if (!path_used[k]) {
                s.err("error: pathspec '" + raw_paths[k] + "' did not match any file(s) known to git\n");
                rc = 1;
            }
        if (rc) s.err("Did you forget to 'git add'?\n");
        return rc;
    }
    return 0;
}

int cmd_cat_file(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    char mode = 0;
    std::string type, obj;
    for (const auto& x : a) {
        if (x == "-t" || x == "-s" || x == "-p" || x == "-e") mode = x[1];
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown switch '" + x.substr(1) + "'", 129};
        else if (mode == 0 && type.empty() && type_from_name(x) != ObjType::none) type = x;
        else obj = x;
    }
    if (obj.empty() || (mode == 0 && type.empty())) {
        s.err("usage: git cat-file (-t | -s | -e | -p | <type>) <object>\n");
        return 129;
    }
    auto oid = repo.rev_parse(obj);
    if (!oid && obj.find(':') != std::string::npos) {
        size_t c = obj.find(':');
        throw Fatal{"path '" + obj.substr(c + 1) + "' does not exist in '" + obj.substr(0, c) + "'"};
    }
    if (!oid || !repo.has(*oid)) {
        if (mode == 'e' && oid) return 1;
        if (oid && (mode == 't' || mode == 's')) throw Fatal{"git cat-file: could not get object info"};
        if (oid && mode == 0) throw Fatal{"git cat-file " + obj + ": bad file"};
        throw Fatal{"Not a valid object name " + obj};
    }
    Object o = repo.read(*oid);
    switch (mode) {
        case 'e': return 0;
        case 't': s.out(std::string(type_name(o.type)) + "\n"); return 0;
        case 's': s.out(std::to_string(o.data.size()) + "\n"); return 0;
        case 'p':
            if (o.type == ObjType::tree) {
                std::string out;
                for (auto& e : parse_tree(o.data, *oid)) {
                    std::string m = mode_string(e.mode);
                    if (m.size() < 6) m = std::string(6 - m.size(), '0') + m;
                    std::string t = e.is_tree() ? "tree" : e.mode == 0160000 ? "commit" : "blob";
                    out += m + " " + t + " " + e.oid + "\t" + quote_path(e.name) + "\n";
                }
                s.out(out);
            } else {
                s.out(o.data);
            }
            return 0;
        default: {
            ObjType want = type_from_name(type);
            if (o.type != want) throw Fatal{"git cat-file " + obj + ": bad file"};
            s.out(o.data);
            return 0;
        }
    }
}

int cmd_tag(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    bool del = false, annotate = false, force = false, list = false;
    int lines = 0;                                       // -n<lines>
    std::string contains_filter, contains_rev = "HEAD";  // --contains / --no-contains <commit>
    std::string msg;
    bool have_msg = false;
    std::vector<std::string> rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "-d" || x == "--delete") del = true;
        else if (x == "-a" || x == "--annotate") annotate = true;
        else if (x == "-f" || x == "--force") force = true;
        else if (x == "-l" || x == "--list") list = true;
        else if (x == "-n") list = true, lines = 1;
        else if (x.starts_with("-n") && x.size() > 2 && std::all_of(x.begin() + 2, x.end(), ::isdigit) && x.size() < 6)
            list = true, lines = std::stoi(x.substr(2));
        else if (x == "--contains" || x == "--no-contains") {
            list = true;
            contains_filter = x;
            if (i + 1 < a.size() && repo.rev_parse(a[i + 1] + "^{commit}")) contains_rev = a[++i];
        } else if ((x == "-m" || x == "--message") && i + 1 < a.size()) {
            msg += (have_msg ? "\n\n" : "") + a[++i];
            have_msg = annotate = true;
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown switch '" + x.substr(1) + "'", 129};
        else rest.push_back(x);
    }
    if (list || (rest.empty() && !del)) {
        std::optional<std::string> against;
        if (!contains_filter.empty()) {
            against = repo.rev_parse(contains_rev + "^{commit}");
            if (!against) throw Fatal{"malformed object name " + contains_rev};
        }
        std::string o;
        for (auto& [k, v] : repo.refs("refs/tags/")) {
            check_cancel(repo.ctx);
            std::string n = k.substr(10);
            if (!rest.empty() && std::none_of(rest.begin(), rest.end(), [&](const std::string& p) { return wildmatch(p, n, false); }))
                continue;
            if (against) {
                auto c = repo.rev_parse(v + "^{commit}");
                bool has = c && is_ancestor(repo, *against, *c);
                if (has != (contains_filter == "--contains")) continue;
            }
            if (lines == 0) {
                o += n + "\n";
                continue;
            }
            // -n: the annotation's first lines (a commit's message for a lightweight tag), after the name
            // padded to 15 columns
            Object obj = repo.read(v);
            std::string text = obj.type == ObjType::tag ? parse_tag(obj.data).message : obj.type == ObjType::commit ? parse_commit(obj.data, v).message : "";
            std::string shown;
            size_t at = 0;
            for (int k2 = 0; k2 < lines && at < text.size(); ++k2) {
                size_t nl = text.find('\n', at);
                std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
                at = nl == std::string::npos ? text.size() : nl + 1;
                if (line.empty() && k2 > 0) break;
                shown += (k2 ? "\n    " : "") + line;
            }
            o += n + std::string(n.size() < 15 ? 15 - n.size() : 0, ' ') + " " + shown + "\n";
        }
        s.out(o);
        return 0;
    }
    if (del) {
        int rc = 0;
        for (auto& n : rest) {
            auto oid = repo.read_ref_raw("refs/tags/" + n);
            if (!oid) {
                s.err("error: tag '" + n + "' not found.\n");
                rc = 1;
                continue;
            }
            repo.delete_ref("refs/tags/" + n);
            s.out("Deleted tag '" + n + "' (was " + repo.abbrev(*oid) + ")\n");
        }
        return rc;
    }
    const std::string& name = rest[0];
    if (!valid_branch_name(name)) throw Fatal{"'" + name + "' is not a valid tag name."};
    const std::optional<std::string> was = repo.resolve_ref("refs/tags/" + name);
    if (was && !force) throw Fatal{"tag '" + name + "' already exists"};
    std::string target = rest.size() > 1 ? rest[1] : "HEAD";
    auto oid = repo.rev_parse(target);
    if (!oid) throw Fatal{"Failed to resolve '" + target + "' as a valid ref."};
    std::string ref_to = *oid;
    if (annotate) {
        if (!have_msg) {
            s.err("error: no tag message given and no editor in this sandbox (use -m)\n");
            return 1;
        }
        Object o = repo.read(*oid);
        Signature t = repo.identity(true);
        std::string m = msg;
        while (!m.empty() && m.back() == '\n') m.pop_back();
        std::string body = "object " + *oid + "\ntype " + std::string(type_name(o.type)) + "\ntag " + name + "\ntagger " + t.raw +
                           "\n\n" + (m.empty() ? "" : m + "\n");
        ref_to = repo.write(ObjType::tag, body);
    }
    repo.update_ref("refs/tags/" + name, ref_to, "", "");
    if (was && *was != ref_to) s.out("Updated tag '" + name + "' (was " + repo.abbrev(*was) + ")\n");
    return 0;
}

int cmd_hash_object(Invocation& s, const Args& a) {
    bool write = false, from_stdin = false;
    ObjType type = ObjType::blob;
    std::vector<std::string> files;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "-w") write = true;
        else if (x == "--stdin") from_stdin = true;
        else if ((x == "-t" && i + 1 < a.size()) || x.starts_with("-t")) {
            std::string t = x == "-t" ? a[++i] : x.substr(2);
            type = type_from_name(t);
            if (type == ObjType::none) throw Fatal{"invalid object type \"" + t + "\""};
        } else if (x == "--") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option '" + x + "'", 129};
        else files.push_back(x);
    }
    if (write) s.need_repo();
    std::string o;
    auto one = [&](const std::string& data) {
        o += (write ? s.repo->write(type, data) : Repo::hash(type, data)) + "\n";
    };
    if (from_stdin) {
        std::string in;
        interp::MemoryCharge held(s.ctx.memory);
        char buf[65536];
        for (;;) {
            check_cancel(s.ctx);
            auto r = s.ctx.in.read(buf, sizeof buf);
            if (!r.ok() || r.n == 0) break;
            held.add(r.n);
            in.append(buf, r.n);
        }
        one(in);
    }
    for (auto& f : files) {
        auto d = s.ctx.fs.read_file(s.ctx.resolve(f), kMaxObjectBytes);
        if (!d) throw Fatal{"could not open '" + f + "' for reading: " + std::string(vfs::error_message(d.error()))};
        one(*d);
    }
    s.out(o);
    return 0;
}

int cmd_reset(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    enum class Mode { soft, mixed, hard } mode = Mode::mixed;
    bool quiet = false, dashdash = false;
    std::vector<std::string> rest, paths;
    for (const auto& x : a) {
        if (dashdash) paths.push_back(x);
        else if (x == "--") dashdash = true;
        else if (x == "--soft") mode = Mode::soft;
        else if (x == "--mixed") mode = Mode::mixed;
        else if (x == "--hard") mode = Mode::hard;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option '" + x + "'", 129};
        else rest.push_back(x);
    }
    std::string rev = "HEAD";
    if (!rest.empty()) {
        if (repo.rev_parse(rest[0] + "^{commit}")) {
            rev = rest[0];
            paths.insert(paths.begin(), rest.begin() + 1, rest.end());
        } else {
            // Not a revision: paths, which must be there unless after "--"
            for (const auto& p : rest)
                if (!repo.fs.lstat(repo.ctx.resolve(p)))
                    throw Fatal{"ambiguous argument '" + p + "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
            paths.insert(paths.begin(), rest.begin(), rest.end());
        }
    }
    auto head = repo.head_oid();
    std::optional<std::string> target = repo.rev_parse(rev + "^{commit}");
    if (!target && !(rev == "HEAD" && !head)) throw Fatal{"ambiguous argument '" + rev + "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
    std::map<std::string, std::pair<uint32_t, std::string>> tree;
    if (target) tree = repo.flatten(repo.commit(*target).tree);
    if (!paths.empty()) {
        if (mode != Mode::mixed) throw Fatal{"Cannot do " + std::string(mode == Mode::soft ? "soft" : "hard") + " reset with paths."};
        reset_index_paths(repo, tree, paths);
    } else {
        clear_merge_state(repo);  // a reset of the whole tree ends a merge in progress, as in git
        if (!target) {
            // unborn: reset the index to empty
            if (mode != Mode::soft) repo.write_index({});
            return 0;
        }
        if (mode == Mode::hard) {
            if (!switch_trees(s, commit_tree(repo, head), repo.commit(*target).tree, true)) return 1;
        } else if (mode == Mode::mixed) {
            auto index = repo.read_index();
            std::map<std::string, IndexEntry> idx;
            for (auto& e : index) idx[e.path] = e;
            std::vector<IndexEntry> out;
            for (auto& [p, v] : tree) {
                auto it = idx.find(p);
                if (it != idx.end() && it->second.oid == v.second && it->second.mode == v.first && it->second.stage() == 0) out.push_back(it->second);
                else {
                    IndexEntry e;
                    e.path = p;
                    e.mode = v.first;
                    e.oid = v.second;
                    out.push_back(e);
                }
            }
            repo.write_index(std::move(out));
        }
        if (head) repo.write_file_atomic(repo.gitdir + "/ORIG_HEAD", *head + "\n");
        repo.update_ref("HEAD", *target, head.value_or(""), "reset: moving to " + rev);
        if (mode == Mode::hard && !quiet) {
            Commit c = repo.commit(*target);
            s.out("HEAD is now at " + repo.abbrev(*target) + " " + c.message.substr(0, c.message.find('\n')) + "\n");
            return 0;
        }
    }
    if (mode == Mode::mixed && !quiet) {
        StatusData st = compute_status(repo, false, false);
        std::string o;
        for (auto& c : st.changes)
            if (c.y != ' ') o += std::string(1, c.y) + "\t" + relative_to_prefix(c.path, repo.prefix) + "\n";
        if (!o.empty()) s.out("Unstaged changes after reset:\n" + o);
    }
    return 0;
}

std::string merge_title_into(Repo& repo, const std::string& title) {
    std::string cur = current_branch(repo);
    return !cur.empty() && cur != "main" && cur != "master" ? title + " into " + cur : title;
}

namespace {
// The first line of a merge commit's message for `git merge <name>`, as git's fmt-merge-msg writes it.
std::string merge_title(Repo& repo, const std::string& name) {
    std::string kind = "commit";
    if (repo.resolve_ref("refs/heads/" + name)) kind = "branch";
    else if (repo.resolve_ref("refs/remotes/" + name)) kind = "remote-tracking branch";
    else if (repo.resolve_ref("refs/tags/" + name)) kind = "tag";
    return merge_title_into(repo, "Merge " + kind + " '" + name + "'");
}

// The " f | 2 +-" lines, summary and create/delete modes of what moved from one tree to another.
std::string tree_diffstat(Repo& repo, const std::string& from_tree, const std::string& to_tree) {
    auto before = repo.flatten(from_tree), after = repo.flatten(to_tree);
    std::set<std::string> paths;
    for (auto& [p, v] : before) paths.insert(p);
    for (auto& [p, v] : after) paths.insert(p);
    std::vector<std::pair<std::string, DiffStats>> rows;
    std::string modes;
    int ins = 0, del = 0;
    for (auto& p : paths) {
        check_cancel(repo.ctx);
        auto b = before.find(p), f = after.find(p);
        if (b != before.end() && f != after.end() && b->second == f->second) continue;
        std::string da = b != before.end() ? repo.read(b->second.second).data : "";
        std::string db = f != after.end() ? repo.read(f->second.second).data : "";
        DiffStats d = count_changes(repo.ctx, da, db);
        rows.emplace_back(p, d);
        ins += d.added;
        del += d.deleted;
        if (b == before.end()) modes += " create mode " + mode_string(f->second.first) + " " + p + "\n";
        else if (f == after.end()) modes += " delete mode " + mode_string(b->second.first) + " " + p + "\n";
    }
    std::string o = diffstat_lines(rows);
    if (!rows.empty()) o += stat_summary(int(rows.size()), ins, del);
    return o + modes;
}

// `git merge --abort`: the index and work tree back to HEAD for what the merge touched.
int merge_abort(Invocation& s, Repo& repo) {
    if (!repo.fs.stat(repo.gitdir + "/MERGE_HEAD")) throw Fatal{"There is no merge to abort (MERGE_HEAD missing)."};
    auto head = repo.head_oid();
    std::string tree = head ? repo.commit(*head).tree : kEmptyTreeOid;
    if (!switch_trees(s, tree, tree, true, "merge")) return 1;
    clear_merge_state(repo);
    return 0;
}
}  // namespace

int cmd_merge(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool ff_only = false, no_ff = false, quiet = false, no_commit = false, abort = false, cont = false;
    std::optional<std::string> message;
    std::vector<std::string> rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "--ff-only") ff_only = true;
        else if (x == "--no-ff") no_ff = true;
        else if (x == "--ff") no_ff = ff_only = false;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--no-commit") no_commit = true;
        else if (x == "--commit") no_commit = false;
        else if (x == "--abort") abort = true;
        else if (x == "--continue") cont = true;
        else if ((x == "-m" || x == "--message") && i + 1 < a.size()) message = a[++i];
        else if (x.starts_with("--message=")) message = x.substr(10);
        else if (x == "--no-edit" || x == "--edit" || x == "-e" || x == "--stat" || x == "--no-stat" || x == "-n" ||
                 x == "--no-verify" || x == "--no-progress" || x == "--progress" || x == "-v" || x == "--verbose") {
        } else if (x == "-s" || x == "--strategy" || x == "-X" || x == "--strategy-option") {
            if (i + 1 < a.size()) ++i;  // ort is the only strategy: its name and options are accepted and ignored
        } else if (x.size() > 1 && x[0] == '-') {
            throw Fatal{"option '" + x + "' is not available in this sandbox's merge", 129};
        } else {
            rest.push_back(x);
        }
    }
    if (abort) return merge_abort(s, repo);
    if (cont) {
        if (!repo.fs.stat(repo.gitdir + "/MERGE_HEAD")) throw Fatal{"There is no merge in progress (MERGE_HEAD missing)."};
        return cmd_commit(s, {});  // as if an editor had accepted MERGE_MSG (there is none here)
    }
    for (auto& e : repo.read_index())
        if (e.stage() != 0) {
            s.err("error: Merging is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\n");
            throw Fatal{"Exiting because of an unresolved conflict."};
        }
    if (repo.fs.stat(repo.gitdir + "/MERGE_HEAD"))
        throw Fatal{"You have not concluded your merge (MERGE_HEAD exists).\nPlease, commit your changes before you merge."};
    if (rest.size() != 1) throw Fatal{rest.empty() ? "No remote for the current branch." : "merge of one branch at a time only in this sandbox (no octopus merge)"};
    auto other = repo.rev_parse(rest[0] + "^{commit}");
    if (!other) throw Fatal{"merge: " + rest[0] + " - not something we can merge", 1, false};
    MergeRequest req;
    req.other = *other;
    req.label = rest[0];
    req.title = merge_title(repo, rest[0]);
    req.reflog = "merge " + rest[0];
    req.message = message;
    req.ff_only = ff_only;
    req.no_ff = no_ff;
    req.no_commit = no_commit;
    req.quiet = quiet;
    return run_merge(s, req);
}

int run_merge(Invocation& s, const MergeRequest& req) {
    Repo& repo = s.need_worktree();
    const bool ff_only = req.ff_only, no_ff = req.no_ff, no_commit = req.no_commit, quiet = req.quiet;
    auto head = repo.head_oid();
    const std::optional<std::string> other = req.other;
    if (!head) {
        if (!switch_trees(s, "", repo.commit(*other).tree, false, "merge")) return 1;
        repo.update_ref("HEAD", *other, "", "initial pull");
        return 0;
    }
    if (*head == *other || is_ancestor(repo, *other, *head)) {
        if (!quiet) s.out("Already up to date.\n");
        return 0;
    }
    const std::string head_tree = repo.commit(*head).tree, other_tree = repo.commit(*other).tree;
    if (is_ancestor(repo, *head, *other) && !no_ff) {
        if (!quiet) s.out("Updating " + repo.abbrev(*head) + ".." + repo.abbrev(*other) + "\n");
        if (!switch_trees(s, head_tree, other_tree, false, "merge")) return 1;
        repo.write_file_atomic(repo.gitdir + "/ORIG_HEAD", *head + "\n");
        repo.update_ref("HEAD", *other, *head, req.reflog + ": Fast-forward");
        if (!quiet) s.out("Fast-forward\n" + tree_diffstat(repo, head_tree, other_tree));
        return 0;
    }
    if (ff_only) throw Fatal{"Not possible to fast-forward, aborting."};

    auto bases = merge_bases(repo, *head, *other);
    std::string base_tree = bases.empty() ? std::string() : repo.commit(bases[0]).tree;
    TreeMerge m = merge_trees(s, base_tree, head_tree, other_tree, "HEAD", req.label, "merge");
    if (m.refused) {
        s.err("Merge with strategy ort failed.\n");
        return 2;
    }
    std::string o;
    for (auto& line : m.messages) o += line + "\n";
    repo.write_file_atomic(repo.gitdir + "/ORIG_HEAD", *head + "\n");
    std::string msg = req.message ? *req.message + "\n" : req.title + "\n";
    if (!m.conflicts.empty() || no_commit) {
        // What `git commit` (or `merge --continue`) concludes with.
        std::string saved = msg;
        if (!m.conflicts.empty()) {
            saved += "\n# Conflicts:\n";
            for (auto& p : m.conflicts) saved += "#\t" + p + "\n";
        }
        repo.write_file_atomic(repo.gitdir + "/MERGE_HEAD", *other + "\n");
        repo.write_file_atomic(repo.gitdir + "/MERGE_MSG", saved);
        repo.write_file_atomic(repo.gitdir + "/MERGE_MODE", no_ff ? "no-ff" : "");
        if (!m.conflicts.empty()) {
            s.out(o + "Automatic merge failed; fix conflicts and then commit the result.\n");
            return 1;
        }
        s.out(o);
        s.err("Automatic merge went well; stopped before committing as requested\n");
        return 0;
    }
    std::string tree = write_tree_from_index(repo, repo.read_index());
    Signature author = repo.identity(false), committer = repo.identity(true);
    std::string body = "tree " + tree + "\nparent " + *head + "\nparent " + *other + "\nauthor " + author.raw +
                       "\ncommitter " + committer.raw + "\n\n" + msg;
    std::string oid = repo.write(ObjType::commit, body);
    repo.update_ref("HEAD", oid, *head, req.reflog + ": Merge made by the 'ort' strategy.");
    // -q leaves out the summary, not the merge's own messages ("Auto-merging f"), as in git
    s.out(quiet ? o : o + "Merge made by the 'ort' strategy.\n" + tree_diffstat(repo, head_tree, tree));
    return 0;
}

}  // namespace bashkit::utils::git

namespace bashkit::utils::git {

int cmd_restore(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool staged = false, worktree = false, dashdash = false;
    std::string source;
    std::vector<std::string> paths;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (dashdash) paths.push_back(x);
        else if (x == "--") dashdash = true;
        else if (x == "-S" || x == "--staged") staged = true;
        else if (x == "-W" || x == "--worktree") worktree = true;
        else if ((x == "-s" || x == "--source") && i + 1 < a.size()) source = a[++i];
        else if (x.starts_with("--source=")) source = x.substr(9);
        else if (x == "-q" || x == "--quiet") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option '" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else paths.push_back(x);
    }
    if (paths.empty()) throw Fatal{"you must specify path(s) to restore"};
    if (!staged) worktree = true;
    std::string src = source.empty() && staged ? "HEAD" : source;
    std::map<std::string, std::pair<uint32_t, std::string>> tree;
    if (!src.empty()) {
        auto t = repo.rev_parse(src + "^{tree}");
        if (!t) {
            throw Fatal{"could not resolve " + src};  // an unborn HEAD too, as git says
        }
        tree = *t == kEmptyTreeOid ? tree : repo.flatten(*t);
    }
    // every path must name something in the source (or the index)
    auto index = repo.read_index();
    for (auto& p : paths) {
        std::string spec = to_repo_path(repo, p);
        auto matches = [&](const std::string& x) { return spec.empty() || x == spec || (x.starts_with(spec) && x[spec.size()] == '/'); };
        bool found = false;
        for (auto& [k, v] : tree) found = found || matches(k);
        for (auto& e : index) found = found || matches(e.path);
        if (!found) {
            s.err("error: pathspec '" + p + "' did not match any file(s) known to git\n");
            return 1;
        }
    }
    if (staged) reset_index_paths(repo, tree, paths);
    if (worktree) {
        if (src.empty()) return checkout_paths(s, repo, "", paths);
        // from a commit into the work tree only (the index stays unless --staged)
        for (auto& p : paths) {
            std::string spec = to_repo_path(repo, p);
            for (auto& [k, v] : tree) {
                if (!(spec.empty() || k == spec || (k.starts_with(spec) && k[spec.size()] == '/'))) continue;
                Object o = repo.read_typed(v.second, ObjType::blob);
                std::string ap = repo.abs_of(k);
                (void)repo.fs.mkdir_all(vfs::path_dirname(ap), 0755);
                (void)repo.fs.unlink(ap);
                if (v.first == 0120000) (void)repo.fs.symlink(o.data, ap);
                else if (auto r = repo.fs.write_file(ap, o.data, v.first == 0100755 ? 0755 : 0644); !r)
                    throw Fatal{"unable to write file " + k};
            }
        }
    }
    return 0;
}

int cmd_mv(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool force = false, verbose = false, dry = false, skip_errors = false;
    std::vector<std::string> args;
    for (const auto& x : a) {
        if (x == "-f" || x == "--force") force = true;
        else if (x == "-v" || x == "--verbose") verbose = true;
        else if (x == "-n" || x == "--dry-run") dry = true;
        else if (x == "-k") skip_errors = true;
        else if (x == "--") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option '" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else args.push_back(x);
    }
    if (args.size() < 2) {
        s.err("usage: git mv [<options>] <source>... <destination>\n");
        return 129;
    }
    std::string dst_arg = args.back();
    args.pop_back();
    std::string dst = to_repo_path(repo, dst_arg);
    auto dst_st = repo.fs.stat(repo.abs_of(dst));
    bool into_dir = (dst_st && dst_st->is_directory()) || dst.empty();
    if (args.size() > 1 && !into_dir) throw Fatal{"destination '" + dst_arg + "' is not a directory"};
    auto index = repo.read_index();
    std::map<std::string, IndexEntry> idx;
    for (auto& e : index) idx[e.path] = e;
    std::vector<std::pair<std::string, std::string>> moves;  // repo paths
    for (auto& src_arg : args) {
        std::string src = to_repo_path(repo, src_arg);
        std::string base = src.substr(src.rfind('/') + 1);
        std::string to = into_dir ? (dst.empty() ? base : dst + "/" + base) : dst;
        std::string shown_to = into_dir ? (dst_arg.ends_with("/") ? dst_arg : dst_arg + "/") + base : dst_arg;
        auto st = repo.fs.lstat(repo.abs_of(src));
        auto fail = [&](const std::string& why) {
            if (skip_errors) return;
            throw Fatal{why + ", source=" + src_arg + ", destination=" + shown_to};
        };
        if (!st) {
            fail("bad source");
            continue;
        }
        bool tracked = idx.count(src) > 0;
        if (st->is_directory())
            for (auto& [k, e] : idx) tracked = tracked || k.starts_with(src + "/");
        if (!tracked) {
            fail("not under version control");
            continue;
        }
        if (to == src || to.starts_with(src + "/")) {
            fail("can not move directory into itself");
            continue;
        }
        if (repo.fs.lstat(repo.abs_of(to))) {
            if (!force || st->is_directory()) {
                fail("destination exists");
                continue;
            }
        }
        moves.emplace_back(src, to);
    }
    if (dry)
        for (auto& [src, to] : moves) s.out("Checking rename of '" + src + "' to '" + to + "'\n");
    for (auto& [src, to] : moves) {
        check_cancel(repo.ctx);
        if (verbose || dry) s.out("Renaming " + src + " to " + to + "\n");
        if (dry) continue;
        (void)repo.fs.unlink(repo.abs_of(to));
        if (auto r = repo.fs.rename(repo.abs_of(src), repo.abs_of(to)); !r)
            throw Fatal{"renaming '" + src + "' failed: " + std::string(vfs::error_message(r.error()))};
        std::vector<IndexEntry> moved;
        for (auto it = idx.begin(); it != idx.end();) {
            if (it->first == src || it->first.starts_with(src + "/")) {
                IndexEntry e = it->second;
                e.path = to + it->first.substr(src.size());
                moved.push_back(e);
                it = idx.erase(it);
            } else {
                ++it;
            }
        }
        idx.erase(to);
        for (auto& e : moved) idx[e.path] = e;
    }
    if (!dry) {
        std::vector<IndexEntry> out;
        for (auto& [k, e] : idx) out.push_back(e);
        repo.write_index(std::move(out));
    }
    return 0;
}

}  // namespace bashkit::utils::git

namespace bashkit::utils::git {

namespace {

struct StashEntry {
    std::string old_oid, oid, message;
};

std::vector<StashEntry> stash_entries(Repo& repo) {  // newest first
    std::vector<StashEntry> out;
    auto log = repo.fs.read_file(repo.gitdir + "/logs/refs/stash", kMaxConfigBytes);
    if (!log) return out;
    size_t i = 0;
    while (i < log->size()) {
        check_cancel(repo.ctx);
        size_t nl = log->find('\n', i);
        if (nl == std::string::npos) nl = log->size();
        std::string line = log->substr(i, nl - i);
        i = nl + 1;
        size_t tab = line.find('\t');
        if (line.size() < 82 || tab == std::string::npos) continue;
        out.push_back({line.substr(0, 40), line.substr(41, 40), line.substr(tab + 1)});
    }
    std::reverse(out.begin(), out.end());
    return out;
}

void write_stash_log(Repo& repo, const std::vector<StashEntry>& newest_first, const std::vector<std::string>& raw_lines) {
    (void)newest_first;
    std::string text;
    for (auto& l : raw_lines) text += l + "\n";
    if (raw_lines.empty()) {
        (void)repo.fs.unlink(repo.gitdir + "/logs/refs/stash");
        (void)repo.fs.unlink(repo.gitdir + "/refs/stash");
        return;
    }
    repo.write_file_atomic(repo.gitdir + "/logs/refs/stash", text);
}

int stash_drop(Invocation& s, Repo& repo, size_t n, const std::string& label, bool quiet = false) {
    auto log = repo.fs.read_file(repo.gitdir + "/logs/refs/stash", kMaxConfigBytes);
    std::vector<std::string> lines;
    if (log) {
        size_t i = 0;
        while (i < log->size()) {
            size_t nl = log->find('\n', i);
            if (nl == std::string::npos) nl = log->size();
            if (nl > i) lines.push_back(log->substr(i, nl - i));
            i = nl + 1;
        }
    }
    if (n >= lines.size()) {
        s.err("error: " + label + " is not a valid reference\n");
        return 1;
    }
    size_t k = lines.size() - 1 - n;
    std::string oid = lines[k].substr(41, 40);
    lines.erase(lines.begin() + long(k));
    write_stash_log(repo, {}, lines);
    if (!lines.empty()) repo.write_file_atomic(repo.gitdir + "/refs/stash", lines.back().substr(41, 40) + "\n");
    if (!quiet) s.out("Dropped " + label + " (" + oid + ")\n");
    return 0;
}

}  // namespace

int cmd_stash(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    std::string sub = a.empty() || a[0].starts_with("-") ? "push" : a[0];
    Args rest(a.begin() + (a.empty() || a[0].starts_with("-") ? 0 : 1), a.end());
    if (sub == "save") sub = "push";
    auto entries = stash_entries(repo);
    auto which = [&](size_t& n, std::string& label) -> bool {
        n = 0;
        label = "refs/stash@{0}";
        for (auto& x : rest) {
            if (x.starts_with("-")) continue;
            label = x;
            std::string num = x;
            if (x.starts_with("stash@{") && x.back() == '}') num = x.substr(7, x.size() - 8);
            if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 6) {
                s.err("error: " + x + " is not a valid reference\n");
                return false;
            }
            n = size_t(std::stoul(num));
            if (!x.starts_with("stash@{")) label = "stash@{" + num + "}";
        }
        if (entries.empty()) {
            s.err("No stash entries found.\n");
            return false;
        }
        if (n >= entries.size()) {
            // git reads stash@{n} through the reflog, and names the log as the argument named it
            bool spelled = std::any_of(rest.begin(), rest.end(), [](const std::string& x) { return x.starts_with("stash@{"); });
            throw Fatal{"log for '" + std::string(spelled ? "stash" : "refs/stash") + "' only has " + std::to_string(entries.size()) + " entries"};
        }
        return true;
    };
    if (sub == "list") {
        std::string o;
        for (size_t i = 0; i < entries.size(); ++i) o += "stash@{" + std::to_string(i) + "}: " + entries[i].message + "\n";
        s.out(o);
        return 0;
    }
    bool quiet = false, restore_index = false;
    for (auto& x : rest) {
        if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--index" && (sub == "apply" || sub == "pop")) restore_index = true;
    }
    if (sub == "drop") {
        size_t n;
        std::string label;
        if (!which(n, label)) return 1;
        return stash_drop(s, repo, n, label, quiet);
    }
    if (sub == "show") {
        size_t n;
        std::string label;
        if (!which(n, label)) return 1;
        Commit w = repo.commit(entries[n].oid);
        Args d{w.parents.empty() ? kEmptyTreeOid : w.parents[0], entries[n].oid};
        bool patch = false;
        for (auto& x : rest)
            if (x == "-p" || x == "--patch") patch = true;
        if (!patch) d.push_back("--stat");
        return cmd_diff(s, d);
    }
    if (sub == "apply" || sub == "pop") {
        size_t n;
        std::string label;
        if (!which(n, label)) return 1;
        Commit w = repo.commit(entries[n].oid);
        if (w.parents.empty()) throw Fatal{label + " is not a stash-like commit"};
        auto base = repo.flatten(repo.commit(w.parents[0]).tree);
        auto wt = repo.flatten(w.tree);
        auto index = repo.read_index();
        int64_t im = index_mtime(repo);
        std::map<std::string, IndexEntry> idx;
        for (auto& e : index) idx[e.path] = e;
        auto head = repo.head_oid();
        auto head_flat = head ? repo.flatten(repo.commit(*head).tree) : std::map<std::string, std::pair<uint32_t, std::string>>{};
        std::set<std::string> paths;
        for (auto& [p, v] : base) paths.insert(p);
        for (auto& [p, v] : wt) paths.insert(p);
        std::vector<std::string> conflicts, changed;
        for (auto& p : paths) {
            auto b = base.find(p), t = wt.find(p);
            if (b != base.end() && t != wt.end() && b->second == t->second) continue;
            changed.push_back(p);
            auto ie = idx.find(p);
            auto h = head_flat.find(p);
            auto st = repo.fs.lstat(repo.abs_of(p));
            bool dirty = false;
            if (ie != idx.end()) {
                if (h == head_flat.end() || h->second.second != ie->second.oid) dirty = true;
                else if (st && !entry_unchanged(repo, ie->second, *st, im)) dirty = true;
                else if (!st) dirty = true;
            } else if (st) {
                dirty = t != wt.end() && Repo::hash(ObjType::blob, read_work_blob(repo, p, *st)) != t->second.second;
            }
            if (dirty) conflicts.push_back(p);
        }
        if (!conflicts.empty()) {
            std::string m = "error: Your local changes to the following files would be overwritten by merge:\n";
            for (auto& p : conflicts) m += "\t" + p + "\n";
            m += "Please commit your changes or stash them before you merge.\nAborting\n";
            s.err(m);
            StatusData now = compute_status(repo, false);
            s.out(long_status(repo, now, false));  // git shows where things stand after refusing
            return 1;
        }
        for (auto& p : changed) {
            check_cancel(repo.ctx);
            auto t = wt.find(p);
            std::string ap = repo.abs_of(p);
            if (t == wt.end()) {
                (void)repo.fs.unlink(ap);
                continue;
            }
            Object o = repo.read_typed(t->second.second, ObjType::blob);
            (void)repo.fs.mkdir_all(vfs::path_dirname(ap), 0755);
            (void)repo.fs.unlink(ap);
            if (t->second.first == 0120000) (void)repo.fs.symlink(o.data, ap);
            else if (auto r = repo.fs.write_file(ap, o.data, t->second.first == 0100755 ? 0755 : 0644); !r)
                throw Fatal{"unable to write file " + p};
            if (!base.count(p)) {
                if (auto st = repo.fs.lstat(ap)) idx[p] = entry_from_stat(p, *st, t->second.second);
            }
        }
        // --index: what was staged is staged again (the stash's second parent holds the index)
        if (restore_index && w.parents.size() > 1) {
            auto staged = repo.flatten(repo.commit(w.parents[1]).tree);
            std::set<std::string> staged_paths;
            for (auto& [p, v] : base) staged_paths.insert(p);
            for (auto& [p, v] : staged) staged_paths.insert(p);
            for (auto& p : staged_paths) {
                check_cancel(repo.ctx);
                auto b = base.find(p), x = staged.find(p);
                if (b != base.end() && x != staged.end() && b->second == x->second) continue;
                if (x == staged.end()) {
                    idx.erase(p);
                    continue;
                }
                auto st = repo.fs.lstat(repo.abs_of(p));
                IndexEntry e;
                if (st && Repo::hash(ObjType::blob, read_work_blob(repo, p, *st)) == x->second.second) e = entry_from_stat(p, *st, x->second.second);
                else e.path = p, e.oid = x->second.second, e.flags = uint16_t(std::min<size_t>(p.size(), 0xfff));
                e.mode = x->second.first;
                idx[p] = e;
            }
        }
        std::vector<IndexEntry> out;
        for (auto& [k, e] : idx) out.push_back(e);
        repo.write_index(std::move(out));
        if (!quiet) {
            StatusData st = compute_status(repo, false);
            s.out(long_status(repo, st, false));
        }
        if (sub == "pop") return stash_drop(s, repo, n, label, quiet);
        return 0;
    }
    if (sub != "push") throw Fatal{"unknown stash subcommand '" + sub + "' in this sandbox (push, list, show, apply, pop, drop)", 129};
    std::string msg;
    for (size_t i = 0; i < rest.size(); ++i) {
        if ((rest[i] == "-m" || rest[i] == "--message") && i + 1 < rest.size()) msg = rest[++i];
        else if (rest[i] == "-q" || rest[i] == "--quiet") quiet = true;
        else if (rest[i].starts_with("-")) throw Fatal{"stash option '" + rest[i] + "' is not available in this sandbox", 129};
        else throw Fatal{"stash push with paths is not available in this sandbox", 129};
    }
    auto head = repo.head_oid();
    if (!head) throw Fatal{"You do not have the initial commit yet", 1};
    StatusData st = compute_status(repo, false, false);
    if (st.changes.empty()) {
        s.out("No local changes to save\n");
        return 0;
    }
    Commit hc = repo.commit(*head);
    std::string branch = current_branch(repo);
    std::string where = (branch.empty() ? "(no branch)" : branch);
    std::string subject = hc.message.substr(0, hc.message.find('\n'));
    std::string desc = repo.abbrev(*head) + " " + subject;
    auto index = repo.read_index();
    std::string itree = write_tree_from_index(repo, index);
    Signature me = repo.identity(true);
    std::string icommit = repo.write(ObjType::commit, "tree " + itree + "\nparent " + *head + "\nauthor " + me.raw + "\ncommitter " +
                                                           me.raw + "\n\nindex on " + where + ": " + desc + "\n");
    std::vector<IndexEntry> work;
    int64_t im = index_mtime(repo);
    for (auto& e : index) {
        check_cancel(repo.ctx);
        auto fst = repo.fs.lstat(repo.abs_of(e.path));
        if (!fst || fst->is_directory()) continue;
        if (entry_unchanged(repo, e, *fst, im)) {
            work.push_back(e);
            continue;
        }
        IndexEntry w = entry_from_stat(e.path, *fst, repo.write(ObjType::blob, read_work_blob(repo, e.path, *fst)));
        work.push_back(w);
    }
    std::string wtree = write_tree_from_index(repo, work);
    std::string message = msg.empty() ? "WIP on " + where + ": " + desc : "On " + where + ": " + msg;
    std::string wcommit = repo.write(ObjType::commit, "tree " + wtree + "\nparent " + *head + "\nparent " + icommit + "\nauthor " +
                                                          me.raw + "\ncommitter " + me.raw + "\n\n" + message);
    std::string old = entries.empty() ? kNullOid : entries.front().oid;
    repo.write_file_atomic(repo.gitdir + "/refs/stash", wcommit + "\n");
    (void)repo.fs.mkdir_all(repo.gitdir + "/logs/refs", 0755);
    (void)repo.fs.append_file(repo.gitdir + "/logs/refs/stash", old + " " + wcommit + " " + me.raw + "\t" + message + "\n");
    if (!switch_trees(s, hc.tree, hc.tree, true)) return 1;
    if (!quiet) s.out("Saved working directory and index state " + message + "\n");
    return 0;
}

}  // namespace bashkit::utils::git

namespace bashkit::utils::git {

namespace {

const char* const kSymbolicRefUsage =
    "usage: git symbolic-ref [-m <reason>] <name> <ref>\n"
    "   or: git symbolic-ref [-q] [--short] [--no-recurse] <name>\n"
    "   or: git symbolic-ref --delete [-q] <name>\n"
    "\n"
    "    -q, --quiet           suppress error message for non-symbolic (detached) refs\n"
    "    -d, --delete          delete symbolic ref\n"
    "    --short               shorten ref output\n"
    "    --recurse             recursively dereference (default)\n"
    "    -m <reason>           reason of the update\n"
    "\n";

const char* const kUpdateRefUsage =
    "usage: git update-ref [<options>] -d <refname> [<old-val>]\n"
    "   or: git update-ref [<options>]    <refname> <new-val> [<old-val>]\n"
    "   or: git update-ref [<options>] --stdin [-z]\n"
    "\n"
    "    -m <reason>           reason of the update\n"
    "    -d                    delete the reference\n"
    "    --no-deref            update <refname> not the one it points to\n"
    "    -z                    stdin has NUL-terminated arguments\n"
    "    --stdin               read updates from stdin\n"
    "    --create-reflog       create a reflog\n"
    "\n";

// parse-options' complaint about an option it does not know, then the usage: status 129.
int unknown_option(Invocation& s, const std::string& x, const char* usage) {
    if (x.starts_with("--")) s.err("error: unknown option `" + x.substr(2) + "'\n");
    else s.err("error: unknown switch `" + x.substr(1, 1) + "'\n");
    s.err(usage);
    return 129;
}

}  // namespace

int cmd_symbolic_ref(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    bool quiet = false, short_ = false, del = false;
    std::vector<std::string> rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--short") short_ = true;
        else if (x == "-d" || x == "--delete") del = true;
        else if (x == "--recurse" || x == "--no-recurse") {
        } else if (x == "-m" && i + 1 < a.size()) ++i;  // the reason of a reflog entry: none is written
        else if (x.starts_with("-m") && x.size() > 2) {
        } else if (x.size() > 1 && x[0] == '-') return unknown_option(s, x, kSymbolicRefUsage);
        else rest.push_back(x);
    }
    if (rest.empty() || rest.size() > 2 || (del && rest.size() != 1)) {
        s.err(kSymbolicRefUsage);
        return 129;
    }
    if (del) {
        if (rest[0] == "HEAD") throw Fatal{"deleting 'HEAD' is not allowed"};
        auto raw = repo.read_ref_raw(rest[0]);
        if (!raw || !raw->starts_with("ref: ")) throw Fatal{"Cannot delete " + rest[0] + ", not a symbolic ref"};  // even with -q
        repo.delete_ref(rest[0]);
        return 0;
    }
    if (rest.size() == 2) {
        if (!rest[1].starts_with("refs/")) throw Fatal{"Refusing to point " + rest[0] + " outside of refs/"};
        repo.set_symref(rest[0], rest[1]);
        return 0;
    }
    auto raw = repo.read_ref_raw(rest[0]);
    if (!raw || !raw->starts_with("ref: ")) {
        if (quiet) return 1;
        throw Fatal{"ref " + rest[0] + " is not a symbolic ref"};
    }
    std::string target = raw->substr(5);
    if (short_ && target.starts_with("refs/heads/")) target = target.substr(11);
    else if (short_ && target.starts_with("refs/tags/")) target = target.substr(10);
    s.out(target + "\n");
    return 0;
}

// update-ref <ref> <new> [<old>], update-ref -d <ref> [<old>]: the ref a symbolic ref points to unless
// --no-deref; <old> checks the current value first (all zeros: the ref must not exist). A failed update is
// git's "fatal: update_ref failed for ref ..." (128), a failed delete "error: ..." (1).
int cmd_update_ref(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    bool del = false, no_deref = false;
    std::optional<std::string> msg;
    std::vector<std::string> rest;
    bool dashdash = false;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (dashdash || x.size() < 2 || x[0] != '-') rest.push_back(x);
        else if (x == "--") dashdash = true;
        else if (x == "-d") del = true;
        else if (x == "--no-deref") no_deref = true;
        else if (x == "--create-reflog") {
        } else if (x == "-m") {
            if (i + 1 >= a.size()) {
                s.err("error: switch `m' requires a value\n");
                s.err(kUpdateRefUsage);
                return 129;
            }
            msg = a[++i];
        } else if (x.starts_with("-m")) msg = x.substr(2);
        else if (x == "--stdin" || x == "-z") throw Fatal{"update-ref --stdin is not supported here"};
        else return unknown_option(s, x, kUpdateRefUsage);
    }
    if (rest.empty() || rest.size() > (del ? 2u : 3u) || (!del && rest.size() < 2)) {
        s.err(kUpdateRefUsage);
        return 129;
    }
    if (msg && msg->empty()) throw Fatal{"Refusing to perform update with empty message."};
    const std::string& name = rest[0];
    // the ref written: through symbolic refs unless --no-deref
    std::string target = name;
    for (int depth = 0; !no_deref && depth < 5; ++depth) {
        auto raw = repo.read_ref_raw(target);
        if (!raw || !raw->starts_with("ref: ")) break;
        target = raw->substr(5);
    }
    std::optional<std::string> current;
    if (auto raw = repo.read_ref_raw(target); raw && !raw->starts_with("ref: ")) current = *raw;
    // The reason a lock of the ref fails against <old>, or "".
    auto check_old = [&](const std::string& old) -> std::string {
        if (old == kNullOid) return current ? "cannot lock ref '" + name + "': reference already exists" : "";
        auto want = repo.rev_parse(old);
        if (!want) throw Fatal{old + ": not a valid old SHA1"};
        if (!current) return "cannot lock ref '" + name + "': unable to resolve reference '" + target + "'";
        if (*current != *want) return "cannot lock ref '" + name + "': is at " + *current + " but expected " + *want;
        return "";
    };
    if (del) {
        if (rest.size() == 2)
            if (std::string why = check_old(rest[1]); !why.empty()) {
                s.err("error: " + why + "\n");
                return 1;
            }
        if (current) repo.delete_ref(target);
        return 0;
    }
    auto oid = repo.rev_parse(rest[1]);
    if (!oid) throw Fatal{rest[1] + ": not a valid SHA1"};
    const std::string failed = "update_ref failed for ref '" + name + "': ";
    if (!Repo::valid_ref_name(name) && name != "HEAD") throw Fatal{failed + "refusing to update ref with bad name '" + name + "'"};
    if (rest.size() == 3)
        if (std::string why = check_old(rest[2]); !why.empty()) throw Fatal{failed + why};
    if (target.starts_with("refs/heads/") && repo.read(*oid).type != ObjType::commit)
        throw Fatal{failed + "cannot update ref '" + target + "': trying to write non-commit object " + *oid + " to branch '" + target + "'"};
    Repo::RefWrite how;
    how.deref = false;
    how.log_without_message = true;
    repo.update_ref(target, *oid, current.value_or(""), msg.value_or(""), how);
    return 0;
}

}  // namespace bashkit::utils::git
