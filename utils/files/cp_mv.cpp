// cp and mv. Directory contents are copied in name order (MemoryFs has no readdir order of its own).
// mv renames; across filesystems (EXDEV) it copies everything (preserving modes and times) and then
// removes the source, like GNU mv.
#include <algorithm>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

enum class Deref { Never, Always, CommandLine };

struct CopyOpts {
    bool recursive = false;
    bool preserve_mode = false, preserve_times = false, preserve_owner = false;
    bool no_clobber = false, force = false, verbose = false, update = false;
    bool no_target_dir = false;
    Deref deref = Deref::Always;
    bool deref_given = false;
    bool for_mv = false;
};

// The last component of a path without trailing slashes ("d/" -> "d", "/a/b" -> "b").
std::string last_component(std::string_view p) {
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
    size_t s = p.rfind('/');
    if (s != std::string_view::npos && p.size() > 1) p = p.substr(s + 1);
    return std::string(p);
}

// Whether `inner` is `outer` or below it (both canonical).
bool is_within(const std::string& outer, const std::string& inner) {
    if (inner == outer) return true;
    if (outer == "/") return true;
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/';
}

// The canonical form of a path that may not exist yet: realpath of its deepest existing ancestor plus
// the rest.
std::string canonical_for(vfs::FileSystem& fs, const std::string& abs) {
    std::string norm = vfs::normalize_path(abs);
    std::string head = norm, tail;
    while (true) {
        auto r = fs.realpath(head);
        if (r) return tail.empty() ? *r : join(*r, tail);
        if (head == "/" || head.empty()) return norm;
        std::string base = vfs::path_basename(head);
        tail = tail.empty() ? base : base + "/" + tail;
        head = vfs::path_dirname(head);
    }
}

class Copier {
public:
    Copier(CommandContext& ctx, const CopyOpts& o) : ctx_(ctx), o_(o), out_(ctx) {}

    // Copies src to dst (both as the user wrote them; the *_abs forms are for the filesystem).
    bool copy(const std::string& src, const std::string& src_abs, const std::string& dst,
              const std::string& dst_abs, bool command_line, int depth);
    void flush() { out_.flush(); }
    // Flushes; the status to exit with given the own one (141 after a closed pipe).
    int finish(int own) { return out_.status(own); }

private:
    bool copy_file(const std::string& src, const std::string& src_abs, const vfs::Stat& st, const std::string& dst,
                   const std::string& dst_abs, bool dst_exists);
    void fail(const std::string& msg) {
        out_.flush();
        ctx_.error(msg);
    }
    void set_attrs(const std::string& dst_abs, const vfs::Stat& st, bool created, bool is_dir);

    CommandContext& ctx_;
    const CopyOpts& o_;
    Output out_;
};

void Copier::set_attrs(const std::string& dst_abs, const vfs::Stat& st, bool created, bool is_dir) {
    if (o_.preserve_owner) (void)ctx_.fs.chown(dst_abs, st.uid, st.gid);
    if (o_.preserve_mode)
        (void)ctx_.fs.chmod(dst_abs, st.mode & 07777);
    else if (created)
        (void)ctx_.fs.chmod(dst_abs, st.mode & 0777 & ~ctx_.umask);
    if (o_.preserve_times)
        (void)ctx_.fs.utimes(dst_abs, vfs::TimeSet::at(st.atime), vfs::TimeSet::at(st.mtime));
    (void)is_dir;
}

