// `git`: global options, dispatch to the subcommands, error containment; init and config.
#include "utils/git/git.hpp"

#include <algorithm>

#include "utils/git/core.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::git {

void Invocation::out(std::string_view s) { output.put(s); }
void Invocation::err(std::string_view s) {
    output.flush();
    (void)ctx.err.write(s);
}

Repo& Invocation::need_repo() {
    if (!repo) throw Fatal{"not a git repository (or any of the parent directories): .git"};
    return *repo;
}

Repo& Invocation::need_worktree() {
    Repo& r = need_repo();
    if (r.worktree.empty()) throw Fatal{"this operation must be run in a work tree"};
    return r;
}

namespace {

const char* kExclude =
    "# git ls-files --others --exclude-from=.git/info/exclude\n"
    "# Lines that start with '#' are comments.\n"
    "# For a project mostly in C, the following would be a good set of\n"
    "# exclude patterns (uncomment them if you want to use them):\n"
    "# *.[oa]\n"
    "# *~\n";

const char* kBranchHint =
    "hint: Using 'master' as the name for the initial branch. This default branch name\n"
    "hint: is subject to change. To configure the initial branch name to use in all\n"
    "hint: of your new repositories, which will suppress this warning, call:\n"
    "hint: \n"
    "hint: \tgit config --global init.defaultBranch <name>\n"
    "hint: \n"
    "hint: Names commonly chosen instead of 'master' are 'main', 'trunk' and\n"
    "hint: 'development'. The just-created branch can be renamed via this command:\n"
    "hint: \n"
    "hint: \tgit branch -m <name>\n";

}  // namespace

int cmd_init(Invocation& s, const Args& a) {
    CommandContext& ctx = s.ctx;
    bool quiet = false, bare = false;
    std::string branch, dir;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--bare") bare = true;
        else if ((x == "-b" || x == "--initial-branch") && i + 1 < a.size()) branch = a[++i];
        else if (x.starts_with("--initial-branch=")) branch = x.substr(17);
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else dir = x;
    }
    std::string top = vfs::normalize_path(ctx.resolve(dir.empty() ? "." : dir));
    if (auto st = ctx.fs.stat(top); !st) {
        std::string failed;
        if (auto r = ctx.fs.mkdir_all(top, 0755, &failed); !r)
            throw Fatal{"cannot mkdir " + dir + ": " + std::string(vfs::error_message(r.error()))};
    }
    std::string gitdir = bare ? top : (top == "/" ? "/.git" : top + "/.git");
    bool reinit = static_cast<bool>(ctx.fs.stat(gitdir + "/HEAD"));
    Config global;
    load_global_config(ctx, global);
    for (auto& [k, v] : s.overrides) global.set_override(k, v);
    if (!reinit) {
        bool hint = branch.empty() && !global.get("init.defaultbranch");
        if (branch.empty()) branch = global.get("init.defaultbranch").value_or("master");
        for (const char* d : {"", "/branches", "/hooks", "/info", "/objects", "/objects/info", "/objects/pack", "/refs",
                              "/refs/heads", "/refs/tags"}) {
            if (auto r = ctx.fs.mkdir(gitdir + d, 0755); !r && r.error() != vfs::Errc::file_exists)
                throw Fatal{"cannot mkdir " + gitdir + d + ": " + std::string(vfs::error_message(r.error()))};
        }
        std::string config = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = " +
                             std::string(bare ? "true" : "false") + "\n" + (bare ? "" : "\tlogallrefupdates = true\n");
        auto w = [&](const std::string& p, const std::string& d) {
            if (auto r = ctx.fs.write_file(gitdir + p, d); !r)
                throw Fatal{"cannot write " + gitdir + p + ": " + std::string(vfs::error_message(r.error()))};
        };
        w("/HEAD", "ref: refs/heads/" + branch + "\n");
        w("/config", config);
        w("/description", "Unnamed repository; edit this file 'description' to name the repository.\n");
        w("/info/exclude", kExclude);
        if (hint && !quiet) s.err(kBranchHint);
    } else if (!branch.empty()) {
        s.err("warning: re-init: ignored --initial-branch=" + branch + "\n");
    }
    if (!quiet)
        s.out(std::string(reinit ? "Reinitialized existing" : "Initialized empty") + " Git repository in " + gitdir + "/\n");
    return 0;
}

