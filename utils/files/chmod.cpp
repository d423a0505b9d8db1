// chmod (octal and symbolic modes, -R -v -c -f).
#include <algorithm>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

constexpr OptionSpec kChmodSpecs[] = {
    {'R', 'R', "recursive"},
    {'v', 'v', "verbose"},
    {'c', 'c', "changes"},
    {'f', 'f', "silent"},
    {'f', 0, "quiet"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kChmodHelp =
    "Usage: chmod [OPTION]... MODE[,MODE]... FILE...\n"
    "  or:  chmod [OPTION]... OCTAL-MODE FILE...\n"
    "Change the mode of each FILE to MODE.\n"
    "\n"
    "  -c, --changes          like verbose but report only when a change is made\n"
    "  -f, --silent, --quiet  suppress most error messages\n"
    "  -v, --verbose          output a diagnostic for every file processed\n"
    "  -R, --recursive        change files and directories recursively\n"
    "      --help             display this help and exit\n"
    "\n"
    "Each MODE is of the form '[ugoa]*([-+=]([rwxXst]*|[ugo]))+|[-+=][0-7]+'.\n";

std::string octal4(vfs::Mode m) {
    std::string s = "0000";
    for (int i = 3; i >= 0; --i) {
        s[static_cast<size_t>(i)] = static_cast<char>('0' + (m & 7));
        m >>= 3;
    }
    return s;
}

struct Chmod {
    CommandContext& ctx;
    std::string spec;
    bool recursive = false, verbose = false, changes = false, silent = false;
    Output out;
    int status = 0;

    explicit Chmod(CommandContext& c) : ctx(c), out(c) {}

    void apply(const std::string& shown, const std::string& abs, const vfs::Stat& st) {
        auto m = parse_mode(spec, st.mode & 07777, st.is_directory(), ctx.umask);
        if (!m) return;
        vfs::Mode old = st.mode & 07777;
        if (*m != old) {
            auto r = ctx.fs.chmod(abs, *m);
            if (!r) {
                if (!silent) {
                    out.flush();
                    ctx.error("changing permissions of " + quote(shown) + ": " + std::string(errstr(r.error())));
                }
                status = 1;
                return;
            }
        }
        if (verbose || (changes && *m != old)) {
            vfs::Stat before = st, after = st;
            before.mode = old;
            after.mode = *m;
            std::string b = mode_string(before).substr(1), a = mode_string(after).substr(1);
            if (*m != old)
                out.put("mode of " + quote(shown) + " changed from " + octal4(old) + " (" + b + ") to " + octal4(*m) +
                        " (" + a + ")\n");
            else
                out.put("mode of " + quote(shown) + " retained as " + octal4(old) + " (" + b + ")\n");
        }
    }

    void walk(const std::string& shown, const std::string& abs, bool command_line, int depth) {
        if (ctx.cancelled()) return;
        auto l = ctx.fs.lstat(abs);
        if (!l) {
            if (!silent) {
                out.flush();
                ctx.error("cannot access " + quote(shown) + ": " + std::string(errstr(l.error())));
            }
            status = 1;
            return;
        }
        vfs::Stat st = *l;
        if (st.is_symlink()) {
            if (!command_line) return;  // symlinks met during -R are not followed
            auto t = ctx.fs.stat(abs);
            if (!t) {
                if (!silent) {
                    out.flush();
                    ctx.error("cannot operate on dangling symlink " + quote(shown));
                }
                status = 1;
                return;
            }
            st = *t;
        }
        apply(shown, abs, st);
        if (!recursive || !st.is_directory() || depth > 4096) return;
        if (l->is_symlink()) return;
        auto ents = ctx.fs.readdir(abs);
        if (!ents) {
            if (!silent) {
                out.flush();
                ctx.error("cannot read directory " + quote(shown) + ": " + std::string(errstr(ents.error())));
            }
            status = 1;
            return;
        }
        std::vector<std::string> names;
        for (auto& e : *ents) names.push_back(std::move(e.name));
        std::sort(names.begin(), names.end());
        for (const auto& n : names) walk(join(shown, n), join(abs, n), false, depth + 1);
    }
};

int chmod_main(CommandContext& ctx) {
    // A mode like -w or -rwx looks like options: GNU takes such a word as the mode when it is one.
    std::vector<std::string> args = ctx.argv;
    std::string dash_mode;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") break;
        if (a.size() >= 2 && a[0] == '-' && a[1] != '-' &&
            a.find_first_not_of("rwxXstugo0123456789,+-=") == std::string::npos &&
            a.find_first_of("rwxXst") != std::string::npos) {
            bool valid = parse_mode(a, 0644, false, 0).has_value();
            if (valid && dash_mode.empty()) {
                dash_mode = a;
                args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
        }
    }
    ParsedArgs p = parse_args(args, kChmodSpecs);
    Chmod c(ctx);
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'R': c.recursive = true; break;
            case 'v': c.verbose = true; break;
            case 'c': c.changes = true; break;
            case 'f': c.silent = true; break;
            case kOptHelp: return print_help(ctx, kChmodHelp);
            case kOptVersion: return print_help(ctx, "chmod (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    std::vector<std::string> ops = p.operands;
    if (!dash_mode.empty()) {
        c.spec = dash_mode;
    } else {
        if (ops.empty()) return usage_error(ctx, "missing operand");
        c.spec = ops.front();
        ops.erase(ops.begin());
    }
    if (ops.empty()) return usage_error(ctx, "missing operand after " + quote(c.spec));
    if (!parse_mode(c.spec, 0644, false, ctx.umask) || !parse_mode(c.spec, 0755, true, ctx.umask)) {
        ctx.error("invalid mode: " + quote(c.spec));
        return usage_error(ctx, "");
    }
    for (const auto& op : ops) c.walk(op, ctx.resolve(op), true, 0);
    return c.out.status(c.status);
}

}  // namespace

void register_chmod(interp::CommandRegistry& r) {
    r.add("chmod", "chmod [-Rvcf] MODE FILE...: change file mode bits", chmod_main);
}

}  // namespace bashkit::utils::files