bool Copier::copy_file(const std::string& src, const std::string& src_abs, const vfs::Stat& st, const std::string& dst,
                       const std::string& dst_abs, bool dst_exists) {
    auto in = ctx_.fs.open_read(src_abs);
    if (!in) {
        fail("cannot open " + quote(src) + " for reading: " + std::string(errstr(in.error())));
        return false;
    }
    auto outh = ctx_.fs.open(dst_abs, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::truncate,
                             st.mode & 0777 & ~ctx_.umask);
    if (!outh && dst_exists && o_.force) {
        if (ctx_.fs.unlink(dst_abs).ok()) {
            dst_exists = false;
            outh = ctx_.fs.open(dst_abs, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::truncate,
                                st.mode & 0777 & ~ctx_.umask);
        }
    }
    if (!outh) {
        // A new name ending in a slash must be a directory: GNU says "Not a directory" (open says EISDIR).
        vfs::Errc e = outh.error();
        if (!dst_exists && !dst.empty() && dst.back() == '/' && e == vfs::Errc::is_directory) e = vfs::Errc::not_directory;
        if (dst_exists)
            fail("cannot open " + quote(dst) + " for writing: " + std::string(errstr(e)));
        else
            fail("cannot create regular file " + quote(dst) + ": " + std::string(errstr(e)));
        return false;
    }
    std::string error;
    if (!copy_contents(ctx_, **in, **outh, src, dst, error)) {
        if (!error.empty()) fail(error);
        return false;
    }
    outh->reset();
    set_attrs(dst_abs, st, false, false);
    return true;
}

bool Copier::copy(const std::string& src, const std::string& src_abs, const std::string& dst,
                  const std::string& dst_abs, bool command_line, int depth) {
    if (ctx_.cancelled()) return false;
    bool follow = o_.deref == Deref::Always || (o_.deref == Deref::CommandLine && command_line);
    auto sst = follow ? ctx_.fs.stat(src_abs) : ctx_.fs.lstat(src_abs);
    if (!sst) {
        fail("cannot stat " + quote(src) + ": " + std::string(errstr(sst.error())));
        return false;
    }
    const vfs::Stat& st = *sst;
    auto dl = ctx_.fs.lstat(dst_abs);
    bool dst_exists = dl.ok();
    auto dfollow = ctx_.fs.stat(dst_abs);
    bool dst_is_dir = dfollow.ok() && dfollow->is_directory();
    if (dst_exists && dfollow.ok() && dfollow->dev == st.dev && dfollow->ino == st.ino && !st.is_symlink()) {
        fail(quote(src) + " and " + quote(dst) + " are the same file");
        return false;
    }
    if (st.is_directory()) {
        if (!o_.recursive) {
            fail("-r not specified; omitting directory " + quote(src));
            return false;
        }
        if (dst_exists && !dst_is_dir) {
            fail("cannot overwrite non-directory " + quote(dst) + " with directory " + quote(src));
            return false;
        }
        if (command_line) {
            std::string cs = canonical_for(ctx_.fs, src_abs), cd = canonical_for(ctx_.fs, dst_abs);
            if (is_within(cs, cd)) {
                fail("cannot copy a directory, " + quote(src) + ", into itself, " + quote(dst));
                return false;
            }
        }
        if (depth > 4096) {
            fail("cannot copy " + quote(src) + ": " + std::string(errstr(vfs::Errc::name_too_long)));
            return false;
        }
        bool created = false;
        if (!dst_exists) {
            auto s = ctx_.fs.mkdir(dst_abs, (st.mode & 0777) | 0700);
            if (!s) {
                fail("cannot create directory " + quote(dst) + ": " + std::string(errstr(s.error())));
                return false;
            }
            created = true;
            if (o_.verbose) out_.put(quote(src) + " -> " + quote(dst) + "\n");
        }
        auto ents = ctx_.fs.readdir(src_abs);
        if (!ents) {
            fail("cannot access " + quote(src) + ": " + std::string(errstr(ents.error())));
            return false;
        }
        std::vector<std::string> names;
        for (auto& e : *ents) names.push_back(std::move(e.name));
        std::sort(names.begin(), names.end());
        bool ok = true;
        for (const auto& n : names) {
            if (!copy(join(src, n), join(src_abs, n), join(dst, n), join(dst_abs, n), false, depth + 1)) ok = false;
            if (ctx_.cancelled()) return false;
        }
        set_attrs(dst_abs, st, created, true);
        return ok;
    }
    if (dst_exists) {
        if (dst_is_dir && !dl->is_symlink()) {
            fail("cannot overwrite directory " + quote(dst) + " with non-directory");
            return false;
        }
        if (o_.no_clobber) return true;
        if (o_.update && dfollow.ok() && dfollow->mtime >= st.mtime) return true;
    }
    if (st.is_symlink()) {
        auto target = ctx_.fs.readlink(src_abs);
        if (!target) {
            fail("cannot read symbolic link " + quote(src) + ": " + std::string(errstr(target.error())));
            return false;
        }
        if (dst_exists) (void)ctx_.fs.unlink(dst_abs);
        auto s = ctx_.fs.symlink(*target, dst_abs);
        if (!s) {
            fail("cannot create symbolic link " + quote(dst) + ": " + std::string(errstr(s.error())));
            return false;
        }
        if (o_.verbose) out_.put(quote(src) + " -> " + quote(dst) + "\n");
        return true;
    }
    if (!st.is_regular()) {
        fail("cannot copy " + quote(src) + ": " + std::string(errstr(vfs::Errc::not_supported)));
        return false;
    }
    bool ok = copy_file(src, src_abs, st, dst, dst_abs, dst_exists);
    if (ok && o_.verbose) out_.put(quote(src) + " -> " + quote(dst) + "\n");
    return ok;
}

