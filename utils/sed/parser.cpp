#include "utils/sed/parser.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

namespace bashkit::utils::sed {

namespace {

constexpr int kEof = -1;

// A fatal compile error; caught at parse_script's boundary and returned as a ParseError value.
struct Fail {
    ParseError error;
};

bool is_blank(int c) { return c == ' ' || c == '\t'; }
bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_digit(int c) { return c >= '0' && c <= '9'; }

// GNU's convert_number: up to the digits that fit a byte in `base`, at s[i] (just after the letter).
char convert_number(std::string_view s, size_t& i, int base, char letter) {
    int n = 0;
    int max = 1;
    const size_t start = i;
    for (; i < s.size() && max <= 255; ++i, max *= base) {
        const char c = s[i];
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0 || d >= base) break;
        n = n * base + d;
    }
    if (i == start) return letter;
    return static_cast<char>(n);
}

}  // namespace

bool normalize_text(std::string& s, TextKind kind, bool posix, std::string& error) {
    std::string out;
    out.reserve(s.size());
    int bracket = 0;  // 0 outside [...]; -1 inside; '.', ':' or '=' inside [. .] [: :] [= =] (POSIX mode only)
    size_t p = 0;
    while (p < s.size()) {
        const char c = s[p];
        if (c == '\\' && p + 1 < s.size() && bracket == 0) {
            const char e = s[++p];
            switch (e) {
                case 'a': out += '\a'; ++p; continue;
                case 'f': out += '\f'; ++p; continue;
                case '\n':
                case 'n': out += '\n'; ++p; continue;
                case 'r': out += '\r'; ++p; continue;
                case 't': out += '\t'; ++p; continue;
                case 'v': out += '\v'; ++p; continue;
                case 'd':
                case 'x':
                case 'o': {
                    const int base = e == 'd' ? 10 : e == 'x' ? 16 : 8;
                    ++p;
                    const char ch = convert_number(s, p, base, e);
                    if (kind == TextKind::kReplacement && (ch == '&' || ch == '\\')) out += '\\';
                    out += ch;
                    continue;
                }
                case 'c':
                    if (++p < s.size()) {
                        out += static_cast<char>(std::toupper(static_cast<unsigned char>(s[p])) ^ 0x40);
                        if (s[p] == '\\') {
                            ++p;
                            if (p >= s.size() || s[p] != '\\') {
                                error = "recursive escaping after \\c not allowed";
                                return false;
                            }
                        }
                        ++p;
                        continue;
                    }
                    if (kind != TextKind::kBuffer) out += '\\';
                    continue;
                default:
                    if (kind != TextKind::kBuffer) out += '\\';
                    break;
            }
        } else if (kind == TextKind::kRegex && posix) {
            switch (c) {
                case '[':
                    if (!bracket) bracket = -1;
                    break;
                case ':':
                case '.':
                case '=':
                    if (bracket == -1 && !out.empty() && out.back() == '[') bracket = c;
                    break;
                case ']':
                    if (bracket == -1) bracket = 0;
                    else if (bracket != 0 && out.size() >= 2 && out[out.size() - 2] != bracket &&
                             out.back() == bracket)
                        bracket = -1;
                    break;
                default: break;
            }
        }
        out += s[p++];
    }
    s = std::move(out);
    return true;
}

namespace {

class Parser {
public:
    Parser(const ParseOptions& opt, Program& prog) : opt_(opt), prog_(prog) {}

    void compile_chunk(const ScriptChunk& chunk) {
        src_ = chunk.text;
        pos_ = 0;
        from_file_ = chunk.from_file;
        file_name_ = chunk.name;
        if (from_file_) {
            line_ = 1;
        } else {
            line_ = 0;
            ++expr_count_;
        }
        compile_program();
        first_script_ = false;
        prog_.last_location = location_prefix(true);
    }