int cmd_config(Invocation& s, const Args& a) {
    CommandContext& ctx = s.ctx;
    enum class Op { get_or_set, get, get_all, get_regexp, unset, unset_all, list, add } op = Op::get_or_set;
    enum class Where { any, global, local } where = Where::any;
    bool as_bool = false;
    std::vector<std::string> rest;
    for (const auto& x : a) {
        if (x == "--bool" || x == "--type=bool") as_bool = true;
        else if (x == "--get-regexp") op = Op::get_regexp;
        else if (x == "--global") where = Where::global;
        else if (x == "--local") where = Where::local;
        else if (x == "--get") op = Op::get;
        else if (x == "--get-all") op = Op::get_all;
        else if (x == "--unset") op = Op::unset;
        else if (x == "--unset-all") op = Op::unset_all;
        else if (x == "--list" || x == "-l") op = Op::list;
        else if (x == "--add") op = Op::add;
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else rest.push_back(x);
    }
    if (where == Where::local && !s.repo) throw Fatal{"--local can only be used inside a git repository"};
    std::string gpath = global_config_path(ctx);
    auto read = [&](const std::string& p) -> std::string {
        if (p.empty()) return "";
        auto t = ctx.fs.read_file(p, kMaxConfigBytes);
        return t ? *t : std::string();
    };
    if (op == Op::list) {
        if (!rest.empty()) throw Fatal{"wrong number of arguments, should be 0", 129, true};
        std::vector<std::pair<std::string, std::string>> all;
        auto add = [&](const std::string& text) {
            for (auto& e : parse_config_text(text)) all.push_back(e);
        };
        if (where != Where::local) add(read(gpath));
        if (where != Where::global && s.repo) add(read(s.repo->gitdir + "/config"));
        if (where == Where::any)
            for (auto& [k, v] : s.overrides) all.emplace_back(normalize_key(k), v);
        for (auto& [k, v] : all) s.out(k + "=" + v + "\n");
        return 0;
    }
    if (rest.empty()) {
        s.err("usage: git config [<options>]\n");
        return 129;
    }
    // --bool: a value as git reads a boolean
    auto shown = [&](const std::string& k, const std::string& v) -> std::string {
        if (!as_bool) return v;
        std::string l = v;
        for (auto& c : l) c = char(tolower(static_cast<unsigned char>(c)));
        if (l == "true" || l == "yes" || l == "on" || l == "1") return "true";
        if (l == "false" || l == "no" || l == "off" || l == "0" || l.empty()) return "false";
        throw Fatal{"bad boolean config value '" + v + "' for '" + k + "'"};
    };
    if (op == Op::get_regexp) {
        // every key (as git spells it: section and name lower-cased) the extended regex finds, with its value
        if (rest.empty() || rest.size() > 2) {
            s.err("error: wrong number of arguments, should be 1\n");
            return 129;
        }
        interp::Regex re = interp::Regex::compile(rest[0], interp::RegexSyntax::kExtended, {});
        if (!re.ok()) {
            s.err("error: invalid key pattern: " + rest[0] + "\n");
            return 6;
        }
        std::vector<std::pair<std::string, std::string>> all;
        if (where != Where::local)
            for (auto& e : parse_config_text(read(gpath))) all.push_back(e);
        if (where != Where::global && s.repo)
            for (auto& e : parse_config_text(read(s.repo->gitdir + "/config"))) all.push_back(e);
        if (where == Where::any)
            for (auto& [k, v] : s.overrides) all.emplace_back(normalize_key(k), v);
        std::string o;
        for (auto& [k, v] : all) {
            check_cancel(ctx);
            if (re.search(k)) o += k + " " + shown(k, v) + "\n";
        }
        s.out(o);
        return o.empty() ? 1 : 0;
    }
    std::string key = rest[0];
    if (normalize_key(key).empty()) {
        s.err("error: key does not contain a section: " + key + "\n");
        return 1;
    }
    bool reading = (op == Op::get || op == Op::get_all || (op == Op::get_or_set && rest.size() == 1));
    if (reading) {
        if (rest.size() != 1) {
            s.err("error: wrong number of arguments, should be from 1 to 2\n");
            return 129;
        }
        Config c;
        if (where != Where::local) c.load_text(read(gpath));
        if (where != Where::global && s.repo) c.load_text(read(s.repo->gitdir + "/config"));
        if (where == Where::any)
            for (auto& [k, v] : s.overrides) c.set_override(k, v);
        auto vals = c.get_all(key);
        if (vals.empty()) return 1;
        if (op == Op::get_all)
            for (auto& v : vals) s.out(shown(key, v) + "\n");
        else s.out(shown(key, vals.back()) + "\n");
        return 0;
    }
    std::string path;
    if (where == Where::global) {
        if (gpath.empty()) throw Fatal{"$HOME not set"};
        path = gpath;
    } else {
        if (!s.repo) throw Fatal{"not in a git directory"};
        path = s.repo->gitdir + "/config";
    }
    std::string text = read(path);
    bool found = false;
    std::string next;
    if (op == Op::unset || op == Op::unset_all) {
        if (rest.size() != 1) {
            s.err("error: wrong number of arguments, should be 1\n");
            return 129;
        }
        next = config_edit(text, key, std::nullopt, &found);
        if (!found) return 5;
    } else {
        if (rest.size() != 2) {
            s.err("error: wrong number of arguments, should be 2\n");
            return 129;
        }
        if (op == Op::add) {
            // append a new assignment: set on a key name that cannot exist, then rename
            next = config_edit(text, key, rest[1], &found);
            if (found) {
                // keep the old ones: append after the last assignment
                std::string tmp = config_edit(text, key + "-bashkit-add", rest[1], nullptr);
                std::string from = "\t" + key.substr(key.rfind('.') + 1) + "-bashkit-add = ";
                size_t at = tmp.find(from);
                if (at != std::string::npos) tmp.replace(at, from.size(), "\t" + key.substr(key.rfind('.') + 1) + " = ");
                next = tmp;
            }
        } else {
            next = config_edit(text, key, rest[1], &found);
        }
    }
    if (auto r = ctx.fs.write_file(path, next); !r) {
        s.err("error: could not write config file " + path + ": " + std::string(vfs::error_message(r.error())) + "\n");
        return 4;
    }
    return 0;
}

