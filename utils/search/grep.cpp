// grep, egrep, fgrep: GNU grep 3.8 under LC_ALL=C.
//
// Recursion (-r, -R) visits the entries of a directory in byte order of their names (GNU grep uses the
// order readdir returns, which on a real disk is arbitrary; sorted is deterministic). -r skips symlinks
// found while walking, -R follows them (a directory loop is reported and skipped). Directories are walked
// with an explicit stack, so depth is unbounded without growing the C++ stack.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/search/grep_impl.hpp"
#include "utils/search/matcher.hpp"
#include "utils/search/searcher.hpp"
#include "interp/pattern.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::utils::search {
namespace {

enum Opt {
    kOptAfter = 1, kOptBefore, kOptContext, kOptDigits, kOptExtended, kOptFixed, kOptBasic, kOptPerl,
    kOptRegexp, kOptFile, kOptIcase, kOptNoIcase, kOptWord, kOptLine, kOptInvert, kOptCount, kOptFilesWith,
    kOptFilesWithout, kOptQuiet, kOptSilent, kOptOnly, kOptLineNumber, kOptNoFilename, kOptWithFilename,
    kOptRecursive, kOptDerefRecursive, kOptMaxCount, kOptNullData, kOptNull, kOptText, kOptBinaryFiles,
    kOptNoBinary, kOptInclude, kOptExclude, kOptExcludeDir, kOptColor, kOptLabel, kOptDirectories,
    kOptDevices, kOptGroupSep, kOptNoGroupSep, kOptHelp, kOptVersion, kOptLineBuffered, kOptInitialTab,
    kOptByteOffset, kOptUnixByteOffsets,
};

const std::vector<utils::OptionSpec>& grep_specs() {
    static const std::vector<utils::OptionSpec> specs = {
        {kOptAfter, 'A', "after-context", ArgKind::required},
        {kOptBefore, 'B', "before-context", ArgKind::required},
        {kOptExtended, 'E', "extended-regexp"},
        {kOptFixed, 'F', "fixed-strings"},
        {kOptBasic, 'G', "basic-regexp"},
        {kOptPerl, 'P', "perl-regexp"},
        {kOptRegexp, 'e', "regexp", ArgKind::required},
        {kOptFile, 'f', "file", ArgKind::required},
        {kOptIcase, 'i', "ignore-case"},
        {kOptIcase, 'y'},
        {kOptNoIcase, 0, "no-ignore-case"},
        {kOptWord, 'w', "word-regexp"},
        {kOptLine, 'x', "line-regexp"},
        {kOptInvert, 'v', "invert-match"},
        {kOptFilesWith, 'l', "files-with-matches"},
        {kOptFilesWithout, 'L', "files-without-match"},
        {kOptQuiet, 'q', "quiet"},
        {kOptQuiet, 0, "silent"},
        {kOptSilent, 's', "no-messages"},
        {kOptOnly, 'o', "only-matching"},
        {kOptLineNumber, 'n', "line-number"},
        {kOptNoFilename, 'h', "no-filename"},
        {kOptWithFilename, 'H', "with-filename"},
        {kOptRecursive, 'r', "recursive"},
        {kOptDerefRecursive, 'R', "dereference-recursive"},
        {kOptMaxCount, 'm', "max-count", ArgKind::required},
        {kOptNullData, 'z', "null-data"},
        {kOptNull, 'Z', "null"},
        {kOptText, 'a', "text"},
        {kOptBinaryFiles, 0, "binary-files", ArgKind::required},
        {kOptNoBinary, 'I'},
        {kOptInclude, 0, "include", ArgKind::required},
        {kOptExclude, 0, "exclude", ArgKind::required},
        {kOptExcludeDir, 0, "exclude-dir", ArgKind::required},
        {kOptContext, 'C', "context", ArgKind::required},
        {kOptColor, 0, "color", ArgKind::optional},
        {kOptColor, 0, "colour", ArgKind::optional},
        {kOptCount, 'c', "count"},
        {kOptLabel, 0, "label", ArgKind::required},
        {kOptDirectories, 'd', "directories", ArgKind::required},
        {kOptDevices, 'D', "devices", ArgKind::required},
        {kOptGroupSep, 0, "group-separator", ArgKind::required},
        {kOptNoGroupSep, 0, "no-group-separator"},
        {kOptHelp, 0, "help"},
        {kOptVersion, 'V', "version"},
        {kOptLineBuffered, 0, "line-buffered"},
        {kOptInitialTab, 'T', "initial-tab"},
        {kOptByteOffset, 'b', "byte-offset"},
        {kOptUnixByteOffsets, 'u', "unix-byte-offsets"},
    };
    return specs;
}

constexpr std::string_view kUsage = "Usage: grep [OPTION]... PATTERNS [FILE]...\n";
constexpr std::string_view kTry = "Try 'grep --help' for more information.\n";

constexpr std::string_view kHelp =
    "Usage: grep [OPTION]... PATTERNS [FILE]...\n"
    "Search for PATTERNS in each FILE.\n"
    "Example: grep -i 'hello world' menu.h main.c\n"
    "PATTERNS can contain multiple patterns separated by newlines.\n"
    "\n"
    "Pattern selection and interpretation:\n"
    "  -E, --extended-regexp     PATTERNS are extended regular expressions\n"
    "  -F, --fixed-strings       PATTERNS are strings\n"
    "  -G, --basic-regexp        PATTERNS are basic regular expressions\n"
    "  -P, --perl-regexp         PATTERNS are Perl-like regular expressions (RE2 syntax:\n"
    "                            no back-references or lookaround)\n"
    "  -e, --regexp=PATTERNS     use PATTERNS for matching\n"
    "  -f, --file=FILE           take PATTERNS from FILE\n"
    "  -i, --ignore-case         ignore case distinctions in patterns and data\n"
    "      --no-ignore-case      do not ignore case distinctions (default)\n"
    "  -w, --word-regexp         match only whole words\n"
    "  -x, --line-regexp         match only whole lines\n"
    "  -z, --null-data           a data line ends in 0 byte, not newline\n"
    "\n"
    "Miscellaneous:\n"
    "  -s, --no-messages         suppress error messages\n"
    "  -v, --invert-match        select non-matching lines\n"
    "  -V, --version             display version information and exit\n"
    "      --help                display this help text and exit\n"
    "\n"
    "Output control:\n"
    "  -m, --max-count=NUM       stop after NUM selected lines\n"
    "  -n, --line-number         print line number with output lines\n"
    "  -H, --with-filename       print file name with output lines\n"
    "  -h, --no-filename         suppress the file name prefix on output\n"
    "      --label=LABEL         use LABEL as the standard input file name prefix\n"
    "  -o, --only-matching       show only nonempty parts of lines that match\n"
    "  -q, --quiet, --silent     suppress all normal output\n"
    "      --binary-files=TYPE   assume that binary files are TYPE;\n"
    "                            TYPE is 'binary', 'text', or 'without-match'\n"
    "  -a, --text                equivalent to --binary-files=text\n"
    "  -I                        equivalent to --binary-files=without-match\n"
    "  -d, --directories=ACTION  how to handle directories;\n"
    "                            ACTION is 'read', 'recurse', or 'skip'\n"
    "  -D, --devices=ACTION      how to handle devices; ACTION is 'read' or 'skip'\n"
    "  -r, --recursive           like --directories=recurse\n"
    "  -R, --dereference-recursive  likewise, but follow all symlinks\n"
    "      --include=GLOB        search only files that match GLOB (a file pattern)\n"
    "      --exclude=GLOB        skip files that match GLOB\n"
    "      --exclude-dir=GLOB    skip directories that match GLOB\n"
    "  -L, --files-without-match  print only names of FILEs with no selected lines\n"
    "  -l, --files-with-matches  print only names of FILEs with selected lines\n"
    "  -c, --count               print only a count of selected lines per FILE\n"
    "  -Z, --null                print 0 byte after FILE name\n"
    "\n"
    "Context control:\n"
    "  -B, --before-context=NUM  print NUM lines of leading context\n"
    "  -A, --after-context=NUM   print NUM lines of trailing context\n"
    "  -C, --context=NUM         print NUM lines of output context\n"
    "  -NUM                      same as --context=NUM\n"
    "      --group-separator=SEP  print SEP on line between matches with context\n"
    "      --no-group-separator  do not print separator for matches with context\n"
    "      --color[=WHEN],\n"
    "      --colour[=WHEN]       accepted; WHEN is 'never', 'always', or 'auto' (no colors are output)\n"
    "\n"
    "Directories are searched in sorted order. Regular expressions run on RE2: back-references are\n"
    "refused with an error.\n"
    "When FILE is '-', read standard input.  With no FILE, read '.' if\n"
    "recursive, '-' otherwise.  With fewer than two FILEs, assume -h.\n"
    "Exit status is 0 if any line is selected, 1 otherwise;\n"
    "if any error occurs and -q is not given, the exit status is 2.\n";

struct GlobRule {
    interp::Pattern pattern;
    bool include = false;
};

bool glob_hits(const interp::Pattern& p, std::string_view name, bool command_line) {
    if (p.match(name)) return true;
    if (!command_line) return false;
    for (size_t i = 0; i < name.size(); ++i)
        if (name[i] == '/' && i + 1 < name.size() && name[i + 1] != '/' && p.match(name.substr(i + 1))) return true;
    return false;
}

// GNU's exclude list: the first rule decides the default, then each rule can flip the verdict when it
// matches and would change it.
bool excluded_by(const std::vector<GlobRule>& rules, std::string_view name, bool command_line) {
    if (rules.empty()) return false;
    bool excluded = rules.front().include;
    for (const auto& r : rules)
        if (excluded == r.include && glob_hits(r.pattern, name, command_line)) excluded = !excluded;
    return excluded;
}

bool parse_count(const std::string& s, uint64_t& out) {
    if (s.empty()) return false;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        if (v > (UINT64_MAX - 9) / 10) {
            v = UINT64_MAX;
            continue;
        }
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    out = v;
    return true;
}

void split_lines(std::string_view text, std::vector<std::string>& out) {
    size_t start = 0;
    while (true) {
        const size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            out.emplace_back(text.substr(start));
            return;
        }
        out.emplace_back(text.substr(start, nl - start));
        start = nl + 1;
    }
}