    void finish() {
        if (!blocks_.empty()) throw Fail{{blocks_.back().location + "unmatched `{'", 1}};
        if (pending_cmd_ >= 0) {
            prog_.cmds[static_cast<size_t>(pending_cmd_)].text = pending_text_;
            pending_cmd_ = -1;
        }
        for (const auto& [index, name] : jumps_) {
            bool found = false;
            for (const auto& [lname, lindex] : labels_) {
                if (lname == name) {
                    prog_.cmds[index].jump = lindex;
                    found = true;
                    break;
                }
            }
            if (!found) {
                if (!name.empty()) throw Fail{{"can't find label for jump to `" + name + "'", 4}};
                prog_.cmds[index].jump = prog_.cmds.size();
            }
        }
    }

private:
    struct Block {
        size_t index;
        std::string location;
    };

    // "-e expression #N, char C: " or "file F line L: ". GNU reports an unmatched `{' with the position
    // saved at the brace, where a string's char offset has become 0.
    std::string location_prefix(bool zero_char = false) const {
        if (from_file_) return "file " + file_name_ + " line " + std::to_string(line_) + ": ";
        return "-e expression #" + std::to_string(expr_count_) + ", char " +
               std::to_string(zero_char ? 0 : pos_) + ": ";
    }

    [[noreturn]] void bad_prog(std::string_view why, int status = 1) const {
        throw Fail{{location_prefix() + std::string(why), status}};
    }

    int inchar() {
        if (pos_ < src_.size()) {
            const int c = static_cast<unsigned char>(src_[pos_++]);
            if (c == '\n') ++line_;
            return c;
        }
        return kEof;
    }

    void savchar(int c) {
        if (c == kEof) return;
        if (c == '\n' && line_ > 0) --line_;
        --pos_;
    }

    int in_nonblank() {
        int c;
        do c = inchar();
        while (is_blank(c));
        return c;
    }

    uint64_t in_integer(int c) {
        uint64_t n = 0;
        while (is_digit(c)) {
            const uint64_t d = static_cast<uint64_t>(c - '0');
            n = n > (UINT64_MAX - d) / 10 ? UINT64_MAX : n * 10 + d;
            c = inchar();
        }
        savchar(c);
        return n;
    }

    void read_end_of_cmd() {
        const int c = in_nonblank();
        if (c == '}' || c == '#')
            savchar(c);
        else if (c != kEof && c != '\n' && c != ';')
            bad_prog("extra characters after command");
    }

    // The text of a bracket expression after its `[` (GNU's snarf_char_class): copied raw, so neither the
    // delimiter nor \n is special inside it. Returns the character that ended it.
    int snarf_char_class(std::string& b) {
        int state = 0;
        int delim = 0;
        int c = inchar();
        if (c == '^') {
            b += static_cast<char>(c);
            c = inchar();
        }
        if (c == ']') {
            b += static_cast<char>(c);
            c = inchar();
        }
        for (;; b += static_cast<char>(c), c = inchar()) {
            switch (c) {
                case kEof:
                case '\n': return c;
                case '.':
                case ':':
                case '=':
                    if (state == 1) {
                        delim = c;
                        state = 2;
                    } else if (state == 2 && c == delim) {
                        state = 3;
                    } else {
                        break;
                    }
                    continue;
                case '[':
                    if (state == 0) state = 1;
                    continue;
                case ']':
                    if (state == 0 || state == 1) return c;
                    if (state == 3) state = 0;
                    break;
                default: break;
            }
            state &= ~1;
        }
    }

    // The text up to an unescaped `slash` (GNU's match_slash). In a regex \n becomes a newline and \<slash>
    // the slash; in a replacement \<slash> is the slash except for `&`. False when unterminated.
    bool match_slash(int slash, bool regex, std::string& b) {
        b.clear();
        int c;
        while ((c = inchar()) != kEof && c != '\n') {
            if (c == slash) return true;
            if (c == '\\') {
                c = inchar();
                if (c == kEof) break;
                if (c == 'n' && regex)
                    c = '\n';
                else if (c != '\n' && (c != slash || (!regex && c == '&')))
                    b += '\\';
            } else if (c == '[' && regex) {
                b += '[';
                c = snarf_char_class(b);
                if (c != ']') break;
            }
            b += static_cast<char>(c);
        }
        if (c == '\n') savchar(c);
        return false;
    }

