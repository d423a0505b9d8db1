// rm and rmdir. rm -r removes depth first, entries in name order, with an explicit stack (any depth).
#include <algorithm>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

enum : int { kOptNoPreserveRoot = kOptFirstLongOnly, kOptPreserveRoot, kOptIgnoreFailOnNonEmpty };

constexpr OptionSpec kRmSpecs[] = {
    {'r', 'r', "recursive"},
    {'R', 'R'},
    {'f', 'f', "force"},
    {'v', 'v', "verbose"},
    {'d', 'd', "dir"},
    {'i', 'i'},
    {'I', 'I'},
    {kOptNoPreserveRoot, 0, "no-preserve-root"},
    {kOptPreserveRoot, 0, "preserve-root", ArgKind::optional},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kRmHelp =
    "Usage: rm [OPTION]... [FILE]...\n"
    "Remove (unlink) the FILE(s).\n"
    "\n"
    "  -f, --force           ignore nonexistent files and arguments, never prompt\n"
    "  -r, -R, --recursive   remove directories and their contents recursively\n"
    "  -d, --dir             remove empty directories\n"
    "  -v, --verbose         explain what is being done\n"
    "      --no-preserve-root  do not treat '/' specially\n"
    "      --help            display this help and exit\n";

struct RmOpts {
    bool recursive = false, force = false, verbose = false, dir = false, preserve_root = true;
};

class Remover {
public:
    Remover(CommandContext& ctx, RmOpts o) : ctx_(ctx), o_(o), out_(ctx) {}
    bool remove_path(const std::string& shown, const std::string& abs);
    void flush() { out_.flush(); }
    // Flushes; the status to exit with given the own one (141 after a closed pipe).
    int finish(int own) { return out_.status(own); }

private:
    void fail(const std::string& shown, vfs::Errc e) {
        out_.flush();
        ctx_.error("cannot remove " + quote(shown) + ": " + std::string(errstr(e)));
    }
    bool remove_tree(const std::string& shown, const std::string& abs);

    CommandContext& ctx_;
    RmOpts o_;
    Output out_;
};

bool Remover::remove_tree(const std::string& shown, const std::string& abs) {
    // Post-order walk with an explicit stack: a frame lists its directory once, then its children.
    struct Frame {
        std::string shown, abs;
        std::vector<std::pair<std::string, bool>> children;  // name, is a directory (not followed)
        size_t next = 0;
        bool listed = false;
        bool ok = true;
    };
    std::vector<Frame> stack;
    stack.push_back({shown, abs, {}, 0, false, true});
    bool all_ok = true;
    while (!stack.empty()) {
        if (ctx_.cancelled()) return false;
        Frame& f = stack.back();
        if (!f.listed) {
            f.listed = true;
            auto ents = ctx_.fs.readdir(f.abs);
            if (!ents) {
                out_.flush();
                ctx_.error("cannot remove " + quote(f.shown) + ": " + std::string(errstr(ents.error())));
                all_ok = false;
                stack.pop_back();
                continue;
            }
            for (auto& e : *ents) {
                bool is_dir = e.type == vfs::FileType::directory;
                if (e.type == vfs::FileType::unknown) {
                    auto st = ctx_.fs.lstat(join(f.abs, e.name));
                    is_dir = st.ok() && st->is_directory();
                }
                f.children.emplace_back(std::move(e.name), is_dir);
            }
            std::sort(f.children.begin(), f.children.end());
        }
        if (f.next < f.children.size()) {
            auto [name, is_dir] = f.children[f.next++];
            std::string cs = join(f.shown, name), ca = join(f.abs, name);
            if (is_dir) {
                stack.push_back({cs, ca, {}, 0, false, true});
                continue;
            }
            auto r = ctx_.fs.unlink(ca);
            if (!r) {
                fail(cs, r.error());
                f.ok = false;
                all_ok = false;
            } else if (o_.verbose) {
                out_.put("removed " + quote(cs) + "\n");
            }
            continue;
        }
        Frame done = std::move(stack.back());
        stack.pop_back();
        if (!done.ok) {
            if (!stack.empty()) stack.back().ok = false;
            continue;
        }
        auto r = ctx_.fs.rmdir(done.abs);
        if (!r) {
            fail(done.shown, r.error());
            all_ok = false;
            if (!stack.empty()) stack.back().ok = false;
        } else if (o_.verbose) {
            out_.put("removed directory " + quote(done.shown) + "\n");
        }
    }
    return all_ok;
}

bool Remover::remove_path(const std::string& shown, const std::string& abs) {
    // The last component "." or ".." is refused (after trailing slashes).
    std::string_view trimmed = shown;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.remove_suffix(1);
    std::string last = vfs::path_basename(trimmed);
    if (last == "." || last == "..") {
        if (o_.recursive || o_.dir) {
            out_.flush();
            ctx_.error("refusing to remove '.' or '..' directory: skipping " + quote(shown));
            return false;
        }
    }
    auto st = ctx_.fs.lstat(abs);
    if (!st) {
        if (o_.force && st.error() == vfs::Errc::no_such_file) return true;
        fail(shown, st.error());
        return false;
    }
    if (st->is_directory()) {
        if (o_.recursive) {
            if (o_.preserve_root) {
                auto real = ctx_.fs.realpath(abs);
                if (real && *real == "/") {
                    out_.flush();
                    if (shown == "/")
                        ctx_.error("it is dangerous to operate recursively on '/'");
                    else
                        ctx_.error("it is dangerous to operate recursively on " + quote(shown) + " (same as '/')");
                    ctx_.error("use --no-preserve-root to override this failsafe");
                    return false;
                }
            }
            return remove_tree(shown, abs);
        }
        if (!o_.dir) {
            fail(shown, vfs::Errc::is_directory);
            return false;
        }
        auto r = ctx_.fs.rmdir(abs);
        if (!r) {
            fail(shown, r.error());
            return false;
        }
        if (o_.verbose) out_.put("removed directory " + quote(shown) + "\n");
        return true;
    }
    auto r = ctx_.fs.unlink(abs);
    if (!r) {
        fail(shown, r.error());
        return false;
    }
    if (o_.verbose) out_.put("removed " + quote(shown) + "\n");
    return true;
}

int rm_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kRmSpecs);
    RmOpts o;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'r': case 'R': o.recursive = true; break;
            case 'f': o.force = true; break;
            case 'i': case 'I': o.force = false; break;
            case 'v': o.verbose = true; break;
            case 'd': o.dir = true; break;
            case kOptNoPreserveRoot: o.preserve_root = false; break;
            case kOptPreserveRoot: o.preserve_root = true; break;
            case kOptHelp: return print_help(ctx, kRmHelp);
            case kOptVersion: return print_help(ctx, "rm (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) {
        if (o.force) return 0;
        return usage_error(ctx, "missing operand");
    }
    Remover rm(ctx, o);
    int status = 0;
    for (const auto& op : p.operands) {
        if (!rm.remove_path(op, ctx.resolve(op))) status = 1;
        if (ctx.cancelled()) break;
    }
    return rm.finish(status);
}

