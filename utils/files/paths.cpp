// realpath, readlink, basename, dirname, mktemp.
#include <deque>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

enum class Canon { Existing, AllButLast, Missing };

std::string parent_of(const std::string& p) {
    if (p == "/") return p;
    size_t s = p.rfind('/');
    return s == 0 ? "/" : p.substr(0, s);
}

// Resolves every symlink of `abs` (absolute) component by component. Existing: every component must
// exist; AllButLast: all but the last; Missing: none (missing parts are taken literally).
vfs::Result<std::string> canonicalize(vfs::FileSystem& fs, const std::string& abs, Canon mode) {
    std::deque<std::string> todo;
    for (auto c : vfs::split_path(abs)) todo.emplace_back(c);
    std::string result = "/";
    int hops = 0;
    bool missing = false;
    while (!todo.empty()) {
        std::string c = std::move(todo.front());
        todo.pop_front();
        if (c.empty() || c == ".") continue;
        if (c == "..") {
            result = parent_of(result);
            continue;
        }
        std::string cand = join(result, c);
        if (missing) {
            result = cand;
            continue;
        }
        auto st = fs.lstat(cand);
        bool last = true;
        for (const auto& rest : todo)
            if (!rest.empty() && rest != ".") last = false;
        if (!st) {
            if (mode == Canon::Existing || (mode == Canon::AllButLast && !last)) return st.error();
            if (st.error() != vfs::Errc::no_such_file && mode != Canon::Missing) return st.error();
            missing = true;
            result = cand;
            continue;
        }
        if (st->is_symlink()) {
            if (++hops > vfs::kMaxSymlinkHops) return vfs::Errc::symlink_loop;
            auto target = fs.readlink(cand);
            if (!target) return target.error();
            std::vector<std::string> parts;
            for (auto p : vfs::split_path(*target)) parts.emplace_back(p);
            for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_front(*it);
            if (!target->empty() && (*target)[0] == '/') result = "/";
            continue;
        }
        if (!st->is_directory() && !last) {
            if (mode != Canon::Missing) return vfs::Errc::not_directory;
            missing = true;
        }
        result = cand;
    }
    return result;
}

// The path of `to` relative to the directory `from` (both canonical).
std::string relative(const std::string& to, const std::string& from) {
    auto a = vfs::split_path(to);
    auto b = vfs::split_path(from);
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    std::string out;
    for (size_t k = i; k < b.size(); ++k) out += out.empty() ? ".." : "/..";
    for (size_t k = i; k < a.size(); ++k) {
        if (!out.empty()) out.push_back('/');
        out.append(a[k]);
    }
    return out.empty() ? "." : out;
}

bool is_within(const std::string& base, const std::string& p) {
    if (base == "/") return true;
    return p == base || (p.size() > base.size() && p.compare(0, base.size(), base) == 0 && p[base.size()] == '/');
}

enum : int { kOptRelativeTo = kOptFirstLongOnly, kOptRelativeBase, kOptSuffix, kOptTmpdir };

