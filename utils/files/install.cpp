// install (GNU coreutils 9.1): copy files and set their mode, make directories (-d), leading directories
// (-D), backups (-b --backup -S), -C, -p, -t -T, -m -o -g, -v. -s cannot run a strip program in the
// sandbox and fails as GNU install does when `strip` is missing.
#include <algorithm>
#include <charconv>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

enum : int {
    kOptBackup = kOptFirstLongOnly,
    kOptPreserveContext,
    kOptStripProgram,
};

constexpr OptionSpec kInstallSpecs[] = {
    {kOptBackup, 0, "backup", ArgKind::optional},
    {'b', 'b', {}},
    {'c', 'c', {}},
    {'C', 'C', "compare"},
    {'d', 'd', "directory"},
    {'D', 'D', {}},
    {'g', 'g', "group", ArgKind::required},
    {'m', 'm', "mode", ArgKind::required},
    {'o', 'o', "owner", ArgKind::required},
    {'p', 'p', "preserve-timestamps"},
    {'s', 's', "strip"},
    {kOptStripProgram, 0, "strip-program", ArgKind::required},
    {'S', 'S', "suffix", ArgKind::required},
    {'t', 't', "target-directory", ArgKind::required},
    {'T', 'T', "no-target-directory"},
    {'v', 'v', "verbose"},
    {kOptPreserveContext, 0, "preserve-context"},
    {'Z', 'Z', "context", ArgKind::optional},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kInstallHelp =
    "Usage: install [OPTION]... [-T] SOURCE DEST\n"
    "  or:  install [OPTION]... SOURCE... DIRECTORY\n"
    "  or:  install [OPTION]... -t DIRECTORY SOURCE...\n"
    "  or:  install [OPTION]... -d DIRECTORY...\n"
    "\n"
    "This install program copies files (often just compiled) into destination\n"
    "locations you choose.  If you want to download and install a ready-to-use\n"
    "package on a GNU/Linux system, you should instead be using a package manager\n"
    "like yum(1) or apt-get(1).\n"
    "\n"
    "In the first three forms, copy SOURCE to DEST or multiple SOURCE(s) to\n"
    "the existing DIRECTORY, while setting permission modes and owner/group.\n"
    "In the 4th form, create all components of the given DIRECTORY(ies).\n"
    "\n"
    "      --backup[=CONTROL]  make a backup of each existing destination file\n"
    "  -b                  like --backup but does not accept an argument\n"
    "  -c                  (ignored)\n"
    "  -C, --compare       compare content of source and destination files, and\n"
    "                        if no change to content, ownership, and permissions,\n"
    "                        do not modify the destination at all\n"
    "  -d, --directory     treat all arguments as directory names; create all\n"
    "                        components of the specified directories\n"
    "  -D                  create all leading components of DEST except the last,\n"
    "                        or all components of --target-directory,\n"
    "                        then copy SOURCE to DEST\n"
    "  -g, --group=GROUP   set group ownership, instead of process' current group\n"
    "  -m, --mode=MODE     set permission mode (as in chmod), instead of rwxr-xr-x\n"
    "  -o, --owner=OWNER   set ownership (super-user only)\n"
    "  -p, --preserve-timestamps   apply access/modification times of SOURCE files\n"
    "                        to corresponding destination files\n"
    "  -s, --strip         strip symbol tables\n"
    "      --strip-program=PROGRAM  program used to strip binaries\n"
    "  -S, --suffix=SUFFIX  override the usual backup suffix\n"
    "  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY\n"
    "  -T, --no-target-directory  treat DEST as a normal file\n"
    "  -v, --verbose       print the name of each directory as it is created\n"
    "      --preserve-context  (ignored: no SELinux)\n"
    "  -Z                      (ignored: no SELinux)\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

enum class Backup { none, simple, numbered, existing };

struct Opts {
    Backup backup = Backup::none;
    std::string suffix = "~";
    bool compare = false, dirs = false, leading = false, preserve_times = false, strip = false, verbose = false;
    bool no_target = false;
    std::string target_dir;
    vfs::Mode mode = 0755;
    bool have_mode = false;
    std::optional<uint32_t> uid, gid;
};

std::optional<Backup> parse_backup(std::string_view v) {
    struct Name {
        std::string_view name;
        Backup kind;
    };
    static constexpr Name kNames[] = {{"none", Backup::none},         {"off", Backup::none},
                                      {"simple", Backup::simple},     {"never", Backup::simple},
                                      {"existing", Backup::existing}, {"nil", Backup::existing},
                                      {"numbered", Backup::numbered}, {"t", Backup::numbered}};
    const Name* found = nullptr;
    for (const Name& n : kNames) {
        if (n.name == v) return n.kind;
        if (n.name.starts_with(v) && !v.empty()) {
            if (found && found->kind != n.kind) return std::nullopt;  // ambiguous
            found = &n;
        }
    }
    if (found) return found->kind;
    return std::nullopt;
}

std::optional<uint32_t> parse_id(std::string_view s) {
    uint32_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<uint32_t> lookup_user(const CommandContext& ctx, std::string_view name, bool group) {
    if (name == "root") return 0u;
    for (uint32_t id : {0u, 1000u})
        if ((group ? group_name(ctx, id) : user_name(ctx, id)) == name) return id;
    return parse_id(name);
}

std::string inst_parent_of(std::string_view p) {
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
    size_t s = p.rfind('/');
    if (s == std::string_view::npos) return "";
    while (s > 0 && p[s - 1] == '/') --s;
    return std::string(p.substr(0, s == 0 ? 1 : s));
}

std::string inst_base_of(std::string_view p) {
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
    size_t s = p.rfind('/');
    return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

class Installer {
public:
    Installer(CommandContext& ctx, const Opts& o) : ctx_(ctx), o_(o), out_(ctx) {}

    // mkdir -p of `dir` as written; announces each directory made with -v. Directories made on the way get
    // the umask'ed default plus u+wx; the last one gets `last_mode` when set_last.
    bool make_dirs(const std::string& dir, bool set_last) {
        std::vector<std::string_view> comps = vfs::split_path(dir);
        bool absolute = !dir.empty() && dir[0] == '/';
        std::string shown = absolute ? "/" : "";
        std::string cur = absolute ? "/" : ctx_.cwd;
        vfs::Mode parent_mode = (0777 & ~ctx_.umask) | 0300;
        for (size_t i = 0; i < comps.size(); ++i) {
            if (ctx_.cancelled()) return false;
            shown = shown.empty() ? std::string(comps[i]) : join(shown, comps[i]);
            cur = join(cur, comps[i]);
            bool last = i + 1 == comps.size();
            auto st = ctx_.fs.stat(cur);
            if (st && st->is_directory()) {
                if (last && set_last) return set_attrs(cur, dir, o_.mode);
                continue;
            }
            if (st || ctx_.fs.lexists(cur)) {
                fail("cannot create directory " + quote(shown) + ": " +
                     std::string(errstr(last ? vfs::Errc::file_exists : vfs::Errc::not_directory)));
                return false;
            }
            auto r = ctx_.fs.mkdir(cur, last && set_last ? o_.mode : parent_mode);
            if (!r && r.error() != vfs::Errc::file_exists) {
                fail("cannot create directory " + quote(shown) + ": " + std::string(errstr(r.error())));
                return false;
            }
            if (r && o_.verbose) out_.put("install: creating directory " + quote(shown) + "\n");
            if (last && set_last) return set_attrs(cur, dir, o_.mode);
        }
        return true;
    }

    // Copies the file src to dst (both as written).
    bool install_file(const std::string& src, const std::string& dst) {
        std::string src_abs = ctx_.resolve(src), dst_abs = ctx_.resolve(dst);
        auto st = ctx_.fs.stat(src_abs);
        if (!st) {
            fail("cannot stat " + quote(src) + ": " + std::string(errstr(st.error())));
            return false;
        }
        if (st->is_directory()) {
            fail("omitting directory " + quote(src));
            return false;
        }
        auto dst_st = ctx_.fs.stat(dst_abs);
        bool dst_exists = dst_st.ok() || ctx_.fs.lexists(dst_abs);
        if (dst_st && dst_st->dev == st->dev && dst_st->ino == st->ino) {
            fail(quote(src) + " and " + quote(dst) + " are the same file");
            return false;
        }
        if (dst_st && dst_st->is_directory()) {
            fail("cannot overwrite directory " + quote(dst) + " with non-directory");
            return false;
        }
        if (o_.compare && dst_st && unchanged(src_abs, *st, dst_abs, *dst_st)) return true;
        std::string backup_name;
        if (dst_exists && o_.backup != Backup::none) {
            backup_name = backup_for(dst);
            auto r = ctx_.fs.rename(dst_abs, ctx_.resolve(backup_name));
            if (!r) {
                fail("cannot backup " + quote(dst) + ": " + std::string(errstr(r.error())));
                return false;
            }
            dst_exists = false;
        } else if (dst_exists && ctx_.fs.unlink(dst_abs).ok()) {
            // GNU install removes an existing destination before copying (and says so with -v).
            dst_exists = false;
            if (o_.verbose) out_.put("removed " + quote(dst) + "\n");
        }
        if (o_.verbose) {
            out_.put(quote(src) + " -> " + quote(dst));
            if (!backup_name.empty()) out_.put(" (backup: " + quote(backup_name) + ")");
            out_.put('\n');
        }
        if (!copy_data(src, src_abs, dst, dst_abs, dst_exists)) return false;
        if (o_.strip) {
            // No strip program runs in the sandbox: GNU install's answer when `strip` cannot be run.
            (void)ctx_.fs.unlink(dst_abs);
            fail("cannot run 'strip': " + std::string(errstr(vfs::Errc::no_such_file)));
            return false;
        }
        if (!set_attrs(dst_abs, dst, o_.mode)) return false;
        if (o_.preserve_times)
            (void)ctx_.fs.utimes(dst_abs, vfs::TimeSet::at(st->atime), vfs::TimeSet::at(st->mtime));
        return true;
    }

    int finish(int own) { return out_.status(own); }
    void fail(const std::string& msg) {
        out_.flush();
        ctx_.error(msg);
    }

private:
    bool set_attrs(const std::string& abs, const std::string& shown, vfs::Mode mode) {
        if (o_.uid || o_.gid) {
            auto st = ctx_.fs.stat(abs);
            uint32_t uid = o_.uid ? *o_.uid : (st ? st->uid : 0);
            uint32_t gid = o_.gid ? *o_.gid : (st ? st->gid : 0);
            auto r = ctx_.fs.chown(abs, uid, gid);
            if (!r) {
                fail("cannot change ownership of " + quote(shown) + ": " + std::string(errstr(r.error())));
                return false;
            }
        }
        auto r = ctx_.fs.chmod(abs, mode);
        if (!r) {
            fail("cannot change permissions of " + quote(shown) + ": " + std::string(errstr(r.error())));
            return false;
        }
        return true;
    }

    // -C: same mode, owner and content (and no special bits, which GNU always reinstalls).
    bool unchanged(const std::string& src_abs, const vfs::Stat& s, const std::string& dst_abs, const vfs::Stat& d) {
        if (!d.is_regular() || (o_.mode & 07000) || d.mode != o_.mode || d.size != s.size) return false;
        if (o_.uid && d.uid != *o_.uid) return false;
        if (o_.gid && d.gid != *o_.gid) return false;
        auto a = ctx_.fs.open_read(src_abs);
        auto b = ctx_.fs.open_read(dst_abs);
        if (!a || !b) return false;
        std::string ba(64 * 1024, '\0'), bb(64 * 1024, '\0');
        while (true) {
            if (ctx_.cancelled()) return false;
            auto na = (*a)->read(ba.data(), ba.size());
            if (!na) return false;
            size_t got = 0;
            while (got < *na) {
                auto nb = (*b)->read(bb.data() + got, *na - got);
                if (!nb || *nb == 0) return false;
                got += *nb;
            }
            if (std::string_view(ba.data(), *na) != std::string_view(bb.data(), *na)) return false;
            if (*na == 0) return true;
        }
    }

    std::string backup_for(const std::string& dst) {
        Backup kind = o_.backup;
        if (kind == Backup::simple) return dst + o_.suffix;
        // Numbered backups: one past the highest existing NAME.~N~.
        std::string dir = inst_parent_of(dst);
        std::string base = inst_base_of(dst);
        uint64_t highest = 0;
        auto entries = ctx_.fs.readdir(ctx_.resolve(dir.empty() ? "." : dir));
        if (entries) {
            std::string prefix = base + ".~";
            for (const auto& e : *entries) {
                std::string_view n = e.name;
                if (!n.starts_with(prefix) || !n.ends_with("~") || n.size() <= prefix.size() + 1) continue;
                std::string_view digits = n.substr(prefix.size(), n.size() - prefix.size() - 1);
                if (digits[0] == '0') continue;
                uint64_t v = 0;
                auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
                if (ec == std::errc() && ptr == digits.data() + digits.size()) highest = std::max(highest, v);
            }
        }
        if (kind == Backup::existing && highest == 0) return dst + o_.suffix;
        return dst + ".~" + std::to_string(highest + 1) + "~";
    }

    bool copy_data(const std::string& src, const std::string& src_abs, const std::string& dst,
                   const std::string& dst_abs, bool dst_exists) {
        auto in = ctx_.fs.open_read(src_abs);
        if (!in) {
            fail("cannot open " + quote(src) + " for reading: " + std::string(errstr(in.error())));
            return false;
        }
        constexpr auto kFlags = vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::truncate;
        auto outh = ctx_.fs.open(dst_abs, kFlags, 0600);
        if (!outh && dst_exists && ctx_.fs.unlink(dst_abs).ok()) outh = ctx_.fs.open(dst_abs, kFlags, 0600);
        if (!outh) {
            fail("cannot create regular file " + quote(dst) + ": " + std::string(errstr(outh.error())));
            return false;
        }
        std::string error;
        if (!copy_contents(ctx_, **in, **outh, src, dst, error)) {
            if (!error.empty()) fail(error);
            return false;
        }
        return true;
    }

    CommandContext& ctx_;
    const Opts& o_;
    Output out_;
};

int bad_backup(CommandContext& ctx, std::string_view value, bool ambiguous) {
    ctx.error(std::string(ambiguous ? "ambiguous" : "invalid") + " argument " + quote(value) +
              " for 'backup type'");
    ctx.err.write(
        "Valid arguments are:\n"
        "  - 'none', 'off'\n"
        "  - 'simple', 'never'\n"
        "  - 'existing', 'nil'\n"
        "  - 'numbered', 't'\n");
    return usage_error(ctx, "");
}

int install_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kInstallSpecs);
    Opts o;
    std::string mode_spec, owner, group;
    bool have_owner = false, have_group = false;
    std::optional<std::string> backup_arg;
    bool backup_given = false;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case kOptBackup:
                backup_given = true;
                if (opt.has_value) backup_arg = opt.value;
                break;
            case 'b': backup_given = true; break;
            case 'c': case kOptPreserveContext: case 'Z': case kOptStripProgram: break;
            case 'C': o.compare = true; break;
            case 'd': o.dirs = true; break;
            case 'D': o.leading = true; break;
            case 'g': group = opt.value; have_group = true; break;
            case 'm': mode_spec = opt.value; o.have_mode = true; break;
            case 'o': owner = opt.value; have_owner = true; break;
            case 'p': o.preserve_times = true; break;
            case 's': o.strip = true; break;
            case 'S': o.suffix = opt.value; backup_given = true; break;
            case 't': o.target_dir = opt.value; break;
            case 'T': o.no_target = true; break;
            case 'v': o.verbose = true; break;
            case kOptHelp: return print_help(ctx, kInstallHelp);
            case kOptVersion: return print_help(ctx, "install (GNU coreutils) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (backup_given) {
        std::string control;
        if (backup_arg) control = *backup_arg;
        else if (const std::string* v = ctx.env.get("VERSION_CONTROL"); v && !v->empty()) control = *v;
        if (control.empty()) {
            o.backup = Backup::existing;
        } else if (auto b = parse_backup(control)) {
            o.backup = *b;
        } else {
            return bad_backup(ctx, control, false);
        }
        if (!p.has('S')) {
            if (const std::string* s = ctx.env.get("SIMPLE_BACKUP_SUFFIX"); s && !s->empty()) o.suffix = *s;
        }
    }
    if (o.dirs && !o.target_dir.empty()) {
        ctx.error("target directory not allowed when installing a directory");
        return 1;
    }
    if (o.no_target && !o.target_dir.empty()) {
        ctx.error("cannot combine --target-directory (-t) and --no-target-directory (-T)");
        return 1;
    }
    if (o.have_mode) {
        // Symbolic modes start from no bits and ignore the umask, as GNU install's mode_adjust(0, ...).
        auto m = parse_mode(mode_spec, 0, o.dirs, 0);
        if (!m) {
            ctx.error("invalid mode " + quote(mode_spec));
            return 1;
        }
        o.mode = *m;
    }
    if (have_owner) {
        o.uid = lookup_user(ctx, owner, false);
        if (!o.uid) {
            ctx.error("invalid user " + quote(owner));
            return 1;
        }
    }
    if (have_group) {
        o.gid = lookup_user(ctx, group, true);
        if (!o.gid) {
            ctx.error("invalid group " + quote(group));
            return 1;
        }
    }
    const auto& ops = p.operands;
    if (ops.empty() || (ops.size() == 1 && !o.dirs && o.target_dir.empty())) {
        if (ops.empty()) return usage_error(ctx, "missing file operand");
        return usage_error(ctx, "missing destination file operand after " + quote(ops[0]));
    }
    Installer inst(ctx, o);
    int status = 0;
    if (o.dirs) {
        for (const auto& d : ops) {
            if (ctx.cancelled()) break;
            if (!inst.make_dirs(d, true)) status = 1;
        }
        return inst.finish(status);
    }
    std::string target = o.target_dir;
    std::vector<std::string> sources(ops.begin(), ops.end());
    if (target.empty()) {
        if (o.no_target) {
            if (ops.size() > 2) return usage_error(ctx, "extra operand " + quote(ops[2]));
        } else {
            auto st = ctx.fs.stat(ctx.resolve(ops.back()));
            if (st && st->is_directory()) {
                target = ops.back();
            } else if (ops.size() > 2) {
                ctx.error("target " + quote(ops.back()) + ": " +
                          std::string(errstr(st ? vfs::Errc::not_directory : st.error())));
                return 1;
            }
        }
        if (!target.empty()) sources.pop_back();
    }
    if (target.empty()) {
        // install SRC DEST
        if (o.leading) {
            std::string dir = inst_parent_of(ops[1]);
            if (!dir.empty() && !inst.make_dirs(dir, false)) return inst.finish(1);
        }
        if (!inst.install_file(ops[0], ops[1])) status = 1;
        return inst.finish(status);
    }
    if (o.leading && !o.target_dir.empty() && !inst.make_dirs(target, false)) return inst.finish(1);
    auto tst = ctx.fs.stat(ctx.resolve(target));
    if (!tst) {
        inst.fail("failed to access " + quote(target) + ": " + std::string(errstr(tst.error())));
        return inst.finish(1);
    }
    if (!tst->is_directory()) {
        inst.fail("target " + quote(target) + ": " + std::string(errstr(vfs::Errc::not_directory)));
        return inst.finish(1);
    }
    if (sources.empty()) return usage_error(ctx, "missing file operand");
    for (const auto& s : sources) {
        if (ctx.cancelled()) break;
        if (!inst.install_file(s, join(target, inst_base_of(s)))) status = 1;
    }
    return inst.finish(ctx.cancelled() ? 130 : status);
}

}  // namespace

void register_install(interp::CommandRegistry& r) {
    r.add("install", "install [-bCcDdpsTv] [-m MODE] [-o OWNER] [-g GROUP] [-t DIR] SOURCE... DEST: copy files and set attributes",
          install_main);
}

}  // namespace bashkit::utils::files
