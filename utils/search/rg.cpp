// rg: ripgrep 13's defaults and common options.
//
// Differences from ripgrep writing to a pipe, on purpose or by simplification:
//  - Line numbers are shown by default (as ripgrep does on a terminal, which is how agents read its
//    output), except when only standard input is searched; -N turns them off. File names are never
//    printed as headings: each line is `path:line:text`.
//  - Files are searched one after another, directories in byte order of their names: the output is what
//    `rg --sort path` prints, every time.
//  - Regexes are RE2's syntax (close to Rust's regex crate); look-around and back-references are refused
//    like ripgrep refuses them without --pcre2. -P/--pcre2 matches with PCRE2 (UTF and UCP, line by line,
//    match limits set: see matcher.hpp); a match that hits a limit is reported for its file, as ripgrep
//    does, and the search goes on. -U/--multiline is refused.
//  - Ignore files: .gitignore (only inside a git repository: a .git in the directory or an ancestor),
//    .ignore and .rgignore, in the searched directories and their ancestors; .git/info/exclude and the
//    global excludes file are not read.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/search/gitignore.hpp"
#include "utils/search/grep_impl.hpp"
#include "utils/search/matcher.hpp"
#include "utils/search/searcher.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::utils::search {
namespace {

enum RgOpt {
    kRgIcase = 1, kRgCaseSensitive, kRgSmartCase, kRgWord, kRgLine, kRgFixed, kRgFilesWith, kRgFilesWithout,
    kRgCount, kRgLineNumber, kRgNoLineNumber, kRgGlob, kRgIGlob, kRgType, kRgTypeNot, kRgAfter, kRgBefore,
    kRgContext, kRgHidden, kRgNoHidden, kRgNoIgnore, kRgNoIgnoreVcs, kRgOnly, kRgRegexp, kRgFile, kRgInvert,
    kRgMaxCount, kRgWithFilename, kRgNoFilename, kRgQuiet, kRgText, kRgUnrestricted, kRgSort, kRgSortFiles,
    kRgFiles, kRgTypeList, kRgNoHeading, kRgHeading, kRgColor, kRgFollow, kRgMaxDepth, kRgNull,
    kRgContextSep, kRgNoMessages, kRgPcre2, kRgMultiline, kRgHelp, kRgVersion, kRgSearchZip, kRgNoConfig,
    kRgColumn, kRgTrim,
};

const std::vector<utils::OptionSpec>& rg_specs() {
    static const std::vector<utils::OptionSpec> specs = {
        {kRgIcase, 'i', "ignore-case"},
        {kRgCaseSensitive, 's', "case-sensitive"},
        {kRgSmartCase, 'S', "smart-case"},
        {kRgWord, 'w', "word-regexp"},
        {kRgLine, 'x', "line-regexp"},
        {kRgFixed, 'F', "fixed-strings"},
        {kRgFilesWith, 'l', "files-with-matches"},
        {kRgFilesWithout, 0, "files-without-match"},
        {kRgCount, 'c', "count"},
        {kRgLineNumber, 'n', "line-number"},
        {kRgNoLineNumber, 'N', "no-line-number"},
        {kRgGlob, 'g', "glob", ArgKind::required},
        {kRgIGlob, 0, "iglob", ArgKind::required},
        {kRgType, 't', "type", ArgKind::required},
        {kRgTypeNot, 'T', "type-not", ArgKind::required},
        {kRgAfter, 'A', "after-context", ArgKind::required},
        {kRgBefore, 'B', "before-context", ArgKind::required},
        {kRgContext, 'C', "context", ArgKind::required},
        {kRgHidden, '.', "hidden"},
        {kRgNoHidden, 0, "no-hidden"},
        {kRgNoIgnore, 0, "no-ignore"},
        {kRgNoIgnoreVcs, 0, "no-ignore-vcs"},
        {kRgOnly, 'o', "only-matching"},
        {kRgRegexp, 'e', "regexp", ArgKind::required},
        {kRgFile, 'f', "file", ArgKind::required},
        {kRgInvert, 'v', "invert-match"},
        {kRgMaxCount, 'm', "max-count", ArgKind::required},
        {kRgWithFilename, 'H', "with-filename"},
        {kRgNoFilename, 'I', "no-filename"},
        {kRgQuiet, 'q', "quiet"},
        {kRgText, 'a', "text"},
        {kRgUnrestricted, 'u', "unrestricted"},
        {kRgSort, 0, "sort", ArgKind::required},
        {kRgSortFiles, 0, "sort-files"},
        {kRgFiles, 0, "files"},
        {kRgTypeList, 0, "type-list"},
        {kRgNoHeading, 0, "no-heading"},
        {kRgHeading, 0, "heading"},
        {kRgColor, 0, "color", ArgKind::required},
        {kRgFollow, 'L', "follow"},
        {kRgMaxDepth, 'd', "max-depth", ArgKind::required},
        {kRgNull, '0', "null"},
        {kRgContextSep, 0, "context-separator", ArgKind::required},
        {kRgNoMessages, 0, "no-messages"},
        {kRgPcre2, 'P', "pcre2"},
        {kRgMultiline, 'U', "multiline"},
        {kRgHelp, 'h', "help"},
        {kRgVersion, 'V', "version"},
        {kRgSearchZip, 'z', "search-zip"},
        {kRgNoConfig, 0, "no-config"},
        {kRgColumn, 0, "column"},
        {kRgTrim, 0, "trim"},
    };
    return specs;
}

struct FileType {
    std::string_view name;
    std::vector<std::string_view> globs;
};

// A subset of `rg --type-list` (ripgrep 13).
const std::vector<FileType>& file_types() {
    static const std::vector<FileType> types = {
        {"c", {"*.[chH]", "*.[chH].in", "*.cats"}},
        {"cpp", {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in",
                 "*.hh", "*.hh.in", "*.inl"}},
        {"css", {"*.css", "*.scss"}},
        {"go", {"*.go"}},
        {"html", {"*.ejs", "*.htm", "*.html"}},
        {"java", {"*.java", "*.jsp", "*.jspx", "*.properties"}},
        {"js", {"*.js", "*.jsx", "*.vue"}},
        {"json", {"*.json", "composer.lock"}},
        {"make", {"*.mak", "*.mk", "GNUmakefile", "Gnumakefile", "Makefile", "gnumakefile", "makefile"}},
        {"md", {"*.markdown", "*.md", "*.mdown", "*.mkdn"}},
        {"py", {"*.py"}},
        {"rb", {"*.gemspec", "*.rb", ".irbrc", "Gemfile", "config.ru"}},
        {"rs", {"*.rs"}},  // bashkit's alias of ripgrep's "rust"
        {"rust", {"*.rs"}},
        {"sh", {"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh",
                ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login",
                ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc",
                "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout",
                "zprofile", "zshenv", "zshrc"}},
        {"toml", {"*.toml", "Cargo.lock"}},
        {"ts", {"*.ts", "*.tsx"}},
        {"txt", {"*.txt"}},
        {"yaml", {"*.yaml", "*.yml"}},
    };
    return types;
}

constexpr std::string_view kRgHelpText =
    "rg (bashkit) - ripgrep-compatible recursive search\n"
    "\n"
    "USAGE:\n"
    "    rg [OPTIONS] PATTERN [PATH ...]\n"
    "    rg [OPTIONS] -e PATTERN ... [PATH ...]\n"
    "    rg [OPTIONS] --files [PATH ...]\n"
    "    command | rg [OPTIONS] PATTERN\n"
    "\n"
    "Searches directories recursively (in sorted order), skipping hidden files and paths matched by\n"
    ".gitignore (inside git repositories), .ignore and .rgignore. Prints path:line:text.\n"
    "\n"
    "OPTIONS:\n"
    "    -e, --regexp PATTERN     a pattern (repeatable)\n"
    "    -f, --file FILE          patterns from FILE, one per line\n"
    "    -F, --fixed-strings      patterns are literal strings\n"
    "    -i, --ignore-case        case-insensitive\n"
    "    -s, --case-sensitive     case-sensitive (default)\n"
    "    -S, --smart-case         case-insensitive unless the pattern has an uppercase letter\n"
    "    -w, --word-regexp        whole words only\n"
    "    -x, --line-regexp        whole lines only\n"
    "    -v, --invert-match       select lines that do not match\n"
    "    -c, --count              count matching lines per file\n"
    "    -l, --files-with-matches print the paths with a match\n"
    "        --files-without-match print the paths without a match\n"
    "    -o, --only-matching      print only the matched parts\n"
    "    -m, --max-count NUM      at most NUM matching lines per file\n"
    "    -n, --line-number        show line numbers (default)\n"
    "    -N, --no-line-number     hide line numbers\n"
    "    -H, --with-filename      always show paths\n"
    "    -I, --no-filename        never show paths\n"
    "    -A, -B, -C NUM           lines of context after, before, around matches\n"
    "    -g, --glob GLOB          include (or with !, exclude) paths matching GLOB\n"
    "        --iglob GLOB         -g, case-insensitive\n"
    "    -t, --type TYPE          only files of TYPE (see --type-list)\n"
    "    -T, --type-not TYPE      no files of TYPE\n"
    "    -., --hidden             search hidden files and directories\n"
    "        --no-ignore          do not use ignore files\n"
    "    -u, --unrestricted       -u: --no-ignore, -uu: and --hidden, -uuu: and --text\n"
    "    -L, --follow             follow symbolic links\n"
    "    -d, --max-depth NUM      descend at most NUM directories\n"
    "    -a, --text               search binary files as text\n"
    "    -q, --quiet              print nothing; exit 0 at the first match\n"
    "        --files              print the files that would be searched\n"
    "        --type-list          print the known file types\n"
    "    -0, --null               a NUL byte after paths\n"
    "        --sort path          accepted (output is always sorted by path)\n";

bool has_uppercase_literal(std::string_view p) {
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] == '\\') {
            ++i;  // \S \W \D \P{..} are classes, not letters
            continue;
        }
        if (p[i] >= 'A' && p[i] <= 'Z') return true;
    }
    return false;
}