class Grep {
public:
    Grep(interp::CommandContext& ctx, std::string prog) : ctx_(ctx), prog_(std::move(prog)), out_(ctx) {}
    int run(Syntax syntax);

private:
    void message(const std::string& text) {
        out_.flush();
        ctx_.err.write(prog_ + ": " + text + "\n");
    }
    void file_error(std::string_view name, vfs::Errc e) {
        error_ = true;
        if (!suppress_) message(std::string(name) + ": " + std::string(vfs::error_message(e)));
    }
    int usage_error(const std::string& text) {
        if (!text.empty()) ctx_.err.write(prog_ + ": " + text + "\n");
        ctx_.err.write(std::string(kUsage) + std::string(kTry));
        return 2;
    }
    // Searches one operand (or a file met while walking). Returns false to stop everything.
    bool search_operand(const std::string& display);
    bool walk(const std::string& display, const std::string& abs, const vfs::Stat& st);
    bool search_file(const std::string& display, const std::string& abs);
    bool search_stream(const std::string& display, const ReadFn& read);

    interp::CommandContext& ctx_;
    std::string prog_;
    Output out_;
    SearchConfig cfg_;
    std::unique_ptr<Matcher> matcher_;
    std::vector<GlobRule> file_rules_;
    std::vector<interp::Pattern> dir_rules_;
    bool suppress_ = false;
    bool recursive_ = false;
    bool deref_ = false;
    bool skip_dirs_ = false;
    bool skip_devices_ = false;
    bool implicit_dot_ = false;
    std::string label_ = "(standard input)";
    bool error_ = false;
    bool fatal_ = false;
    bool any_selected_ = false;
    bool stop_ = false;
};

