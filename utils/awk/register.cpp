// awk / gawk: the command line (gawk's options), then parse and run.
#include "utils/awk/awk.hpp"

#include <string>
#include <vector>

#include "utils/awk/parser.hpp"
#include "utils/awk/runtime.hpp"

namespace bashkit::utils {

namespace awk {

namespace {

constexpr std::string_view kUsage =
    "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...\n"
    "Usage: awk [POSIX or GNU style options] [--] 'program' file ...\n"
    "POSIX options:\t\tGNU long options: (standard)\n"
    "\t-f progfile\t\t--file=progfile\n"
    "\t-F fs\t\t\t--field-separator=fs\n"
    "\t-v var=val\t\t--assign=var=val\n"
    "Short options:\t\tGNU long options: (extensions)\n"
    "\t-b\t\t\t--characters-as-bytes\n"
    "\t-c\t\t\t--traditional\n"
    "\t-e 'program-text'\t--source='program-text'\n"
    "\t-h\t\t\t--help\n"
    "\t-P\t\t\t--posix\n"
    "\t-r\t\t\t--re-interval\n"
    "\t-S\t\t\t--sandbox\n"
    "\t-V\t\t\t--version\n"
    "\n"
    "gawk is a pattern scanning and processing language.\n"
    "By default it reads standard input and writes standard output.\n"
    "\n"
    "Examples:\n"
    "\tawk '{ sum += $1 }; END { print sum }' file\n"
    "\tawk -F: '{ print $1 }' /etc/passwd\n";

int usage(interp::CommandContext& ctx, int status) {
    (void)(status == 0 ? ctx.out : ctx.err).write(kUsage);
    return status;
}

// Whether `name` (the part of a -v assignment before `=`) is a legal variable name.
bool legal_name(std::string_view name) {
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (name.empty() || !alpha(name[0])) return false;
    for (char c : name)
        if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
    return true;
}

}  // namespace

int awk_main(interp::CommandContext& ctx) {
    const auto& argv = ctx.argv;
    std::vector<Source> sources;
    RuntimeOptions opts;
    std::string fs;
    bool have_fs = false;
    bool have_prog_option = false;
    std::vector<std::string> warnings;
    size_t i = 1;
    auto need_arg = [&](size_t& k, const std::string& word, size_t at, std::string& out, char opt) -> bool {
        if (at < word.size()) {
            out = word.substr(at);
            return true;
        }
        if (k + 1 < argv.size()) {
            out = argv[++k];
            return true;
        }
        (void)ctx.err.write(std::string("awk: option requires an argument -- ") + opt + "\n");
        usage(ctx, 1);
        return false;
    };
    int assign_status = 1;  // the status after a bad -v: 1 for the form, 2 (fatal) for the name
    auto add_assign = [&](const std::string& a) -> bool {
        size_t eq = a.find('=');
        if (eq == std::string::npos) {
            (void)ctx.err.write("awk: `" + a + "' argument to `-v' not in `var=value' form\n\n");
            usage(ctx, 1);
            return false;
        }
        if (!legal_name(std::string_view(a).substr(0, eq))) {
            (void)ctx.err.write("awk: fatal: `" + a.substr(0, eq) + "' is not a legal variable name\n");
            assign_status = 2;
            return false;
        }
        opts.assigns.emplace_back(a.substr(0, eq), unescape_string(std::string_view(a).substr(eq + 1), &warnings,
                                                                   "awk: cmd. line:1: "));
        return true;
    };
    auto add_file = [&](const std::string& name) -> int {
        std::string text;
        if (name == "-" || name == "/dev/stdin") {
            (void)ctx.in.read_all(text);
        } else {
            auto r = ctx.fs.read_file(ctx.resolve(name));
            if (!r.ok()) {
                (void)ctx.err.write("awk: fatal: cannot open source file `" + name + "' for reading: " +
                                    std::string(vfs::error_message(r.error())) + "\n");
                return 2;
            }
            text = std::move(r).value();
        }
        sources.push_back(Source{name, std::move(text)});
        have_prog_option = true;
        return 0;
    };
    for (; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a.size() < 2 || a[0] != '-') break;
        if (a[1] == '-') {
            // long options
            std::string name = a.substr(2), value;
            bool has_value = false;
            size_t eq = name.find('=');
            if (eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                has_value = true;
            }
            const char letter = name == "field-separator" ? 'F' : name == "assign" ? 'v' : name == "file" ? 'f' : 'e';
            auto take = [&]() -> bool {
                if (has_value) return true;
                if (i + 1 < argv.size()) {
                    value = argv[++i];
                    return true;
                }
                // gawk maps its long options to the short ones and getopt names the letter.
                (void)ctx.err.write(std::string("awk: option requires an argument -- ") + letter + "\n");
                usage(ctx, 1);
                return false;
            };
            if (name == "help" || name == "usage") return usage(ctx, 0);
            if (name == "version") {
                (void)ctx.out.write("GNU Awk 5.2.1 (bashkit)\n");
                return 0;
            }
            if (name == "field-separator") {
                if (!take()) return 1;
                fs = value;
                have_fs = true;
            } else if (name == "assign") {
                if (!take()) return 1;
                if (!add_assign(value)) return assign_status;
            } else if (name == "file") {
                if (!take()) return 1;
                if (int st = add_file(value)) return st;
            } else if (name == "source") {
                if (!take()) return 1;
                sources.push_back(Source{"cmd. line", value});
                have_prog_option = true;
            } else if (name == "posix" || name == "traditional" || name == "re-interval" || name == "sandbox" ||
                       name == "characters-as-bytes" || name == "optimize" || name == "no-optimize" ||
                       name == "non-decimal-data" || name == "lint" || name == "compat") {
                // accepted; the behaviour stays gawk's default
            } else {
                // gawk turns getopt's own message off and prints only the usage.
                return usage(ctx, 1);
            }
            continue;
        }
        // short options, possibly bundled (-F: -vX=1 ...)
        size_t k = 1;
        bool stop = false;
        while (k < a.size() && !stop) {
            char o = a[k];
            std::string val;
            switch (o) {
                case 'F':
                    if (!need_arg(i, a, k + 1, val, 'F')) return 1;
                    fs = val;
                    have_fs = true;
                    stop = true;
                    break;
                case 'v':
                    if (!need_arg(i, a, k + 1, val, 'v')) return 1;
                    if (!add_assign(val)) return assign_status;
                    stop = true;
                    break;
                case 'f':
                    if (!need_arg(i, a, k + 1, val, 'f')) return 1;
                    if (int st = add_file(val)) return st;
                    stop = true;
                    break;
                case 'e':
                    if (!need_arg(i, a, k + 1, val, 'e')) return 1;
                    sources.push_back(Source{"cmd. line", val});
                    have_prog_option = true;
                    stop = true;
                    break;
                case 'h':
                    return usage(ctx, 0);
                case 'V':
                    (void)ctx.out.write("GNU Awk 5.2.1 (bashkit)\n");
                    return 0;
                case 'b': case 'c': case 'P': case 'r': case 'S': case 'O': case 's': case 'n': case 'N': case 't':
                    ++k;
                    break;
                default:
                    return usage(ctx, 1);
            }
        }
    }
    if (!have_prog_option) {
        if (i >= argv.size()) return usage(ctx, 1);
        sources.push_back(Source{"cmd. line", argv[i]});
        ++i;
    }
    // ARGV[0] is the name the program was invoked by (awk or gawk)
    std::string a0 = argv.empty() ? std::string("awk") : argv[0];
    if (size_t slash = a0.rfind('/'); slash != std::string::npos) a0 = a0.substr(slash + 1);
    opts.argv.push_back(a0.empty() ? std::string("awk") : a0);
    for (; i < argv.size(); ++i) opts.argv.push_back(argv[i]);
    if (have_fs) {
        std::string v = unescape_string(fs, &warnings, "awk: cmd. line:1: ");
        opts.assigns.insert(opts.assigns.begin(), {"FS", v});
    }
    if (sources.size() == 1) opts.source_name = sources[0].name;

    ParseResult pr = parse_program(sources);
    for (const auto& w : pr.warnings) (void)ctx.err.write(w + "\n");
    for (const auto& w : warnings) (void)ctx.err.write(w + "\n");
    if (pr.error) {
        (void)ctx.err.write(format_parse_error(*pr.error));
        return pr.error->status;
    }
    // -v assignments to variables the program never names are dropped: nothing could read them.
    Runtime rt(ctx, *pr.program, std::move(opts));
    return rt.run();
}

}  // namespace awk

void register_awk_utils(interp::CommandRegistry& registry) {
    registry.add("awk", "awk [-F fs] [-v var=val] [-f progfile | 'prog'] [file ...] : pattern scanning language (gawk)",
                 awk::awk_main);
    registry.add("gawk", "gawk [-F fs] [-v var=val] [-f progfile | 'prog'] [file ...] : GNU awk",
                 awk::awk_main);
}

}  // namespace bashkit::utils