class Rg {
public:
    explicit Rg(interp::CommandContext& ctx) : ctx_(ctx), out_(ctx) {}
    int run();

private:
    struct IgnoreDir {
        std::string abs;  // normalised directory
        GlobList rg, ignore, git;
        bool has_git_rules = false;
    };

    void error_line(const std::string& text) {
        if (no_messages_) return;
        out_.flush();
        ctx_.err.write(text + "\n");
    }
    int arg_error(const std::string& text) {
        ctx_.err.write("error: " + text + "\n\nFor more information try --help\n");
        return 2;
    }
    bool search_path(const std::string& display, const std::string& abs, bool explicit_file, bool quit_binary);
    bool walk(const std::string& display, const std::string& abs);
    // The ignore files of `dir` (absolute, normalised).
    IgnoreDir load_ignores(const std::string& dir, bool in_git);
    bool is_git_repo(const std::string& dir);
    // Decides whether an entry met while walking is skipped.
    bool skipped(const std::string& abs, std::string_view rel_to_root, std::string_view name, bool is_dir,
                 const std::vector<IgnoreDir>& chain);

    interp::CommandContext& ctx_;
    Output out_;
    SearchConfig cfg_;
    std::unique_ptr<Matcher> matcher_;
    GlobList overrides_;
    bool override_includes_ = false;
    std::vector<const FileType*> types_, types_not_;
    bool hidden_ = false, no_ignore_ = false, no_ignore_vcs_ = false, follow_ = false;
    uint64_t max_depth_ = UINT64_MAX;
    bool no_messages_ = false;
    bool list_files_ = false;
    bool error_ = false;
    bool any_selected_ = false;
    bool searched_any_ = false;
    bool stop_ = false;
};

