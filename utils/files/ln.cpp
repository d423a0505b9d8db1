// ln (-s -f -n -v -T -t -r is not supported).
#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

constexpr OptionSpec kLnSpecs[] = {
    {'s', 's', "symbolic"},
    {'f', 'f', "force"},
    {'n', 'n', "no-dereference"},
    {'v', 'v', "verbose"},
    {'T', 'T', "no-target-directory"},
    {'t', 't', "target-directory", ArgKind::required},
    {'i', 'i', "interactive"},
    {'P', 'P', "physical"},
    {'L', 'L', "logical"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kLnHelp =
    "Usage: ln [OPTION]... [-T] TARGET LINK_NAME\n"
    "  or:  ln [OPTION]... TARGET\n"
    "  or:  ln [OPTION]... TARGET... DIRECTORY\n"
    "  or:  ln [OPTION]... -t DIRECTORY TARGET...\n"
    "Create links to TARGETs (hard links by default, symbolic links with --symbolic).\n"
    "\n"
    "  -f, --force                 remove existing destination files\n"
    "  -n, --no-dereference        treat LINK_NAME as a normal file if it is a symbolic link to a directory\n"
    "  -s, --symbolic              make symbolic links instead of hard links\n"
    "  -t, --target-directory=DIRECTORY  specify the DIRECTORY in which to create the links\n"
    "  -T, --no-target-directory   treat LINK_NAME as a normal file always\n"
    "  -v, --verbose               print name of each linked file\n"
    "      --help                  display this help and exit\n";

std::string last_component(std::string_view p) {
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
    size_t s = p.rfind('/');
    if (s != std::string_view::npos && p.size() > 1) p = p.substr(s + 1);
    return std::string(p);
}

int ln_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kLnSpecs);
    bool symbolic = false, force = false, no_deref = false, verbose = false, no_target = false;
    std::string target_dir;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 's': symbolic = true; break;
            case 'f': force = true; break;
            case 'i': force = false; break;
            case 'n': no_deref = true; break;
            case 'v': verbose = true; break;
            case 'T': no_target = true; break;
            case 't': target_dir = opt.value; break;
            case 'P': case 'L': break;
            case kOptHelp: return print_help(ctx, kLnHelp);
            case kOptVersion: return print_help(ctx, "ln (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    std::vector<std::string> ops = p.operands;
    std::vector<std::pair<std::string, std::string>> links;  // (target, link name)
    auto is_dir_dest = [&](const std::string& d) {
        std::string abs = ctx.resolve(d);
        if (no_deref) {
            auto l = ctx.fs.lstat(abs);
            return l.ok() && l->is_directory();
        }
        return ctx.fs.is_directory(abs);
    };
    if (!target_dir.empty()) {
        if (ops.empty()) return usage_error(ctx, "missing file operand");
        if (!ctx.fs.is_directory(ctx.resolve(target_dir))) {
            ctx.error("target " + quote(target_dir) + " is not a directory");
            return 1;
        }
        for (auto& t : ops) links.emplace_back(t, join(target_dir, last_component(t)));
    } else if (ops.empty()) {
        return usage_error(ctx, "missing file operand");
    } else if (ops.size() == 1) {
        links.emplace_back(ops[0], last_component(ops[0]));
    } else {
        std::string dest = ops.back();
        ops.pop_back();
        if (no_target) {
            if (ops.size() > 1) return usage_error(ctx, "extra operand " + quote(ops[1]));
            links.emplace_back(ops[0], dest);
        } else if (is_dir_dest(dest)) {
            for (auto& t : ops) links.emplace_back(t, join(dest, last_component(t)));
        } else if (ops.size() > 1) {
            auto st = ctx.fs.stat(ctx.resolve(dest));
            ctx.error("target " + quote(dest) + ": " +
                      std::string(errstr(st ? vfs::Errc::not_directory : st.error())));
            return 1;
        } else {
            links.emplace_back(ops[0], dest);
        }
    }
    int status = 0;
    Output out(ctx);
    for (const auto& [target, name] : links) {
        if (ctx.cancelled()) break;
        std::string name_abs = ctx.resolve(name);
        if (!symbolic) {
            auto st = ctx.fs.lstat(ctx.resolve(target));
            if (!st) {
                out.flush();
                ctx.error("failed to access " + quote(target) + ": " + std::string(errstr(st.error())));
                status = 1;
                continue;
            }
            if (st->is_directory()) {
                out.flush();
                ctx.error(quotef(target) + ": hard link not allowed for directory");
                status = 1;
                continue;
            }
        }
        auto existing = ctx.fs.lstat(name_abs);
        if (existing && force) {
            if (existing->is_directory()) {
                out.flush();
                ctx.error(quotef(name) + ": cannot overwrite directory");
                status = 1;
                continue;
            }
            if (!symbolic) {
                auto ts = ctx.fs.stat(ctx.resolve(target));
                if (ts && ts->dev == existing->dev && ts->ino == existing->ino) {
                    out.flush();
                    ctx.error(quote(target) + " and " + quote(name) + " are the same file");
                    status = 1;
                    continue;
                }
            }
            (void)ctx.fs.unlink(name_abs);
        }
        vfs::Status r = symbolic ? ctx.fs.symlink(target, name_abs) : ctx.fs.link(ctx.resolve(target), name_abs);
        if (!r) {
            out.flush();
            if (symbolic)
                ctx.error("failed to create symbolic link " + quote(name) + ": " + std::string(errstr(r.error())));
            else
                ctx.error("failed to create hard link " + quote(name) + " => " + quote(target) + ": " +
                          std::string(errstr(r.error())));
            status = 1;
            continue;
        }
        if (verbose) out.put(quote(name) + (symbolic ? " -> " : " => ") + quote(target) + "\n");
    }
    return out.status(status);
}

}  // namespace

void register_ln(interp::CommandRegistry& r) {
    r.add("ln", "ln [-sfnv] TARGET... LINK: make links between files", ln_main);
}

}  // namespace bashkit::utils::files