int Grep::run(Syntax syntax) {
    utils::ParseConfig config;
    config.digit_option = kOptDigits;  // -5 is -C 5, and so is the 5 of -n5 (GNU grep's digits are options)
    config.digits_in_clusters = true;
    ParsedArgs args = parse_args(ctx_.argv, grep_specs(), config);
    if (!args.ok()) return usage_error(args.error);
    MatcherOptions mo;
    mo.syntax = syntax;
    std::vector<std::string> patterns;
    bool have_patterns = false;
    bool syntax_set = false;
    auto set_syntax = [&](Syntax sx) {
        if (syntax_set && mo.syntax != sx) return false;
        syntax_set = true;
        mo.syntax = sx;
        return true;
    };
    bool with_filename = false, no_filename = false;
    std::string after_arg, before_arg, context_arg;
    bool after_set = false, before_set = false, context_set = false;
    for (const auto& o : args.options) {
        switch (o.id) {
            case kOptHelp: ctx_.out.write(kHelp); return 0;
            case kOptVersion: ctx_.out.write("grep (GNU grep) 3.8\nbashkit in-process implementation over RE2.\n"); return 0;
            case kOptExtended:
            case kOptFixed:
            case kOptBasic:
            case kOptPerl: {
                const Syntax sx = o.id == kOptExtended ? Syntax::kExtended
                                  : o.id == kOptFixed  ? Syntax::kFixed
                                  : o.id == kOptBasic  ? Syntax::kBasic
                                                       : Syntax::kPerl;
                if (!set_syntax(sx)) {
                    ctx_.err.write(prog_ + ": conflicting matchers specified\n");
                    return 2;
                }
                break;
            }
            case kOptRegexp:
                split_lines(o.value, patterns);
                have_patterns = true;
                break;
            case kOptFile: {
                have_patterns = true;
                std::string text;
                if (const vfs::Errc e = read_pattern_file(ctx_, o.value, text); e != vfs::Errc::ok) {
                    ctx_.err.write(prog_ + ": " + o.value + ": " + std::string(vfs::error_message(e)) + "\n");
                    return 2;
                }
                if (!text.empty()) {
                    if (text.back() == '\n') text.pop_back();
                    split_lines(text, patterns);
                }
                break;
            }
            case kOptIcase: mo.icase = true; break;
            case kOptNoIcase: mo.icase = false; break;
            case kOptWord: mo.word = true; break;
            case kOptLine: mo.line = true; break;
            case kOptInvert: cfg_.invert = true; break;
            case kOptCount: cfg_.count = true; break;
            case kOptFilesWith: cfg_.list_matching = true; cfg_.list_missing = false; break;
            case kOptFilesWithout: cfg_.list_missing = true; cfg_.list_matching = false; break;
            case kOptQuiet: cfg_.quiet = true; break;
            case kOptSilent: suppress_ = true; break;
            case kOptOnly: cfg_.only_matching = true; break;
            case kOptLineNumber: cfg_.line_numbers = true; break;
            case kOptNoFilename: no_filename = true; with_filename = false; break;
            case kOptWithFilename: with_filename = true; no_filename = false; break;
            case kOptRecursive: recursive_ = true; deref_ = false; skip_dirs_ = false; break;
            case kOptDerefRecursive: recursive_ = true; deref_ = true; skip_dirs_ = false; break;
            case kOptMaxCount: {
                uint64_t v = 0;
                if (!parse_count(o.value, v)) {
                    ctx_.err.write(prog_ + ": invalid max count\n");
                    return 2;
                }
                cfg_.max_count = v;
                break;
            }
            case kOptNullData: mo.eol = '\0'; break;
            case kOptNull: cfg_.null_after_name = true; break;
            case kOptText: cfg_.binary = BinaryMode::kText; break;
            case kOptNoBinary: cfg_.binary = BinaryMode::kWithoutMatch; break;
            case kOptBinaryFiles:
                if (o.value == "binary") cfg_.binary = BinaryMode::kGrep;
                else if (o.value == "text") cfg_.binary = BinaryMode::kText;
                else if (o.value == "without-match") cfg_.binary = BinaryMode::kWithoutMatch;
                else {
                    ctx_.err.write(prog_ + ": unknown binary-files type\n");
                    return 2;
                }
                break;
            case kOptInclude:
            case kOptExclude:
                file_rules_.push_back({interp::Pattern::compile(o.value), o.id == kOptInclude});
                break;
            case kOptExcludeDir: dir_rules_.push_back(interp::Pattern::compile(o.value)); break;
            case kOptColor:
                if (o.has_value && o.value != "never" && o.value != "always" && o.value != "auto" &&
                    o.value != "yes" && o.value != "no" && o.value != "force" && o.value != "none" &&
                    o.value != "tty" && o.value != "if-tty") {
                    // GNU grep shows its help (and succeeds) for an unknown WHEN.
                    ctx_.out.write(kHelp);
                    return 0;
                }
                break;
            case kOptLabel: label_ = o.value; break;
            case kOptDirectories:
                if (o.value == "recurse") recursive_ = true, skip_dirs_ = false;
                else if (o.value == "skip") skip_dirs_ = true, recursive_ = false;
                else if (o.value == "read") skip_dirs_ = false, recursive_ = false;
                else {
                    ctx_.err.write(prog_ + ": invalid argument '" + o.value + "' for '--directories'\n"
                                   "Valid arguments are:\n  - 'read'\n  - 'recurse'\n  - 'skip'\n" +
                                   std::string(kUsage) + std::string(kTry));
                    return 1;  // argmatch's usage(EXIT_FAILURE)
                }
                break;
            case kOptDevices:
                if (o.value == "skip") skip_devices_ = true;
                else if (o.value == "read") skip_devices_ = false;
                else {
                    ctx_.err.write(prog_ + ": unknown devices method\n");
                    return 2;
                }
                break;
            case kOptGroupSep: cfg_.group_separator = o.value; cfg_.separator = true; break;
            case kOptNoGroupSep: cfg_.separator = false; break;
            case kOptAfter: after_arg = o.value; after_set = true; break;
            case kOptBefore: before_arg = o.value; before_set = true; break;
            case kOptContext:
            case kOptDigits: context_arg = o.value; context_set = true; break;
            default: break;  // --line-buffered, -T, -b, -u: accepted, no effect
        }
    }
    auto context_value = [&](const std::string& s, size_t& out) {
        uint64_t v = 0;
        if (!parse_count(s, v)) {
            ctx_.err.write(prog_ + ": " + s + ": invalid context length argument\n");
            return false;
        }
        out = static_cast<size_t>(std::min<uint64_t>(v, SIZE_MAX / 2));
        return true;
    };
    size_t ctx_default = 0;
    if (context_set && !context_value(context_arg, ctx_default)) return 2;
    cfg_.after = cfg_.before = ctx_default;
    if (after_set && !context_value(after_arg, cfg_.after)) return 2;
    if (before_set && !context_value(before_arg, cfg_.before)) return 2;
    cfg_.separator_always = context_set || after_set || before_set;
    if (cfg_.quiet || cfg_.list_matching || cfg_.list_missing) cfg_.count = false;
    if (cfg_.only_matching) {
        cfg_.after = cfg_.before = 0;
        cfg_.separator_always = false;
    }

    std::vector<std::string> operands = std::move(args.operands);
    if (!have_patterns) {
        if (operands.empty()) return usage_error("");
        split_lines(operands.front(), patterns);
        operands.erase(operands.begin());
    }
    if (mo.syntax == Syntax::kPerl && patterns.size() > 1) {
        ctx_.err.write(prog_ + ": the -P option only supports a single pattern\n");
        return 2;
    }
    mo.memory = ctx_.memory;
    mo.cancel = &ctx_.cancel;
    std::string error;
    matcher_ = Matcher::compile(patterns, mo, error);
    if (!matcher_) {
        ctx_.err.write(prog_ + ": " + error + "\n");
        return 2;
    }
    cfg_.matcher = matcher_.get();
    cfg_.eol = mo.eol;
    cfg_.suppress_errors = suppress_;
    cfg_.program = prog_;
    if (cfg_.max_count == 0) return 1;  // GNU grep reads nothing

    if (operands.empty()) {
        if (recursive_) {
            implicit_dot_ = true;
            operands.push_back(".");
        } else {
            operands.push_back("-");
        }
    }
    bool show_names = operands.size() > 1 || implicit_dot_;
    if (!show_names && recursive_ && operands.front() != "-") show_names = ctx_.fs.is_directory(ctx_.resolve(operands.front()));
    cfg_.with_filename = with_filename || (show_names && !no_filename);

    for (const auto& op : operands) {
        if (!search_operand(op)) break;
    }
    // A closed pipe ends grep with 141 (SIGPIPE); another write error is trouble (2), like GNU grep's.
    if (const int s = out_.finish()) return s == 1 ? 2 : s;
    if (fatal_) return 2;  // grep -P: a PCRE2 limit ends grep with trouble, matches or not
    if (cfg_.quiet && any_selected_) return 0;
    if (error_) return 2;
    return any_selected_ ? 0 : 1;
}