    std::string read_label() {
        std::string b;
        int c = in_nonblank();
        while (c != kEof && c != '\n' && !is_space(c) && c != ';' && c != '}' && c != '#') {
            b += static_cast<char>(c);
            c = inchar();
        }
        savchar(c);
        return b;
    }

    std::string read_filename() {
        if (opt_.sandbox) bad_prog("e/r/w commands disabled in sandbox mode");
        std::string b;
        int c = in_nonblank();
        while (c != kEof && c != '\n') {
            b += static_cast<char>(c);
            c = inchar();
        }
        return b;
    }

    int open_output(std::string name) {
        for (size_t i = 0; i < prog_.outputs.size(); ++i)
            if (prog_.outputs[i] == name) return static_cast<int>(i);
        prog_.outputs.push_back(std::move(name));
        return static_cast<int>(prog_.outputs.size() - 1);
    }

    int open_rfile(std::string name) {
        for (size_t i = 0; i < prog_.rfiles.size(); ++i)
            if (prog_.rfiles[i] == name) return static_cast<int>(i);
        prog_.rfiles.push_back(std::move(name));
        return static_cast<int>(prog_.rfiles.size() - 1);
    }

    std::string read_output_name() {
        std::string name = read_filename();
        if (name.empty()) bad_prog("missing filename in r/R/w/W commands");
        return name;
    }

    // GNU's compile_regex: the empty regex is the last one used at run time; `needed` is the highest group
    // the replacement refers to plus one.
    int compile_regex(std::string pattern, bool icase, bool multiline, int needed) {
        if (pattern.empty()) {
            if (icase || multiline) bad_prog("cannot specify modifiers on empty regexp");
            return kLastRegex;
        }
        std::string err;
        if (!normalize_text(pattern, TextKind::kRegex, opt_.posix, err)) bad_prog(err);
        if (opt_.posix) pattern = without_gnu_ops(pattern, opt_.extended);
        interp::RegexOptions ro;
        ro.icase = icase;
        ro.newline_sensitive = multiline;
        ro.dialect = interp::RegexDialect::kPosix;
        ro.bytes = true;  // LC_ALL=C: one byte is one character
        interp::Regex re = interp::Regex::compile(
            pattern, opt_.extended ? interp::RegexSyntax::kExtended : interp::RegexSyntax::kBasic, ro);
        if (!re.ok()) {
            if (re.error() == interp::RegexError::kBackrefUnsupported)
                bad_prog("back-references (\\1-\\9) in a regular expression are not supported by bashkit's "
                         "sed (RE2 has none)");
            bad_prog(re.message());
        }
        if (re.groups() < needed - 1 && !opt_.posix) {
            bad_prog("invalid reference \\" + std::to_string(needed - 1) + " on `s' command's RHS");
        }
        prog_.regexes.push_back(std::move(re));
        return static_cast<int>(prog_.regexes.size() - 1);
    }

