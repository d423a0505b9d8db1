// mkdir (-p -v -m).
#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

constexpr OptionSpec kMkdirSpecs[] = {
    {'p', 'p', "parents"},
    {'v', 'v', "verbose"},
    {'m', 'm', "mode", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kMkdirHelp =
    "Usage: mkdir [OPTION]... DIRECTORY...\n"
    "Create the DIRECTORY(ies), if they do not already exist.\n"
    "\n"
    "  -m, --mode=MODE   set file mode (as in chmod), not a=rwx - umask\n"
    "  -p, --parents     no error if existing, make parent directories as needed\n"
    "  -v, --verbose     print a message for each created directory\n"
    "      --help        display this help and exit\n";

int mkdir_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kMkdirSpecs);
    bool parents = false, verbose = false;
    std::string mode_spec;
    bool have_mode = false;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'p': parents = true; break;
            case 'v': verbose = true; break;
            case 'm': mode_spec = opt.value; have_mode = true; break;
            case kOptHelp: return print_help(ctx, kMkdirHelp);
            case kOptVersion: return print_help(ctx, "mkdir (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    vfs::Mode mode = 0777 & ~ctx.umask;
    if (have_mode) {
        auto m = parse_mode(mode_spec, 0777, true, ctx.umask);
        if (!m) {
            ctx.error("invalid mode " + quote(mode_spec));
            return 1;
        }
        // Symbolic modes start from a=rwx (not from the umask'ed value).
        mode = *m;
    }
    // Parents made by -p get u+wx on top of the umask'ed default.
    vfs::Mode parent_mode = (0777 & ~ctx.umask) | 0300;
    int status = 0;
    Output out(ctx);
    for (const auto& op : p.operands) {
        std::string abs = ctx.resolve(op);
        if (parents) {
            // Walk the components so each new one can be reported.
            std::vector<std::string_view> comps = vfs::split_path(op);
            std::string shown = !op.empty() && op[0] == '/' ? "/" : "";
            std::string cur = !op.empty() && op[0] == '/' ? "/" : ctx.cwd;
            bool ok = true;
            for (size_t i = 0; i < comps.size(); ++i) {
                shown = shown.empty() ? std::string(comps[i]) : join(shown, comps[i]);
                cur = join(cur, comps[i]);
                bool last = i + 1 == comps.size();
                auto st = ctx.fs.stat(cur);
                if (st && st->is_directory()) {
                    continue;
                }
                if (st || ctx.fs.lexists(cur)) {
                    out.flush();
                    ctx.error("cannot create directory " + quote(shown) + ": " +
                              std::string(errstr(last ? vfs::Errc::file_exists : vfs::Errc::not_directory)));
                    ok = false;
                    break;
                }
                auto r = ctx.fs.mkdir(cur, last ? mode : parent_mode);
                if (!r && r.error() != vfs::Errc::file_exists) {
                    out.flush();
                    ctx.error("cannot create directory " + quote(shown) + ": " + std::string(errstr(r.error())));
                    ok = false;
                    break;
                }
                if (r && last && have_mode) (void)ctx.fs.chmod(cur, mode);
                if (r && verbose) out.put("mkdir: created directory " + quote(shown) + "\n");
            }
            if (!ok) status = 1;
            continue;
        }
        auto r = ctx.fs.mkdir(abs, mode);
        if (!r) {
            out.flush();
            ctx.error("cannot create directory " + quote(op) + ": " + std::string(errstr(r.error())));
            status = 1;
            continue;
        }
        if (have_mode) (void)ctx.fs.chmod(abs, mode);
        if (verbose) out.put("mkdir: created directory " + quote(op) + "\n");
    }
    return out.status(status);
}

}  // namespace

void register_mkdir(interp::CommandRegistry& r) {
    r.add("mkdir", "mkdir [-pv] [-m MODE] DIRECTORY...: make directories", mkdir_main);
}

}  // namespace bashkit::utils::files
