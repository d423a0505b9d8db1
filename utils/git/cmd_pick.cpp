// `cherry-pick` and `rebase` (non-interactive, of a linear branch): each commit is applied on HEAD with the
// three-way merge of merge.cpp (base: the commit's parent), and committed again with its author and
// message. A conflict stops the sequence with git's messages; `--continue`, `--skip` and `--abort` take it up.
//
// State on disk, as git's sequencer keeps it: CHERRY_PICK_HEAD for a stopped cherry-pick, and
// .git/rebase-merge/ (head-name, onto, orig-head, the `pick` lines left in `git-rebase-todo` and those run in
// `done`, `stopped-sha`) for a rebase; `git status` reads them back.
// Not done: interactive rebase, --exec, --autosquash, rebasing merges (--rebase-merges; merge commits are
// dropped, as git does by default).
#include <algorithm>
#include <set>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

namespace {

// git's usage text of cherry-pick, printed when no commit is named.
const char* const kCherryPickUsage =
    "usage: git cherry-pick [--edit] [-n] [-m <parent-number>] [-s] [-x] [--ff]\n"
    "                       [-S[<keyid>]] <commit>...\n"
    "   or: git cherry-pick (--continue | --skip | --abort | --quit)\n\n"
    "    --quit                end revert or cherry-pick sequence\n"
    "    --continue            resume revert or cherry-pick sequence\n"
    "    --abort               cancel revert or cherry-pick sequence\n"
    "    --skip                skip current commit and continue\n"
    "    --cleanup <mode>      how to strip spaces and #comments from message\n"
    "    -n, --no-commit       don't automatically commit\n"
    "    -e, --edit            edit the commit message\n"
    "    -s, --signoff         add a Signed-off-by trailer\n"
    "    -m, --mainline <parent-number>\n"
    "                          select mainline parent\n"
    "    --rerere-autoupdate   update the index with reused conflict resolution if possible\n"
    "    --strategy <strategy>\n"
    "                          merge strategy\n"
    "    -X, --strategy-option <option>\n"
    "                          option for merge strategy\n"
    "    -S, --gpg-sign[=<key-id>]\n"
    "                          GPG sign commit\n"
    "    -x                    append commit name\n"
    "    --ff                  allow fast-forward\n"
    "    --allow-empty         preserve initially empty commits\n"
    "    --allow-empty-message\n"
    "                          allow commits with empty messages\n"
    "    --keep-redundant-commits\n"
    "                          keep redundant, empty commits\n";

std::string subject_of(const Commit& c) { return c.message.substr(0, c.message.find('\n')); }

std::string current_branch_name(Repo& repo) {
    std::string h = repo.head_ref();
    return h.starts_with("refs/heads/") ? h.substr(11) : "HEAD";
}

// `git rebase <upstream> <branch>` first checks out the branch.
bool switch_branch_for_rebase(Invocation& s, const std::string& name) { return cmd_checkout(s, {"-q", name}) == 0; }

// Writes a commit of tree on parents with c's author and message; HEAD (attached or not) moves to it.
std::string recommit(Repo& repo, const Commit& c, const std::string& tree, const std::string& parent,
                     const std::string& reflog) {
    Signature committer = repo.identity(true);
    std::string body = "tree " + tree + "\nparent " + parent + "\nauthor " + c.author.raw + "\ncommitter " + committer.raw +
                       "\n\n" + c.message;
    std::string oid = repo.write(ObjType::commit, body);
    repo.update_ref("HEAD", oid, parent, reflog + ": " + subject_of(c));
    return oid;
}

// What a picked commit's `[branch abc1234] subject` block says (git prints the author date for a pick).
std::string pick_report(Repo& repo, const std::string& oid, const Commit& c, const std::string& parent_tree,
                        const std::string& tree) {
    std::string href = repo.head_ref();
    std::string where = href.starts_with("refs/heads/") ? href.substr(11) : "detached HEAD";
    return "[" + where + " " + repo.abbrev(oid) + "] " + subject_of(c) + "\n Date: " +
           format_date_default(c.author.time, c.author.tz) + "\n" + commit_summary(repo, parent_tree, tree);
}

bool has_unmerged(Repo& repo) {
    for (auto& e : repo.read_index())
        if (e.stage() != 0) return true;
    return false;
}

enum class Applied { clean, empty, conflict, refused };

// Applies commit c on HEAD's tree into the index and work tree.
Applied apply(Invocation& s, Repo& repo, const Commit& c, std::string& out_messages) {
    if (c.parents.size() > 1) throw Fatal{"error: commit " + c.oid + " is a merge but no -m option was given.\nfatal: cherry-pick failed", 128, false};
    std::string base = c.parents.empty() ? std::string() : repo.commit(c.parents[0]).tree;
    std::string head_tree = repo.commit(*repo.head_oid()).tree;
    TreeMerge m = merge_trees(s, base, head_tree, c.tree, "HEAD", repo.abbrev(c.oid) + " (" + subject_of(c) + ")", "merge");
    if (m.refused) return Applied::refused;
    for (auto& line : m.messages) out_messages += line + "\n";
    if (!m.conflicts.empty()) return Applied::conflict;
    return write_tree_from_index(repo, repo.read_index()) == head_tree ? Applied::empty : Applied::clean;
}

// ---------------------------------------------------------------------------------------------------------
// cherry-pick

int pick_one(Invocation& s, Repo& repo, const std::string& oid, bool no_commit) {
    Commit c = repo.commit(oid);
    std::string messages;
    const std::string parent = *repo.head_oid();
    const std::string parent_tree = repo.commit(parent).tree;
    Applied r = apply(s, repo, c, messages);
    s.out(messages);
    if (r == Applied::refused) {
        s.err("fatal: cherry-pick failed\n");
        return 128;
    }
    if (r == Applied::conflict || no_commit) {
        if (r == Applied::conflict) {
            repo.write_file_atomic(repo.gitdir + "/CHERRY_PICK_HEAD", oid + "\n");
            repo.write_file_atomic(repo.gitdir + "/MERGE_MSG", c.message);
            s.err("error: could not apply " + repo.abbrev(oid) + "... " + subject_of(c) +
                  "\nhint: After resolving the conflicts, mark them with\nhint: \"git add/rm <pathspec>\", then run\n"
                  "hint: \"git cherry-pick --continue\".\nhint: You can instead skip this commit with \"git cherry-pick --skip\".\n"
                  "hint: To abort and get back to the state before \"git cherry-pick\",\nhint: run \"git cherry-pick --abort\".\n");
            return 1;
        }
        return 0;
    }
    if (r == Applied::empty) {
        s.out("On branch " + current_branch_name(repo) + "\nYou are currently cherry-picking commit " + repo.abbrev(oid) +
              ".\n\nnothing to commit, working tree clean\n");
        s.err("The previous cherry-pick is now empty, possibly due to conflict resolution.\nIf you wish to commit it anyway, use:\n\n"
              "    git commit --allow-empty\n\nOtherwise, please use 'git cherry-pick --skip'\n");
        repo.write_file_atomic(repo.gitdir + "/CHERRY_PICK_HEAD", oid + "\n");
        return 1;
    }
    std::string tree = write_tree_from_index(repo, repo.read_index());
    std::string n = recommit(repo, c, tree, parent, "cherry-pick");
    s.out(pick_report(repo, n, c, parent_tree, tree));
    return 0;
}

// ---------------------------------------------------------------------------------------------------------
// rebase

std::string state_dir(Repo& repo) { return repo.gitdir + "/rebase-merge"; }

std::string read_state(Repo& repo, const std::string& name) {
    auto r = repo.fs.read_file(state_dir(repo) + "/" + name, kMaxConfigBytes);
    if (!r) return "";
    std::string v = *r;
    while (!v.empty() && v.back() == '\n') v.pop_back();
    return v;
}
void write_state(Repo& repo, const std::string& name, const std::string& value) {
    repo.write_file_atomic(state_dir(repo) + "/" + name, value + "\n");
}

// A commit's change as its removed and added lines per path, without positions: two commits that make
// the same change on different bases have the same key (as git's patch-id says).
std::string patch_key(Repo& repo, const Commit& c) {
    FlatTree before = c.parents.empty() ? FlatTree{} : repo.flatten(repo.commit(c.parents[0]).tree);
    FlatTree after = repo.flatten(c.tree);
    std::set<std::string> paths;
    for (auto& [p, v] : before) paths.insert(p);
    for (auto& [p, v] : after) paths.insert(p);
    std::string key;
    for (auto& p : paths) {
        check_cancel(repo.ctx);
        auto b = before.find(p), a = after.find(p);
        if (b != before.end() && a != after.end() && b->second == a->second) continue;
        std::string da = b != before.end() ? repo.read(b->second.second).data : "";
        std::string db = a != after.end() ? repo.read(a->second.second).data : "";
        key += "\n>" + p + "\n";
        std::string h = unified_hunks(repo.ctx, da, db, 0, nullptr);
        for (size_t i = 0; i < h.size();) {
            size_t e = h.find('\n', i);
            if (e == std::string::npos) e = h.size();
            if (h[i] != '@') key.append(h, i, e - i + 1);
            i = e + 1;
        }
    }
    return key;
}

// The commits of HEAD's first-parent line not in upstream, oldest first (merges dropped).
std::vector<std::string> commits_to_replay(Repo& repo, const std::string& head, const std::string& upstream) {
    const std::set<std::string> in_upstream = ancestors(repo, upstream);
    std::vector<std::string> out;
    for (std::string c = head; !in_upstream.count(c);) {
        check_cancel(repo.ctx);
        Commit cm = repo.commit(c);
        if (cm.parents.size() <= 1) out.push_back(c);
        if (cm.parents.empty()) break;
        c = cm.parents[0];
    }
    std::reverse(out.begin(), out.end());
    return out;
}

// git's progress line is cleared before its last message: an escape sequence, or spaces on a dumb terminal.
std::string clear_line(Invocation& s) {
    auto term = s.ctx.env.get("TERM");
    if (!term || *term == "dumb") {
        int cols = 80;
        if (auto c = s.ctx.env.get("COLUMNS"); c && !c->empty() && c->size() < 5 && std::all_of(c->begin(), c->end(), ::isdigit))
            cols = std::max(1, std::stoi(*c));
        return "\r" + std::string(size_t(cols), ' ') + "\r";
    }
    return "\r\033[K";
}

int rebase_finish(Invocation& s, Repo& repo, bool quiet) {
    std::string head_name = read_state(repo, "head-name"), onto = read_state(repo, "onto");
    std::string head = *repo.head_oid();
    if (head_name.starts_with("refs/heads/")) {
        std::string old = read_state(repo, "orig-head");
        repo.write_file_atomic(repo.gitdir + "/" + head_name, head + "\n");
        repo.set_symref("HEAD", head_name);
        (void)old;
    }
    (void)repo.fs.remove_all(state_dir(repo));
    if (!quiet) s.err(clear_line(s) + "Successfully rebased and updated " + head_name + ".\n");
    return 0;
}

// Replays the commits left in the todo list; stops at a conflict.
int rebase_run(Invocation& s, Repo& repo, bool quiet) {
    for (;;) {
        check_cancel(repo.ctx);
        std::string todo = read_state(repo, "git-rebase-todo");
        if (todo.empty()) return rebase_finish(s, repo, quiet);
        size_t nl = todo.find('\n');
        std::string line = todo.substr(0, nl);
        write_state(repo, "git-rebase-todo", nl == std::string::npos ? "" : todo.substr(nl + 1));
        std::string done_list = read_state(repo, "done");
        write_state(repo, "done", done_list.empty() ? line : done_list + "\n" + line);
        // "pick <oid> <subject>"; comments and blank lines say nothing
        if (line.empty() || line[0] == '#') continue;
        size_t w = line.find(' ');
        std::string oid = w == std::string::npos ? "" : line.substr(w + 1, line.find(' ', w + 1) - w - 1);
        if (!line.starts_with("pick ") || !is_hex_oid(oid)) throw Fatal{"invalid line in the rebase todo list: " + line};
        int done = std::stoi("0" + read_state(repo, "msgnum")) + 1, end = std::stoi("0" + read_state(repo, "end"));
        write_state(repo, "msgnum", std::to_string(done));
        if (!quiet) s.err("Rebasing (" + std::to_string(done) + "/" + std::to_string(end) + ")\r");
        Commit c = repo.commit(oid);
        std::string messages;
        const std::string parent = *repo.head_oid();
        Applied r = apply(s, repo, c, messages);
        if (r == Applied::refused) return 1;
        if (r == Applied::conflict) {
            write_state(repo, "stopped-sha", oid);
            repo.write_file_atomic(repo.gitdir + "/MERGE_MSG", c.message);
            s.out(messages);
            std::string what = repo.abbrev(oid) + "... " + subject_of(c);
            s.err("error: could not apply " + what +
                  "\nhint: Resolve all conflicts manually, mark them as resolved with\n"
                  "hint: \"git add/rm <conflicted_files>\", then run \"git rebase --continue\".\n"
                  "hint: You can instead skip this commit: run \"git rebase --skip\".\n"
                  "hint: To abort and get back to the state before \"git rebase\", run \"git rebase --abort\".\n");
            s.out("Could not apply " + what + "\n");
            return 1;
        }
        if (!quiet) s.out(messages);
        if (r == Applied::empty) continue;  // its change is already there
        recommit(repo, c, write_tree_from_index(repo, repo.read_index()), parent, "rebase (pick)");
    }
}

}  // namespace