bool Rg::is_git_repo(const std::string& dir) {
    std::string d = dir;
    while (true) {
        if (ctx_.fs.lexists(d == "/" ? "/.git" : d + "/.git")) return true;
        if (d == "/" || d.empty()) return false;
        d = vfs::path_dirname(d);
    }
}

Rg::IgnoreDir Rg::load_ignores(const std::string& dir, bool in_git) {
    IgnoreDir r;
    r.abs = dir;
    if (no_ignore_) return r;
    auto load = [&](const char* name, GlobList& into) {
        const std::string p = dir == "/" ? std::string("/") + name : dir + "/" + name;
        auto text = ctx_.fs.read_file(p, 16u << 20);
        if (text.ok()) into.add_file(*text);
    };
    load(".rgignore", r.rg);
    load(".ignore", r.ignore);
    if (in_git && !no_ignore_vcs_) load(".gitignore", r.git);
    return r;
}

bool Rg::skipped(const std::string& abs, std::string_view rel_to_root, std::string_view name, bool is_dir,
                 const std::vector<IgnoreDir>& chain) {
    if (!overrides_.empty()) {
        const IgnoreMatch m = overrides_.match(rel_to_root, is_dir);
        if (m == IgnoreMatch::kWhitelist) return true;  // a !glob
        if (m == IgnoreMatch::kIgnore) return false;     // a glob: searched whatever else says
        if (!is_dir && override_includes_) return true;
    }
    IgnoreMatch decided = IgnoreMatch::kNone;
    for (size_t k = chain.size(); k > 0 && decided == IgnoreMatch::kNone; --k) {
        const IgnoreDir& d = chain[k - 1];
        if (abs.size() <= d.abs.size()) continue;
        const std::string_view rel =
            std::string_view(abs).substr(d.abs == "/" ? 1 : d.abs.size() + 1);
        for (const GlobList* g : {&d.rg, &d.ignore, &d.git}) {
            decided = g->match(rel, is_dir);
            if (decided != IgnoreMatch::kNone) break;
        }
    }
    if (decided == IgnoreMatch::kIgnore) return true;
    if (decided == IgnoreMatch::kNone && !hidden_ && !name.empty() && name.front() == '.') return true;
    if (!is_dir && (!types_.empty() || !types_not_.empty())) {
        auto matches_type = [&](const FileType* t) {
            for (auto g : t->globs) {
                GlobList one;
                one.add_line(g);
                if (one.match(name, false) == IgnoreMatch::kIgnore) return true;
            }
            return false;
        };
        for (const FileType* t : types_not_)
            if (matches_type(t)) return true;
        if (!types_.empty()) {
            bool any = false;
            for (const FileType* t : types_) any = any || matches_type(t);
            if (!any) return true;
        }
    }
    return false;
}