bool Grep::search_stream(const std::string& display, const ReadFn& read) {
    SearchResult r = search_input(cfg_, read, display, out_, ctx_.err, &ctx_.cancel, ctx_.memory);
    if (r.read_error) {
        file_error(display, static_cast<vfs::Errc>(r.read_error));
    }
    if (r.selected > 0) {
        any_selected_ = true;
        if (cfg_.quiet) {
            stop_ = true;
            return false;
        }
    }
    if (r.match_error) error_ = fatal_ = true;
    if (r.stopped) {
        stop_ = true;
        return false;
    }
    return true;
}

bool Grep::search_file(const std::string& display, const std::string& abs) {
    auto h = ctx_.fs.open_read(abs);
    if (!h.ok()) {
        file_error(display, h.error());
        return true;
    }
    vfs::FileHandle& fh = **h;
    const ReadFn read = read_from(fh);
    return search_stream(display, read);
}

bool Grep::search_operand(const std::string& op) {
    if (ctx_.cancelled()) return false;
    if (op == "-") {
        return search_stream(label_, read_from(ctx_.in));
    }
    const std::string abs = ctx_.resolve(op);
    auto st = ctx_.fs.stat(abs);
    if (!st.ok()) {
        // A dangling symlink or a missing file.
        file_error(op, st.error());
        return true;
    }
    if (st->is_directory()) {
        if (skip_dirs_) return true;
        if (!recursive_) {
            file_error(op, vfs::Errc::is_directory);
            return true;
        }
        if (!implicit_dot_) {
            for (const auto& p : dir_rules_)
                if (glob_hits(p, op, true)) return true;
        }
        return walk(implicit_dot_ ? std::string() : op, abs, *st);
    }
    if (excluded_by(file_rules_, op, true)) return true;
    if (skip_devices_ && !st->is_regular()) return true;
    return search_file(op, abs);
}