constexpr OptionSpec kRealpathSpecs[] = {
    {'e', 'e', "canonicalize-existing"},
    {'m', 'm', "canonicalize-missing"},
    {'L', 'L', "logical"},
    {'P', 'P', "physical"},
    {'q', 'q', "quiet"},
    {kOptRelativeTo, 0, "relative-to", ArgKind::required},
    {kOptRelativeBase, 0, "relative-base", ArgKind::required},
    {'s', 's', "strip"},
    {'s', 0, "no-symlinks"},
    {'z', 'z', "zero"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int realpath_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kRealpathSpecs);
    Canon mode = Canon::AllButLast;
    bool quiet = false, strip = false, zero = false;
    std::string rel_to, rel_base;
    bool have_rel_to = false, have_rel_base = false;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'e': mode = Canon::Existing; break;
            case 'm': mode = Canon::Missing; break;
            case 'q': quiet = true; break;
            case 's': strip = true; break;
            case 'z': zero = true; break;
            case 'L': case 'P': break;
            case kOptRelativeTo: rel_to = opt.value; have_rel_to = true; break;
            case kOptRelativeBase: rel_base = opt.value; have_rel_base = true; break;
            case kOptHelp:
                return print_help(ctx,
                                  "Usage: realpath [OPTION]... FILE...\n"
                                  "Print the resolved absolute file name;\n"
                                  "all but the last component must exist\n"
                                  "\n"
                                  "  -e, --canonicalize-existing  all components of the path must exist\n"
                                  "  -m, --canonicalize-missing   no path components need exist or be a directory\n"
                                  "  -q, --quiet                  suppress most error messages\n"
                                  "      --relative-to=DIR        print the resolved path relative to DIR\n"
                                  "      --relative-base=DIR      print absolute paths unless paths below DIR\n"
                                  "  -s, --strip, --no-symlinks   don't expand symlinks\n"
                                  "  -z, --zero                   end each output line with NUL, not newline\n"
                                  "      --help                   display this help and exit\n");
            case kOptVersion: return print_help(ctx, "realpath (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    auto canon = [&](const std::string& path) -> vfs::Result<std::string> {
        std::string abs = ctx.resolve(path);
        if (strip) return vfs::normalize_path(abs);
        return canonicalize(ctx.fs, abs, mode);
    };
    std::string to_c, base_c;
    if (have_rel_to) {
        auto r = canon(rel_to);
        if (!r) {
            if (!quiet) ctx.error(quotef(rel_to) + ": " + std::string(errstr(r.error())));
            return 1;
        }
        to_c = *r;
    }
    if (have_rel_base) {
        auto r = canon(rel_base);
        if (!r) {
            if (!quiet) ctx.error(quotef(rel_base) + ": " + std::string(errstr(r.error())));
            return 1;
        }
        base_c = *r;
        if (have_rel_to && !is_within(base_c, to_c)) {
            have_rel_to = false;
            have_rel_base = false;
        }
    }
    int status = 0;
    Output out(ctx);
    for (const auto& op : p.operands) {
        auto r = op.empty() ? vfs::Result<std::string>(vfs::Errc::no_such_file) : canon(op);
        if (!r) {
            out.flush();
            if (!quiet) ctx.error(quotef(op) + ": " + std::string(errstr(r.error())));
            status = 1;
            continue;
        }
        std::string s = *r;
        if (have_rel_to && (!have_rel_base || is_within(base_c, s))) s = relative(s, to_c);
        else if (have_rel_base && is_within(base_c, s)) s = relative(s, base_c);
        out.put(s);
        out.put(zero ? '\0' : '\n');
    }
    return out.status(status);
}

constexpr OptionSpec kReadlinkSpecs[] = {
    {'f', 'f', "canonicalize"},
    {'e', 'e', "canonicalize-existing"},
    {'m', 'm', "canonicalize-missing"},
    {'n', 'n', "no-newline"},
    {'q', 'q', "quiet"},
    {'s', 's', "silent"},
    {'v', 'v', "verbose"},
    {'z', 'z', "zero"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int readlink_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kReadlinkSpecs);
    bool canon = false, no_newline = false, verbose = false, zero = false;
    Canon mode = Canon::AllButLast;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'f': canon = true; mode = Canon::AllButLast; break;
            case 'e': canon = true; mode = Canon::Existing; break;
            case 'm': canon = true; mode = Canon::Missing; break;
            case 'n': no_newline = true; break;
            case 'q': case 's': verbose = false; break;
            case 'v': verbose = true; break;
            case 'z': zero = true; break;
            case kOptHelp:
                return print_help(ctx,
                                  "Usage: readlink [OPTION]... FILE...\n"
                                  "Print value of a symbolic link or canonical file name\n"
                                  "\n"
                                  "  -f, --canonicalize            canonicalize by following every symlink; all but the last component must exist\n"
                                  "  -e, --canonicalize-existing   all components must exist\n"
                                  "  -m, --canonicalize-missing    no component need exist\n"
                                  "  -n, --no-newline              do not output the trailing delimiter\n"
                                  "  -q, --quiet, -s, --silent     suppress most error messages (on by default)\n"
                                  "  -v, --verbose                 report error messages\n"
                                  "  -z, --zero                    end each output line with NUL, not newline\n"
                                  "      --help                    display this help and exit\n");
            case kOptVersion: return print_help(ctx, "readlink (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    if (no_newline && p.operands.size() > 1) {
        ctx.error("ignoring --no-newline with multiple arguments");
        no_newline = false;
    }
    int status = 0;
    Output out(ctx);
    for (const auto& op : p.operands) {
        std::string abs = ctx.resolve(op);
        vfs::Result<std::string> r = canon ? (op.empty() ? vfs::Result<std::string>(vfs::Errc::no_such_file)
                                                         : canonicalize(ctx.fs, abs, mode))
                                           : ctx.fs.readlink(abs);
        if (!r) {
            if (verbose) {
                out.flush();
                ctx.error(quotef(op) + ": " + std::string(errstr(r.error())));
            }
            status = 1;
            continue;
        }
        out.put(*r);
        if (!no_newline) out.put(zero ? '\0' : '\n');
    }
    return out.status(status);
}

// POSIX basename/dirname on strings.
std::string base_of(std::string_view s) {
    if (s.empty()) return "";
    while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
    if (s == "/") return "/";
    size_t k = s.rfind('/');
    return std::string(k == std::string_view::npos ? s : s.substr(k + 1));
}