    // --posix compiles with RE_NO_GNU_OPS: \+ \? \| \s \S \w \W \b \B \< \> \` \' are the plain characters.
    static std::string without_gnu_ops(std::string_view p, bool ere) {
        static constexpr std::string_view kGnu = "+?|sSwWbB<>`'";
        std::string out;
        for (size_t i = 0; i < p.size(); ++i) {
            const char c = p[i];
            if (c == '[') {  // copy a bracket expression as it is
                size_t j = i + 1;
                if (j < p.size() && p[j] == '^') ++j;
                if (j < p.size() && p[j] == ']') ++j;
                while (j < p.size() && p[j] != ']') {
                    if (p[j] == '[' && j + 1 < p.size() && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
                        const size_t end = p.find(std::string{p[j + 1], ']'}, j + 2);
                        j = end == std::string_view::npos ? p.size() : end + 2;
                    } else {
                        ++j;
                    }
                }
                const size_t stop = j < p.size() ? j + 1 : p.size();
                out.append(p.substr(i, stop - i));
                i = stop - 1;
                continue;
            }
            if (c == '\\' && i + 1 < p.size() && kGnu.find(p[i + 1]) != std::string_view::npos) {
                const char e = p[++i];
                if (ere && (e == '+' || e == '?' || e == '|')) out += '\\';
                out += e;
                continue;
            }
            out += c;
            if (c == '\\' && i + 1 < p.size()) out += p[++i];
        }
        return out;
    }

    bool compile_address(Address& addr, int c) {
        addr = Address{};
        if (c == '/' || c == '\\') {
            if (c == '\\') c = inchar();
            std::string b;
            if (!match_slash(c, true, b)) bad_prog("unterminated address regex");
            bool icase = false, multiline = false;
            for (;;) {
                c = in_nonblank();
                if (!opt_.posix && c == 'I') {
                    icase = true;
                } else if (!opt_.posix && c == 'M') {
                    multiline = true;
                } else {
                    savchar(c);
                    addr.type = AddrType::regex;
                    addr.regex = compile_regex(std::move(b), icase, multiline, 0);
                    return true;
                }
            }
        }
        if (is_digit(c)) {
            addr.number = in_integer(c);
            addr.type = AddrType::num;
            c = in_nonblank();
            if (c != '~' || opt_.posix) {
                savchar(c);
            } else {
                const uint64_t step = in_integer(in_nonblank());
                if (step > 0) {
                    addr.step = step;
                    addr.type = AddrType::num_mod;
                }
            }
            return true;
        }
        if ((c == '+' || c == '~') && !opt_.posix) {
            addr.step = in_integer(in_nonblank());
            if (addr.step == 0)
                addr.type = AddrType::always;  // +0 ~0: the range ends on the line it starts
            else
                addr.type = c == '+' ? AddrType::step : AddrType::step_mod;
            return true;
        }
        if (c == '$') {
            addr.type = AddrType::last;
            return true;
        }
        return false;
    }

    // GNU's read_text: the text of a, i, c; `leadin` is the first character ('\n' when the text starts on
    // the next line). Text ending in a backslash at the end of a chunk continues in the next chunk.
    void read_text(int cmd_index, int leadin) {
        if (cmd_index >= 0) {
            pending_text_.clear();
            pending_cmd_ = cmd_index;
        }
        if (leadin == kEof) return;
        if (leadin != '\n') pending_text_ += static_cast<char>(leadin);
        int c = inchar();
        while (c != kEof && c != '\n') {
            if (c == '\\') {
                c = inchar();
                if (c != kEof) pending_text_ += '\\';
            }
            if (c == kEof) {
                pending_text_ += '\n';
                return;
            }
            pending_text_ += static_cast<char>(c);
            c = inchar();
        }
        pending_text_ += '\n';
        std::string err;
        if (!normalize_text(pending_text_, TextKind::kBuffer, opt_.posix, err)) bad_prog(err);
        prog_.cmds[static_cast<size_t>(pending_cmd_)].text = std::move(pending_text_);
        pending_text_.clear();
        pending_cmd_ = -1;
    }