bool Grep::walk(const std::string& display, const std::string& abs, const vfs::Stat& st) {
    std::vector<DirFrame> stack;
    auto push = [&](std::string disp, std::string path, const vfs::Stat& s) {
        DirFrame f;
        const std::string shown = disp.empty() ? "." : disp;
        if (const vfs::Errc e = read_dir_frame(ctx_.fs, std::move(disp), std::move(path), s, f); e != vfs::Errc::ok) {
            file_error(shown, e);
            return;
        }
        stack.push_back(std::move(f));
    };
    push(display, abs, st);
    while (!stack.empty()) {
        if (stop_ || ctx_.cancelled()) return false;
        DirFrame& top = stack.back();
        if (top.next >= top.entries.size()) {
            stack.pop_back();
            continue;
        }
        const vfs::DirEntry& e = top.entries[top.next++];
        const std::string disp = join_display(top.display, e.name);
        const std::string path = top.abs.back() == '/' ? top.abs + e.name : top.abs + "/" + e.name;
        auto ls = ctx_.fs.lstat(path);
        if (!ls.ok()) {
            file_error(disp, ls.error());
            continue;
        }
        vfs::Stat s = *ls;
        if (s.is_symlink()) {
            if (!deref_) continue;
            auto fs = ctx_.fs.stat(path);
            if (!fs.ok()) {
                file_error(disp, fs.error());
                continue;
            }
            s = *fs;
        }
        if (s.is_directory()) {
            bool skip = false;
            for (const auto& p : dir_rules_) skip = skip || p.match(e.name);
            if (skip) continue;
            if (on_stack(stack, s)) {
                if (!suppress_) message("warning: " + disp + ": recursive directory loop");
                continue;
            }
            push(disp, path, s);
            continue;
        }
        if (!s.is_regular() && (skip_devices_ || recursive_)) continue;  // devices are skipped while walking
        if (excluded_by(file_rules_, e.name, false)) continue;
        if (!search_file(disp, path)) return false;
    }
    return true;
}

}  // namespace

int grep_main(interp::CommandContext& ctx, Syntax syntax, std::string_view warning) {
    if (!warning.empty()) ctx.err.write(std::string(warning));
    Grep g(ctx, "grep");
    return g.run(syntax);
}

}  // namespace bashkit::utils::search