std::string dir_of(std::string_view s) {
    while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
    size_t k = s.rfind('/');
    if (k == std::string_view::npos) return ".";
    s = s.substr(0, k);
    while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
    if (s.empty()) return "/";
    return std::string(s);
}

constexpr OptionSpec kBasenameSpecs[] = {
    {'a', 'a', "multiple"},
    {'s', 's', "suffix", ArgKind::required},
    {'z', 'z', "zero"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int basename_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kBasenameSpecs);
    bool multiple = false, zero = false;
    std::string suffix;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'a': multiple = true; break;
            case 's': suffix = opt.value; multiple = true; break;
            case 'z': zero = true; break;
            case kOptHelp:
                return print_help(ctx,
                                  "Usage: basename NAME [SUFFIX]\n"
                                  "  or:  basename OPTION... NAME...\n"
                                  "Print NAME with any leading directory components removed.\n"
                                  "If specified, also remove a trailing SUFFIX.\n"
                                  "\n"
                                  "  -a, --multiple       support multiple arguments and treat each as a NAME\n"
                                  "  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a\n"
                                  "  -z, --zero           end each output line with NUL, not newline\n"
                                  "      --help           display this help and exit\n");
            case kOptVersion: return print_help(ctx, "basename (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    std::vector<std::string> names = p.operands;
    if (!multiple) {
        if (names.size() > 2) return usage_error(ctx, "extra operand " + quote(names[2]));
        if (names.size() == 2) {
            suffix = names[1];
            names.pop_back();
        }
    }
    Output out(ctx);
    for (const auto& n : names) {
        std::string b = base_of(n);
        if (!suffix.empty() && b.size() > suffix.size() && b.compare(b.size() - suffix.size(), suffix.size(), suffix) == 0)
            b.resize(b.size() - suffix.size());
        out.put(b);
        out.put(zero ? '\0' : '\n');
    }
    return out.status(0);
}

constexpr OptionSpec kDirnameSpecs[] = {
    {'z', 'z', "zero"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int dirname_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kDirnameSpecs);
    bool zero = false;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'z': zero = true; break;
            case kOptHelp:
                return print_help(ctx,
                                  "Usage: dirname [OPTION] NAME...\n"
                                  "Output each NAME with its last non-slash component and trailing slashes\n"
                                  "removed; if NAME contains no /'s, output '.' (meaning the current directory).\n"
                                  "\n"
                                  "  -z, --zero     end each output line with NUL, not newline\n"
                                  "      --help     display this help and exit\n");
            case kOptVersion: return print_help(ctx, "dirname (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    Output out(ctx);
    for (const auto& n : p.operands) {
        out.put(dir_of(n));
        out.put(zero ? '\0' : '\n');
    }
    return out.status(0);
}

constexpr OptionSpec kMktempSpecs[] = {
    {'d', 'd', "directory"},
    {'u', 'u', "dry-run"},
    {'q', 'q', "quiet"},
    {kOptSuffix, 0, "suffix", ArgKind::required},
    {'p', 'p', {}, ArgKind::required},
    {kOptTmpdir, 0, "tmpdir", ArgKind::optional},
    {'t', 't'},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int mktemp_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kMktempSpecs);
    bool dir = false, dry = false, quiet = false, use_tmpdir = false, t_flag = false;
    std::string suffix, tmpdir;
    bool have_suffix = false;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'd': dir = true; break;
            case 'u': dry = true; break;
            case 'q': quiet = true; break;
            case kOptSuffix: suffix = opt.value; have_suffix = true; break;
            case 'p': tmpdir = opt.value; use_tmpdir = true; break;
            case kOptTmpdir: tmpdir = opt.has_value ? opt.value : ""; use_tmpdir = true; break;
            case 't': t_flag = true; use_tmpdir = true; break;
            case kOptHelp:
                return print_help(ctx,
                                  "Usage: mktemp [OPTION]... [TEMPLATE]\n"
                                  "Create a temporary file or directory, safely, and print its name.\n"
                                  "TEMPLATE must contain at least 3 consecutive 'X's in last component.\n"
                                  "If TEMPLATE is not specified, use tmp.XXXXXXXXXX, and --tmpdir is implied.\n"
                                  "Files are created u+rw, and directories u+rwx.\n"
                                  "\n"
                                  "  -d, --directory     create a directory, not a file\n"
                                  "  -u, --dry-run       do not create anything; merely print a name (unsafe)\n"
                                  "  -q, --quiet         suppress diagnostics about file/dir-creation failure\n"
                                  "      --suffix=SUFF   append SUFF to TEMPLATE\n"
                                  "  -p DIR, --tmpdir[=DIR]  interpret TEMPLATE relative to DIR; if DIR is not\n"
                                  "                        specified, use $TMPDIR if set, else /tmp\n"
                                  "  -t                  interpret TEMPLATE as a single file name component,\n"
                                  "                        relative to a directory: $TMPDIR, if set; else the\n"
                                  "                        directory specified via -p; else /tmp [deprecated]\n"
                                  "      --help          display this help and exit\n");
            case kOptVersion: return print_help(ctx, "mktemp (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.size() > 1) return usage_error(ctx, "too many templates");
    std::string tmpl;
    if (p.operands.empty()) {
        tmpl = "tmp.XXXXXXXXXX";
        use_tmpdir = true;
    } else {
        tmpl = p.operands[0];
    }
    const std::string* env_tmp = ctx.env.get("TMPDIR");
    std::string env_dir = env_tmp && !env_tmp->empty() ? *env_tmp : "";
    if (use_tmpdir) {
        std::string base;
        if (t_flag) base = !env_dir.empty() ? env_dir : (!tmpdir.empty() ? tmpdir : "/tmp");
        else base = !tmpdir.empty() ? tmpdir : (!env_dir.empty() ? env_dir : "/tmp");
        if (tmpl.find('/') != std::string::npos) {
            ctx.error("invalid template, " + quote(tmpl) + ", contains directory separator");
            return 1;
        }
        tmpl = join(base, tmpl);
    }
    // The run of X's: the last one (a suffix after it is implied when --suffix is not given).
    std::string tail = suffix;
    if (!have_suffix) {
        size_t last_x = tmpl.find_last_of('X');
        if (last_x != std::string::npos) {
            tail = tmpl.substr(last_x + 1);
            tmpl.resize(last_x + 1);
        }
    } else if (!tmpl.empty() && tmpl.back() != 'X') {
        ctx.error("with --suffix, template " + quote(tmpl) + " must end in X");
        return 1;
    }
    if (tail.find('/') != std::string::npos) {
        ctx.error("invalid suffix " + quote(tail) + ", contains directory separator");
        return 1;
    }
    size_t xs = 0;
    while (xs < tmpl.size() && tmpl[tmpl.size() - 1 - xs] == 'X') ++xs;
    if (xs < 3) {
        ctx.error("too few X's in template " + quote(tmpl + tail));
        return 1;
    }
    static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    vfs::TimeSpec now = ctx.clock.now();
    uint64_t state = static_cast<uint64_t>(now.sec) * 1000000007ull ^ static_cast<uint64_t>(now.nsec) * 0x9E3779B97F4A7C15ull;
    for (char c : tmpl) state = state * 131 + static_cast<unsigned char>(c);
    auto next = [&]() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    std::string name;
    vfs::Errc last = vfs::Errc::file_exists;
    for (int attempt = 0; attempt < 100; ++attempt) {
        name = tmpl;
        for (size_t i = name.size() - xs; i < name.size(); ++i) name[i] = kChars[next() % 62];
        name += tail;
        std::string abs = ctx.resolve(name);
        if (dry) {
            if (!ctx.fs.lexists(abs)) {
                last = vfs::Errc::ok;
                break;
            }
            continue;
        }
        vfs::Status s;
        if (dir) {
            s = ctx.fs.mkdir(abs, 0700);
        } else {
            auto h = ctx.fs.open(abs, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::exclusive, 0600);
            s = h ? vfs::Status() : vfs::Status(h.error());
        }
        if (s) {
            last = vfs::Errc::ok;
            break;
        }
        last = s.error();
        if (last != vfs::Errc::file_exists) break;
    }
    if (last != vfs::Errc::ok) {
        if (!quiet)
            ctx.error(std::string("failed to create ") + (dir ? "directory" : "file") + " via template " +
                      quote(tmpl + tail) + ": " + std::string(errstr(last)));
        return 1;
    }
    (void)ctx.out.write(name + "\n");
    return 0;
}

}  // namespace

void register_paths(interp::CommandRegistry& r) {
    r.add("realpath", "realpath [-ems] [--relative-to=DIR] FILE...: print the resolved path", realpath_main);
    r.add("readlink", "readlink [-femn] FILE...: print a symlink's target or canonical name", readlink_main);
    r.add("basename", "basename NAME [SUFFIX]: strip directory and suffix from file names", basename_main);
    r.add("dirname", "dirname NAME...: strip the last component from file names", dirname_main);
    r.add("mktemp", "mktemp [-dqu] [-p DIR] [-t] [TEMPLATE]: create a temporary file or directory", mktemp_main);
}

}  // namespace bashkit::utils::files
