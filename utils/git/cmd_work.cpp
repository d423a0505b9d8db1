// add, rm, commit, status.
#include <algorithm>
#include <functional>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

namespace {


bool under(const std::string& path, const std::string& spec) {
    if (spec.empty()) return true;
    if (path == spec) return true;
    return path.size() > spec.size() && path.starts_with(spec) && path[spec.size()] == '/';
}

bool has_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

bool spec_match(const std::string& path, const std::string& spec) {
    if (has_glob(spec)) return wildmatch(spec, path, false) || under(path, spec);
    return under(path, spec);
}

}  // namespace

void walk_files(Repo& repo, Ignore& ign, const std::string& dir, bool force, std::vector<std::string>& out,
                const std::set<std::string>& tracked, int depth) {
    check_cancel(repo.ctx);
    if (depth > 256) return;
    auto entries = repo.fs.readdir(dir.empty() ? repo.worktree : repo.abs_of(dir.substr(0, dir.size() - 1)));
    if (!entries) return;
    std::vector<std::string> names;
    for (auto& e : *entries) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (auto& n : names) {
        std::string rel = dir + n;
        auto st = repo.fs.lstat(repo.abs_of(rel));
        if (!st) continue;
        if (st->is_directory()) {
            if (n == ".git") continue;
            if (!force && ign.ignored(rel, true)) continue;
            if (repo.fs.stat(repo.abs_of(rel) + "/.git")) continue;  // a nested repository
            walk_files(repo, ign, rel + "/", force, out, tracked, depth + 1);
        } else if (tracked.count(rel) || force || !ign.ignored(rel, false)) {
            out.push_back(rel);
        }
    }
}

namespace {

std::vector<std::string> split_specs(Repo& repo, const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (auto& a : args) {
        if (has_glob(a)) out.push_back(repo.prefix + a);
        else out.push_back(to_repo_path(repo, a));
    }
    return out;
}

}  // namespace

