// The awk lexer and parser.
//
// The lexer tokenises a whole source up front. `/` starts a regular expression unless the token before it
// ends an operand (a name, a number, a string, `)`, `]`, `$`-less incr/decr, a builtin like `length`), which
// is how awk's grammar disambiguates division. Newlines are tokens, dropped after `,` `{` `&&` `||` `do`
// `else` and after a backslash. The parser is recursive descent with gawk's precedences.
#include "utils/awk/parser.hpp"

#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace bashkit::utils::awk {

namespace {

enum class T : uint8_t {
    End, Newline, LBrace, RBrace, LParen, RParen, LBracket, RBracket, Semi, Comma,
    Plus, Minus, Star, Slash, Percent, Caret, Not, Gt, Lt, Pipe, PipeAmp, Question, Colon, Tilde, NoMatch,
    Assign, AddAssign, SubAssign, MulAssign, DivAssign, ModAssign, PowAssign,
    Eq, Le, Ge, Ne, Incr, Decr, Dollar, Append, And, Or,
    Number, String, Ere, Name, FuncName, Builtin,
    KwBegin, KwEnd, KwBeginFile, KwEndFile, KwFunction, KwIf, KwElse, KwWhile, KwFor, KwDo, KwBreak,
    KwContinue, KwNext, KwNextFile, KwExit, KwReturn, KwDelete, KwGetline, KwPrint, KwPrintf, KwIn,
    KwSwitch, KwCase, KwDefault,
    Error,
};

struct Token {
    T t = T::End;
    std::string text;
    double num = 0;
    int line = 1;
    int col = 0;
    int builtin = 0;
    int src = 0;
};

const std::unordered_map<std::string_view, T>& keywords() {
    static const std::unordered_map<std::string_view, T> k = {
        {"BEGIN", T::KwBegin}, {"END", T::KwEnd}, {"BEGINFILE", T::KwBeginFile}, {"ENDFILE", T::KwEndFile},
        {"function", T::KwFunction}, {"func", T::KwFunction}, {"if", T::KwIf}, {"else", T::KwElse},
        {"while", T::KwWhile}, {"for", T::KwFor}, {"do", T::KwDo}, {"break", T::KwBreak},
        {"continue", T::KwContinue}, {"next", T::KwNext}, {"nextfile", T::KwNextFile}, {"exit", T::KwExit},
        {"return", T::KwReturn}, {"delete", T::KwDelete}, {"getline", T::KwGetline}, {"print", T::KwPrint},
        {"printf", T::KwPrintf}, {"in", T::KwIn}, {"switch", T::KwSwitch}, {"case", T::KwCase},
        {"default", T::KwDefault},
    };
    return k;
}

const std::unordered_map<std::string_view, BuiltinId>& builtins() {
    static const std::unordered_map<std::string_view, BuiltinId> b = {
        {"length", BuiltinId::Length}, {"substr", BuiltinId::Substr}, {"index", BuiltinId::Index},
        {"split", BuiltinId::Split}, {"sub", BuiltinId::Sub}, {"gsub", BuiltinId::Gsub},
        {"match", BuiltinId::Match}, {"sprintf", BuiltinId::Sprintf}, {"sin", BuiltinId::Sin},
        {"cos", BuiltinId::Cos}, {"atan2", BuiltinId::Atan2}, {"exp", BuiltinId::Exp}, {"log", BuiltinId::Log},
        {"sqrt", BuiltinId::Sqrt}, {"int", BuiltinId::Int}, {"rand", BuiltinId::Rand},
        {"srand", BuiltinId::Srand}, {"tolower", BuiltinId::Tolower}, {"toupper", BuiltinId::Toupper},
        {"system", BuiltinId::System}, {"close", BuiltinId::Close}, {"fflush", BuiltinId::Fflush},
        {"gensub", BuiltinId::Gensub}, {"asort", BuiltinId::Asort}, {"asorti", BuiltinId::Asorti},
        {"systime", BuiltinId::Systime}, {"strftime", BuiltinId::Strftime}, {"mktime", BuiltinId::Mktime},
        {"and", BuiltinId::And}, {"or", BuiltinId::Or}, {"xor", BuiltinId::Xor},
        {"lshift", BuiltinId::Lshift}, {"rshift", BuiltinId::Rshift}, {"compl", BuiltinId::Compl},
        {"strtonum", BuiltinId::Strtonum}, {"isarray", BuiltinId::Isarray}, {"typeof", BuiltinId::Typeof},
        {"patsplit", BuiltinId::Patsplit},
    };
    return b;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_val(char c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

// Processes one escape at s[i] == '\\'; appends to out and advances i past it.
void unescape_one(std::string_view s, size_t& i, std::string& out, std::vector<std::string>* warnings,
                  std::string_view where) {
    ++i;
    if (i >= s.size()) {
        out += '\\';
        return;
    }
    char c = s[i++];
    switch (c) {
        case 'n': out += '\n'; return;
        case 't': out += '\t'; return;
        case 'r': out += '\r'; return;
        case 'a': out += '\a'; return;
        case 'b': out += '\b'; return;
        case 'f': out += '\f'; return;
        case 'v': out += '\v'; return;
        case '\\': out += '\\'; return;
        case '"': out += '"'; return;
        case '/': out += '/'; return;
        case '\n': return;
        case 'x': {
            int v = 0, n = 0;
            while (n < 2 && i < s.size() && is_hex(s[i])) v = v * 16 + hex_val(s[i++]), ++n;
            if (n == 0) {
                out += "\\x";
                return;
            }
            out += static_cast<char>(v);
            return;
        }
        default:
            break;
    }
    if (c >= '0' && c <= '7') {
        int v = c - '0', n = 1;
        while (n < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7') v = v * 8 + (s[i++] - '0'), ++n;
        out += static_cast<char>(v);
        return;
    }
    if (warnings) {
        warnings->push_back(std::string(where) + "warning: escape sequence `\\" + std::string(1, c) +
                            "' treated as plain `" + std::string(1, c) + "'");
    }
    out += c;
}

}  // namespace

std::string unescape_string(std::string_view s, std::vector<std::string>* warnings, std::string_view where) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        if (s[i] == '\\') {
            unescape_one(s, i, out, warnings, where);
        } else {
            out += s[i++];
        }
    }
    return out;
}

std::string awk_regex_to_ere(std::string_view re) {
    std::string out;
    out.reserve(re.size() + 8);
    auto octal_or_escape = [&](size_t& i, std::string& dst, bool in_bracket) -> bool {
        // s[i] == '\\'; handles the escapes that name a character; returns false for others.
        if (i + 1 >= re.size()) return false;
        char c = re[i + 1];
        char v = 0;
        size_t len = 2;
        switch (c) {
            case 'n': v = '\n'; break;
            case 't': v = '\t'; break;
            case 'r': v = '\r'; break;
            case 'f': v = '\f'; break;
            case 'v': v = '\v'; break;
            case 'a': v = '\a'; break;
            case '/': v = '/'; break;
            case '"': v = '"'; break;
            default:
                if (c >= '0' && c <= '7') {
                    int x = 0, n = 0;
                    size_t j = i + 1;
                    while (n < 3 && j < re.size() && re[j] >= '0' && re[j] <= '7') x = x * 8 + (re[j++] - '0'), ++n;
                    v = static_cast<char>(x);
                    len = j - i;
                    break;
                }
                if (c == 'x' && i + 2 < re.size() && is_hex(re[i + 2])) {
                    int x = 0, n = 0;
                    size_t j = i + 2;
                    while (n < 2 && j < re.size() && is_hex(re[j])) x = x * 16 + hex_val(re[j++]), ++n;
                    v = static_cast<char>(x);
                    len = j - i;
                    break;
                }
                return false;
        }
        i += len;
        if (!in_bracket && std::strchr("\\^$.[]|()*+?{}", v) && v != 0) dst += '\\';
        dst += v;
        return true;
    };
    size_t i = 0;
    bool at_start = true;  // where a repetition operator has nothing to repeat (gawk: a literal)
    while (i < re.size()) {
        char c = re[i];
        if (at_start && (c == '*' || c == '+' || c == '?')) {
            out += '\\';
            out += c;
            ++i;
            at_start = false;
            continue;
        }
        at_start = (c == '(' || c == '|' || (c == '^' && at_start));
        if (c == '\\') {
            if (octal_or_escape(i, out, false)) continue;
            if (i + 1 < re.size()) {
                char e = re[i + 1];
                if (e == 'y') {
                    out += "\\b";
                } else if (e == 'b') {
                    out += '\b';
                } else {
                    out += '\\';
                    out += e;
                }
                i += 2;
            } else {
                out += "\\\\";
                ++i;
            }
            continue;
        }
        if (c == '[') {
            // Collect the bracket's members, resolving awk escapes, then write it in POSIX form.
            size_t j = i + 1;
            bool negate = false;
            if (j < re.size() && re[j] == '^') negate = true, ++j;
            std::string members;
            bool has_close = false, has_dash_end = false;
            bool first = true;
            bool closed = false;
            while (j < re.size()) {
                char m = re[j];
                if (m == ']' && !first) {
                    closed = true;
                    ++j;
                    break;
                }
                if (m == '[' && j + 1 < re.size() && (re[j + 1] == ':' || re[j + 1] == '.' || re[j + 1] == '=')) {
                    char kind = re[j + 1];
                    size_t k = j + 2;
                    while (k + 1 < re.size() && !(re[k] == kind && re[k + 1] == ']')) ++k;
                    if (k + 1 >= re.size()) {
                        members.append(re.substr(j));
                        j = re.size();
                        break;
                    }
                    members.append(re.substr(j, k + 2 - j));
                    j = k + 2;
                    first = false;
                    continue;
                }
                if (m == '\\' && j + 1 < re.size()) {
                    std::string one;
                    size_t k = j;
                    if (octal_or_escape(k, one, true)) {
                        j = k;
                    } else {
                        one = std::string(1, re[j + 1]);
                        j += 2;
                    }
                    if (one == "]") {
                        has_close = true;
                    } else if (one == "-" ) {
                        has_dash_end = true;
                    } else if (one == "^" && members.empty()) {
                        // a literal ^ first would negate: place it later
                        members += "^";
                        if (j < re.size() && re[j] == ']') {
                            // only member: use the escaped form RE2 understands through the translator
                        }
                    } else {
                        members += one;
                    }
                    first = false;
                    continue;
                }
                members += m;
                ++j;
                first = false;
            }
            if (!closed) {
                // unterminated: leave it to the translator to report
                out.append(re.substr(i));
                break;
            }
            out += '[';
            if (negate) out += '^';
            if (has_close) out += ']';
            if (!members.empty() && members[0] == '^' && !has_close) {
                // move a leading literal ^ to the end
                members = members.substr(1) + "^";
                if (members == "^" && !has_dash_end) {
                    out.pop_back();
                    if (negate) {
                        out.pop_back();
                        out += "[^^";
                    } else {
                        out += "\\^";
                        i = j;
                        continue;
                    }
                    out += ']';
                    i = j;
                    continue;
                }
            }
            out += members;
            if (has_dash_end) out += '-';
            out += ']';
            i = j;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

namespace {

class Lexer {
public:
    Lexer(std::string_view text, int src) : s_(text), src_(src) {}

    bool run(std::vector<Token>& out, ParseError& err, std::vector<std::string>& warnings,
             const std::string& srcname) {
        srcname_ = srcname;
        while (true) {
            Token t;
            if (!next(out, t, err, warnings)) return false;
            bool drop = false;
            if (t.t == T::Newline && !out.empty()) {
                T p = out.back().t;
                drop = p == T::Comma || p == T::LBrace || p == T::And || p == T::Or || p == T::KwDo ||
                       p == T::KwElse;
            }
            if (!drop) out.push_back(std::move(t));
            if (out.back().t == T::End) return true;
        }
    }

private:
    std::string_view s_;
    size_t i_ = 0;
    int line_ = 1;
    size_t line_start_ = 0;
    int src_;
    std::string srcname_;

    bool fail(ParseError& err, std::string msg, size_t at) {
        err.line = line_;
        err.col = static_cast<int>(at - line_start_);
        err.message = std::move(msg);
        return false;
    }

    static bool ends_operand(const std::vector<Token>& out) {
        if (out.empty()) return false;
        switch (out.back().t) {
            case T::Name: case T::Number: case T::String: case T::Ere: case T::RParen: case T::RBracket:
            case T::Incr: case T::Decr: case T::Builtin: case T::Dollar:
                return true;
            default:
                return false;
        }
    }

    bool next(const std::vector<Token>& out, Token& t, ParseError& err, std::vector<std::string>& warnings) {
        // skip blanks, comments, continuations
        while (i_ < s_.size()) {
            char c = s_[i_];
            if (c == ' ' || c == '\t' || c == '\r') {
                ++i_;
            } else if (c == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') {
                i_ += 2;
                ++line_;
                line_start_ = i_;
            } else if (c == '\\' && i_ + 2 < s_.size() && s_[i_ + 1] == '\r' && s_[i_ + 2] == '\n') {
                i_ += 3;
                ++line_;
                line_start_ = i_;
            } else if (c == '#') {
                while (i_ < s_.size() && s_[i_] != '\n') ++i_;
            } else {
                break;
            }
        }
        t.line = line_;
        t.col = static_cast<int>(i_ - line_start_);
        t.src = src_;
        if (i_ >= s_.size()) {
            t.t = T::End;
            return true;
        }
        const size_t start = i_;
        char c = s_[i_];
        auto two = [&](char n) { return i_ + 1 < s_.size() && s_[i_ + 1] == n; };
        auto op = [&](T kind, size_t len) {
            t.t = kind;
            i_ += len;
            return true;
        };
        switch (c) {
            case '\n':
                t.t = T::Newline;
                ++i_;
                ++line_;
                line_start_ = i_;
                return true;
            case '{': return op(T::LBrace, 1);
            case '}': return op(T::RBrace, 1);
            case '(': return op(T::LParen, 1);
            case ')': return op(T::RParen, 1);
            case '[': return op(T::LBracket, 1);
            case ']': return op(T::RBracket, 1);
            case ';': return op(T::Semi, 1);
            case ',': return op(T::Comma, 1);
            case '?': return op(T::Question, 1);
            case ':': return op(T::Colon, 1);
            case '~': return op(T::Tilde, 1);
            case '$': return op(T::Dollar, 1);
            case '+':
                if (two('+')) return op(T::Incr, 2);
                if (two('=')) return op(T::AddAssign, 2);
                return op(T::Plus, 1);
            case '-':
                if (two('-')) return op(T::Decr, 2);
                if (two('=')) return op(T::SubAssign, 2);
                return op(T::Minus, 1);
            case '*':
                if (two('*')) {
                    if (i_ + 2 < s_.size() && s_[i_ + 2] == '=') return op(T::PowAssign, 3);
                    return op(T::Caret, 2);
                }
                if (two('=')) return op(T::MulAssign, 2);
                return op(T::Star, 1);
            case '%':
                if (two('=')) return op(T::ModAssign, 2);
                return op(T::Percent, 1);
            case '^':
                if (two('=')) return op(T::PowAssign, 2);
                return op(T::Caret, 1);
            case '!':
                if (two('=')) return op(T::Ne, 2);
                if (two('~')) return op(T::NoMatch, 2);
                return op(T::Not, 1);
            case '=':
                if (two('=')) return op(T::Eq, 2);
                return op(T::Assign, 1);
            case '<':
                if (two('=')) return op(T::Le, 2);
                return op(T::Lt, 1);
            case '>':
                if (two('=')) return op(T::Ge, 2);
                if (two('>')) return op(T::Append, 2);
                return op(T::Gt, 1);
            case '|':
                if (two('|')) return op(T::Or, 2);
                if (two('&')) return op(T::PipeAmp, 2);
                return op(T::Pipe, 1);
            case '&':
                if (two('&')) return op(T::And, 2);
                return fail(err, "syntax error", start);
            case '/':
                if (ends_operand(out)) {
                    if (two('=')) return op(T::DivAssign, 2);
                    return op(T::Slash, 1);
                }
                return regex(t, err);
            case '"':
                return string(t, err, warnings);
            default:
                break;
        }
        if (is_digit(c) || (c == '.' && i_ + 1 < s_.size() && is_digit(s_[i_ + 1]))) return number(t);
        if (is_alpha(c)) {
            while (i_ < s_.size() && (is_alpha(s_[i_]) || is_digit(s_[i_]))) ++i_;
            t.text = std::string(s_.substr(start, i_ - start));
            auto k = keywords().find(t.text);
            if (k != keywords().end()) {
                t.t = k->second;
                return true;
            }
            auto b = builtins().find(t.text);
            if (b != builtins().end()) {
                t.t = T::Builtin;
                t.builtin = static_cast<int>(b->second);
                return true;
            }
            t.t = (i_ < s_.size() && s_[i_] == '(') ? T::FuncName : T::Name;
            return true;
        }
        return fail(err, "syntax error", start);
    }

    bool number(Token& t) {
        const size_t start = i_;
        if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X') && i_ + 2 < s_.size() &&
            is_hex(s_[i_ + 2])) {
            i_ += 2;
            double v = 0;
            while (i_ < s_.size() && is_hex(s_[i_])) v = v * 16 + hex_val(s_[i_++]);
            t.t = T::Number;
            t.num = v;
            t.text = std::string(s_.substr(start, i_ - start));
            return true;
        }
        while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
        bool is_int = true;
        if (i_ < s_.size() && s_[i_] == '.') {
            is_int = false;
            ++i_;
            while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            size_t j = i_ + 1;
            if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
            if (j < s_.size() && is_digit(s_[j])) {
                is_int = false;
                i_ = j;
                while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
            }
        }
        t.t = T::Number;
        t.text = std::string(s_.substr(start, i_ - start));
        // gawk reads 011 as octal in program text (when every digit is octal)
        if (is_int && t.text.size() > 1 && t.text[0] == '0' && t.text.find_first_not_of("01234567") == std::string::npos) {
            double v = 0;
            for (char d : t.text) v = v * 8 + (d - '0');
            t.num = v;
        } else {
            t.num = std::strtod(t.text.c_str(), nullptr);
        }
        return true;
    }

    bool string(Token& t, ParseError& err, std::vector<std::string>& warnings) {
        const size_t start = i_;
        ++i_;
        std::string out;
        const std::string where = "awk: " + srcname_ + ":" + std::to_string(line_) + ": ";
        while (true) {
            if (i_ >= s_.size() || s_[i_] == '\n') {
                fail(err, "unterminated string", start);
                err.col = static_cast<int>(i_ - line_start_);
                return false;
            }
            char c = s_[i_];
            if (c == '"') {
                ++i_;
                break;
            }
            if (c == '\\') {
                if (i_ + 1 < s_.size() && s_[i_ + 1] == '\n') {
                    i_ += 2;
                    ++line_;
                    line_start_ = i_;
                    continue;
                }
                unescape_one(s_, i_, out, &warnings, where);
                continue;
            }
            out += c;
            ++i_;
        }
        t.t = T::String;
        t.text = std::move(out);
        return true;
    }

    bool regex(Token& t, ParseError& err) {
        const size_t start = i_;
        ++i_;
        std::string out;
        bool in_bracket = false;
        while (true) {
            if (i_ >= s_.size() || s_[i_] == '\n') {
                fail(err, "unterminated regexp", start);
                err.col = static_cast<int>(i_ - line_start_);
                return false;
            }
            char c = s_[i_];
            if (c == '\\' && i_ + 1 < s_.size()) {
                if (s_[i_ + 1] == '\n') {
                    i_ += 2;
                    ++line_;
                    line_start_ = i_;
                    continue;
                }
                if (s_[i_ + 1] == '/') {
                    out += '/';
                } else {
                    out += c;
                    out += s_[i_ + 1];
                }
                i_ += 2;
                continue;
            }
            if (in_bracket) {
                if (c == ']') in_bracket = false;
                if (c == '[' && i_ + 1 < s_.size() && s_[i_ + 1] == ':') {
                    size_t k = s_.find(":]", i_ + 2);
                    if (k != std::string_view::npos) {
                        out.append(s_.substr(i_, k + 2 - i_));
                        i_ = k + 2;
                        continue;
                    }
                }
                out += c;
                ++i_;
                continue;
            }
            if (c == '[') {
                in_bracket = true;
                out += c;
                ++i_;
                if (i_ < s_.size() && s_[i_] == '^') out += s_[i_++];
                if (i_ < s_.size() && s_[i_] == ']') {
                    out += ']';
                    ++i_;
                }
                continue;
            }
            if (c == '/') {
                ++i_;
                break;
            }
            out += c;
            ++i_;
        }
        t.t = T::Ere;
        t.text = std::move(out);
        return true;
    }
};

constexpr int kMaxNesting = 1500;  // nested blocks, parentheses and unary operators
constexpr int kMaxChain = 20000;   // operators in one left-associative chain (a + b + c ...)

class Parser {
public:
    Parser(std::vector<Token> toks, const std::vector<Source>& sources, ParseResult& result)
        : toks_(std::move(toks)), sources_(sources), r_(result) {
        p_ = std::make_unique<Program>();
        static const char* const kNames[] = {"NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT",
                                             "OFMT", "RSTART", "RLENGTH", "FILENAME", "ENVIRON", "ARGC",
                                             "ARGV", "IGNORECASE", "RT", "PROCINFO", "FIELDWIDTHS", "FPAT",
                                             "BINMODE", "LINT", "TEXTDOMAIN", "ERRNO", "SYMTAB"};
        for (const char* n : kNames) global(n);
    }

    bool parse() {
        skip_terms();
        while (cur().t != T::End) {
            if (!item()) return false;
            skip_terms();
        }
        // a function name used as a variable
        for (size_t g = kSpecialCount; g < p_->globals.size(); ++g) {
            const std::string& name = p_->globals[g];
            if (p_->function_index.count(name)) {
                plain_error(first_use_.count(name) ? first_use_[name] : 1,
                            "function `" + name + "' called with space between name and `(',\nor used as a variable or an array");
                return false;
            }
        }
        // calls with more arguments than parameters: a warning, as gawk gives
        for (const Node& n : p_->nodes) {
            if (n.kind != NK::Call) continue;
            const Function& f = p_->functions[static_cast<size_t>(n.id)];
            if (f.defined && static_cast<int>(n.args.size()) > f.nparams) {
                r_.warnings.push_back("awk: " + (sources_.empty() ? std::string("cmd. line") : sources_[0].name) + ":" +
                                      std::to_string(n.line) + ": warning: function `" + f.name +
                                      "' called with more arguments than declared");
            }
        }
        // functions called but never defined
        for (const auto& f : p_->functions) {
            if (!f.defined) {
                ParseError e;
                e.fatal = true;
                e.status = 2;
                e.line = f.line;
                e.source = sources_.empty() ? "cmd. line" : sources_[0].name;
                e.message = "function `" + f.name + "' not defined";
                r_.error = e;
                return false;
            }
        }
        r_.program = std::move(p_);
        return true;
    }

private:
    std::vector<Token> toks_;
    size_t pos_ = 0;
    const std::vector<Source>& sources_;
    ParseResult& r_;
    std::unique_ptr<Program> p_;
    Function* func_ = nullptr;  // the function being parsed
    PatternKind rule_kind_ = PatternKind::Always;
    std::unordered_map<std::string, int> first_use_;
    int depth_ = 0;
    int loop_depth_ = 0;
    int switch_depth_ = 0;  // `break` is allowed in a switch too
    bool failed_ = false;

    const Token& cur() const { return toks_[pos_]; }
    const Token& peek(size_t k = 1) const {
        return toks_[std::min(pos_ + k, toks_.size() - 1)];
    }
    void advance() {
        if (pos_ + 1 < toks_.size()) ++pos_;
    }
    bool is(T t) const { return cur().t == t; }
    bool accept(T t) {
        if (is(t)) {
            advance();
            return true;
        }
        return false;
    }

    bool error_at(const Token& t, const std::string& msg) {
        if (failed_) return false;
        failed_ = true;
        ParseError e;
        const Source& s = sources_[static_cast<size_t>(t.src)];
        e.source = s.name;
        e.line = t.line;
        e.col = t.col;
        // the line's text
        int ln = 1;
        size_t b = 0;
        while (ln < t.line && b < s.text.size()) {
            size_t n = s.text.find('\n', b);
            if (n == std::string::npos) {
                b = s.text.size();
                break;
            }
            b = n + 1;
            ++ln;
        }
        size_t eol = s.text.find('\n', b);
        e.line_text = s.text.substr(b, eol == std::string::npos ? std::string::npos : eol - b);
        e.message = msg;
        if (t.t == T::End || t.t == T::Newline) {
            e.message = "unexpected newline or end of string";
            if (t.t == T::End) e.col = static_cast<int>(e.line_text.size());
        }
        r_.error = e;
        return false;
    }
    bool syntax() { return error_at(cur(), "syntax error"); }
    bool plain_error(int line, const std::string& msg) {
        if (failed_) return false;
        failed_ = true;
        ParseError e;
        e.source = sources_.empty() ? "cmd. line" : sources_[0].name;
        e.line = line;
        e.message = msg;
        e.plain = true;
        r_.error = e;
        return false;
    }
    bool expect(T t) {
        if (accept(t)) return true;
        return syntax();
    }

    Node* node(NK k, int line) {
        p_->nodes.emplace_back();
        Node* n = &p_->nodes.back();
        n->kind = k;
        n->line = line;
        return n;
    }
    Stmt* stmt(SK k, int line) {
        p_->stmts.emplace_back();
        Stmt* s = &p_->stmts.back();
        s->kind = k;
        s->line = line;
        return s;
    }

    int global(const std::string& name) {
        auto it = p_->global_index.find(name);
        if (it != p_->global_index.end()) return it->second;
        int slot = static_cast<int>(p_->globals.size());
        first_use_.emplace(name, pos_ < toks_.size() ? toks_[pos_].line : 1);
        p_->globals.push_back(name);
        p_->global_index.emplace(name, slot);
        return slot;
    }

    int function(const std::string& name, int line) {
        auto it = p_->function_index.find(name);
        if (it != p_->function_index.end()) return it->second;
        int idx = static_cast<int>(p_->functions.size());
        Function f;
        f.name = name;
        f.line = line;
        p_->functions.push_back(std::move(f));
        p_->function_index.emplace(name, idx);
        return idx;
    }

    Node* name_node(const std::string& name, int line) {
        if (func_) {
            for (size_t i = 0; i < func_->params.size(); ++i) {
                if (func_->params[i] == name) {
                    Node* n = node(NK::Local, line);
                    n->id = static_cast<int>(i);
                    n->str = name;
                    return n;
                }
            }
        }
        Node* n = node(NK::Var, line);
        n->id = global(name);
        n->str = name;
        return n;
    }

    void skip_newlines() {
        while (is(T::Newline)) advance();
    }
    void skip_terms() {
        while (is(T::Newline) || is(T::Semi)) advance();
    }

    // ---- items

    bool item() {
        const Token& t = cur();
        if (t.t == T::KwFunction) return function_def();
        Rule rule;
        if (t.t == T::KwBegin || t.t == T::KwEnd || t.t == T::KwBeginFile || t.t == T::KwEndFile) {
            rule.kind = t.t == T::KwBegin ? PatternKind::Begin
                        : t.t == T::KwEnd ? PatternKind::End
                        : t.t == T::KwBeginFile ? PatternKind::BeginFile
                                                : PatternKind::EndFile;
            advance();
            if (!is(T::LBrace)) {
                if (is(T::Newline) || is(T::End)) return error_at(cur(), "each rule must have a pattern or an action part");
                return syntax();
            }
            rule_kind_ = rule.kind;
            rule.action = block();
            rule_kind_ = PatternKind::Always;
            if (!rule.action) return false;
            if (rule.kind == PatternKind::End) p_->has_end = true;
            if (rule.kind == PatternKind::BeginFile || rule.kind == PatternKind::EndFile) p_->has_file_rules = true;
            if (rule.kind != PatternKind::Begin) p_->has_main = p_->has_main || rule.kind != PatternKind::End;
            p_->rules.push_back(rule);
            return terminator_after_item();
        }
        if (!is(T::LBrace)) {
            rule.kind = PatternKind::Expr;
            rule.pat = expr();
            if (!rule.pat) return false;
            if (accept(T::Comma)) {
                skip_newlines();
                rule.kind = PatternKind::Range;
                rule.pat2 = expr();
                if (!rule.pat2) return false;
                rule.range_index = p_->range_count++;
            }
        }
        if (is(T::LBrace)) {
            rule.action = block();
            if (!rule.action) return false;
        } else if (rule.kind == PatternKind::Always) {
            return syntax();
        }
        p_->has_main = true;
        p_->rules.push_back(rule);
        return terminator_after_item();
    }

    bool terminator_after_item() {
        if (is(T::Newline) || is(T::Semi) || is(T::End)) return true;
        // another item may follow directly after a closing brace (`BEGIN{...}{...}`)
        if (toks_[pos_ - 1].t == T::RBrace) return true;
        return syntax();
    }

    bool function_def() {
        advance();
        std::string name;
        int line = cur().line;
        if (is(T::FuncName) || is(T::Name)) {
            name = cur().text;
            advance();
        } else {
            return syntax();
        }
        int idx = function(name, line);
        if (p_->functions[static_cast<size_t>(idx)].defined) {
            return error_at(toks_[pos_ - 1], "function `" + name + "' previously defined");
        }
        if (p_->global_index.count(name) && p_->global_index.at(name) >= kSpecialCount) {
            return error_at(toks_[pos_ - 1], "function name `" + name + "' previously defined");
        }
        if (!expect(T::LParen)) return false;
        std::vector<std::string> params;
        skip_newlines();
        while (!is(T::RParen)) {
            if (!is(T::Name)) return syntax();
            params.push_back(cur().text);
            advance();
            skip_newlines();
            if (accept(T::Comma)) {
                skip_newlines();
                continue;
            }
            if (!is(T::RParen)) return syntax();
        }
        advance();
        skip_newlines();
        Function& f = p_->functions[static_cast<size_t>(idx)];
        f.params = params;
        f.nparams = static_cast<int>(params.size());
        f.defined = true;
        f.line = line;
        func_ = &f;
        if (!is(T::LBrace)) return syntax();
        Stmt* body = block();
        func_ = nullptr;
        if (!body) return false;
        p_->functions[static_cast<size_t>(idx)].body = body;
        return terminator_after_item();
    }

    // ---- statements

    Stmt* block() {
        int line = cur().line;
        if (!expect(T::LBrace)) return nullptr;
        if (++depth_ > kMaxNesting) {
            error_at(cur(), "program nesting too deep");
            return nullptr;
        }
        Stmt* b = stmt(SK::Block, line);
        skip_terms();
        while (!is(T::RBrace)) {
            if (is(T::End)) {
                syntax();
                return nullptr;
            }
            Stmt* s = statement();
            if (!s) return nullptr;
            b->list.push_back(s);
            skip_terms();
        }
        advance();
        --depth_;
        return b;
    }

    // Consumes the end of a simple statement: `;`, newline(s), or nothing before `}`.
    bool end_simple() {
        if (is(T::Semi) || is(T::Newline)) {
            advance();
            return true;
        }
        if (is(T::RBrace) || is(T::End)) return true;
        return syntax();
    }

    Stmt* statement() {
        if (++depth_ > kMaxNesting) {
            error_at(cur(), "program nesting too deep");
            return nullptr;
        }
        Stmt* s = statement_inner();
        --depth_;
        return s;
    }

    Stmt* simple_or_block() {
        skip_newlines();
        if (is(T::Semi)) {
            int line = cur().line;
            advance();
            return stmt(SK::Block, line);
        }
        return statement();
    }

    Stmt* statement_inner() {
        const Token& t = cur();
        int line = t.line;
        switch (t.t) {
            case T::LBrace:
                return block();
            case T::Semi: {
                advance();
                return stmt(SK::Block, line);
            }
            case T::KwIf: {
                advance();
                if (!expect(T::LParen)) return nullptr;
                Stmt* s = stmt(SK::If, line);
                s->expr = expr();
                if (!s->expr || !expect(T::RParen)) return nullptr;
                s->body = simple_or_block();
                if (!s->body) return nullptr;
                // `else` may follow after newlines or a `;`
                size_t save = pos_;
                while (is(T::Newline) || is(T::Semi)) advance();
                if (is(T::KwElse)) {
                    advance();
                    s->other = simple_or_block();
                    if (!s->other) return nullptr;
                } else {
                    pos_ = save;
                }
                return s;
            }
            case T::KwWhile: {
                advance();
                if (!expect(T::LParen)) return nullptr;
                Stmt* s = stmt(SK::While, line);
                s->expr = expr();
                if (!s->expr || !expect(T::RParen)) return nullptr;
                if (is(T::Semi)) {
                    advance();
                    s->body = stmt(SK::Block, line);
                    return s;
                }
                ++loop_depth_;
                s->body = simple_or_block();
                --loop_depth_;
                return s->body ? s : nullptr;
            }
            case T::KwDo: {
                advance();
                Stmt* s = stmt(SK::Do, line);
                ++loop_depth_;
                s->body = simple_or_block();
                --loop_depth_;
                if (!s->body) return nullptr;
                while (is(T::Newline) || is(T::Semi)) advance();
                if (!expect(T::KwWhile) || !expect(T::LParen)) return nullptr;
                s->expr = expr();
                if (!s->expr || !expect(T::RParen)) return nullptr;
                if (!end_simple()) return nullptr;
                return s;
            }
            case T::KwFor:
                return for_stmt();
            case T::KwSwitch:
                return switch_stmt();
            default:
                break;
        }
        Stmt* s = simple_statement();
        if (!s) return nullptr;
        if (!end_simple()) return nullptr;
        return s;
    }

    // gawk's switch: `case` takes a constant or a regex; statements fall through to the next case until a
    // `break`; one `default` at most.
    Stmt* switch_stmt() {
        int line = cur().line;
        advance();
        if (!expect(T::LParen)) return nullptr;
        Stmt* s = stmt(SK::Switch, line);
        s->expr = expr();
        if (!s->expr || !expect(T::RParen)) return nullptr;
        skip_newlines();
        if (!expect(T::LBrace)) return nullptr;
        ++switch_depth_;
        bool have_default = false;
        for (;;) {
            while (is(T::Newline) || is(T::Semi)) advance();
            if (is(T::RBrace)) {
                advance();
                break;
            }
            Stmt* c = stmt(SK::Block, cur().line);
            if (is(T::KwCase)) {
                advance();
                c->expr = expr();
                if (!c->expr) return nullptr;
            } else if (is(T::KwDefault)) {
                if (have_default) {
                    plain_error(cur().line, "duplicate `default' detected in switch body");
                    return nullptr;
                }
                advance();
                have_default = true;
            } else {
                error_at(cur(), "syntax error");
                return nullptr;
            }
            if (!expect(T::Colon)) return nullptr;
            for (;;) {
                while (is(T::Newline) || is(T::Semi)) advance();
                if (is(T::KwCase) || is(T::KwDefault) || is(T::RBrace)) break;
                Stmt* st = statement();
                if (!st) return nullptr;
                c->list.push_back(st);
            }
            s->list.push_back(c);
        }
        --switch_depth_;
        return s;
    }

    Stmt* for_stmt() {
        int line = cur().line;
        advance();
        if (!expect(T::LParen)) return nullptr;
        // for (name in array)
        if ((is(T::Name)) && peek().t == T::KwIn && peek(2).t == T::Name && peek(3).t == T::RParen) {
            Stmt* s = stmt(SK::ForIn, line);
            s->init = name_node(cur().text, line);
            advance();
            advance();
            s->step = name_node(cur().text, line);
            advance();
            advance();
            ++loop_depth_;
            s->body = simple_or_block();
            --loop_depth_;
            return s->body ? s : nullptr;
        }
        if (is(T::LParen) && peek().t == T::Name && peek(2).t == T::KwIn && peek(3).t == T::Name &&
            peek(4).t == T::RParen && peek(5).t == T::RParen) {
            Stmt* s = stmt(SK::ForIn, line);
            advance();
            s->init = name_node(cur().text, line);
            advance();
            advance();
            s->step = name_node(cur().text, line);
            advance();
            advance();
            advance();
            ++loop_depth_;
            s->body = simple_or_block();
            --loop_depth_;
            return s->body ? s : nullptr;
        }
        Stmt* s = stmt(SK::For, line);
        if (!is(T::Semi)) {
            Stmt* init = simple_statement();
            if (!init) return nullptr;
            Stmt* wrap = stmt(SK::Block, line);
            wrap->list.push_back(init);
            s->other = wrap;  // init statement
        }
        skip_newlines();
        if (!expect(T::Semi)) return nullptr;
        skip_newlines();
        if (!is(T::Semi)) {
            s->expr = expr();
            if (!s->expr) return nullptr;
        }
        skip_newlines();
        if (!expect(T::Semi)) return nullptr;
        skip_newlines();
        if (!is(T::RParen)) {
            Stmt* step = simple_statement();
            if (!step) return nullptr;
            s->init = nullptr;
            Stmt* wrap = stmt(SK::Block, line);
            wrap->list.push_back(step);
            s->list.push_back(wrap);
        }
        if (!expect(T::RParen)) return nullptr;
        if (is(T::Semi)) {
            advance();
            s->body = stmt(SK::Block, line);
            return s;
        }
        ++loop_depth_;
        s->body = simple_or_block();
        --loop_depth_;
        return s->body ? s : nullptr;
    }

    bool at_simple_end() const {
        return is(T::Semi) || is(T::Newline) || is(T::RBrace) || is(T::End);
    }

    Stmt* simple_statement() {
        const Token& t = cur();
        int line = t.line;
        switch (t.t) {
            case T::KwPrint:
            case T::KwPrintf:
                return print_stmt();
            case T::KwNext:
            case T::KwNextFile: {
                const char* what = t.t == T::KwNext ? "next" : "nextfile";
                if (!func_ && (rule_kind_ == PatternKind::Begin || rule_kind_ == PatternKind::End)) {
                    plain_error(t.line, std::string("`") + what + "' used in " +
                                            (rule_kind_ == PatternKind::Begin ? "BEGIN" : "END") + " action");
                    return nullptr;
                }
                SK k = t.t == T::KwNext ? SK::Next : SK::NextFile;
                advance();
                return stmt(k, line);
            }
            case T::KwBreak:
                advance();
                if (loop_depth_ == 0 && switch_depth_ == 0) {
                    error_at(t, "`break' is not allowed outside a loop or switch");
                    return nullptr;
                }
                return stmt(SK::Break, line);
            case T::KwContinue:
                advance();
                if (loop_depth_ == 0) {
                    error_at(t, "`continue' is not allowed outside a loop");
                    return nullptr;
                }
                return stmt(SK::Continue, line);
            case T::KwExit: {
                advance();
                Stmt* s = stmt(SK::Exit, line);
                if (!at_simple_end()) {
                    s->expr = expr();
                    if (!s->expr) return nullptr;
                }
                return s;
            }
            case T::KwReturn: {
                if (!func_) {
                    error_at(t, "`return' used outside function context");
                    return nullptr;
                }
                advance();
                Stmt* s = stmt(SK::Return, line);
                if (!at_simple_end()) {
                    s->expr = expr();
                    if (!s->expr) return nullptr;
                }
                return s;
            }
            case T::KwDelete: {
                advance();
                Stmt* s = stmt(SK::Delete, line);
                bool paren = false;
                if (is(T::LParen) && peek().t == T::Name && peek(2).t == T::RParen) {
                    paren = true;
                    advance();
                }
                if (!is(T::Name)) {
                    syntax();
                    return nullptr;
                }
                s->expr = name_node(cur().text, line);
                advance();
                if (paren) advance();
                if (!paren && accept(T::LBracket)) {
                    if (!expr_list(s->args, T::RBracket)) return nullptr;
                }
                return s;
            }
            default:
                break;
        }
        Stmt* s = stmt(SK::Expr, line);
        s->expr = expr();
        if (!s->expr) return nullptr;
        return s;
    }

    Stmt* print_stmt() {
        const Token& t = cur();
        Stmt* s = stmt(t.t == T::KwPrint ? SK::Print : SK::Printf, t.line);
        advance();
        if (!at_simple_end() && !is(T::Gt) && !is(T::Append) && !is(T::Pipe)) {
            // print (a, b) > "f": a parenthesised list is the whole list
            std::vector<Node*> list;
            while (true) {
                Node* e = expr(true);
                if (!e) return nullptr;
                list.push_back(e);
                if (accept(T::Comma)) {
                    skip_newlines();
                    continue;
                }
                break;
            }
            if (list.size() == 1 && list[0]->kind == NK::Group) {
                s->args = list[0]->args;
            } else {
                s->args = std::move(list);
            }
        }
        if (s->kind == SK::Printf && s->args.empty()) {
            syntax();
            return nullptr;
        }
        if (is(T::Gt) || is(T::Append) || is(T::Pipe)) {
            s->redir = is(T::Gt) ? '>' : is(T::Append) ? 'a' : '|';
            advance();
            s->dest = concat(true);
            if (!s->dest) return nullptr;
        }
        return s;
    }

    bool expr_list(std::vector<Node*>& out, T close) {
        skip_newlines();
        while (true) {
            Node* e = expr();
            if (!e) return false;
            out.push_back(e);
            skip_newlines();
            if (accept(T::Comma)) {
                skip_newlines();
                continue;
            }
            break;
        }
        return expect(close);
    }

    // ---- expressions

    static bool is_lvalue(const Node* n) {
        return n->kind == NK::Var || n->kind == NK::Local || n->kind == NK::Field || n->kind == NK::Index;
    }

    Node* expr(bool in_print = false) {
        if (++depth_ > kMaxNesting) {
            error_at(cur(), "expression nesting too deep");
            return nullptr;
        }
        Node* n = expr_inner(in_print);
        --depth_;
        return n;
    }

    Node* expr_inner(bool in_print) {
        Node* lhs = ternary(in_print);
        if (!lhs) return nullptr;
        char op = 0;
        switch (cur().t) {
            case T::Assign: op = '='; break;
            case T::AddAssign: op = '+'; break;
            case T::SubAssign: op = '-'; break;
            case T::MulAssign: op = '*'; break;
            case T::DivAssign: op = '/'; break;
            case T::ModAssign: op = '%'; break;
            case T::PowAssign: op = '^'; break;
            default: return lhs;
        }
        if (!is_lvalue(lhs)) {
            syntax();
            return nullptr;
        }
        int line = cur().line;
        advance();
        skip_newlines();
        Node* rhs = expr(in_print);
        if (!rhs) return nullptr;
        Node* n = node(NK::Assign, line);
        n->op = op == '=' ? 0 : op;
        n->a = lhs;
        n->b = rhs;
        return n;
    }

    Node* ternary(bool in_print) {
        Node* c = or_expr(in_print);
        if (!c) return nullptr;
        if (!is(T::Question)) return c;
        int line = cur().line;
        advance();
        skip_newlines();
        Node* a = expr(in_print);
        if (!a) return nullptr;
        skip_newlines();
        if (!expect(T::Colon)) return nullptr;
        skip_newlines();
        Node* b = expr(in_print);
        if (!b) return nullptr;
        Node* n = node(NK::Cond, line);
        n->a = c;
        n->b = a;
        n->c = b;
        return n;
    }

    Node* or_expr(bool in_print) {
        Node* l = and_expr(in_print);
        int chain = 0;
        while (l && is(T::Or)) {
            if (!chain_ok(chain)) return nullptr;
            int line = cur().line;
            advance();
            skip_newlines();
            Node* r = and_expr(in_print);
            if (!r) return nullptr;
            Node* n = node(NK::Or, line);
            n->a = l;
            n->b = r;
            l = n;
        }
        return l;
    }

    Node* and_expr(bool in_print) {
        Node* l = in_expr(in_print);
        int chain = 0;
        while (l && is(T::And)) {
            if (!chain_ok(chain)) return nullptr;
            int line = cur().line;
            advance();
            skip_newlines();
            Node* r = in_expr(in_print);
            if (!r) return nullptr;
            Node* n = node(NK::And, line);
            n->a = l;
            n->b = r;
            l = n;
        }
        return l;
    }

    Node* in_expr(bool in_print) {
        Node* l = match_expr(in_print);
        while (l && is(T::KwIn)) {
            int line = cur().line;
            advance();
            if (!is(T::Name)) {
                syntax();
                return nullptr;
            }
            Node* n = node(NK::In, line);
            n->a = name_node(cur().text, line);
            advance();
            if (l->kind == NK::Group) {
                n->args = l->args;
            } else {
                n->args.push_back(l);
            }
            l = n;
        }
        return l;
    }

    Node* match_expr(bool in_print) {
        Node* l = rel_expr(in_print);
        int chain = 0;
        while (l && (is(T::Tilde) || is(T::NoMatch))) {
            if (!chain_ok(chain)) return nullptr;
            int line = cur().line;
            char op = is(T::Tilde) ? 0 : 1;
            advance();
            Node* r = rel_expr(in_print);
            if (!r) return nullptr;
            Node* n = node(NK::Match, line);
            n->op = op;
            n->a = l;
            n->b = r;
            l = n;
        }
        return l;
    }

    Node* rel_expr(bool in_print) {
        Node* l = concat(in_print);
        if (!l) return nullptr;
        char op = 0;
        switch (cur().t) {
            case T::Lt: op = '<'; break;
            case T::Le: op = 'l'; break;
            case T::Gt: op = in_print ? 0 : '>'; break;
            case T::Ge: op = 'g'; break;
            case T::Eq: op = '='; break;
            case T::Ne: op = '!'; break;
            default: break;
        }
        if (!op) return l;
        int line = cur().line;
        advance();
        Node* r = concat(in_print);
        if (!r) return nullptr;
        Node* n = node(NK::Compare, line);
        n->op = op;
        n->a = l;
        n->b = r;
        return n;
    }

    bool starts_concat_operand() const {
        switch (cur().t) {
            case T::Number: case T::String: case T::Ere: case T::Name: case T::FuncName: case T::Builtin:
            case T::Dollar: case T::Not: case T::LParen: case T::Minus: case T::Plus: case T::Incr: case T::Decr:
                return true;
            case T::KwGetline:
                return false;
            default:
                return false;
        }
    }

    Node* concat(bool in_print) {
        Node* l = additive(in_print);
        if (!l) return nullptr;
        while (true) {
            if (is(T::Pipe) && peek().t == T::KwGetline) {
                int line = cur().line;
                advance();
                advance();
                Node* g = node(NK::Getline, line);
                g->op = 2;
                g->b = l;
                if (is(T::Name) || is(T::Dollar)) {
                    g->a = lvalue_primary();
                    if (!g->a) return nullptr;
                }
                l = g;
                continue;
            }
            if (!starts_concat_operand() || is(T::Minus) || is(T::Plus) || is(T::Not)) break;
            int line = cur().line;
            Node* r = additive(in_print);
            if (!r) return nullptr;
            if (l->kind == NK::Concat) {
                l->args.push_back(r);
            } else {
                Node* n = node(NK::Concat, line);
                n->args.push_back(l);
                n->args.push_back(r);
                l = n;
            }
        }
        return l;
    }

    // A left-associative chain builds a tree as deep as it is long: cap it so evaluation cannot overflow.
    bool chain_ok(int& n) {
        if (++n <= kMaxChain) return true;
        error_at(cur(), "expression nesting too deep");
        return false;
    }

    Node* additive(bool in_print) {
        Node* l = multiplicative(in_print);
        int chain = 0;
        while (l && (is(T::Plus) || is(T::Minus))) {
            if (!chain_ok(chain)) return nullptr;
            int line = cur().line;
            char op = is(T::Plus) ? '+' : '-';
            advance();
            Node* r = multiplicative(in_print);
            if (!r) return nullptr;
            Node* n = node(NK::Binary, line);
            n->op = op;
            n->a = l;
            n->b = r;
            l = n;
        }
        return l;
    }

    Node* multiplicative(bool in_print) {
        Node* l = unary(in_print);
        int chain = 0;
        while (l && (is(T::Star) || is(T::Slash) || is(T::Percent))) {
            if (!chain_ok(chain)) return nullptr;
            int line = cur().line;
            char op = is(T::Star) ? '*' : is(T::Slash) ? '/' : '%';
            advance();
            Node* r = unary(in_print);
            if (!r) return nullptr;
            Node* n = node(NK::Binary, line);
            n->op = op;
            n->a = l;
            n->b = r;
            l = n;
        }
        return l;
    }

    Node* unary(bool in_print) {
        if (++depth_ > kMaxNesting) {
            error_at(cur(), "expression nesting too deep");
            return nullptr;
        }
        Node* res = nullptr;
        int line = cur().line;
        if (is(T::Not) || is(T::Minus) || is(T::Plus)) {
            T t = cur().t;
            advance();
            Node* operand = unary(in_print);
            if (operand) {
                res = node(t == T::Not ? NK::Not : t == T::Minus ? NK::Neg : NK::UPlus, line);
                res->a = operand;
            }
        } else {
            res = power(in_print);
        }
        --depth_;
        return res;
    }

    Node* power(bool in_print) {
        Node* base = postfix(in_print);
        if (!base) return nullptr;
        if (is(T::Caret)) {
            int line = cur().line;
            advance();
            // right associative; the exponent may carry a sign
            Node* e = nullptr;
            if (is(T::Minus) || is(T::Plus) || is(T::Not)) {
                e = unary(in_print);
            } else {
                e = power(in_print);
            }
            if (!e) return nullptr;
            Node* n = node(NK::Binary, line);
            n->op = '^';
            n->a = base;
            n->b = e;
            return n;
        }
        return base;
    }

    Node* postfix(bool in_print) {
        Node* p = primary(in_print);
        if (!p) return nullptr;
        if (is_lvalue(p) && (is(T::Incr) || is(T::Decr))) {
            Node* n = node(is(T::Incr) ? NK::PostInc : NK::PostDec, cur().line);
            advance();
            n->a = p;
            return n;
        }
        return p;
    }

    // `$` operand: a primary without postfix, or ++/--/-/+/! applied to one.
    Node* field_operand() {
        int line = cur().line;
        if (is(T::Incr) || is(T::Decr)) {
            NK k = is(T::Incr) ? NK::PreInc : NK::PreDec;
            advance();
            Node* lv = lvalue_primary();
            if (!lv) return nullptr;
            Node* n = node(k, line);
            n->a = lv;
            return n;
        }
        if (is(T::Minus) || is(T::Plus) || is(T::Not)) {
            T t = cur().t;
            advance();
            Node* o = field_operand();
            if (!o) return nullptr;
            Node* n = node(t == T::Not ? NK::Not : t == T::Minus ? NK::Neg : NK::UPlus, line);
            n->a = o;
            return n;
        }
        return primary(false);
    }

    Node* lvalue_primary() {
        int line = cur().line;
        if (is(T::Dollar)) {
            advance();
            Node* o = field_operand();
            if (!o) return nullptr;
            Node* n = node(NK::Field, line);
            n->a = o;
            return n;
        }
        if (is(T::Name)) {
            std::string name = cur().text;
            advance();
            Node* v = name_node(name, line);
            if (accept(T::LBracket)) {
                Node* n = node(NK::Index, line);
                n->a = v;
                if (!expr_list(n->args, T::RBracket)) return nullptr;
                return n;
            }
            return v;
        }
        syntax();
        return nullptr;
    }

    Node* primary(bool in_print) {
        const Token& t = cur();
        int line = t.line;
        switch (t.t) {
            case T::Number: {
                Node* n = node(NK::Num, line);
                n->num = t.num;
                n->cv.set_num(t.num);
                advance();
                return n;
            }
            case T::String: {
                Node* n = node(NK::Str, line);
                n->str = t.text;
                n->cv.set_str(t.text);
                advance();
                return n;
            }
            case T::Ere: {
                Node* n = node(NK::Regex, line);
                n->id = static_cast<int>(p_->regexes.size());
                p_->regexes.push_back(RegexLit{t.text});
                n->str = t.text;
                advance();
                return n;
            }
            case T::LParen: {
                advance();
                std::vector<Node*> list;
                skip_newlines();
                while (true) {
                    Node* e = expr();
                    if (!e) return nullptr;
                    list.push_back(e);
                    skip_newlines();
                    if (accept(T::Comma)) {
                        skip_newlines();
                        continue;
                    }
                    break;
                }
                if (!expect(T::RParen)) return nullptr;
                if (list.size() == 1) {
                    if (is_lvalue(list[0]) || list[0]->kind == NK::Group) {
                        // keep lvalue-ness out of `(x) = 1`: wrap with unary plus? gawk accepts it; keep as is
                    }
                    return list[0];
                }
                Node* g = node(NK::Group, line);
                g->args = std::move(list);
                if (!is(T::KwIn) && !in_print) {
                    syntax();
                    return nullptr;
                }
                return g;
            }
            case T::Dollar:
            case T::Name:
                return lvalue_primary();
            case T::Incr:
            case T::Decr: {
                NK k = t.t == T::Incr ? NK::PreInc : NK::PreDec;
                advance();
                Node* lv = lvalue_primary();
                if (!lv) return nullptr;
                Node* n = node(k, line);
                n->a = lv;
                return n;
            }
            case T::Minus:
            case T::Plus:
            case T::Not:
                return unary(in_print);
            case T::FuncName: {
                std::string name = t.text;
                advance();
                advance();  // (
                Node* n = node(NK::Call, line);
                n->id = function(name, line);
                n->str = name;
                skip_newlines();
                if (!accept(T::RParen)) {
                    if (!expr_list(n->args, T::RParen)) return nullptr;
                }
                return n;
            }
            case T::Builtin: {
                Node* n = node(NK::Builtin, line);
                n->id = t.builtin;
                n->str = t.text;
                advance();
                if (is(T::LParen)) {
                    advance();
                    skip_newlines();
                    if (!accept(T::RParen)) {
                        if (!expr_list(n->args, T::RParen)) return nullptr;
                    }
                } else if (static_cast<BuiltinId>(n->id) != BuiltinId::Length) {
                    syntax();
                    return nullptr;
                }
                return check_builtin(n) ? n : nullptr;
            }
            case T::KwGetline: {
                advance();
                Node* n = node(NK::Getline, line);
                n->op = 0;
                if (is(T::Name) || is(T::Dollar)) {
                    n->a = lvalue_primary();
                    if (!n->a) return nullptr;
                }
                if (is(T::Lt)) {
                    advance();
                    n->op = 1;
                    n->b = primary_no_concat();
                    if (!n->b) return nullptr;
                }
                return n;
            }
            default:
                syntax();
                return nullptr;
        }
    }

    Node* primary_no_concat() {
        // a getline file: $-field, name, string, parenthesised expression, ...
        Node* p = primary(false);
        if (!p) return nullptr;
        if (is_lvalue(p) && (is(T::Incr) || is(T::Decr))) {
            Node* n = node(is(T::Incr) ? NK::PostInc : NK::PostDec, cur().line);
            advance();
            n->a = p;
            return n;
        }
        return p;
    }

    bool check_builtin(Node* n) {
        size_t na = n->args.size();
        size_t lo = 0, hi = 0;
        switch (static_cast<BuiltinId>(n->id)) {
            case BuiltinId::Length: lo = 0; hi = 1; break;
            case BuiltinId::Substr: lo = 2; hi = 3; break;
            case BuiltinId::Index: lo = 2; hi = 2; break;
            case BuiltinId::Split: lo = 2; hi = 4; break;
            case BuiltinId::Patsplit: lo = 2; hi = 4; break;
            case BuiltinId::Sub: case BuiltinId::Gsub: lo = 2; hi = 3; break;
            case BuiltinId::Match: lo = 2; hi = 3; break;
            case BuiltinId::Sprintf: lo = 1; hi = 1000; break;
            case BuiltinId::Sin: case BuiltinId::Cos: case BuiltinId::Exp: case BuiltinId::Log:
            case BuiltinId::Sqrt: case BuiltinId::Int: case BuiltinId::Tolower: case BuiltinId::Toupper:
            case BuiltinId::System: case BuiltinId::Compl: case BuiltinId::Strtonum: case BuiltinId::Isarray:
            case BuiltinId::Typeof:
                lo = 1; hi = 1; break;
            case BuiltinId::Atan2: lo = 2; hi = 2; break;
            case BuiltinId::Rand: case BuiltinId::Systime: lo = 0; hi = 0; break;
            case BuiltinId::Srand: lo = 0; hi = 1; break;
            case BuiltinId::Close: lo = 1; hi = 2; break;
            case BuiltinId::Fflush: lo = 0; hi = 1; break;
            case BuiltinId::Gensub: lo = 3; hi = 4; break;
            case BuiltinId::Asort: case BuiltinId::Asorti: lo = 1; hi = 3; break;
            case BuiltinId::Strftime: lo = 0; hi = 3; break;
            case BuiltinId::Mktime: lo = 1; hi = 2; break;
            case BuiltinId::And: case BuiltinId::Or: case BuiltinId::Xor: lo = 2; hi = 1000; break;
            case BuiltinId::Lshift: case BuiltinId::Rshift: lo = 2; hi = 2; break;
        }
        if (na < lo || na > hi) {
            const Token& t = toks_[pos_ - 1];
            error_at(t, std::to_string(na) + " is invalid as number of arguments for " + n->str);
            return false;
        }
        return true;
    }
};

}  // namespace

ParseResult parse_program(const std::vector<Source>& sources) {
    ParseResult r;
    std::vector<Token> toks;
    for (size_t i = 0; i < sources.size(); ++i) {
        Lexer lx(sources[i].text, static_cast<int>(i));
        std::vector<Token> part;
        ParseError err;
        if (!lx.run(part, err, r.warnings, sources[i].name)) {
            err.source = sources[i].name;
            // the line's text
            int ln = 1;
            size_t b = 0;
            const std::string& s = sources[i].text;
            while (ln < err.line && b < s.size()) {
                size_t n = s.find('\n', b);
                if (n == std::string::npos) break;
                b = n + 1;
                ++ln;
            }
            size_t eol = s.find('\n', b);
            err.line_text = s.substr(b, eol == std::string::npos ? std::string::npos : eol - b);
            r.error = err;
            return r;
        }
        // sources are joined by a newline
        if (!part.empty() && part.back().t == T::End) {
            part.back().t = T::Newline;
        }
        for (auto& t : part) toks.push_back(std::move(t));
    }
    Token end;
    end.t = T::End;
    if (!toks.empty()) {
        end.line = toks.back().line;
        end.src = toks.back().src;
        end.col = toks.back().col;
        // point at the end of the last line
        const std::string& s = sources[static_cast<size_t>(end.src)].text;
        size_t b = s.rfind('\n', s.empty() ? 0 : s.size() - 1);
        (void)b;
    }
    toks.push_back(end);
    Parser p(std::move(toks), sources, r);
    p.parse();
    return r;
}

std::string format_parse_error(const ParseError& e) {
    std::string where = "awk: " + e.source + ":" + std::to_string(e.line) + ": ";
    if (e.fatal) return where + "fatal: " + e.message + "\n";
    if (e.plain) return where + "error: " + e.message + "\n";
    std::string out = where + e.line_text + "\n";
    out += where + std::string(static_cast<size_t>(std::max(0, e.col)), ' ') + "^ " + e.message + "\n";
    return out;
}

}  // namespace bashkit::utils::awk