bool Rg::search_path(const std::string& display, const std::string& abs, bool explicit_file, bool quit_binary) {
    if (list_files_) {
        out_.put(display);
        out_.put(cfg_.null_after_name ? '\0' : '\n');
        searched_any_ = true;
        return true;
    }
    auto h = ctx_.fs.open_read(abs);
    if (!h.ok()) {
        error_ = true;
        error_line(display + ": " + std::string(vfs::error_message(h.error())) + " (os error " +
                   std::to_string(vfs::to_errno(h.error())) + ")");
        return true;
    }
    searched_any_ = true;
    vfs::FileHandle& fh = **h;
    const ReadFn read = read_from(fh);
    SearchConfig cfg = cfg_;
    if (cfg.binary != BinaryMode::kText)
        cfg.binary = quit_binary ? BinaryMode::kRgQuit : BinaryMode::kRgConvert;
    (void)explicit_file;
    SearchResult r = search_input(cfg, read, display, out_, ctx_.err, &ctx_.cancel, ctx_.memory);
    if (r.read_error) {
        error_ = true;
        error_line(display + ": " + std::string(vfs::error_message(static_cast<vfs::Errc>(r.read_error))) +
                   " (os error " + std::to_string(r.read_error) + ")");
    }
    if (r.match_error) error_ = true;
    if (r.stopped && out_.failed()) {
        // ripgrep ends quietly on a broken pipe; the file it was printing does not count as a match.
        stop_ = true;
        return false;
    }
    if (r.selected > 0) {
        any_selected_ = true;
        if (cfg_.quiet) {
            stop_ = true;
            return false;
        }
    }
    if (r.stopped) {
        stop_ = true;
        return false;
    }
    return true;
}