    void parse_replacement(Subst& sub, std::string text) {
        std::string err;
        if (!normalize_text(text, TextKind::kReplacement, opt_.posix, err)) bad_prog(err);
        uint8_t repl_type = kReplAsIs, save_type = kReplAsIs;
        std::string lit;
        auto push = [&](int group) {
            ReplPart part;
            part.prefix = std::move(lit);
            lit.clear();
            part.group = group;
            part.type = repl_type;
            sub.replacement.push_back(std::move(part));
            repl_type = save_type;
        };
        for (size_t p = 0; p < text.size(); ++p) {
            const char c = text[p];
            if (c == '\\') {
                ++p;
                if (p == text.size()) {
                    lit += '\\';
                    break;
                }
                const char e = text[p];
                if (opt_.posix && !is_digit(e)) {
                    lit += e;
                    continue;
                }
                switch (e) {
                    case '0': case '1': case '2': case '3': case '4':
                    case '5': case '6': case '7': case '8': case '9': {
                        const int g = e - '0';
                        if (sub.max_group < g) sub.max_group = g;
                        push(g);
                        break;
                    }
                    case 'L':
                        push(-1);
                        repl_type = save_type = kReplLower;
                        break;
                    case 'U':
                        push(-1);
                        repl_type = save_type = kReplUpper;
                        break;
                    case 'E':
                        push(-1);
                        repl_type = save_type = kReplAsIs;
                        break;
                    case 'l':
                        push(-1);
                        save_type = repl_type;
                        repl_type = static_cast<uint8_t>(repl_type | kReplLowerFirst);
                        break;
                    case 'u':
                        push(-1);
                        save_type = repl_type;
                        repl_type = static_cast<uint8_t>(repl_type | kReplUpperFirst);
                        break;
                    default: lit += e; break;
                }
            } else if (c == '&') {
                push(0);
            } else {
                lit += c;
            }
        }
        if (!lit.empty()) push(-1);
    }

    void compile_s(Command& cmd) {
        const int slash = inchar();
        std::string pattern, repl;
        if (!match_slash(slash, true, pattern)) bad_prog("unterminated `s' command");
        if (!match_slash(slash, false, repl)) bad_prog("unterminated `s' command");
        Subst sub;
        parse_replacement(sub, std::move(repl));
        bool icase = false, multiline = false;
        for (bool done = false; !done;) {
            const int c = in_nonblank();
            switch (c) {
                case 'i':
                case 'I':
                    if (opt_.posix) bad_prog("unknown option to `s'");
                    icase = true;
                    break;
                case 'm':
                case 'M':
                    if (opt_.posix) bad_prog("unknown option to `s'");
                    multiline = true;
                    break;
                case 'e':
                    bad_prog("the `e' flag of `s' is not supported: bashkit's sed runs no shell");
                case 'p':
                    if (sub.print) bad_prog("multiple `p' options to `s' command");
                    sub.print = true;
                    break;
                case 'g':
                    if (sub.global) bad_prog("multiple `g' options to `s' command");
                    sub.global = true;
                    break;
                case 'w':
                    sub.wfile = open_output(read_output_name());
                    done = true;
                    break;
                case '0': case '1': case '2': case '3': case '4':
                case '5': case '6': case '7': case '8': case '9':
                    if (sub.nth) bad_prog("multiple number options to `s' command");
                    sub.nth = in_integer(c);
                    if (!sub.nth) bad_prog("number option to `s' command may not be zero");
                    break;
                case '}':
                case '#':
                    savchar(c);
                    done = true;
                    break;
                case kEof:
                case '\n':
                case ';': done = true; break;
                case '\r':
                    if (inchar() == '\n') {
                        done = true;
                        break;
                    }
                    bad_prog("unknown option to `s'");
                default: bad_prog("unknown option to `s'");
            }
        }
        sub.regex = compile_regex(std::move(pattern), icase, multiline, sub.max_group + 1);
        prog_.substs.push_back(std::move(sub));
        cmd.subst = static_cast<int>(prog_.substs.size() - 1);
    }

