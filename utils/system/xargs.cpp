// xargs: build command lines from input items and run them through ctx.runner (GNU findutils semantics).
//
// Input is read incrementally and each command runs as soon as its batch is complete. -P N is accepted but
// commands run one after the other (in-process; their output never interleaves). -p cannot prompt (there is
// no terminal) and fails like GNU xargs without /dev/tty. The commands' stdin is /dev/null, except with
// -a FILE where they inherit xargs's stdin.
#include <algorithm>
#include <cstdlib>

#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"
#include "interp/stream.hpp"

namespace bashkit::utils::systemutil {

namespace {

enum : int {
    kShowLimits = kOptFirstLongOnly,
    kProcessSlotVar,
    kEofLong,
    kReplaceLong,
    kMaxLinesLong,
};

constexpr OptionSpec kXargsOpts[] = {
    {'0', '0', "null"},
    {'a', 'a', "arg-file", ArgKind::required},
    {'d', 'd', "delimiter", ArgKind::required},
    {'E', 'E', {}, ArgKind::required},
    {'e', 'e', "eof", ArgKind::optional},
    {'I', 'I', {}, ArgKind::required},
    {'i', 'i', "replace", ArgKind::optional},
    {'L', 'L', {}, ArgKind::required},
    {'l', 'l', "max-lines", ArgKind::optional},
    {'n', 'n', "max-args", ArgKind::required},
    {'P', 'P', "max-procs", ArgKind::required},
    {'p', 'p', "interactive"},
    {'r', 'r', "no-run-if-empty"},
    {'s', 's', "max-chars", ArgKind::required},
    {'t', 't', "verbose"},
    {'x', 'x', "exit"},
    {'o', 'o', "open-tty"},
    {kShowLimits, 0, "show-limits"},
    {kProcessSlotVar, 0, "process-slot-var", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr size_t kDefaultMaxChars = 131072;

// Reads input bytes with one byte of lookahead.
class ByteReader {
public:
    explicit ByteReader(text::Input& in) : in_(in) {}
    int get() {
        if (pos_ == len_) {
            if (eof_) return -1;
            auto r = in_.read(buf_, sizeof buf_);
            if (r.err != vfs::Errc::ok) {
                err_ = r.err;
                eof_ = true;
                return -1;
            }
            if (r.n == 0) {
                eof_ = true;
                return -1;
            }
            pos_ = 0;
            len_ = r.n;
        }
        return static_cast<unsigned char>(buf_[pos_++]);
    }
    vfs::Errc error() const { return err_; }

private:
    text::Input& in_;
    char buf_[8192];
    size_t pos_ = 0, len_ = 0;
    bool eof_ = false;
    vfs::Errc err_ = vfs::Errc::ok;
};

bool parse_escape_delim(std::string_view s, char& out) {
    if (s.size() == 1) {
        out = s[0];
        return true;
    }
    if (s.size() < 2 || s[0] != '\\') return false;
    if (s.size() == 2) {
        switch (s[1]) {
            case 'a': out = '\a'; return true;
            case 'b': out = '\b'; return true;
            case 'f': out = '\f'; return true;
            case 'n': out = '\n'; return true;
            case 'r': out = '\r'; return true;
            case 't': out = '\t'; return true;
            case 'v': out = '\v'; return true;
            case '\\': out = '\\'; return true;
            case '0': out = '\0'; return true;
            default: return false;
        }
    }
    unsigned v = 0;
    if (s[1] == 'x') {
        for (size_t i = 2; i < s.size(); ++i) {
            char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
            if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
            v = v * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10);
        }
    } else {
        for (size_t i = 1; i < s.size(); ++i) {
            if (s[i] < '0' || s[i] > '7') return false;
            v = v * 8 + static_cast<unsigned>(s[i] - '0');
        }
    }
    if (v > 255) return false;
    out = static_cast<char>(v);
    return true;
}

struct Item {
    std::string text;
    bool line_end = false;  // the item ended a logical line (for -L)
};

// Splits input into items the way GNU xargs does.
class ItemReader {
public:
    ItemReader(CommandContext& ctx, ByteReader& r) : ctx_(ctx), r_(r) {}
    bool use_delim = false;
    char delim = '\n';
    bool per_line = false;  // -I: a whole line (leading blanks dropped) is one item
    std::string eof_str;
    bool have_eof = false;

    // 1: an item; 0: end of input; -1: error (message printed).
    int next(Item& item) {
        item = Item{};
        if (done_) return 0;
        if (use_delim) {
            int c;
            bool any = false;
            while ((c = get()) >= 0) {
                any = true;
                if (static_cast<char>(c) == delim) return 1;
                item.text.push_back(static_cast<char>(c));
            }
            done_ = true;
            return any ? 1 : 0;
        }
        enum { kNone, kSingle, kDouble } q = kNone;
        bool have = false;
        for (;;) {
            int c = get();
            if (c < 0) {
                if (q != kNone) return unmatched(q == kSingle);
                done_ = true;
                if (!have) return 0;
                return finish(item, true);
            }
            char ch = static_cast<char>(c);
            if (q != kNone) {
                if (ch == '\n') return unmatched(q == kSingle);
                if ((q == kSingle && ch == '\'') || (q == kDouble && ch == '"')) {
                    q = kNone;
                } else {
                    item.text.push_back(ch);
                }
                continue;
            }
            if (ch == '\n') {
                if (!have) continue;  // blank lines do not count
                // -L: a line ending in a blank continues on the next line.
                bool cont = !per_line && trailing_blank_;
                return finish(item, !cont);
            }
            if (ch == ' ' || ch == '\t') {
                if (per_line) {
                    if (have) item.text.push_back(ch);
                    continue;
                }
                if (have) {
                    // Look at what follows: the item ends here; does the line continue?
                    trailing_blank_ = true;
                    int n;
                    while ((n = get()) == ' ' || n == '\t') {
                    }
                    if (n < 0) {
                        done_ = true;
                        return finish(item, true);
                    }
                    if (n == '\n') return finish(item, false);
                    pushback_ = static_cast<char>(n);
                    has_pushback_ = true;
                    return finish(item, false);
                }
                continue;
            }
            trailing_blank_ = false;
            have = true;
            if (ch == '\'') {
                q = kSingle;
            } else if (ch == '"') {
                q = kDouble;
            } else if (ch == '\\') {
                int n = get();
                if (n >= 0) item.text.push_back(static_cast<char>(n));
            } else {
                item.text.push_back(ch);
            }
        }
    }

private:
    int get() {
        if (has_pushback_) {
            has_pushback_ = false;
            return static_cast<unsigned char>(pushback_);
        }
        return r_.get();
    }
    bool has_pushback_ = false;
    char pushback_ = 0;

    int finish(Item& item, bool line_end) {
        item.line_end = line_end;
        trailing_blank_ = false;
        if (have_eof && item.text == eof_str) {
            done_ = true;
            return 0;
        }
        return 1;
    }
    int unmatched(bool single) {
        ctx_.error(std::string("unmatched ") + (single ? "single" : "double") +
                   " quote; by default quotes are special to xargs unless you use the -0 option");
        done_ = true;
        return -1;
    }
    CommandContext& ctx_;
    ByteReader& r_;
    bool done_ = false;
    bool trailing_blank_ = false;
};

std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
    if (from.empty()) return std::string(s);
    std::string out;
    size_t i = 0;
    for (;;) {
        size_t k = s.find(from, i);
        if (k == std::string_view::npos) break;
        out.append(s.substr(i, k - i));
        out.append(to);
        i = k + from.size();
    }
    out.append(s.substr(i));
    return out;
}

bool parse_count(CommandContext& ctx, const std::string& v, char opt, long min, long& out) {
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0') {
        usage_error(ctx, "invalid number \"" + v + "\" for -" + std::string(1, opt) + " option");
        return false;
    }
    if (n < min) {
        usage_error(ctx, "value " + v + " for -" + std::string(1, opt) + " option should be >= " + std::to_string(min));
        return false;
    }
    out = n;
    return true;
}

}  // namespace

