#include "builtins/search/matcher.hpp"

#include <re2/re2.h>

#include <cstring>

#include "interp/regex.hpp"

namespace bashkit::builtins::search {
namespace {

void append_hex(std::string& out, unsigned char c) {
    static constexpr char kDigits[] = "0123456789abcdef";
    out += "\\x{";
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
    out += '}';
}

// A literal string as RE2 source.
std::string quote_literal(std::string_view s, bool latin1) {
    std::string out;
    out.reserve(s.size() * 2);
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            out += ch;
        } else if (c < 0x20 || c == 0x7F || (c >= 0x80 && latin1)) {
            append_hex(out, c);
        } else if (c >= 0x80) {
            out += ch;  // part of a UTF-8 sequence (rg)
        } else {
            out += '\\';
            out += ch;
        }
    }
    return out;
}

// The first Perl feature in a -P pattern that RE2 cannot match, or empty.
std::string unsupported_perl_feature(std::string_view p) {
    bool in_class = false;
    for (size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\') {
            if (i + 1 >= p.size()) break;
            const char n = p[i + 1];
            if (n == 'Q') {  // \Q...\E quotes everything up to \E
                const size_t e = p.find("\\E", i + 2);
                if (e == std::string_view::npos) break;
                i = e + 1;
                continue;
            }
            if (!in_class) {
                if (n >= '1' && n <= '9') return "back-references";
                if (n == 'g' || n == 'k') return "back-references";
                if (n == 'K') return "\\K (match start reset)";
                if (n == 'G') return "\\G";
                if (n == 'R' || n == 'X') return std::string("\\") + n;
                if (n == 'Z') return "\\Z";
            }
            ++i;
            continue;
        }
        if (in_class) {
            if (c == ']') in_class = false;
            continue;
        }
        if (c == '[') {
            in_class = true;
            // A ] right after [ or [^ is a member.
            if (i + 1 < p.size() && p[i + 1] == '^') ++i;
            if (i + 1 < p.size() && p[i + 1] == ']') ++i;
            continue;
        }
        if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {
            const std::string_view rest = p.substr(i + 2);
            if (rest.starts_with("=") || rest.starts_with("!") || rest.starts_with("<=") || rest.starts_with("<!"))
                return "lookaround assertions";
            if (rest.starts_with(">")) return "atomic groups";
            if (rest.starts_with("(")) return "conditional groups";
            if (rest.starts_with("R") || rest.starts_with("&") || rest.starts_with("+") ||
                (!rest.empty() && rest[0] >= '0' && rest[0] <= '9'))
                return "recursion";
            if (rest.starts_with("|")) return "branch reset groups";
            continue;
        }
        if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < p.size() && p[i + 1] == '+')
            return "possessive quantifiers";
    }
    return {};
}

// Removes the Unicode letter classes interp/regex.cpp adds to [:alpha:] and friends: under LC_ALL=C
// the classes are ASCII.
void strip_unicode_classes(std::string& re) {
    static constexpr std::string_view kAdds[] = {"[:alpha:]\\p{L}", "[:alnum:]\\p{L}", "[:upper:]\\p{Lu}",
                                                 "[:lower:]\\p{Ll}"};
    for (std::string_view add : kAdds) {
        const size_t keep = add.find(']') + 1;
        size_t at = 0;
        while ((at = re.find(add, at)) != std::string::npos) {
            re.erase(at + keep, add.size() - keep);
            at += keep;
        }
    }
}

}  // namespace

Matcher::~Matcher() = default;