    void compile_y(Command& cmd) {
        const int slash = inchar();
        std::string src, dst, err;
        if (!match_slash(slash, false, src)) bad_prog("unterminated `y' command");
        if (!normalize_text(src, TextKind::kBuffer, opt_.posix, err)) bad_prog(err);
        if (!match_slash(slash, false, dst)) bad_prog("unterminated `y' command");
        if (!normalize_text(dst, TextKind::kBuffer, opt_.posix, err)) bad_prog(err);
        if (src.size() != dst.size()) bad_prog("strings for `y' command are different lengths");
        std::array<unsigned char, 256> map{};
        for (size_t i = 0; i < 256; ++i) map[i] = static_cast<unsigned char>(i);
        for (size_t i = 0; i < src.size(); ++i)
            map[static_cast<unsigned char>(src[i])] = static_cast<unsigned char>(dst[i]);
        prog_.ymaps.push_back(map);
        cmd.ymap = static_cast<int>(prog_.ymaps.size() - 1);
        read_end_of_cmd();
    }

    void compile_program() {
        if (pending_cmd_ >= 0) read_text(-1, '\n');
        for (;;) {
            int c;
            while ((c = inchar()) == ';' || is_space(c)) {
            }
            if (c == kEof) break;
            Command cmd;
            if (compile_address(cmd.a1, c)) {
                if (cmd.a1.type == AddrType::step || cmd.a1.type == AddrType::step_mod)
                    bad_prog("invalid usage of +N or ~N as first address");
                c = in_nonblank();
                if (c == ',') {
                    if (!compile_address(cmd.a2, in_nonblank())) bad_prog("unexpected `,'");
                    c = in_nonblank();
                }
                const bool has_a2 = cmd.a2.type != AddrType::none;
                if (cmd.a1.type == AddrType::num && cmd.a1.number == 0 &&
                    ((!has_a2 && c != 'r') || (has_a2 && cmd.a2.type != AddrType::regex) || opt_.posix))
                    bad_prog("invalid usage of line address 0");
            }
            const bool has_a1 = cmd.a1.type != AddrType::none;
            const bool has_a2 = cmd.a2.type != AddrType::none;
            if (c == '!') {
                cmd.bang = true;
                c = in_nonblank();
                if (c == '!') bad_prog("multiple `!'s");
            }
            if (opt_.posix) {
                switch (c) {
                    case 'e': case 'F': case 'v': case 'z': case 'L':
                    case 'Q': case 'T': case 'R': case 'W':
                        bad_prog(std::string("unknown command: `") + static_cast<char>(c) + "'");
                    case 'a': case 'i': case 'l': case '=': case 'r':
                        if (has_a2) bad_prog("command only uses one address");
                        break;
                    default: break;
                }
            }
            cmd.name = static_cast<char>(c);
            const size_t index = prog_.cmds.size();
            switch (c) {
                case '#': {
                    if (has_a1) bad_prog("comments don't accept any addresses");
                    c = inchar();
                    if (c == 'n' && first_script_ && line_ < 2 && pos_ == 2) prog_.quiet = true;
                    while (c != kEof && c != '\n') c = inchar();
                    continue;
                }
                case 'v': {
                    const std::string version = read_label();
                    if (version_newer(version.empty() ? "4.0" : version))
                        bad_prog("expected newer version of sed");
                    continue;
                }
                case '{':
                    blocks_.push_back({index, location_prefix(true)});
                    cmd.bang = !cmd.bang;
                    break;
                case '}':
                    if (blocks_.empty()) bad_prog("unexpected `}'");
                    if (has_a1) bad_prog("`}' doesn't want any addresses");
                    read_end_of_cmd();
                    prog_.cmds[blocks_.back().index].jump = index;
                    blocks_.pop_back();
                    break;
                case 'e': bad_prog("`e' command not supported: bashkit's sed runs no shell");
                case 'a':
                case 'i':
                case 'c': {
                    c = in_nonblank();
                    if (c == kEof) bad_prog("expected \\ after `a', `c' or `i'");
                    if (c == '\\') {
                        c = inchar();
                    } else {
                        if (opt_.posix) bad_prog("expected \\ after `a', `c' or `i'");
                        savchar(c);
                        c = '\n';
                    }
                    prog_.cmds.push_back(std::move(cmd));
                    read_text(static_cast<int>(index), c);
                    continue;
                }
                case ':': {
                    if (has_a1) bad_prog(": doesn't want any addresses");
                    cmd.text = read_label();
                    if (cmd.text.empty()) bad_prog("\":\" lacks a label");
                    labels_.emplace_back(cmd.text, index);
                    break;
                }
                case 'T':
                case 'b':
                case 't':
                    cmd.text = read_label();
                    jumps_.emplace_back(index, cmd.text);
                    break;
                case 'Q':
                case 'q':
                    if (has_a2) bad_prog("command only uses one address");
                    [[fallthrough]];
                case 'l': {
                    c = in_nonblank();
                    if (is_digit(c) && !opt_.posix) {
                        const uint64_t n = in_integer(c);
                        cmd.int_arg = n > INT64_MAX ? INT64_MAX : static_cast<int64_t>(n);
                    } else {
                        cmd.int_arg = -1;
                        savchar(c);
                    }
                    read_end_of_cmd();
                    break;
                }
                case '=': case 'd': case 'D': case 'F': case 'g': case 'G': case 'h':
                case 'H': case 'n': case 'N': case 'p': case 'P': case 'z': case 'x':
                    read_end_of_cmd();
                    break;
                case 'r': {
                    cmd.text = read_filename();
                    if (cmd.text.empty()) bad_prog("missing filename in r/R/w/W commands");
                    if (cmd.a1.type == AddrType::num && cmd.a1.number == 0 && !has_a2) {
                        cmd.a1.number = 1;
                        cmd.prepend = true;
                    }
                    break;
                }
                case 'R': cmd.file = open_rfile(read_output_name()); break;
                case 'W':
                case 'w': cmd.file = open_output(read_output_name()); break;
                case 's': compile_s(cmd); break;
                case 'y': compile_y(cmd); break;
                case kEof: bad_prog("missing command");
                default: bad_prog(std::string("unknown command: `") + static_cast<char>(c) + "'");
            }
            prog_.cmds.push_back(std::move(cmd));
        }
        if (opt_.posix && pending_cmd_ >= 0) bad_prog("incomplete command");
    }