// Stages the files of specs (all of the tree when all_tree); update_only: tracked files only (-u).
static int stage(Invocation& s, Repo& repo, std::vector<std::string> specs, bool all_tree, bool update_only, bool force,
                 bool dry_run, bool verbose, const std::vector<std::string>& raw_args) {
    auto index = repo.read_index();
    int64_t im = index_mtime(repo);
    std::map<std::string, IndexEntry> idx;
    std::set<std::string> tracked;
    for (auto& e : index) {
        tracked.insert(e.path);
        idx[e.path] = e;
    }
    Ignore ign(repo);
    if (all_tree) specs = {repo.prefix.empty() || update_only ? std::string() : repo.prefix.substr(0, repo.prefix.size() - 1)};
    if (all_tree && update_only) specs = {""};
    std::vector<std::string> ignored_explicit;
    std::set<std::string> files;
    for (size_t k = 0; k < specs.size(); ++k) {
        const std::string& spec = specs[k];
        bool matched = false;
        if (!has_glob(spec)) {
            auto st = spec.empty() ? repo.fs.lstat(repo.worktree) : repo.fs.lstat(repo.abs_of(spec));
            if (st && st->is_directory()) {
                std::vector<std::string> found;
                walk_files(repo, ign, spec.empty() ? "" : spec + "/", force, found, tracked);
                for (auto& f : found) files.insert(f);
                matched = true;
            } else if (st) {
                if (!force && !tracked.count(spec) && ign.ignored(spec, false)) {
                    ignored_explicit.push_back(raw_args.empty() ? spec : raw_args[k]);
                    continue;
                }
                files.insert(spec);
                matched = true;
            }
        } else {
            std::vector<std::string> found;
            walk_files(repo, ign, "", force, found, tracked);
            for (auto& f : found)
                if (spec_match(f, spec)) files.insert(f), matched = true;
        }
        for (auto& [p, e] : idx)
            if (spec_match(p, spec)) matched = true;
        if (!matched) throw Fatal{"pathspec '" + (raw_args.empty() ? spec : raw_args[k]) + "' did not match any files"};
    }
    std::vector<std::string> removed;
    for (auto it = idx.begin(); it != idx.end();) {
        check_cancel(repo.ctx);
        bool in_spec = false;
        for (auto& sp : specs) in_spec = in_spec || spec_match(it->first, sp);
        if (in_spec && !repo.fs.lstat(repo.abs_of(it->first))) {
            if (verbose || dry_run) s.out("remove '" + it->first + "'\n");
            removed.push_back(it->first);
            it = idx.erase(it);
            continue;
        }
        ++it;
    }
    for (auto& f : files) {
        check_cancel(repo.ctx);
        if (update_only && !tracked.count(f)) continue;
        auto st = repo.fs.lstat(repo.abs_of(f));
        if (!st || st->is_directory()) continue;
        if (!verify_path(f)) throw Fatal{"invalid path '" + f + "'"};
        auto it = idx.find(f);
        if (it != idx.end() && it->second.stage() == 0 && entry_unchanged(repo, it->second, *st, im)) {
            // refresh the stat data only
            std::string oid = it->second.oid;
            uint32_t mode = it->second.mode;
            it->second = entry_from_stat(f, *st, oid);
            it->second.mode = mode;
            continue;
        }
        std::string data = read_work_blob(repo, f, *st);
        std::string oid = dry_run ? Repo::hash(ObjType::blob, data) : repo.write(ObjType::blob, data);
        IndexEntry e = entry_from_stat(f, *st, oid);
        if (it != idx.end() && !repo.config.get_bool("core.filemode", true) && (it->second.mode & 0170000) == 0100000 &&
            st->is_regular())
            e.mode = it->second.mode;
        if (verbose || dry_run) s.out("add '" + f + "'\n");
        // drop unmerged stages and any entry that conflicts as a directory/file
        idx.erase(f);
        for (auto jt = idx.lower_bound(f + "/"); jt != idx.end() && jt->first.starts_with(f + "/");) jt = idx.erase(jt);
        for (size_t sl = f.find('/'); sl != std::string::npos; sl = f.find('/', sl + 1)) idx.erase(f.substr(0, sl));
        idx[f] = e;
    }
    if (!dry_run) {
        std::vector<IndexEntry> out;
        for (auto& [p, e] : idx) out.push_back(e);
        repo.write_index(std::move(out));
    }
    if (!ignored_explicit.empty()) {
        std::string m = "The following paths are ignored by one of your .gitignore files:\n";
        for (auto& p : ignored_explicit) m += p + "\n";
        m += "hint: Use -f if you really want to add them.\nhint: Turn this message off by running\nhint: \"git config advice.addIgnoredFile false\"\n";
        s.err(m);
        return 1;
    }
    return 0;
}

