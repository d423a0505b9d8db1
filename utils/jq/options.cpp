#include "utils/jq/options.hpp"

#include <cctype>
#include <cstring>
#include <string_view>


namespace bashkit::utils::jq {

const char* const kUsage =
    "Usage:\tjq [options] <jq filter> [file...]\n"
    "\tjq [options] --args <jq filter> [strings...]\n"
    "\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n"
    "\n"
    "jq is a tool for processing JSON inputs, applying the given filter to\n"
    "its JSON text inputs and producing the filter's results as JSON on\n"
    "standard output.\n"
    "\n"
    "Some of the options include:\n"
    "  -c               compact instead of pretty-printed output;\n"
    "  -n               use `null` as the single input value;\n"
    "  -e               set the exit status code based on the output;\n"
    "  -s               read (slurp) all inputs into an array; apply filter to it;\n"
    "  -r               output raw strings, not JSON texts;\n"
    "  -j               like -r, without a newline after each output;\n"
    "  -a               output ASCII with escapes for other characters;\n"
    "  -R               read raw lines, not JSON texts;\n"
    "  -S               sort keys of objects on output;\n"
    "  -C / -M          colorize / do not colorize JSON;\n"
    "  -f file          read the filter from a file;\n"
    "  --tab            use tabs for indentation;\n"
    "  --indent n       use the given number of spaces (no more than 7) for indentation;\n"
    "  --seq            write and read RFC 7464 JSON text sequences;\n"
    "  --stream         parse the input in streaming fashion;\n"
    "  --arg a v        set variable $a to value <v>;\n"
    "  --argjson a v    set variable $a to JSON value <v>;\n"
    "  --slurpfile a f  set variable $a to an array of JSON texts read from <f>;\n"
    "  --rawfile a f    set variable $a to a string consisting of the contents of <f>;\n"
    "  --args           remaining arguments are string arguments, not files;\n"
    "  --jsonargs       remaining arguments are JSON arguments, not files;\n"
    "  --               terminates argument processing;\n"
    "\n"
    "Named arguments are also available as $ARGS.named[], while\n"
    "positional arguments are available as $ARGS.positional[].\n";

int die(interp::CommandContext& ctx) {
    (void)ctx.err.write(
        "Use jq --help for help with command-line options,\n"
        "or see the jq manpage, or online docs  at https://jqlang.github.io/jq\n");
    return 2;
}

namespace {

// jq's isoptish(): an option is "-" followed by a letter, or "--...".
bool optish(std::string_view t) {
    return t.size() >= 2 && t[0] == '-' && (t[1] == '-' || std::isalpha(static_cast<unsigned char>(t[1])));
}

int atoi_like(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    long v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && v < 100000) v = v * 10 + (s[i++] - '0');
    return static_cast<int>(neg ? -v : v);
}

}  // namespace