int cmd_xargs(CommandContext& ctx) {
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    ParsedArgs p = parse_args(ctx.argv, kXargsOpts, cfg);
    bool use_delim = false, no_empty = false, verbose = false, exit_on_size = false, interactive = false;
    char delim = '\n';
    std::string arg_file, replace, eof_str;
    bool have_replace = false, have_eof = false, have_file = false;
    long max_args = 0, max_lines = 0, max_chars = static_cast<long>(kDefaultMaxChars);
    bool user_args = false, user_lines = false;  // -n / -L given (and not overridden since)
    auto exclusive = [&](std::string_view prev, std::string_view now) {
        (void)ctx.err.write("xargs: warning: options " + std::string(prev) + " and " + std::string(now) +
                            " are mutually exclusive, ignoring previous " + std::string(prev) + " value\n");
    };
    for (const auto& o : p.options) {
        switch (o.id) {
            case kOptHelp:
                return write_out(ctx,
                                 "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\n"
                                 "Run COMMAND with arguments INITIAL-ARGS and more arguments read from input.\n"
                                 "  -0, --null                   items are separated by a null, not whitespace\n"
                                 "  -a, --arg-file=FILE          read arguments from FILE, not standard input\n"
                                 "  -d, --delimiter=CHARACTER    items in input stream are separated by CHARACTER\n"
                                 "  -E END                       set logical EOF string\n"
                                 "  -I R                         replace R in INITIAL-ARGS with names read from input\n"
                                 "  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank input lines per command line\n"
                                 "  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per command line\n"
                                 "  -P, --max-procs=MAX-PROCS    accepted; commands run one at a time\n"
                                 "  -r, --no-run-if-empty        if there are no arguments, then do not run COMMAND\n"
                                 "  -s, --max-chars=MAX-CHARS    limit length of command line to MAX-CHARS\n"
                                 "  -t, --verbose                print commands before executing them\n"
                                 "  -x, --exit                   exit if the size (see -s) is exceeded\n")
                           ? 0
                           : 1;
            case kOptVersion: return write_out(ctx, "xargs (bashkit) 1.0\n") ? 0 : 1;
            case '0':
                use_delim = true;
                delim = '\0';
                break;
            case 'd':
                if (!parse_escape_delim(o.value, delim)) {
                    ctx.error("invalid input delimiter specification " + o.value +
                              ": the delimiter must be either a single character or an escape sequence starting with \\.");
                    return 1;
                }
                use_delim = true;
                break;
            case 'a':
                arg_file = o.value;
                have_file = true;
                break;
            case 'E':
            case 'e':
                eof_str = o.value;
                have_eof = !o.value.empty();
                break;
            // -I, -L and -n exclude one another: the later one wins, with findutils' warning.
            case 'I':
            case 'i':
                if (user_args) exclusive("--max-args", "--replace/-I/-i");
                if (user_lines) exclusive("--max-lines", "--replace/-I/-i");
                user_args = user_lines = false;
                replace = o.id == 'i' && !o.has_value ? "{}" : o.value;
                have_replace = true;
                max_lines = 1;
                max_args = 0;
                break;
            case 'L':
            case 'l': {
                long n = 1;
                if (o.id == 'L' || o.has_value)
                    if (!parse_count(ctx, o.value, o.id == 'L' ? 'L' : 'l', 1, n)) return 1;
                if (user_args) exclusive("--max-args", "-L");
                if (have_replace) exclusive("--replace", "-L");
                user_args = false;
                user_lines = true;
                max_lines = n;
                max_args = 0;
                have_replace = false;
                break;
            }
            case 'n': {
                long n;
                if (!parse_count(ctx, o.value, 'n', 1, n)) return 1;
                if (user_lines) exclusive("--max-lines", "--max-args/-n");
                user_lines = false;
                if (have_replace && n == 1) {  // -n1 is harmless with -I
                    max_args = 0;
                    break;
                }
                if (have_replace) exclusive("--replace", "--max-args/-n");
                have_replace = false;
                user_args = true;
                max_args = n;
                max_lines = 0;
                break;
            }
            case 'P': {
                long n;
                if (!parse_count(ctx, o.value, 'P', 0, n)) return 1;
                break;
            }
            case 's': {
                long n;
                if (!parse_count(ctx, o.value, 's', 1, n)) return 1;
                max_chars = std::min<long>(n, static_cast<long>(kDefaultMaxChars));
                break;
            }
            case 'p': interactive = true; break;
            case 'r': no_empty = true; break;
            case 't': verbose = true; break;
            case 'x': exit_on_size = true; break;
            case kShowLimits:
                (void)ctx.err.write(
                    "Your environment variables take up 0 bytes\n"
                    "POSIX upper limit on argument length (this system): 131072\n"
                    "POSIX smallest allowable upper limit on argument length (all systems): 4096\n"
                    "Maximum length of command we could actually use: 131072\n"
                    "Size of command buffer we are actually using: 131072\n"
                    "Maximum parallelism (--max-procs must be no greater): 1\n");
                break;
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (have_replace) exit_on_size = true;

    std::vector<std::string> base = p.operands;
    if (base.empty()) base.emplace_back("echo");

    text::Input input;
    if (have_file) {
        vfs::Errc e = input.open_input(ctx, arg_file);
        if (e != vfs::Errc::ok) {
            ctx.error("Cannot open input file " + quote(arg_file) + ": " + std::string(vfs::error_message(e)));
            return 1;
        }
    } else {
        input.open_stdin(ctx);
    }
    ByteReader bytes(input);
    ItemReader items(ctx, bytes);
    items.use_delim = use_delim;
    items.delim = delim;
    items.per_line = have_replace;
    items.eof_str = eof_str;
    items.have_eof = have_eof && !use_delim;

    interp::NullStream null_in;
    int status = 0;
    bool ran_any = false;
    // Runs one command line; false when xargs must stop (status set).
    auto run = [&](std::vector<std::string>& argv) -> bool {
        ran_any = true;
        if (verbose || interactive) {
            std::string line;
            for (size_t k = 0; k < argv.size(); ++k) {
                if (k) line.push_back(' ');
                line += text::quote_name(argv[k]);
            }
            if (interactive) {
                (void)ctx.err.write(line);
                ctx.error("failed to open /dev/tty for reading: No such device or address");
                status = 1;
                return false;
            }
            line.push_back('\n');
            (void)ctx.err.write(line);
        }
        if (ctx.cancelled()) {
            status = 130;
            return false;
        }
        ExecOptions eo;
        eo.prog = "xargs";
        eo.in = have_file ? &ctx.in : static_cast<interp::ByteStream*>(&null_in);
        std::string path;
        interp::CommandKind kind = ctx.runner ? ctx.runner->find_command(argv[0], false, &path) : interp::CommandKind::none;
        int st = exec_command(ctx, argv, eo);
        if (kind == interp::CommandKind::none || ((st == 126 || st == 127) && kind == interp::CommandKind::file &&
                                                  [&] {
                                                      auto s = ctx.fs.stat(path);
                                                      return !s || s->is_directory() || !(s->mode & 0111);
                                                  }())) {
            status = st;
            return false;
        }
        if (ctx.cancelled()) {
            status = 130;
            return false;
        }
        if (st == 255) {
            ctx.error(argv[0] + ": exited with status 255; aborting");
            status = 124;
            return false;
        }
        if (st != 0) status = 123;
        return true;
    };

    size_t base_len = 0;
    for (const std::string& a : base) base_len += a.size() + 1;

    if (have_replace) {
        Item it;
        int r;
        while ((r = items.next(it)) == 1) {
            std::vector<std::string> argv;
            size_t len = 0;
            for (const std::string& a : base) {
                argv.push_back(replace_all(a, replace, it.text));
                len += argv.back().size() + 1;
            }
            if (len > static_cast<size_t>(max_chars)) {
                ctx.error("argument line too long");
                return 1;
            }
            if (!run(argv)) return status;
        }
        if (r < 0) return 1;
        if (bytes.error() != vfs::Errc::ok) {
            ctx.error(std::string(vfs::error_message(bytes.error())));
            return 1;
        }
        return status;
    }

    if (base_len > static_cast<size_t>(max_chars)) {
        ctx.error("argument line too long");
        return 1;
    }
    std::vector<std::string> argv = base;
    size_t len = base_len;
    long nargs = 0, nlines = 0;
    Item it;
    int r;
    bool have_pending = false;
    Item pending;
    for (;;) {
        if (have_pending) {
            it = std::move(pending);
            have_pending = false;
            r = 1;
        } else {
            r = items.next(it);
        }
        if (r != 1) break;
        size_t need = it.text.size() + 1;
        if (len + need > static_cast<size_t>(max_chars)) {
            if (nargs == 0) {
                ctx.error("argument line too long");
                return 1;
            }
            if (exit_on_size && (max_args || max_lines)) {
                ctx.error("argument list too long");
                return 1;
            }
            if (!run(argv)) return status;
            argv = base;
            len = base_len;
            nargs = nlines = 0;
            pending = std::move(it);
            have_pending = true;
            continue;
        }
        argv.push_back(std::move(it.text));
        len += need;
        ++nargs;
        if (it.line_end) ++nlines;
        if ((max_args && nargs >= max_args) || (max_lines && nlines >= max_lines)) {
            if (!run(argv)) return status;
            argv = base;
            len = base_len;
            nargs = nlines = 0;
        }
    }
    if (r < 0) {
        if (nargs > 0) (void)run(argv);
        return 1;
    }
    if (bytes.error() != vfs::Errc::ok) {
        ctx.error(std::string(vfs::error_message(bytes.error())));
        return 1;
    }
    if (nargs > 0 || (!ran_any && !no_empty)) {
        if (!run(argv)) return status;
    }
    return status;
}

}  // namespace bashkit::utils::systemutil