int cmd_add(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool all = false, update = false, force = false, dry = false, verbose = false, dashdash = false;
    std::vector<std::string> paths;
    for (const auto& x : a) {
        if (dashdash || x.empty() || x[0] != '-' || x == "-") paths.push_back(x);
        else if (x == "--") dashdash = true;
        else if (x == "-A" || x == "--all") all = true;
        else if (x == "-u" || x == "--update") update = true;
        else if (x == "-f" || x == "--force") force = true;
        else if (x == "-n" || x == "--dry-run") dry = true;
        else if (x == "-v" || x == "--verbose") verbose = true;
        else if (x == "-p" || x == "--patch" || x == "-i" || x == "--interactive")
            throw Fatal{"interactive add (" + x + ") is not available in this sandbox", 128};
        else throw Fatal{"unknown option '" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
    }
    if (paths.empty() && !all && !update) {
        s.err("Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\nhint: Turn this message off by running\nhint: \"git config advice.addEmptyPathspec false\"\n");
        return 0;
    }
    std::vector<std::string> specs = split_specs(repo, paths);
    bool whole = paths.empty();
    return stage(s, repo, specs, whole, update, force, dry, verbose, paths);
}

int cmd_rm(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    bool cached = false, recursive = false, force = false, quiet = false, dashdash = false, ignore_unmatch = false,
         dry_run = false;
    std::vector<std::string> paths;
    for (const auto& x : a) {
        if (dashdash || x.empty() || x[0] != '-') paths.push_back(x);
        else if (x == "--") dashdash = true;
        else if (x == "--cached") cached = true;
        else if (x == "-r") recursive = true;
        else if (x == "-f" || x == "--force") force = true;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--ignore-unmatch") ignore_unmatch = true;
        else if (x == "-n" || x == "--dry-run") dry_run = true;
        else if (x == "-rf" || x == "-fr") recursive = force = true;
        else throw Fatal{"unknown option '" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
    }
    if (paths.empty()) {
        s.err("usage: git rm [<options>] [--] <file>...\n");
        return 129;
    }
    auto index = repo.read_index();
    int64_t im = index_mtime(repo);
    std::map<std::string, std::pair<uint32_t, std::string>> head;
    if (auto h = repo.head_oid()) head = repo.flatten(repo.commit(*h).tree);
    std::vector<std::string> specs = split_specs(repo, paths);
    std::set<std::string> to_remove;
    for (size_t k = 0; k < specs.size(); ++k) {
        bool matched = false;
        for (auto& e : index) {
            if (e.path == specs[k] || (has_glob(specs[k]) && wildmatch(specs[k], e.path, false))) {
                to_remove.insert(e.path);
                matched = true;
            } else if (under(e.path, specs[k])) {
                if (!recursive) throw Fatal{"not removing '" + paths[k] + "' recursively without -r"};
                to_remove.insert(e.path);
                matched = true;
            }
        }
        if (!matched && !ignore_unmatch) throw Fatal{"pathspec '" + paths[k] + "' did not match any files"};
    }
    if (!force) {
        std::vector<std::string> staged, local, both;
        for (auto& e : index) {
            if (!to_remove.count(e.path)) continue;
            auto h = head.find(e.path);
            bool index_differs = h == head.end() || h->second.second != e.oid || h->second.first != e.mode;
            auto st = repo.fs.lstat(repo.abs_of(e.path));
            bool work_differs = st && !st->is_directory() && !entry_unchanged(repo, e, *st, im);
            if (cached) {
                if (index_differs && work_differs && h != head.end()) both.push_back(e.path);
                continue;
            }
            if (index_differs && work_differs) both.push_back(e.path);
            else if (index_differs) staged.push_back(e.path);
            else if (work_differs) local.push_back(e.path);
        }
        auto report = [&](const std::vector<std::string>& v, const std::string& what, const std::string& hint) {
            if (v.empty()) return false;
            std::string m = "error: the following file" + std::string(v.size() > 1 ? "s have " : " has ") + what + ":\n";
            for (auto& p : v) m += "    " + p + "\n";
            m += hint + "\n";
            s.err(m);
            return true;
        };
        bool bad = report(both, "staged content different from both the\nfile and the HEAD",
                          "(use -f to force removal)");
        bad = report(staged, "changes staged in the index", "(use --cached to keep the file, or -f to force removal)") || bad;
        bad = report(local, "local modifications", "(use --cached to keep the file, or -f to force removal)") || bad;
        if (bad) return 1;
    }
    std::vector<IndexEntry> keep;
    for (auto& e : index)
        if (!to_remove.count(e.path)) keep.push_back(e);
    for (auto& p : to_remove) {
        check_cancel(repo.ctx);
        if (!quiet) s.out("rm '" + p + "'\n");
        if (dry_run) continue;
        if (!cached) {
            (void)repo.fs.unlink(repo.abs_of(p));
            std::string d = p;
            for (size_t sl = d.rfind('/'); sl != std::string::npos; sl = d.rfind('/')) {
                d = d.substr(0, sl);
                if (!repo.fs.rmdir(repo.abs_of(d))) break;
            }
        }
    }
    if (!dry_run) repo.write_index(std::move(keep));
    return 0;
}

// ---------------------------------------------------------------------------------------------------------
// commit

static std::string cleanup_message(const std::string& m, bool strip_comments) {
    std::vector<std::string> lines;
    size_t i = 0;
    while (i <= m.size()) {
        size_t nl = m.find('\n', i);
        if (nl == std::string::npos) nl = m.size();
        std::string l = m.substr(i, nl - i);
        i = nl + 1;
        while (!l.empty() && isspace(static_cast<unsigned char>(l.back()))) l.pop_back();
        if (strip_comments && !l.empty() && l[0] == '#') continue;
        lines.push_back(l);
        if (nl == m.size()) break;
    }
    std::string out;
    bool pending_blank = false;
    for (auto& l : lines) {
        if (l.empty()) {
            pending_blank = !out.empty();
            continue;
        }
        if (pending_blank) out += "\n";
        pending_blank = false;
        out += l + "\n";
    }
    return out;
}

std::string stat_summary(int files, int ins, int del) {
    std::string o = " " + std::to_string(files) + " file" + (files == 1 ? "" : "s") + " changed";
    if (ins || !del) o += ", " + std::to_string(ins) + " insertion" + (ins == 1 ? "" : "s") + "(+)";
    if (del || !ins) o += ", " + std::to_string(del) + " deletion" + (del == 1 ? "" : "s") + "(-)";
    return o + "\n";
}

// What `git commit` prints under its first line: " 2 files changed, ...", then create/delete/mode/rename
// lines, for the change from parent_tree (kEmptyTreeOid for a root commit) to tree.
std::string commit_summary(Repo& repo, const std::string& parent_tree, const std::string& tree) {
    std::string o;
    auto before = parent_tree == kEmptyTreeOid ? std::map<std::string, std::pair<uint32_t, std::string>>{} : repo.flatten(parent_tree);
    auto after = repo.flatten(tree);
    int files = 0, ins = 0, del = 0;
    std::string modes;
    std::set<std::string> paths;
    for (auto& [p, v] : before) paths.insert(p);
    for (auto& [p, v] : after) paths.insert(p);
    auto renames = find_renames(repo.ctx, before, after, [&](const std::string& oid) { return repo.read(oid).data; });
    std::set<std::string> rename_sources;
    for (auto& [to, r] : renames) rename_sources.insert(r.from);
    for (auto& p : paths) {
        check_cancel(repo.ctx);
        auto b = before.find(p), f = after.find(p);
        if (b != before.end() && f != after.end() && b->second == f->second) continue;
        if (rename_sources.count(p)) continue;
        ++files;
        if (auto r = renames.find(p); r != renames.end()) {
            // a rename, its mode change (without the path), and the lines changed from the source
            auto src = before.find(r->second.from);
            modes += " rename " + pprint_rename(r->second.from, p) + " (" + std::to_string(r->second.percent) + "%)\n";
            if (src->second.first != f->second.first)
                modes += " mode change " + mode_string(src->second.first) + " => " + mode_string(f->second.first) + "\n";
            if (r->second.percent == 100) continue;
            DiffStats ds = count_changes(repo.ctx, repo.read(src->second.second).data, repo.read(f->second.second).data);
            ins += ds.added;
            del += ds.deleted;
            continue;
        }
        std::string da = b != before.end() && b->second.first != 0160000 ? repo.read(b->second.second).data : "";
        std::string db = f != after.end() && f->second.first != 0160000 ? repo.read(f->second.second).data : "";
        DiffStats ds = count_changes(repo.ctx, da, db);
        ins += ds.added;
        del += ds.deleted;
        if (b == before.end()) modes += " create mode " + mode_string(f->second.first) + " " + quote_path(p) + "\n";
        else if (f == after.end()) modes += " delete mode " + mode_string(b->second.first) + " " + quote_path(p) + "\n";
        else if (b->second.first != f->second.first)
            modes += " mode change " + mode_string(b->second.first) + " => " + mode_string(f->second.first) + " " + quote_path(p) + "\n";
    }
    if (files) o += stat_summary(files, ins, del);
    return o + modes;
}

int cmd_commit(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    std::vector<std::string> messages;
    bool all = false, allow_empty = false, quiet = false, amend = false, have_msg = false, allow_empty_msg = false,
         no_edit = false;
    std::string file;
    std::vector<std::string> paths;  // `git commit <paths>`: only these, as they are in the work tree
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if ((x == "-m" || x == "--message") && i + 1 < a.size()) messages.push_back(a[++i]), have_msg = true;
        else if (x.starts_with("--message=")) messages.push_back(x.substr(10)), have_msg = true;
        else if (x.starts_with("-m") && x.size() > 2) messages.push_back(x.substr(2)), have_msg = true;
        else if ((x == "-F" || x == "--file") && i + 1 < a.size()) file = a[++i], have_msg = true;
        else if (x == "-a" || x == "--all") all = true;
        else if (x == "--allow-empty") allow_empty = true;
        else if (x == "--allow-empty-message") allow_empty_msg = true;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--amend") amend = true;
        else if (x == "--no-edit") no_edit = true;
        else if (x == "--no-verify" || x == "-n") {
        } else if (x == "-m" || x == "-F") throw Fatal{"error: switch `" + x.substr(1) + "' requires a value", 129, false};
        else if (x == "--message" || x == "--file") throw Fatal{"error: option `" + x.substr(2) + "' requires a value", 129, false};
        else if (x == "--") paths.insert(paths.end(), a.begin() + long(i) + 1, a.end()), i = a.size();
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option '" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
        else paths.push_back(x);
    }
    if (all && !paths.empty()) throw Fatal{"paths '" + paths[0] + " ...' with -a does not make sense"};
    auto head = repo.head_oid();
    if (amend && !head) throw Fatal{"You have nothing to amend."};
    std::optional<Commit> old;
    if (amend) old = repo.commit(*head);
    // Concluding a merge (MERGE_HEAD): its other parent, and MERGE_MSG when no message is given (there is no
    // editor here, so as with --no-edit).
    std::optional<std::string> merge_head, merge_msg;
    if (auto mh = repo.fs.read_file(repo.gitdir + "/MERGE_HEAD", 4096); mh && !amend) {
        std::string oid = mh->substr(0, mh->find('\n'));
        if (is_hex_oid(oid)) merge_head = oid;
        if (auto mm = repo.fs.read_file(repo.gitdir + "/MERGE_MSG", kMaxConfigBytes)) merge_msg = *mm;
    }
    if (amend && repo.fs.stat(repo.gitdir + "/MERGE_HEAD")) throw Fatal{"You are in the middle of a merge -- cannot amend."};
    if (!have_msg && !amend && merge_msg) {
        messages.push_back(*merge_msg);
        have_msg = true;
    }
    if (!have_msg && !amend) {
        s.err("error: no commit message given and no editor in this sandbox (use -m or -F)\n");
        return 1;
    }
    if (!paths.empty() && merge_head) throw Fatal{"cannot do a partial commit during a merge."};
    // The paths given: each must name something git knows (index or HEAD); their work tree state is staged,
    // and the commit is HEAD's tree with only them changed (other staged changes stay staged).
    std::vector<std::string> only;
    if (!paths.empty()) {
        std::map<std::string, std::pair<uint32_t, std::string>> head_flat;
        if (head) head_flat = repo.flatten(repo.commit(*head).tree);
        auto known = repo.read_index();
        bool missing = false;
        for (auto& p : paths) {
            std::string spec = to_repo_path(repo, p);
            bool matched = std::any_of(known.begin(), known.end(), [&](const IndexEntry& e) { return spec_match(e.path, spec); }) ||
                           std::any_of(head_flat.begin(), head_flat.end(), [&](const auto& e) { return spec_match(e.first, spec); });
            if (!matched) {
                s.err("error: pathspec '" + p + "' did not match any file(s) known to git\n");
                missing = true;
            }
            only.push_back(spec);
        }
        if (missing) return 1;
        (void)stage(s, repo, only, false, true, false, false, false, paths);
    }
    if (all) {
        // stage modified and deleted tracked files
        auto index = repo.read_index();
        if (!index.empty()) (void)stage(s, repo, {""}, true, true, false, false, false, {});
    }
    std::string msg;
    if (!file.empty()) {
        auto t = file == "-" ? std::optional<std::string>() : std::optional<std::string>();
        if (file == "-") {
            std::string in;
            char buf[4096];
            for (;;) {
                auto r = s.ctx.in.read(buf, sizeof buf);
                if (!r.ok() || r.n == 0) break;
                in.append(buf, r.n);
            }
            msg = in;
        } else {
            auto r = repo.fs.read_file(s.ctx.resolve(file), kMaxConfigBytes);
            if (!r) throw Fatal{"could not read log file '" + file + "': " + std::string(vfs::error_message(r.error()))};
            msg = *r;
        }
    } else if (have_msg) {
        for (size_t i = 0; i < messages.size(); ++i) msg += (i ? "\n\n" : "") + messages[i];
    } else if (old) {
        msg = old->message;
    }
    // MERGE_MSG without --no-edit: as git's editor would leave it when accepted unchanged (no "#" lines); there
    // is no editor here. With --no-edit, its "# Conflicts" lines stay, as in git.
    const bool from_merge_msg = merge_msg && messages.size() == 1 && messages[0] == *merge_msg && file.empty();
    msg = cleanup_message(msg, !file.empty() || (from_merge_msg && !no_edit));
    if (msg.empty() && !allow_empty_msg) {
        s.err("Aborting commit due to empty commit message.\n");
        return 1;
    }
    auto index = repo.read_index();
    {
        std::string unmerged = unmerged_list(repo);
        if (!unmerged.empty()) {
            s.err("error: Committing is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\nfatal: Exiting because of an unresolved conflict.\n");
            s.out(unmerged);
            return 128;
        }
    }
    if (!only.empty()) {
        // HEAD's entries outside the paths, the index's inside them
        auto in_only = [&](const std::string& p) {
            return std::any_of(only.begin(), only.end(), [&](const std::string& sp) { return spec_match(p, sp); });
        };
        std::vector<IndexEntry> partial;
        if (head)
            for (auto& [p, v] : repo.flatten(repo.commit(*head).tree))
                if (!in_only(p)) {
                    IndexEntry e;
                    e.path = p;
                    e.mode = v.first;
                    e.oid = v.second;
                    partial.push_back(std::move(e));
                }
        for (auto& e : index)
            if (e.stage() == 0 && in_only(e.path)) partial.push_back(e);
        std::sort(partial.begin(), partial.end(), [](const IndexEntry& x, const IndexEntry& y) { return x.path < y.path; });
        index = std::move(partial);
    }
    std::string tree = write_tree_from_index(repo, index);
    std::vector<std::string> parents;
    if (amend) parents = old->parents;
    else if (head) parents.push_back(*head);
    if (merge_head) parents.push_back(*merge_head);
    std::string parent_tree = parents.empty() ? kEmptyTreeOid : repo.commit(parents[0]).tree;
    if (!amend && !allow_empty && !merge_head && tree == parent_tree) {
        StatusData st = compute_status(repo, false);
        s.out(long_status(repo, st, true));
        return 1;
    }
    Signature author = repo.identity(false), committer = repo.identity(true);
    if (amend && !s.ctx.env.get("GIT_AUTHOR_DATE")) author = old->author;
    std::string body = "tree " + tree + "\n";
    for (auto& p : parents) body += "parent " + p + "\n";
    body += "author " + author.raw + "\ncommitter " + committer.raw + "\n\n" + msg;
    std::string oid = repo.write(ObjType::commit, body);
    std::string subject = msg.substr(0, msg.find('\n'));
    std::string reflog = std::string(amend ? "commit (amend)" : merge_head ? "commit (merge)" : parents.empty() ? "commit (initial)" : "commit") + ": " + subject;
    repo.update_ref("HEAD", oid, head.value_or(""), reflog);
    if (merge_head)
        clear_merge_state(repo);
    if (quiet) return 0;
    std::string href = repo.head_ref();
    std::string where = href.starts_with("refs/heads/") ? href.substr(11) : "detached HEAD";
    std::string o = "[" + where + (parents.empty() ? " (root-commit)" : "") + " " + repo.abbrev(oid) + "] " + subject + "\n";
    if (author.name != committer.name || author.email != committer.email)
        o += " Author: " + author.name + " <" + author.email + ">\n";
    if (amend) o += " Date: " + format_date_default(author.time, author.tz) + "\n";
    if (merge_head) {  // git prints no summary for a merge commit
        s.out(o);
        return 0;
    }
    o += commit_summary(repo, parent_tree, tree);
    s.out(o);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------
// status

int cmd_status(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    enum class Fmt { long_, short_, porcelain } fmt = Fmt::long_;
    bool branch = false, all_untracked = false, no_untracked = false, nul = false;
    for (const auto& x : a) {
        if (x == "-s" || x == "--short") fmt = Fmt::short_;
        else if (x == "--porcelain" || x == "--porcelain=v1") fmt = Fmt::porcelain;
        else if (x == "--long") fmt = Fmt::long_;
        else if (x == "-b" || x == "--branch") branch = true;
        else if (x == "-sb" || x == "-bs") fmt = Fmt::short_, branch = true;
        else if (x == "-u" || x == "-uall" || x == "--untracked-files" || x == "--untracked-files=all") all_untracked = true;
        else if (x == "-uno" || x == "--untracked-files=no") no_untracked = true;
        else if (x == "-unormal" || x == "--untracked-files=normal") {
        } else if (x == "-z") nul = true, fmt = fmt == Fmt::long_ ? Fmt::porcelain : fmt;
        else throw Fatal{"unknown option '" + x.substr(x.starts_with("--") ? 2 : 1) + "'", 129};
    }
    StatusData st = compute_status(repo, all_untracked, !no_untracked);
    if (fmt == Fmt::long_) {
        std::string o = long_status(repo, st, false);
        if (no_untracked && o.find("nothing added to commit") == std::string::npos) {
            size_t at = o.find("nothing to commit, working tree clean");
            if (at != std::string::npos) o.replace(at, std::string::npos, "nothing to commit (use -u to show untracked files)\n");
        }
        s.out(o);
        return 0;
    }
    std::string o;
    char end = nul ? '\0' : '\n';
    if (branch) {
        std::string h = repo.head_ref();
        if (!h.starts_with("refs/heads/")) o += "## HEAD (no branch)";
        else if (!repo.head_oid()) o += "## No commits yet on " + h.substr(11);
        else o += "## " + h.substr(11);
        o += end;
    }
    auto show = [&](const std::string& p) {
        std::string r = fmt == Fmt::short_ ? relative_to_prefix(p, repo.prefix) : p;
        return nul ? r : quote_path(r, true);
    };
    for (auto& c : st.changes) {
        o += std::string(1, c.x) + c.y + " ";
        if (c.x == 'R') o += nul ? show(c.path) + end + show(c.orig) : show(c.orig) + " -> " + show(c.path);
        else o += show(c.path);
        o += end;
    }
    for (auto& u : st.untracked) o += "?? " + show(u) + end;
    s.out(o);
    return 0;
}

}  // namespace bashkit::utils::git