    // strverscmp(v, "4.9") > 0 for the simple dotted numbers scripts use.
    static bool version_newer(std::string_view v) {
        static constexpr uint64_t kOurs[] = {4, 9};
        size_t i = 0;
        for (size_t k = 0;; ++k) {
            uint64_t n = 0;
            bool any = false;
            while (i < v.size() && is_digit(v[i])) {
                n = n * 10 + static_cast<uint64_t>(v[i] - '0');
                ++i;
                any = true;
            }
            const uint64_t ours = k < 2 ? kOurs[k] : 0;
            if (!any) return false;
            if (n != ours) return n > ours;
            if (i >= v.size()) return false;
            if (v[i] != '.') return false;
            ++i;
        }
    }

    const ParseOptions& opt_;
    Program& prog_;
    std::string_view src_;
    size_t pos_ = 0;
    bool from_file_ = false;
    std::string file_name_;
    long line_ = 0;
    int expr_count_ = 0;
    bool first_script_ = true;
    std::vector<Block> blocks_;
    std::vector<std::pair<std::string, size_t>> labels_;
    std::vector<std::pair<size_t, std::string>> jumps_;
    int pending_cmd_ = -1;
    std::string pending_text_;
};

}  // namespace

bool parse_script(const std::vector<ScriptChunk>& chunks, const ParseOptions& options, Program& out,
                  ParseError& err) {
    Parser parser(options, out);
    try {
        for (const auto& chunk : chunks) parser.compile_chunk(chunk);
        parser.finish();
    } catch (Fail& f) {
        err = std::move(f.error);
        return false;
    }
    return true;
}

}  // namespace bashkit::utils::sed