int cmd_cherry_pick(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool no_commit = false, abort = false, cont = false, skip = false;
    std::vector<std::string> revs;
    for (const auto& x : a) {
        if (x == "-n" || x == "--no-commit") no_commit = true;
        else if (x == "--abort") abort = true;
        else if (x == "--continue") cont = true;
        else if (x == "--skip") skip = true;
        else if (x == "--ff" || x == "--allow-empty" || x == "--keep-redundant-commits") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"option '" + x + "' is not available in this sandbox's cherry-pick", 129};
        else revs.push_back(x);
    }
    const std::string pick_head = repo.gitdir + "/CHERRY_PICK_HEAD";
    if (abort || cont || skip) {
        auto ph = repo.fs.read_file(pick_head, 4096);
        if (!ph) {
            s.err("error: no cherry-pick or revert in progress\n");
            throw Fatal{"cherry-pick failed"};
        }
        std::string oid = ph->substr(0, 40);
        if (abort || skip) {
            std::string tree = repo.commit(*repo.head_oid()).tree;
            if (!switch_trees(s, tree, tree, true, "merge")) return 1;
            (void)repo.fs.unlink(pick_head);
            (void)repo.fs.unlink(repo.gitdir + "/MERGE_MSG");
            return 0;
        }
        if (has_unmerged(repo)) {
            s.err("error: Committing is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\nfatal: Exiting because of an unresolved conflict.\n");
            s.out(unmerged_list(repo));
            return 128;
        }
        Commit c = repo.commit(oid);
        const std::string parent = *repo.head_oid(), parent_tree = repo.commit(parent).tree;
        std::string tree = write_tree_from_index(repo, repo.read_index());
        std::string n = recommit(repo, c, tree, parent, "commit (cherry-pick)");
        (void)repo.fs.unlink(pick_head);
        (void)repo.fs.unlink(repo.gitdir + "/MERGE_MSG");
        s.out(pick_report(repo, n, c, parent_tree, tree));
        return 0;
    }
    if (has_unmerged(repo)) {
        s.err("error: Cherry-picking is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\nfatal: cherry-pick failed\n");
        return 128;
    }
    if (repo.fs.stat(pick_head)) throw Fatal{"cherry-pick is already in progress\nhint: try \"git cherry-pick (--continue | --abort | --quit)\"", 128};
    if (revs.empty()) throw Fatal{kCherryPickUsage, 129, false};
    if (!repo.head_oid()) throw Fatal{"can't cherry-pick into empty head"};
    std::vector<std::string> oids;
    for (auto& r : revs) {
        if (size_t dots = r.find(".."); dots != std::string::npos) {  // A..B: B's commits not in A, oldest first
            auto from = repo.rev_parse(r.substr(0, dots) + "^{commit}"), to = repo.rev_parse(r.substr(dots + 2) + "^{commit}");
            if (!from || !to) throw Fatal{"bad revision '" + r + "'"};
            for (auto& o : commits_to_replay(repo, *to, *from)) oids.push_back(o);
            continue;
        }
        auto o = repo.rev_parse(r + "^{commit}");
        if (!o) throw Fatal{"bad revision '" + r + "'"};
        oids.push_back(*o);
    }
    for (auto& o : oids) {
        int rc = pick_one(s, repo, o, no_commit);
        if (rc != 0) return rc;
    }
    return 0;
}