namespace {

struct Sub {
    const char* name;
    int (*fn)(Invocation&, const Args&);
    // The command's one-letter options that may be bundled (`-qam msg`, `-sb`, `-rf`): flags, then those
    // that take a value (from the rest of the word, or the next word). Empty: nothing is split.
    const char* flags = "";
    const char* values = "";
};

constexpr Sub kSubs[] = {
    {"init", cmd_init, "q", "b"},
    {"config", cmd_config},
    {"add", cmd_add, "Auvfn"},
    {"rm", cmd_rm, "rfnq"},
    {"commit", cmd_commit, "aqn", "mF"},
    {"status", cmd_status, "sbz"},
    {"log", cmd_log},
    {"show", cmd_show},
    {"diff", cmd_diff},
    {"branch", cmd_branch, "adrfDmMv"},
    {"checkout", cmd_checkout, "qf", "bB"},
    {"switch", cmd_switch, "qfd", "cC"},
    {"rev-parse", cmd_rev_parse},
    {"ls-files", cmd_ls_files},
    {"cat-file", cmd_cat_file},
    {"tag", cmd_tag, "afd", "m"},
    {"hash-object", cmd_hash_object},
    {"reset", cmd_reset, "q"},
    {"merge", cmd_merge, "q", "m"},
    {"restore", cmd_restore},
    {"mv", cmd_mv, "fnkv"},
    {"stash", cmd_stash},
    {"symbolic-ref", cmd_symbolic_ref, "qd"},
    {"update-ref", cmd_update_ref, "d", "m"},
    {"cherry-pick", cmd_cherry_pick, "n"},
    {"rebase", cmd_rebase, "qim"},
    {"rev-list", cmd_rev_list},
    {"shortlog", cmd_shortlog, "sne"},
    {"describe", cmd_describe},
    {"for-each-ref", cmd_for_each_ref},
    {"blame", cmd_blame, "pself", "L"},
    {"clone", cmd_clone, "q", "b"},
    {"fetch", cmd_fetch},
    {"pull", cmd_pull},
    {"push", cmd_push},
    {"remote", cmd_remote},
    {"ls-remote", cmd_ls_remote},
};

// git's parse-options lets one-letter options share a word (`git commit -qam msg`, `git status -sb`,
// `git rm -rf dir`), the last one taking its value from the rest of the word (`-mfix`) or the next word.
// The commands' parsers read one option per word, so such words are split first. A word with a letter
// the command does not list is left as it is (its parser then names it as unknown), and so is everything
// after `--`.
Args split_bundles(const Args& a, std::string_view flags, std::string_view values) {
    if (flags.empty() && values.empty()) return a;
    Args out;
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "--") {
            out.insert(out.end(), a.begin() + long(i), a.end());
            break;
        }
        if (x.size() < 3 || x[0] != '-' || x[1] == '-') {
            out.push_back(x);
            continue;
        }
        size_t k = 1;
        while (k < x.size() && flags.find(x[k]) != std::string_view::npos) ++k;
        bool value = k < x.size() && values.find(x[k]) != std::string_view::npos;
        if (k < x.size() && !value) {
            out.push_back(x);
            continue;
        }
        for (size_t j = 1; j < k; ++j) out.push_back(std::string{'-', x[j]});
        if (!value) continue;
        out.push_back(std::string{'-', x[k]});
        if (k + 1 < x.size()) out.push_back(x.substr(k + 1));
        else if (i + 1 < a.size()) out.push_back(a[++i]);
    }
    return out;
}