// Shared operand handling: sources and the destination of each.
struct Plan {
    std::vector<std::pair<std::string, std::string>> moves;  // (source, destination) as written
};

bool make_plan(CommandContext& ctx, std::vector<std::string> operands, const std::string& target_dir,
               bool no_target_dir, Plan& plan, int& status) {
    if (!target_dir.empty()) {
        auto st = ctx.fs.stat(ctx.resolve(target_dir));
        if (!st || !st->is_directory()) {
            ctx.error("target directory " + quote(target_dir) + ": " +
                      std::string(errstr(st ? vfs::Errc::not_directory : st.error())));
            status = 1;
            return false;
        }
        if (operands.empty()) {
            status = usage_error(ctx, "missing file operand");
            return false;
        }
        for (auto& s : operands) plan.moves.emplace_back(s, join(target_dir, last_component(s)));
        return true;
    }
    if (operands.empty()) {
        status = usage_error(ctx, "missing file operand");
        return false;
    }
    if (operands.size() == 1) {
        status = usage_error(ctx, "missing destination file operand after " + quote(operands[0]));
        return false;
    }
    std::string dest = operands.back();
    operands.pop_back();
    if (no_target_dir) {
        if (operands.size() > 1) {
            status = usage_error(ctx, "extra operand " + quote(operands[1]));
            return false;
        }
        plan.moves.emplace_back(operands[0], dest);
        return true;
    }
    auto st = ctx.fs.stat(ctx.resolve(dest));
    bool is_dir = st.ok() && st->is_directory();
    if (operands.size() > 1 && !is_dir) {
        ctx.error("target " + quote(dest) + ": " + std::string(errstr(st ? vfs::Errc::not_directory : st.error())));
        status = 1;
        return false;
    }
    for (auto& s : operands) plan.moves.emplace_back(s, is_dir ? join(dest, last_component(s)) : dest);
    return true;
}

enum : int { kOptPreserve = kOptFirstLongOnly, kOptNoPreserve, kOptParents, kOptNoClobber };