constexpr OptionSpec kRmdirSpecs[] = {
    {'p', 'p', "parents"},
    {'v', 'v', "verbose"},
    {kOptIgnoreFailOnNonEmpty, 0, "ignore-fail-on-non-empty"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kRmdirHelp =
    "Usage: rmdir [OPTION]... DIRECTORY...\n"
    "Remove the DIRECTORY(ies), if they are empty.\n"
    "\n"
    "      --ignore-fail-on-non-empty  ignore each failure that is solely because a directory is non-empty\n"
    "  -p, --parents   remove DIRECTORY and its ancestors; e.g., 'rmdir -p a/b/c' is similar to 'rmdir a/b/c a/b a'\n"
    "  -v, --verbose   output a diagnostic for every directory processed\n"
    "      --help      display this help and exit\n";

int rmdir_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kRmdirSpecs);
    bool parents = false, verbose = false, ignore_nonempty = false;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'p': parents = true; break;
            case 'v': verbose = true; break;
            case kOptIgnoreFailOnNonEmpty: ignore_nonempty = true; break;
            case kOptHelp: return print_help(ctx, kRmdirHelp);
            case kOptVersion: return print_help(ctx, "rmdir (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    int status = 0;
    Output out(ctx);
    auto remove_one = [&](const std::string& d, bool parent) -> bool {
        if (verbose) out.put("rmdir: removing directory, " + quote(d) + "\n");
        auto r = ctx.fs.rmdir(ctx.resolve(d));
        if (!r) {
            if (ignore_nonempty && r.error() == vfs::Errc::not_empty) return false;
            out.flush();
            vfs::Errc e = r.error();
            // GNU reports a symlink to a directory as "Not a directory", a file likewise.
            ctx.error(std::string(parent ? "failed to remove directory " : "failed to remove ") + quote(d) + ": " +
                      std::string(errstr(e)));
            status = 1;
            return false;
        }
        return true;
    };
    for (const auto& op : p.operands) {
        if (!remove_one(op, false)) continue;
        if (!parents) continue;
        std::string d = op;
        while (true) {
            while (d.size() > 1 && d.back() == '/') d.pop_back();
            size_t s = d.rfind('/');
            if (s == std::string::npos) break;
            d.resize(s);
            while (d.size() > 1 && d.back() == '/') d.pop_back();
            if (d.empty() || d == "/") break;
            if (!remove_one(d, true)) break;
        }
    }
    return out.status(status);
}

}  // namespace

void register_rm(interp::CommandRegistry& r) {
    r.add("rm", "rm [-rfvd] FILE...: remove files or directories", rm_main);
    r.add("rmdir", "rmdir [-p] DIRECTORY...: remove empty directories", rmdir_main);
}

}  // namespace bashkit::utils::files