bool Rg::walk(const std::string& display, const std::string& abs_in) {
    const std::string abs = vfs::normalize_path(abs_in);
    // Ignore files of the root's ancestors apply too.
    std::vector<IgnoreDir> chain;
    {
        std::vector<std::string> ancestors;
        std::string d = abs;
        while (true) {
            ancestors.push_back(d);
            if (d == "/") break;
            d = vfs::path_dirname(d);
        }
        std::reverse(ancestors.begin(), ancestors.end());
        const bool git = is_git_repo(abs);
        for (const auto& a : ancestors) chain.push_back(load_ignores(a, git));
    }
    const size_t root_depth = chain.size();
    std::vector<DirFrame> stack;
    auto push = [&](std::string disp, std::string path) -> bool {
        auto st = ctx_.fs.stat(path);
        DirFrame f;
        const std::string shown = disp.empty() ? std::string(".") : disp;
        vfs::Errc e = st.ok() ? read_dir_frame(ctx_.fs, std::move(disp), std::move(path), *st, f) : st.error();
        if (e != vfs::Errc::ok) {
            error_ = true;
            error_line(shown + ": " + std::string(vfs::error_message(e)) + " (os error " +
                       std::to_string(vfs::to_errno(e)) + ")");
            return false;
        }
        stack.push_back(std::move(f));
        return true;
    };
    if (!push(display, abs)) return true;
    while (!stack.empty()) {
        if (stop_ || ctx_.cancelled()) return false;
        DirFrame& top = stack.back();
        if (top.next >= top.entries.size()) {
            stack.pop_back();
            if (chain.size() > root_depth) chain.pop_back();
            continue;
        }
        const vfs::DirEntry& e = top.entries[top.next++];
        const std::string disp = join_display(top.display, e.name);
        const std::string path = top.abs == "/" ? "/" + e.name : top.abs + "/" + e.name;
        const std::string_view rel = std::string_view(path).substr(abs == "/" ? 1 : abs.size() + 1);
        auto ls = ctx_.fs.lstat(path);
        if (!ls.ok()) continue;
        vfs::Stat s = *ls;
        if (s.is_symlink()) {
            if (!follow_) continue;
            auto fs = ctx_.fs.stat(path);
            if (!fs.ok()) continue;
            s = *fs;
        }
        const bool is_dir = s.is_directory();
        if (skipped(path, rel, e.name, is_dir, chain)) continue;
        if (is_dir) {
            if (stack.size() > max_depth_) continue;
            if (on_stack(stack, s)) continue;
            if (push(disp, path)) chain.push_back(load_ignores(path, is_git_repo(path)));
            continue;
        }
        if (stack.size() > max_depth_) continue;
        if (!s.is_regular()) continue;
        if (!search_path(disp, path, false, true)) return false;
    }
    return true;
}