bool parse_options(interp::CommandContext& ctx, Options& o, int& status) {
    const auto& argv = ctx.argv;
    const size_t argc = argv.size();
    o.dumpopts = JV_PRINT_INDENT_FLAGS(2);
    enum { kFiles, kArgs, kJsonArgs } further = kFiles;
    bool args_done = false;
    auto fail = [&](const std::string& msg) {
        (void)ctx.err.write(msg);
        status = die(ctx);
        return false;
    };
    auto has_named = [&](const std::string& name) {
        for (const auto& n : o.named)
            if (n.name == name) return true;
        return false;
    };
    for (size_t i = 1; i < argc; ++i) {
        const std::string& text = argv[i];
        if (args_done || !optish(text)) {
            if (!o.have_program) {
                o.program = text;
                o.have_program = true;
            } else if (further == kArgs) {
                o.positional.emplace_back(false, text);
            } else if (further == kJsonArgs) {
                o.positional.emplace_back(true, text);
            } else {
                o.files.push_back(text);
            }
            continue;
        }
        if (text == "--") {
            if (!o.have_program) {
                (void)ctx.err.write(kUsage);
                status = 2;
                return false;
            }
            args_done = true;
            continue;
        }
        if (text[1] == 'L') {  // -L dir / -Ldir: a module folder (made absolute, as jq's realpath)
            std::string dir = text.substr(2);
            if (text.size() == 2) {
                if (i + 1 >= argc) {
                    return fail("-L takes a parameter: (e.g. -L /search/path or -L/search/path)\n");
                }
                dir = ctx.argv[++i];
            }
            o.lib_dirs.push_back(dir.empty() || dir[0] == '/' ? dir : ctx.resolve(dir));
            continue;
        }
        if (text[1] != '-') {  // a bundle of short flags: each known letter counts once
            size_t matched = 0;
            auto flag = [&](char c) {
                if (text.find(c, 1) == std::string::npos) return false;
                ++matched;
                return true;
            };
            if (flag('s')) o.slurp = true;
            if (flag('r')) o.raw_output = true;
            if (flag('c')) o.dumpopts &= ~(JV_PRINT_TAB | JV_PRINT_INDENT_FLAGS(7));
            if (flag('C')) o.color = true;
            if (flag('M')) o.no_color = true;
            if (flag('a')) o.ascii = true;
            if (flag('S')) o.sorted = true;
            if (flag('R')) o.raw_input = true;
            if (flag('n')) o.null_input = true;
            if (flag('f')) o.from_file = true;
            if (flag('j')) o.raw_output = o.raw_no_lf = true;
            if (flag('e')) o.exit_status = true;
            if (flag('h')) o.help = true;
            if (flag('V')) o.version = true;
            if (o.help || o.version) return true;
            if (matched + 1 != text.size()) return fail("jq: Unknown option " + text + "\n");
            continue;
        }
        const std::string_view name = std::string_view(text).substr(2);
        if (name == "slurp") o.slurp = true;
        else if (name == "raw-output") o.raw_output = true;
        else if (name == "join-output") o.raw_output = o.raw_no_lf = true;
        else if (name == "compact-output") o.dumpopts &= ~(JV_PRINT_TAB | JV_PRINT_INDENT_FLAGS(7));
        else if (name == "color-output") o.color = true;
        else if (name == "monochrome-output") o.no_color = true;
        else if (name == "ascii-output") o.ascii = true;
        else if (name == "sort-keys") o.sorted = true;
        else if (name == "raw-input") o.raw_input = true;
        else if (name == "null-input") o.null_input = true;
        else if (name == "from-file") o.from_file = true;
        else if (name == "exit-status") o.exit_status = true;
        else if (name == "seq") o.seq = true;
        else if (name == "raw-output0") o.raw_output = o.raw_no_lf = o.raw_output0 = true;
        else if (name == "stream") o.stream = true;
        else if (name == "stream-errors") o.stream = o.stream_errors = true;
        else if (name == "unbuffered") {
        } else if (name == "debug-dump-disasm" || name == "debug-trace" || name == "debug-trace=all") {
            // debugging aids of the real jq: accepted and ignored.
        } else if (name == "tab") {
            o.dumpopts &= ~JV_PRINT_INDENT_FLAGS(7);
            o.dumpopts |= JV_PRINT_TAB | JV_PRINT_PRETTY;
        } else if (name == "indent") {
            if (i + 1 >= argc) return fail("jq: --indent takes one parameter\n");
            o.dumpopts &= ~(JV_PRINT_TAB | JV_PRINT_INDENT_FLAGS(7));
            int indent = atoi_like(argv[i + 1]);
            if (indent < -1 || indent > 7) return fail("jq: --indent takes a number between -1 and 7\n");
            o.dumpopts |= JV_PRINT_INDENT_FLAGS(indent);
            ++i;
        } else if (name == "args") {
            further = kArgs;
        } else if (name == "jsonargs") {
            further = kJsonArgs;
        } else if (name == "arg" || name == "argjson") {
            if (i + 2 >= argc) {
                return fail(name == "arg" ? "jq: --arg takes two parameters (e.g. --arg varname value)\n"
                                          : "jq: --argjson takes two parameters (e.g. --argjson varname text)\n");
            }
            if (!has_named(argv[i + 1])) {
                o.named.push_back({name == "arg" ? NamedArg::kString : NamedArg::kJson, argv[i + 1], argv[i + 2]});
            }
            i += 2;
        } else if (name == "slurpfile" || name == "rawfile" || name == "argfile") {
            if (i + 2 >= argc) {
                return fail("jq: --" + std::string(name) + " takes two parameters (e.g. --" + std::string(name) +
                            " varname filename)\n");
            }
            NamedArg::Kind k = name == "slurpfile" ? NamedArg::kSlurpFile
                               : name == "rawfile" ? NamedArg::kRawFile
                                                   : NamedArg::kArgFile;
            if (!has_named(argv[i + 1])) o.named.push_back({k, argv[i + 1], argv[i + 2]});
            i += 2;
        } else if (name == "help") {
            o.help = true;
            return true;
        } else if (name == "version") {
            o.version = true;
            return true;
        } else if (name == "run-tests") {
            return fail("jq: --run-tests is not available in the sandbox\n");
        } else {
            return fail("jq: Unknown option " + text + "\n");
        }
    }
    return true;
}

}  // namespace bashkit::utils::jq