constexpr OptionSpec kCpSpecs[] = {
    {'r', 'r', "recursive"},
    {'R', 'R'},
    {'p', 'p'},
    {'a', 'a', "archive"},
    {'n', 'n', "no-clobber"},
    {'f', 'f', "force"},
    {'i', 'i', "interactive"},
    {'v', 'v', "verbose"},
    {'d', 'd'},
    {'P', 'P', "no-dereference"},
    {'L', 'L', "dereference"},
    {'H', 'H'},
    {'u', 'u', "update"},
    {'t', 't', "target-directory", ArgKind::required},
    {'T', 'T', "no-target-directory"},
    {kOptPreserve, 0, "preserve", ArgKind::optional},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kCpHelp =
    "Usage: cp [OPTION]... [-T] SOURCE DEST\n"
    "  or:  cp [OPTION]... SOURCE... DIRECTORY\n"
    "  or:  cp [OPTION]... -t DIRECTORY SOURCE...\n"
    "Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.\n"
    "\n"
    "  -a, --archive                same as -dR --preserve=all\n"
    "  -d                           same as --no-dereference --preserve=links\n"
    "  -f, --force                  if an existing destination file cannot be opened, remove it and try again\n"
    "  -L, --dereference            always follow symbolic links in SOURCE\n"
    "  -n, --no-clobber             do not overwrite an existing file\n"
    "  -P, --no-dereference         never follow symbolic links in SOURCE\n"
    "  -p                           same as --preserve=mode,ownership,timestamps\n"
    "  -R, -r, --recursive          copy directories recursively\n"
    "  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY\n"
    "  -T, --no-target-directory    treat DEST as a normal file\n"
    "  -u, --update                 copy only when the SOURCE file is newer than the destination file\n"
    "  -v, --verbose                explain what is being done\n"
    "      --help                   display this help and exit\n";

int cp_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kCpSpecs);
    CopyOpts o;
    std::string target_dir;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'r': case 'R': o.recursive = true; break;
            case 'p': o.preserve_mode = o.preserve_times = o.preserve_owner = true; break;
            case 'a':
                o.recursive = true;
                o.deref = Deref::Never;
                o.deref_given = true;
                o.preserve_mode = o.preserve_times = o.preserve_owner = true;
                break;
            case 'n': o.no_clobber = true; break;
            case 'f': o.force = true; o.no_clobber = false; break;
            case 'i': o.no_clobber = false; break;
            case 'v': o.verbose = true; break;
            case 'd': case 'P': o.deref = Deref::Never; o.deref_given = true; break;
            case 'L': o.deref = Deref::Always; o.deref_given = true; break;
            case 'H': o.deref = Deref::CommandLine; o.deref_given = true; break;
            case 'u': o.update = true; break;
            case 't': target_dir = opt.value; break;
            case 'T': o.no_target_dir = true; break;
            case kOptPreserve: {
                std::string v = opt.has_value ? opt.value : "mode,ownership,timestamps";
                size_t start = 0;
                while (start <= v.size()) {
                    size_t c = v.find(',', start);
                    std::string item = v.substr(start, c == std::string::npos ? std::string::npos : c - start);
                    if (item == "mode") o.preserve_mode = true;
                    else if (item == "ownership") o.preserve_owner = true;
                    else if (item == "timestamps") o.preserve_times = true;
                    else if (item == "all") o.preserve_mode = o.preserve_owner = o.preserve_times = true;
                    else if (item == "links" || item == "context" || item == "xattr") {}
                    else {
                        ctx.error("invalid argument " + quote(item) + " for '--preserve'");
                        return usage_error(ctx, "");
                    }
                    if (c == std::string::npos) break;
                    start = c + 1;
                }
                break;
            }
            case kOptHelp: return print_help(ctx, kCpHelp);
            case kOptVersion: return print_help(ctx, "cp (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (!o.deref_given) o.deref = o.recursive ? Deref::Never : Deref::Always;
    Plan plan;
    int status = 0;
    if (!make_plan(ctx, p.operands, target_dir, o.no_target_dir, plan, status)) return status;
    Copier c(ctx, o);
    for (const auto& [src, dst] : plan.moves) {
        if (!c.copy(src, ctx.resolve(src), dst, ctx.resolve(dst), true, 0)) status = 1;
        if (ctx.cancelled()) break;
    }
    return c.finish(status);
}