const char* kUsage =
    "usage: git [-C <path>] [-c <name>=<value>] <command> [<args>]\n\n"
    "In-process git of bashkit. Commands: init config add rm commit status log show diff branch checkout\n"
    "switch restore mv rev-parse rev-list ls-files cat-file tag hash-object reset merge stash symbolic-ref\n"
    "cherry-pick rebase describe shortlog blame for-each-ref\n"
    "clone fetch pull push remote ls-remote (smart HTTP through the sandbox's network policy)\n";

int run(CommandContext& ctx, utils::Output& output) {
    Invocation s{ctx, {}, nullptr, output};
    const auto& argv = ctx.argv;
    size_t i = 1;
    for (; i < argv.size(); ++i) {
        const std::string& x = argv[i];
        if (x == "-C" && i + 1 < argv.size()) {
            ctx.cwd = vfs::normalize_path(ctx.resolve(argv[++i]));
            auto st = ctx.fs.stat(ctx.cwd);
            if (!st || !st->is_directory())
                throw Fatal{"cannot change to '" + argv[i] + "': " + std::string(vfs::error_message(st ? vfs::Errc::not_directory : st.error()))};
        } else if (x == "-c" && i + 1 < argv.size()) {
            std::string kv = argv[++i];
            size_t eq = kv.find('=');
            std::string k = kv.substr(0, eq), v = eq == std::string::npos ? "true" : kv.substr(eq + 1);
            if (normalize_key(k).empty()) {
                s.err("error: key does not contain a section: " + k + "\nfatal: unable to parse command-line config\n");
                return 128;
            }
            s.overrides.emplace_back(k, v);
        } else if (x == "--no-pager" || x == "-P" || x == "--no-replace-objects" || x == "--literal-pathspecs") {
        } else if (x == "--version" || x == "version") {
            s.out("git version 2.39.5\n");
            return 0;
        } else if (x == "--help" || x == "-h" || x == "help") {
            s.out(kUsage);
            return 0;
        } else if (x.starts_with("--git-dir=")) {
            // handled through GIT_DIR below
            s.ctx.cwd = s.ctx.cwd;
        } else if (x.size() > 1 && x[0] == '-') {
            s.err("unknown option: " + x + "\n" + kUsage);
            return 129;
        } else {
            break;
        }
    }
    if (i >= argv.size()) {
        s.out(kUsage);
        return 1;
    }
    const std::string& name = argv[i];
    const Sub* sub = nullptr;
    for (const auto& c : kSubs)
        if (name == c.name) sub = &c;
    if (!sub) {
        s.err("git: '" + name + "' is not a git command. See 'git --help'.\n");
        return 1;
    }
    Args args = split_bundles(Args(argv.begin() + long(i) + 1, argv.end()), sub->flags, sub->values);
    if (name != "init" && name != "clone") s.repo = discover(ctx, s.overrides);
    return sub->fn(s, args);
}

}  // namespace

int git_main(CommandContext& ctx) {
    utils::Output output(ctx);
    int status = 0;
    try {
        status = run(ctx, output);
    } catch (const Fatal& f) {
        output.flush();
        (void)ctx.err.write(f.prefixed ? "fatal: " + f.message + "\n" : f.message + "\n");
        status = f.status;
    } catch (const Cancelled&) {
        status = 130;
    } catch (const interp::MemoryLimitExceeded&) {
        // A zip bomb in a pack, a huge object: the budget ends the command, not the session.
        output.flush();
        (void)ctx.err.write("fatal: memory limit exceeded (the session's memory budget is spent)\n");
        status = 128;
    }
    return output.status(status);
}

}  // namespace bashkit::utils::git

namespace bashkit::utils {

void register_git_utils(interp::CommandRegistry& registry) {
    registry.add("git",
                 "git [-C DIR] [-c K=V] COMMAND ...: in-process git over the session's files (init config add rm "
                 "commit status log show diff branch checkout switch restore mv rev-parse ls-files cat-file tag "
                 "hash-object reset merge stash symbolic-ref cherry-pick rebase rev-list describe shortlog blame for-each-ref clone "
                 "fetch pull "
                 "push remote ls-remote)",
                 git::git_main);
}

}  // namespace bashkit::utils