int Rg::run() {
    ParsedArgs args = parse_args(ctx_.argv, rg_specs());
    if (!args.ok()) {
        std::string what = args.error;
        if (what.starts_with("invalid option -- '")) what = "-" + what.substr(19, 1);
        else if (what.starts_with("unrecognized option '")) what = what.substr(21, what.size() - 22);
        else return arg_error(what);
        return arg_error("Found argument '" + what + "' which wasn't expected, or isn't valid in this context");
    }
    MatcherOptions mo;
    mo.syntax = Syntax::kRust;
    mo.utf8 = true;
    enum class Case { kSensitive, kInsensitive, kSmart } case_mode = Case::kSensitive;
    std::vector<std::string> patterns;
    bool have_patterns = false;
    bool line_numbers_set = false, line_numbers = true;
    int with_filename = -1;
    int unrestricted = 0;
    size_t after = 0, before = 0, context = 0;
    bool after_set = false, before_set = false;
    bool pcre2 = false;
    for (const auto& o : args.options) {
        auto number = [&](uint64_t& v) {
            v = 0;
            if (o.value.empty()) return false;
            for (char c : o.value) {
                if (c < '0' || c > '9') return false;
                v = std::min<uint64_t>(v * 10 + static_cast<uint64_t>(c - '0'), UINT64_MAX / 20);
            }
            return true;
        };
        uint64_t v = 0;
        switch (o.id) {
            case kRgHelp: ctx_.out.write(kRgHelpText); return 0;
            case kRgVersion: ctx_.out.write("ripgrep 13.0.0 (bashkit)\n"); return 0;
            case kRgIcase: case_mode = Case::kInsensitive; break;
            case kRgCaseSensitive: case_mode = Case::kSensitive; break;
            case kRgSmartCase: case_mode = Case::kSmart; break;
            case kRgWord: mo.word = true; break;
            case kRgLine: mo.line = true; break;
            case kRgFixed: mo.syntax = Syntax::kFixed; break;
            case kRgFilesWith: cfg_.list_matching = true; break;
            case kRgFilesWithout: cfg_.list_missing = true; break;
            case kRgCount: cfg_.count = true; break;
            case kRgLineNumber: line_numbers_set = true; line_numbers = true; break;
            case kRgNoLineNumber: line_numbers_set = true; line_numbers = false; break;
            case kRgGlob: overrides_.add_line(o.value); break;
            case kRgIGlob: overrides_.add_line(o.value, true); break;
            case kRgType:
            case kRgTypeNot: {
                const FileType* hit = nullptr;
                for (const auto& t : file_types())
                    if (t.name == o.value) hit = &t;
                if (!hit) {
                    ctx_.err.write("unrecognized file type: " + o.value + "\n");
                    return 2;
                }
                (o.id == kRgType ? types_ : types_not_).push_back(hit);
                break;
            }
            case kRgAfter:
            case kRgBefore:
            case kRgContext:
            case kRgMaxCount:
            case kRgMaxDepth:
                if (!number(v)) {
                    return arg_error("Invalid value for '" + o.spelled + "': invalid digit found in string");
                }
                if (o.id == kRgAfter) after = v, after_set = true;
                if (o.id == kRgBefore) before = v, before_set = true;
                if (o.id == kRgContext) context = v;
                if (o.id == kRgMaxCount) cfg_.max_count = v;
                if (o.id == kRgMaxDepth) max_depth_ = v;
                break;
            case kRgHidden: hidden_ = true; break;
            case kRgNoHidden: hidden_ = false; break;
            case kRgNoIgnore: no_ignore_ = true; break;
            case kRgNoIgnoreVcs: no_ignore_vcs_ = true; break;
            case kRgOnly: cfg_.only_matching = true; break;
            case kRgRegexp: patterns.push_back(o.value); have_patterns = true; break;
            case kRgFile: {
                have_patterns = true;
                std::string text;
                if (const vfs::Errc e = read_pattern_file(ctx_, o.value, text); e != vfs::Errc::ok) {
                    ctx_.err.write(o.value + ": " + std::string(vfs::error_message(e)) + " (os error " +
                                   std::to_string(vfs::to_errno(e)) + ")\n");
                    return 2;
                }
                size_t start = 0;
                while (start < text.size()) {
                    size_t nl = text.find('\n', start);
                    if (nl == std::string::npos) nl = text.size();
                    std::string line = text.substr(start, nl - start);
                    if (!line.empty() && line.back() == '\r') line.pop_back();
                    patterns.push_back(std::move(line));
                    start = nl + 1;
                }
                break;
            }
            case kRgInvert: cfg_.invert = true; break;
            case kRgWithFilename: with_filename = 1; break;
            case kRgNoFilename: with_filename = 0; break;
            case kRgQuiet: cfg_.quiet = true; break;
            case kRgText: cfg_.binary = BinaryMode::kText; break;
            case kRgUnrestricted: ++unrestricted; break;
            case kRgFollow: follow_ = true; break;
            case kRgNull: cfg_.null_after_name = true; break;
            case kRgContextSep: cfg_.group_separator = o.value; break;
            case kRgNoMessages: no_messages_ = true; break;
            case kRgFiles: list_files_ = true; break;
            case kRgTypeList:
                for (const auto& t : file_types()) {
                    std::string line = std::string(t.name) + ":";
                    for (size_t k = 0; k < t.globs.size(); ++k) line += (k ? ", " : " ") + std::string(t.globs[k]);
                    ctx_.out.write(line + "\n");
                }
                return 0;
            case kRgPcre2: pcre2 = true; break;
            case kRgMultiline:
                ctx_.err.write("rg: multiline search (-U) is not supported\n");
                return 2;
            default: break;  // --sort, --no-heading, --color, --heading, -z, ...: accepted
        }
    }
    if (unrestricted >= 1) no_ignore_ = true;
    if (unrestricted >= 2) hidden_ = true;
    if (unrestricted >= 3) cfg_.binary = BinaryMode::kText;
    override_includes_ = overrides_.has_positive();
    cfg_.after = after_set ? after : context;
    cfg_.before = before_set ? before : context;
    if (cfg_.only_matching) cfg_.after = cfg_.before = 0;
    cfg_.separator_always = false;
    cfg_.program = "rg";
    cfg_.count_zero = false;

    std::vector<std::string> operands = std::move(args.operands);
    if (!have_patterns && !list_files_) {
        if (operands.empty()) {
            ctx_.err.write("error: The following required arguments were not provided:\n    <PATTERN>\n\n"
                           "USAGE:\n    rg [OPTIONS] PATTERN [PATH ...]\n\nFor more information try --help\n");
            return 2;
        }
        patterns.push_back(operands.front());
        operands.erase(operands.begin());
    }
    if (!list_files_) {
        if (case_mode == Case::kInsensitive) mo.icase = true;
        if (case_mode == Case::kSmart) {
            bool upper = false;
            for (const auto& p : patterns) upper = upper || has_uppercase_literal(p);
            mo.icase = !upper;
        }
        if (pcre2) {
            // -P: PCRE2 in UTF mode, as ripgrep's --pcre2; with -F the patterns are quoted.
            if (mo.syntax == Syntax::kFixed)
                for (auto& p : patterns) p = "\\Q" + p + "\\E";
            mo.syntax = Syntax::kPerl;
        }
        mo.memory = ctx_.memory;
        mo.cancel = &ctx_.cancel;
        std::string error;
        matcher_ = Matcher::compile(patterns, mo, error);
        if (!matcher_ && pcre2) {
            ctx_.err.write(error + "\n");
            return 2;
        }
        if (!matcher_) {
            std::string pat;
            for (size_t k = 0; k < patterns.size(); ++k) pat += (k ? "|" : "") + patterns[k];
            ctx_.err.write("regex parse error:\n    " + pat + "\nerror: " + error + "\n");
            return 2;
        }
        cfg_.matcher = matcher_.get();
    }
    // With no path, ripgrep searches stdin when it is readable (a pipe or a file) and the working
    // directory otherwise. The sandbox cannot tell an idle pipe from a busy one, so: stdin when its first
    // read gives data, the working directory when it is at its end at once (or is /dev/null or a tty).
    bool implicit = false;
    std::string prefetched;
    if (operands.empty()) {
        implicit = true;
        if (!list_files_ && !ctx_.in.is_tty() && ctx_.in.describe() != "/dev/null") {
            prefetched.resize(64 * 1024);
            const interp::IoResult r = ctx_.in.read(prefetched.data(), prefetched.size());
            prefetched.resize(r.ok() ? r.n : 0);
            if (!prefetched.empty()) {
                implicit = false;
                operands.push_back("-");
            }
        }
    }
    if (cfg_.max_count == 0) return 1;

    bool multiple = operands.size() > 1 || implicit;
    if (operands.size() == 1 && operands[0] != "-") multiple = ctx_.fs.is_directory(ctx_.resolve(operands[0]));
    cfg_.with_filename = with_filename == -1 ? multiple : with_filename == 1;
    const bool only_stdin = operands.size() == 1 && operands[0] == "-";
    cfg_.line_numbers = line_numbers_set ? line_numbers : !only_stdin;

    if (implicit) {
        walk("", ctx_.cwd);
    } else {
        for (const auto& op : operands) {
            if (stop_) break;
            if (op == "-") {
                searched_any_ = true;
                size_t pre_at = 0;
                const ReadFn read = [this, &prefetched, &pre_at](char* buf, size_t n, int& err) -> size_t {
                    if (pre_at < prefetched.size()) {
                        const size_t k = std::min(n, prefetched.size() - pre_at);
                        std::copy_n(prefetched.data() + pre_at, k, buf);
                        pre_at += k;
                        return k;
                    }
                    auto r = ctx_.in.read(buf, n);
                    if (!r.ok()) {
                        err = r.err;
                        return 0;
                    }
                    return r.n;
                };
                SearchConfig cfg = cfg_;
                if (cfg.binary != BinaryMode::kText) cfg.binary = BinaryMode::kRgConvert;
                SearchResult r = search_input(cfg, read, "<stdin>", out_, ctx_.err, &ctx_.cancel, ctx_.memory);
                if (r.match_error) error_ = true;
                if (r.stopped && out_.failed()) break;
                if (r.selected > 0) any_selected_ = true;
                continue;
            }
            const std::string abs = ctx_.resolve(op);
            auto st = ctx_.fs.stat(abs);
            if (!st.ok()) {
                error_ = true;
                error_line(op + ": IO error for operation on " + op + ": " +
                           std::string(vfs::error_message(st.error())) + " (os error " +
                           std::to_string(vfs::to_errno(st.error())) + ")");
                continue;
            }
            if (st->is_directory()) {
                if (!walk(op, abs)) break;
            } else if (!search_path(op, abs, true, false)) {
                break;
            }
        }
    }
    if (const int s = out_.finish(); s == 130) return s;  // cancelled; a broken pipe ends rg as above
    if (!searched_any_ && !error_ && !stop_) {
        ctx_.err.write("No files were searched, which means ripgrep probably applied a filter you didn't expect.\n"
                       "Running with --debug will show why files are being skipped.\n");
    }
    if (cfg_.quiet && any_selected_) return 0;
    if (error_) return 2;
    if (list_files_) return searched_any_ ? 0 : 1;
    return any_selected_ ? 0 : 1;
}

}  // namespace

int rg_main(interp::CommandContext& ctx) {
    Rg rg(ctx);
    return rg.run();
}

}  // namespace bashkit::utils::search
