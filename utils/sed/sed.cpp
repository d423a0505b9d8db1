// sed's front end: GNU sed 4.9's options, the script chunks in command-line order, then parse and run.
#include <cstdlib>
#include <string>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/sed/parser.hpp"
#include "utils/sed/runtime.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::sed {

namespace {

using interp::CommandContext;

enum : int {
    kOptPosix = kOptFirstLongOnly,
    kOptDebug,
    kOptFollow,
    kOptSandbox,
};

constexpr OptionSpec kSpecs[] = {
    {'n', 'n', "quiet"},
    {'n', 0, "silent"},
    {'e', 'e', "expression", ArgKind::required},
    {'f', 'f', "file", ArgKind::required},
    {'i', 'i', "in-place", ArgKind::optional},
    {'l', 'l', "line-length", ArgKind::required},
    {'E', 'E', "regexp-extended"},
    {'E', 'r', ""},
    {'s', 's', "separate"},
    {'u', 'u', "unbuffered"},
    {'z', 'z', "null-data"},
    {'z', 0, "zero-terminated"},
    {'b', 'b', "binary"},
    {kOptPosix, 0, "posix"},
    {kOptDebug, 0, "debug"},
    {kOptFollow, 0, "follow-symlinks"},
    {kOptSandbox, 0, "sandbox"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kUsage =
    "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n"
    "\n"
    "  -n, --quiet, --silent\n"
    "                 suppress automatic printing of pattern space\n"
    "  -e script, --expression=script\n"
    "                 add the script to the commands to be executed\n"
    "  -f script-file, --file=script-file\n"
    "                 add the contents of script-file to the commands to be executed\n"
    "  --follow-symlinks\n"
    "                 follow symlinks when processing in place\n"
    "  -i[SUFFIX], --in-place[=SUFFIX]\n"
    "                 edit files in place (makes backup if SUFFIX supplied)\n"
    "  -l N, --line-length=N\n"
    "                 specify the desired line-wrap length for the `l' command\n"
    "  --posix\n"
    "                 disable all GNU extensions.\n"
    "  -E, -r, --regexp-extended\n"
    "                 use extended regular expressions in the script\n"
    "                 (for portability use POSIX -E).\n"
    "  -s, --separate\n"
    "                 consider files as separate rather than as a single,\n"
    "                 continuous long stream.\n"
    "      --sandbox\n"
    "                 operate in sandbox mode (disable e/r/w commands).\n"
    "  -u, --unbuffered\n"
    "                 load minimal amounts of data from the input files and flush\n"
    "                 the output buffers more often\n"
    "  -z, --null-data\n"
    "                 separate lines by NUL characters\n"
    "      --help     display this help and exit\n"
    "      --version  output version information and exit\n"
    "\n"
    "If no -e, --expression, -f, or --file option is given, then the first\n"
    "non-option argument is taken as the sed script to interpret.  All\n"
    "remaining arguments are names of input files; if no input files are\n"
    "specified, then the standard input is read.\n"
    "\n"
    "bashkit runs sed in-process: the `e' command and the `e' flag of `s' are refused (no shell), and\n"
    "back-references inside a regular expression are not supported (\\1 in the replacement is).\n";

int usage(CommandContext& ctx, int status) {
    (void)(status == 0 ? ctx.out : ctx.err).write(kUsage);
    return status;
}

// The C library's atoi: leading blanks, a sign, digits; anything else ends it (0 when there are none).
int64_t atoi_like(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    int64_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && n < (int64_t{1} << 40)) n = n * 10 + (s[i++] - '0');
    return neg ? -n : n;
}

}  // namespace

int cmd_sed(CommandContext& ctx) {
    const ParsedArgs args = parse_args(ctx.argv, kSpecs);
    for (const auto& o : args.options) {
        if (o.id == kOptHelp) return usage(ctx, 0);
        if (o.id == kOptVersion) {
            (void)ctx.out.write(
                "sed (GNU sed) 4.9\n"
                "bashkit in-process implementation of GNU sed 4.9 (no `e' command, no back-references in "
                "regular expressions).\n");
            return 0;
        }
    }
    if (!args.ok()) {
        ctx.error(args.error);
        return usage(ctx, 1);
    }

    RunOptions run;
    ParseOptions parse;
    std::vector<ScriptChunk> chunks;
    for (const auto& o : args.options) {
        switch (o.id) {
            case 'n': run.quiet = true; break;
            case 'e': chunks.push_back({o.value, false, {}}); break;
            case 'f': {
                ScriptChunk c;
                c.from_file = true;
                c.name = o.value;
                text::Input in;
                vfs::Errc e = in.open_input(ctx, o.value);
                if (e == vfs::Errc::ok) e = text::read_all(ctx, in, c.text);
                if (e != vfs::Errc::ok) {
                    ctx.error("couldn't open file " + o.value + ": " + std::string(vfs::error_message(e)));
                    return 4;
                }
                chunks.push_back(std::move(c));
                break;
            }
            case 'i':
                run.in_place = true;
                run.separate = true;
                run.suffix = o.has_value ? o.value : std::string();
                break;
            case 'l': run.line_wrap = atoi_like(o.value); break;
            case 'E': parse.extended = true; break;
            case 's': run.separate = true; break;
            case 'u': run.unbuffered = true; break;
            case 'z': run.null_data = true; break;
            case 'b': break;
            case kOptPosix:
                parse.posix = true;
                run.posix = true;
                break;
            case kOptDebug:
                ctx.error("--debug is not supported by bashkit's sed");
                return 1;
            case kOptFollow: run.follow_symlinks = true; break;
            case kOptSandbox: parse.sandbox = true; break;
            default: break;
        }
    }
    std::vector<std::string> files = args.operands;
    if (chunks.empty()) {
        if (files.empty()) return usage(ctx, 1);
        chunks.push_back({files.front(), false, {}});
        files.erase(files.begin());
    }

    Program program;
    ParseError perr;
    if (!parse_script(chunks, parse, program, perr)) {
        ctx.error(perr.message);
        return perr.status;
    }
    if (program.quiet) run.quiet = true;
    if (run.in_place && files.empty()) {
        ctx.error("no input files");
        return 4;
    }
    return run_program(ctx, program, run, files);
}

}  // namespace bashkit::utils::sed
