// rename (util-linux; also as rename.ul, Debian's name for it): rename FROM TO FILE... replaces the first
// (-a every, -l the last) occurrence of FROM in each FILE's name with TO. Exit status 0 when every file was
// renamed, 4 when none was, 1 on errors only, 2 on errors after some renames.
#include <string>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

int rename_main(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'v', 'v', "verbose"}, {'n', 'n', "no-act"}, {'o', 'o', "no-overwrite"}, {'a', 'a', "all"},
        {'l', 'l', "last"},    {'s', 's', "symlink"}, {'i', 'i', "interactive"}, {'h', 'h', "help"},
        {'V', 'V', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool verbose = false, no_act = false, no_overwrite = false, all = false, last = false;
    const std::string prog = vfs::path_basename(ctx.argv[0]);
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'v': verbose = true; break;
            case 'n': no_act = true; break;
            case 'o': no_overwrite = true; break;
            case 'a': all = true; break;
            case 'l': last = true; break;
            case 'h':
                return write_out(ctx, "\nUsage:\n " + prog + " [options] <expression> <replacement> <file>...\n\n"
                                      "Rename files.\n") ? 0 : 1;
            case 'V': return write_out(ctx, prog + " from util-linux 2.38.1\n") ? 0 : 1;
            default: break;
        }
    }
    auto usage = [&](const std::string& msg) {
        (void)ctx.err.write(prog + ": " + msg + "\nTry '" + prog + " --help' for more information.\n");
        return 1;
    };
    if (!p.ok()) return usage(p.error);
    if (p.operands.size() < 3) return usage("not enough arguments");
    const std::string& from = p.operands[0];
    const std::string& to = p.operands[1];
    int renamed = 0, errors = 0, total = 0;
    for (size_t i = 2; i < p.operands.size(); ++i) {
        if (ctx.cancelled()) return 1;
        const std::string& name = p.operands[i];
        ++total;
        const std::string path = ctx.resolve(name);
        auto st = ctx.fs.lstat(path);
        if (!st.ok()) {
            (void)ctx.err.write(prog + ": " + name + ": not accessible: " + std::string(errstr(st.error())) + "\n");
            ++errors;
            continue;
        }
        // Only the last component is matched, as util-linux does.
        const size_t slash = name.rfind('/');
        const size_t base = slash == std::string::npos ? 0 : slash + 1;
        std::string target = name;
        size_t at = last ? target.rfind(from) : target.find(from, base);
        if (from.empty() || at == std::string::npos || at < base) continue;
        if (all) {
            std::string out = target.substr(0, base);
            size_t pos = base;
            for (size_t f = target.find(from, pos); f != std::string::npos; f = target.find(from, pos)) {
                out += target.substr(pos, f - pos) + to;
                pos = f + from.size();
            }
            target = out + target.substr(pos);
        } else {
            target.replace(at, from.size(), to);
        }
        const std::string tpath = ctx.resolve(target);
        if (no_overwrite && ctx.fs.lstat(tpath).ok()) {
            if (verbose) (void)ctx.out.write("Skipping existing file: `" + target + "'\n");
            continue;
        }
        if (!no_act) {
            auto r = ctx.fs.rename(path, tpath);
            if (!r.ok()) {
                (void)ctx.err.write(prog + ": " + name + ": rename to " + target + " failed: " +
                                    std::string(errstr(r.error())) + "\n");
                ++errors;
                continue;
            }
        }
        if (verbose) (void)ctx.out.write("`" + name + "' -> `" + target + "'\n");
        ++renamed;
    }
    if (errors) return renamed ? 2 : 1;
    if (renamed == 0) return 4;
    return renamed == total ? 0 : 2;
}

}  // namespace

void register_rename(interp::CommandRegistry& r) {
    r.add("rename", "rename [-vnoal] FROM TO FILE... : rename files by replacing FROM with TO in their names (util-linux)", rename_main);
    r.add("rename.ul", "rename.ul [-vnoal] FROM TO FILE... : util-linux rename under Debian's name", rename_main);
}

}  // namespace bashkit::utils::files