constexpr OptionSpec kMvSpecs[] = {
    {'f', 'f', "force"},
    {'n', 'n', "no-clobber"},
    {'i', 'i', "interactive"},
    {'v', 'v', "verbose"},
    {'u', 'u', "update"},
    {'t', 't', "target-directory", ArgKind::required},
    {'T', 'T', "no-target-directory"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kMvHelp =
    "Usage: mv [OPTION]... [-T] SOURCE DEST\n"
    "  or:  mv [OPTION]... SOURCE... DIRECTORY\n"
    "  or:  mv [OPTION]... -t DIRECTORY SOURCE...\n"
    "Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.\n"
    "\n"
    "  -f, --force                  do not prompt before overwriting\n"
    "  -n, --no-clobber             do not overwrite an existing file\n"
    "  -t, --target-directory=DIRECTORY  move all SOURCE arguments into DIRECTORY\n"
    "  -T, --no-target-directory    treat DEST as a normal file\n"
    "  -u, --update                 move only when the SOURCE file is newer than the destination file\n"
    "  -v, --verbose                explain what is being done\n"
    "      --help                   display this help and exit\n";

int mv_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kMvSpecs);
    bool no_clobber = false, verbose = false, update = false, no_target = false;
    std::string target_dir;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'f': case 'i': no_clobber = false; break;
            case 'n': no_clobber = true; break;
            case 'v': verbose = true; break;
            case 'u': update = true; break;
            case 't': target_dir = opt.value; break;
            case 'T': no_target = true; break;
            case kOptHelp: return print_help(ctx, kMvHelp);
            case kOptVersion: return print_help(ctx, "mv (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    Plan plan;
    int status = 0;
    if (!make_plan(ctx, p.operands, target_dir, no_target, plan, status)) return status;
    Output out(ctx);
    auto fail = [&](const std::string& m) {
        out.flush();
        ctx.error(m);
        status = 1;
    };
    for (const auto& [src, dst] : plan.moves) {
        if (ctx.cancelled()) break;
        std::string sa = ctx.resolve(src), da = ctx.resolve(dst);
        auto sst = ctx.fs.lstat(sa);
        if (!sst) {
            fail("cannot stat " + quote(src) + ": " + std::string(errstr(sst.error())));
            continue;
        }
        auto dl = ctx.fs.lstat(da);
        if (dl) {
            auto df = ctx.fs.stat(da);
            if (dl->dev == sst->dev && dl->ino == sst->ino) {
                fail(quote(src) + " and " + quote(dst) + " are the same file");
                continue;
            }
            if (no_clobber) continue;
            if (update && df && df->mtime >= sst->mtime) continue;
            bool dst_dir = dl->is_directory();
            if (sst->is_directory() && !dst_dir) {
                fail("cannot overwrite non-directory " + quote(dst) + " with directory " + quote(src));
                continue;
            }
            if (!sst->is_directory() && dst_dir) {
                fail("cannot overwrite directory " + quote(dst) + " with non-directory");
                continue;
            }
        }
        if (sst->is_directory()) {
            std::string cs = canonical_for(ctx.fs, sa), cd = canonical_for(ctx.fs, da);
            if (cs != cd && is_within(cs, cd)) {
                fail("cannot move " + quote(src) + " to a subdirectory of itself, " + quote(dst));
                continue;
            }
        }
        auto r = ctx.fs.rename(sa, da);
        if (!r && r.error() == vfs::Errc::cross_device) {
            CopyOpts co;
            co.recursive = true;
            co.deref = Deref::Never;
            co.preserve_mode = co.preserve_times = co.preserve_owner = true;
            co.for_mv = true;
            if (dl) {
                auto rm = dl->is_directory() ? ctx.fs.rmdir(da) : ctx.fs.unlink(da);
                if (!rm) {
                    fail("cannot move " + quote(src) + " to " + quote(dst) + ": " + std::string(errstr(rm.error())));
                    continue;
                }
            }
            Copier c(ctx, co);
            bool ok = c.copy(src, sa, dst, da, true, 0);
            c.flush();
            if (!ok) {
                status = 1;
                continue;
            }
            auto rm = ctx.fs.remove_all(sa);
            if (!rm) {
                fail("cannot remove " + quote(src) + ": " + std::string(errstr(rm.error())));
                continue;
            }
        } else if (!r) {
            fail("cannot move " + quote(src) + " to " + quote(dst) + ": " + std::string(errstr(r.error())));
            continue;
        }
        if (verbose) out.put("renamed " + quote(src) + " -> " + quote(dst) + "\n");
    }
    return out.status(status);
}

}  // namespace

void register_cp_mv(interp::CommandRegistry& r) {
    r.add("cp", "cp [-rRpanfv] SOURCE... DEST: copy files and directories", cp_main);
    r.add("mv", "mv [-fnv] SOURCE... DEST: move (rename) files", mv_main);
}

}  // namespace bashkit::utils::files