int cmd_rebase(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool abort = false, cont = false, skip = false, quiet = false;
    std::optional<std::string> onto_arg;
    std::vector<std::string> rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "--abort") abort = true;
        else if (x == "--continue") cont = true;
        else if (x == "--skip") skip = true;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--onto" && i + 1 < a.size()) onto_arg = a[++i];
        else if (x.starts_with("--onto=")) onto_arg = x.substr(7);
        else if (x == "-i" || x == "--interactive") throw Fatal{"interactive rebase is not available in this sandbox (no editor)", 129};
        else if (x == "--merge" || x == "-m" || x == "--no-autosquash" || x == "--no-verify" || x == "-v" || x == "--verbose") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"option '" + x + "' is not available in this sandbox's rebase", 129};
        else rest.push_back(x);
    }
    const bool in_progress = static_cast<bool>(repo.fs.stat(state_dir(repo)));
    if (abort || cont || skip) {
        if (!in_progress) throw Fatal{"No rebase in progress?"};
        if (abort) {
            std::string orig = read_state(repo, "orig-head"), head_name = read_state(repo, "head-name");
            std::string cur_tree = repo.commit(*repo.head_oid()).tree;
            if (!switch_trees(s, cur_tree, repo.commit(orig).tree, true, "merge")) return 1;
            if (head_name.starts_with("refs/heads/")) {
                repo.write_file_atomic(repo.gitdir + "/" + head_name, orig + "\n");
                repo.set_symref("HEAD", head_name);
            } else {
                repo.write_file_atomic(repo.gitdir + "/HEAD", orig + "\n");
            }
            (void)repo.fs.remove_all(state_dir(repo));
            (void)repo.fs.unlink(repo.gitdir + "/MERGE_MSG");
            return 0;
        }
        if (skip) {
            std::string tree = repo.commit(*repo.head_oid()).tree;
            if (!switch_trees(s, tree, tree, true, "merge")) return 1;
        } else {
            if (has_unmerged(repo)) {
                s.err("error: you must edit all merge conflicts and then\nmark them as resolved using git add\n");
                return 1;
            }
            std::string stopped = read_state(repo, "stopped-sha");
            std::string tree = write_tree_from_index(repo, repo.read_index());
            const std::string parent = *repo.head_oid();
            if (!stopped.empty() && tree != repo.commit(parent).tree) {
                Commit c = repo.commit(stopped);
                std::string n = recommit(repo, c, tree, parent, "rebase (continue)");
                if (!quiet) s.out("[detached HEAD " + repo.abbrev(n) + "] " + subject_of(c) + "\n" + commit_summary(repo, repo.commit(parent).tree, tree));
            }
        }
        (void)repo.fs.unlink(repo.gitdir + "/MERGE_MSG");
        write_state(repo, "stopped-sha", "");
        return rebase_run(s, repo, quiet);
    }
    if (in_progress)
        throw Fatal{"It seems that there is already a rebase-merge directory, and\nI wonder if you are in the middle of another rebase.  If that is the\ncase, please try\n\tgit rebase (--continue | --abort | --skip)\nIf that is not the case, please\n\trm -fr \".git/rebase-merge\"\nand run me again.  I am stopping in case you still have something\nvaluable there.\n", 128};
    if (rest.size() > 2) throw Fatal{"usage: git rebase [--onto <newbase>] [<upstream> [<branch>]]", 129, false};
    if (rest.size() == 2 && !switch_branch_for_rebase(s, rest[1])) return 1;
    auto head = repo.head_oid();
    if (!head) throw Fatal{"no commits yet on this branch: nothing to rebase"};
    std::string upstream_name;
    if (!rest.empty()) {
        upstream_name = rest[0];
    } else {
        std::string cur = current_branch_name(repo);
        auto remote = repo.config.get("branch." + cur + ".remote"), merge = repo.config.get("branch." + cur + ".merge");
        if (!remote || !merge)
            throw Fatal{"There is no tracking information for the current branch.\nPlease specify which branch you want to rebase against.\nSee git-rebase(1) for details.\n\n    git rebase '<branch>'\n\nIf you wish to set tracking information for this branch you can do so with:\n\n    git branch --set-upstream-to=<remote>/<branch> " + cur + "\n", 1, false};
        std::string m = *merge;
        if (m.starts_with("refs/heads/")) m = m.substr(11);
        upstream_name = *remote == "." ? m : *remote + "/" + m;
    }
    auto upstream = repo.rev_parse(upstream_name + "^{commit}");
    if (!upstream) throw Fatal{"invalid upstream '" + upstream_name + "'"};
    std::string onto = *upstream;
    if (onto_arg) {
        auto o = repo.rev_parse(*onto_arg + "^{commit}");
        if (!o) throw Fatal{"Does not point to a valid commit '" + *onto_arg + "'"};
        onto = *o;
    }
    // Local changes would be carried through every pick: git refuses them first.
    {
        StatusData st = compute_status(repo, false, false);
        bool staged = false, unstaged = false;
        for (auto& c : st.changes) {
            if (c.x != ' ') staged = true;
            if (c.y != ' ') unstaged = true;
        }
        if (staged || unstaged) {
            s.err(std::string("error: cannot rebase: ") + (unstaged ? "You have unstaged changes." : "Your index contains uncommitted changes.") +
                  "\nerror: Please commit or stash them.\n");
            return 1;
        }
    }
    std::vector<std::string> todo = commits_to_replay(repo, *head, *upstream);
    auto bases = merge_bases(repo, *head, *upstream);
    const std::string head_name = repo.head_ref().empty() ? "detached HEAD" : repo.head_ref();
    if (!onto_arg && !bases.empty() && bases[0] == *upstream) {
        s.out("Current branch " + current_branch_name(repo) + " is up to date.\n");
        return 0;
    }
    // Commits whose change upstream already has are left out.
    {
        std::set<std::string> upstream_keys;
        for (auto& o : commits_to_replay(repo, *upstream, *head)) upstream_keys.insert(patch_key(repo, repo.commit(o)));
        std::vector<std::string> keep;
        bool skipped = false;
        for (auto& o : todo) {
            if (upstream_keys.count(patch_key(repo, repo.commit(o)))) {
                s.err("warning: skipped previously applied commit " + repo.abbrev(o) + "\n");
                skipped = true;
            } else {
                keep.push_back(o);
            }
        }
        if (skipped)
            s.err("hint: use --reapply-cherry-picks to include skipped commits\nhint: Disable this message with \"git config advice.skippedCherryPicks false\"\n");
        todo = std::move(keep);
    }
    // The todo list as git's sequencer writes it ("pick <oid> <subject>"), the `done` list grows as it runs.
    std::string list;
    for (auto& o : todo) list += (list.empty() ? "pick " : "\npick ") + o + " " + subject_of(repo.commit(o));
    (void)repo.fs.mkdir_all(state_dir(repo), 0755);
    write_state(repo, "head-name", head_name);
    write_state(repo, "onto", onto);
    write_state(repo, "orig-head", *head);
    write_state(repo, "git-rebase-todo", list);
    write_state(repo, "interactive", "");
    write_state(repo, "msgnum", "0");
    write_state(repo, "end", std::to_string(todo.size()));
    repo.write_file_atomic(repo.gitdir + "/ORIG_HEAD", *head + "\n");
    // HEAD detaches at onto, then each commit is applied on it.
    if (!switch_trees(s, repo.commit(*head).tree, repo.commit(onto).tree, false, "checkout")) {
        (void)repo.fs.remove_all(state_dir(repo));
        return 1;
    }
    repo.write_file_atomic(repo.gitdir + "/HEAD", onto + "\n");
    return rebase_run(s, repo, quiet);
}

}  // namespace bashkit::utils::git