std::unique_ptr<Matcher> Matcher::compile(const std::vector<std::string>& patterns, const MatcherOptions& opt,
                                          std::string& error) {
    std::unique_ptr<Matcher> m(new Matcher());
    m->eol_ = opt.eol;
    if (patterns.empty()) return m;
    const bool latin1 = !opt.utf8 && opt.syntax != Syntax::kRust;
    const bool lines = opt.eol == '\n';
    std::string core;
    for (size_t k = 0; k < patterns.size(); ++k) {
        const std::string& p = patterns[k];
        std::string piece;
        switch (opt.syntax) {
            case Syntax::kFixed: piece = quote_literal(p, latin1); break;
            case Syntax::kBasic:
            case Syntax::kExtended: {
                interp::RegexOptions ro;
                ro.dialect = interp::RegexDialect::kGnu;
                ro.newline_sensitive = lines;
                const interp::RegexTranslation t =
                    opt.syntax == Syntax::kBasic ? interp::translate_bre(p, ro) : interp::translate_ere(p, ro);
                if (!t.ok()) {
                    if (t.error == interp::RegexError::kBackrefUnsupported)
                        error = "back-references are not supported (the regex engine is RE2): " + p;
                    else if (t.message.starts_with("Unmatched [") && p.ends_with("["))
                        error = "Invalid regular expression";  // GNU's wording for a final lone [
                    else
                        error = t.message;
                    return nullptr;
                }
                piece = t.re2;
                if (piece.starts_with("(?m)")) piece.erase(0, 4);
                strip_unicode_classes(piece);
                // \` and \' (start and end of the text) are the ends of a line only line by line.
                if (piece.find("\\A") != std::string::npos || piece.find("\\z") != std::string::npos)
                    m->buffer_search_ = false;
                break;
            }
            case Syntax::kPerl:
            case Syntax::kRust: {
                const std::string feature = unsupported_perl_feature(p);
                if (!feature.empty()) {
                    error = feature + " are not supported (the regex engine is RE2)";
                    if (feature.front() == '\\') error = feature + " is not supported (the regex engine is RE2)";
                    return nullptr;
                }
                piece = p;
                if (p.find("\\A") != std::string::npos || p.find("\\z") != std::string::npos)
                    m->buffer_search_ = false;
                break;
            }
        }
        if (k) core += '|';
        core += "(?:";
        core += piece;
        core += ')';
    }
    std::string src;
    if (lines) src = "(?m)";
    const std::string nonword = !latin1 ? (lines ? "[^\\pL\\pM\\pN_\\n]" : "[^\\pL\\pM\\pN_]")
                                                            : (lines ? "[^0-9A-Za-z_\\n]" : "[^0-9A-Za-z_]");
    if (opt.line) {
        src += "^(?:" + core + ")$";
    } else if (opt.word) {
        src += "(?:^|" + nonword + ")(" + core + ")(?:" + nonword + "|$)";
        m->word_ = true;
        m->utf8_ = !latin1;
    } else {
        src += core;
    }
    RE2::Options o;
    o.set_log_errors(false);
    o.set_longest_match(!opt.utf8 && (opt.syntax == Syntax::kBasic || opt.syntax == Syntax::kExtended ||
                        opt.syntax == Syntax::kFixed));
    o.set_case_sensitive(!opt.icase);
    o.set_dot_nl(!lines && (opt.syntax == Syntax::kBasic || opt.syntax == Syntax::kExtended));
    o.set_never_nl(false);
    o.set_encoding(latin1 ? RE2::Options::EncodingLatin1 : RE2::Options::EncodingUTF8);
    o.set_max_mem(64 << 20);
    m->re_ = std::make_unique<RE2>(src, o);
    if (m->word_) {
        m->re_word_ = std::make_unique<RE2>(std::string(lines ? "(?m)" : "") + "(" + core + ")(?:" + nonword + "|$)", o);
        if (!m->re_word_->ok()) m->re_word_.reset();
    }
    if (!m->re_->ok()) {
        const auto code = m->re_->error_code();
        if (code == RE2::ErrorPatternTooLarge || code == RE2::ErrorRepeatSize)
            error = "regular expression is too large";
        else
            error = m->re_->error();
        return nullptr;
    }
    return m;
}

bool Matcher::line_matches(std::string_view line) const {
    if (!re_) return false;
    if (line.data() == nullptr) line = std::string_view("", 0);
    return re_->Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), RE2::UNANCHORED, nullptr, 0);
}

bool Matcher::find_line(std::string_view buf, size_t from, size_t& line_begin, size_t& line_end) const {
    if (!re_) return false;
    const char* base = buf.data();
    const size_t size = buf.size();
    auto end_of_line = [&](size_t at) {
        const void* p = std::memchr(base + at, eol_, size - at);
        return p ? static_cast<size_t>(static_cast<const char*>(p) - base) : size;
    };
    if (!buffer_search_ || eol_ != '\n') {
        while (from < size) {
            const size_t e = end_of_line(from);
            if (line_matches(buf.substr(from, e - from))) {
                line_begin = from;
                line_end = e;
                return true;
            }
            from = e + 1;
        }
        return false;
    }
    const re2::StringPiece text(base, size);
    while (from < size) {
        re2::StringPiece match;
        if (!re_->Match(text, from, size, RE2::UNANCHORED, &match, 1)) return false;
        const size_t s = static_cast<size_t>(match.data() - base);
        const size_t e = s + match.size();
        size_t lb = from;
        for (size_t k = s; k > from; --k)
            if (base[k - 1] == '\n') {
                lb = k;
                break;
            }
        const size_t le = end_of_line(s);
        if (e <= le || line_matches(buf.substr(lb, le - lb))) {
            line_begin = lb;
            line_end = le;
            return true;
        }
        from = le + 1;  // the match ran into the next line: this one does not match on its own
    }
    return false;
}

bool Matcher::next_match(std::string_view line, size_t from, size_t& begin, size_t& end) const {
    if (!re_ || from > line.size()) return false;
    if (line.data() == nullptr) line = std::string_view("", 0);
    const re2::StringPiece text(line.data(), line.size());
    re2::StringPiece sub[2];
    const int n = word_ ? 2 : 1;
    if (word_ && re_word_) {
        auto word_byte = [this](unsigned char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                   (utf8_ && c >= 0x80);
        };
        size_t start = from;
        while (start <= line.size()) {
            if (!re_word_->Match(text, start, line.size(), RE2::UNANCHORED, sub, 2)) return false;
            const auto b = static_cast<size_t>(sub[1].data() - line.data());
            if (b == 0 || !word_byte(static_cast<unsigned char>(line[b - 1]))) {
                begin = b;
                end = b + sub[1].size();
                return true;
            }
            start = b + 1;  // a word character before it: no match can start here
        }
        return false;
    }
    if (!re_->Match(text, from, line.size(), RE2::UNANCHORED, sub, n)) return false;
    const re2::StringPiece& hit = sub[n - 1];
    begin = static_cast<size_t>(hit.data() - line.data());
    end = begin + hit.size();
    return true;
}

}  // namespace bashkit::builtins::search
