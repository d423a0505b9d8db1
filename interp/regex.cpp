#include "interp/regex.hpp"

#include <re2/re2.h>

#include <cstdio>
#include <optional>
#include <utility>

namespace bashkit::interp {
namespace {

constexpr int kMaxNesting = 250;     // groups inside groups; deeper is "Regular expression too big"
constexpr long kGnuDupMax = 32767;   // RE_DUP_MAX in glibc
constexpr long kRe2DupMax = 1000;    // RE2's limit on a counted repetition

// Length of the valid UTF-8 sequence at s[i], or 0 when s[i] does not start one.
size_t utf8_len(std::string_view s, size_t i, uint32_t* cp_out = nullptr) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        if (cp_out) *cp_out = b0;
        return 1;
    }
    size_t len = 0;
    uint32_t v = 0, min = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2, v = b0 & 0x1F, min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3, v = b0 & 0x0F, min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4, v = b0 & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (i + len > s.size()) return 0;
    for (size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        v = (v << 6) | (b & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    if (cp_out) *cp_out = v;
    return len;
}

bool valid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_len(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

bool is_alnum(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// One translated unit of a branch.
struct Piece {
    std::string text;
    bool anchor = false;     // ^ $ \b ...: nothing can repeat it
    bool quantified = false; // already has a repetition operator: another one needs a (?:..) around it
};

class Translator {
public:
    Translator(std::string_view p, bool ere, const RegexOptions& o) : p_(p), ere_(ere), opt_(o) {
        latin1_ = opt_.bytes || !valid_utf8(p);
    }

    RegexTranslation run() {
        RegexTranslation r;
        std::string body = parse_alt(0, false);
        if (!failed_ && pos_ < p_.size()) {
            // Only a stray close paren can stop the top level: in a BRE it is an error (ERE takes it literally).
            fail("Unmatched ) or \\)");
        }
        if (failed_) {
            r.error = error_;
            r.message = message_;
            return r;
        }
        r.re2 = opt_.newline_sensitive ? "(?m)" + body : body;
        r.groups = groups_;
        r.latin1 = latin1_;
        return r;
    }

private:
    void fail(std::string msg, RegexError kind = RegexError::kSyntax) {
        if (failed_) return;
        failed_ = true;
        error_ = kind;
        message_ = std::move(msg);
    }

    bool at(char c) const { return pos_ < p_.size() && p_[pos_] == c; }
    bool at_escaped(char c) const { return pos_ + 1 < p_.size() && p_[pos_] == '\\' && p_[pos_ + 1] == c; }

    // Alternation: branches separated by | (ERE) or \| (BRE).
    std::string parse_alt(int depth, bool in_group) {
        std::string out = parse_branch(depth, in_group);
        while (!failed_) {
            if (ere_ ? at('|') : at_escaped('|')) {
                pos_ += ere_ ? 1 : 2;
                out += '|';
                out += parse_branch(depth, in_group);
            } else {
                break;
            }
        }
        return out;
    }

    // The bytes of one (possibly multibyte) character at pos_, escaped for RE2 outside a class.
    std::string literal_at(size_t& i) const {
        const auto c = static_cast<unsigned char>(p_[i]);
        if (c >= 0x80) {
            const size_t n = latin1_ ? 0 : utf8_len(p_, i);
            if (n == 0) {
                ++i;
                return hex(c);
            }
            std::string s(p_.substr(i, n));
            i += n;
            return s;
        }
        ++i;
        return literal_ascii(c);
    }

    static std::string hex(unsigned char c) {
        char buf[12];
        std::snprintf(buf, sizeof buf, "\\x{%02x}", c);
        return buf;
    }

    static std::string literal_ascii(unsigned char c) {
        if (is_alnum(c) || c == '_') return std::string(1, static_cast<char>(c));
        if (c < 0x20 || c == 0x7F) return hex(c);
        return std::string{'\\', static_cast<char>(c)};
    }

    bool is_quantifier_here() const {
        if (pos_ >= p_.size()) return false;
        if (p_[pos_] == '*') return true;
        if (ere_) return p_[pos_] == '+' || p_[pos_] == '?' || p_[pos_] == '{';
        return at_escaped('+') || at_escaped('?') || at_escaped('{');
    }

    // Parses {m,n} (ERE, pos_ at '{') or \{m,n\} (BRE, pos_ at '\'). Returns the RE2 operator, or nullopt
    // after failing (or, for a GNU ERE, after deciding the '{' is literal: then pos_ is unchanged).
    std::optional<std::string> parse_interval() {
        const size_t start = pos_;
        size_t i = pos_ + (ere_ ? 1 : 2);
        auto number = [&](long& v) {
            const size_t b = i;
            v = 0;
            while (i < p_.size() && p_[i] >= '0' && p_[i] <= '9') {
                if (v <= kGnuDupMax) v = v * 10 + (p_[i] - '0');
                ++i;
            }
            return i > b;
        };
        long lo = 0, hi = -1;
        const bool has_lo = number(lo);
        bool comma = false;
        bool has_hi = false;
        if (i < p_.size() && p_[i] == ',') {
            comma = true;
            ++i;
            has_hi = number(hi);
        }
        const bool closed = ere_ ? (i < p_.size() && p_[i] == '}')
                                 : (i + 1 < p_.size() && p_[i] == '\\' && p_[i + 1] == '}');
        const bool gnu_ere = ere_ && opt_.dialect == RegexDialect::kGnu;
        if (!closed) {
            if (gnu_ere) return std::nullopt;
            fail(i >= p_.size() || (!ere_ && i + 1 >= p_.size() && p_[i] == '\\') ? "Unmatched \\{"
                                                                                   : "Invalid content of \\{\\}");
            return std::nullopt;
        }
        if (!has_lo && !comma) {  // {}
            if (gnu_ere) return std::nullopt;
            fail("Invalid content of \\{\\}");
            return std::nullopt;
        }
        if (!comma) hi = lo;
        if (comma && !has_hi) hi = -1;
        if (lo > kGnuDupMax || hi > kGnuDupMax) {
            fail("Regular expression too big", RegexError::kTooBig);
            return std::nullopt;
        }
        if (hi >= 0 && lo > hi) {
            fail("Invalid content of \\{\\}");
            return std::nullopt;
        }
        if (lo > kRe2DupMax || hi > kRe2DupMax) {
            fail("Regular expression too big", RegexError::kTooBig);
            return std::nullopt;
        }
        (void)start;
        pos_ = i + (ere_ ? 1 : 2);
        if (hi < 0 && lo == 0) return std::string("*");
        std::string op(1, '{');
        op.append(std::to_string(lo));
        if (hi < 0) {
            op.push_back(',');
        } else if (hi != lo) {
            op.push_back(',');
            op.append(std::to_string(hi));
        }
        op.push_back('}');
        return op;
    }

    // A repetition operator at pos_ with `prev` the piece before it (null when there is none).
    // Returns false when the operator turned out to be literal text (the caller parses it as an atom).
    bool parse_quantifier(std::vector<Piece>& pieces) {
        Piece* prev = (pieces.empty() || pieces.back().anchor) ? nullptr : &pieces.back();
        const bool gnu = opt_.dialect == RegexDialect::kGnu;
        const bool brace = ere_ ? at('{') : at_escaped('{');
        if (!prev) {
            if (!ere_) {
                if (brace && !gnu) {
                    fail("Invalid preceding regular expression");
                    return true;
                }
                return false;  // a leading * \+ \? in a BRE is literal (and for grep a leading \{)
            }
            if (!gnu) {
                fail("Invalid preceding regular expression");
                return true;
            }
            // GNU ERE: a leading operator applies to nothing and is dropped; an invalid { is literal.
            if (brace) {
                const size_t save = pos_;
                if (!parse_interval()) {
                    if (failed_) return true;
                    pos_ = save;
                    return false;
                }
                return true;
            }
            ++pos_;
            return true;
        }
        if (!ere_ && !gnu && prev->quantified && (brace || p_[pos_] == '*')) {
            // glibc's RE_CONTEXT_INVALID_DUP (sed): a*\{2\} and a\{2\}* are errors; grep accepts them.
            fail("Invalid preceding regular expression");
            return true;
        }
        std::string op;
        if (brace) {
            auto q = parse_interval();
            if (!q) return failed_;  // GNU ERE literal '{' when not failed
            op = *q;
        } else if (p_[pos_] == '*') {
            op = "*";
            ++pos_;
        } else {
            op = std::string(1, ere_ ? p_[pos_] : p_[pos_ + 1]);
            pos_ += ere_ ? 1 : 2;
        }
        if (prev->quantified) prev->text = "(?:" + prev->text + ")";
        prev->text += op;
        prev->quantified = true;
        return true;
    }

    std::string parse_branch(int depth, bool in_group) {
        std::vector<Piece> pieces;
        while (!failed_ && pos_ < p_.size()) {
            const char c = p_[pos_];
            if (ere_) {
                if (c == '|') break;
                if (c == ')' && in_group) break;
            } else {
                if (at_escaped('|')) break;
                if (at_escaped(')')) {
                    if (in_group) break;
                    fail("Unmatched ) or \\)");
                    break;
                }
            }
            if (is_quantifier_here()) {
                if (parse_quantifier(pieces)) continue;
                if (failed_) break;
                // literal operator character
                Piece lit;
                if (!ere_ && c == '\\') {
                    lit.text = literal_ascii(static_cast<unsigned char>(p_[pos_ + 1]));
                    pos_ += 2;
                } else {
                    lit.text = literal_ascii(static_cast<unsigned char>(c));
                    ++pos_;
                }
                pieces.push_back(std::move(lit));
                continue;
            }
            Piece piece;
            if (!parse_atom(depth, in_group, pieces.empty(), piece)) break;
            pieces.push_back(std::move(piece));
        }
        std::string out;
        for (const auto& p : pieces) out += p.text;
        return out;
    }

    // One atom at pos_ (not a repetition operator). Returns false on failure.
    bool parse_atom(int depth, bool in_group, bool branch_start, Piece& piece) {
        const char c = p_[pos_];
        const bool open = ere_ ? c == '(' : at_escaped('(');
        if (open) {
            if (depth >= kMaxNesting) {
                fail("Regular expression too big", RegexError::kTooBig);
                return false;
            }
            pos_ += ere_ ? 1 : 2;
            const int index = ++groups_;
            std::string inner = parse_alt(depth + 1, true);
            if (failed_) return false;
            const bool close = ere_ ? at(')') : at_escaped(')');
            if (!close) {
                fail("Unmatched ( or \\(");
                return false;
            }
            pos_ += ere_ ? 1 : 2;
            closed_.resize(static_cast<size_t>(index) + 1, false);
            closed_[static_cast<size_t>(index)] = true;
            piece.text = "(" + inner + ")";
            return true;
        }
        if (c == '.') {
            ++pos_;
            piece.text = std::string(opt_.newline_sensitive ? "[^\\n]" : ".");
            return true;
        }
        if (c == '[') return parse_bracket(piece);
        if (c == '^') {
            if (ere_ || branch_start) {
                ++pos_;
                piece.text = std::string("^");
                piece.anchor = true;
                return true;
            }
            ++pos_;
            piece.text = std::string("\\^");
            return true;
        }
        if (c == '$') {
            ++pos_;
            bool anchor = ere_;
            if (!ere_) {
                anchor = pos_ >= p_.size() || at_escaped('|') || (in_group && at_escaped(')'));
            }
            piece.text = std::string(anchor ? "$" : "\\$");
            piece.anchor = anchor;
            return true;
        }
        if (c == '\\') {
            if (pos_ + 1 >= p_.size()) {
                fail("Trailing backslash");
                return false;
            }
            const char e = p_[pos_ + 1];
            if (e >= '1' && e <= '9') {
                const size_t n = static_cast<size_t>(e - '0');
                if (n >= closed_.size() || !closed_[n]) {
                    fail("Invalid back reference");
                } else {
                    fail("back-references are not supported", RegexError::kBackrefUnsupported);
                }
                return false;
            }
            pos_ += 2;
            switch (e) {
                case 'w': piece.text = std::string("[[:word:]]"); return true;
                case 'W': piece.text = std::string("[^[:word:]]"); return true;
                case 's': piece.text = std::string("[[:space:]]"); return true;
                case 'S': piece.text = std::string("[^[:space:]]"); return true;
                case 'b': case '<': case '>': piece.text = std::string("\\b"); piece.anchor = true; return true;
                case 'B': piece.text = std::string("\\B"); piece.anchor = true; return true;
                case '`': piece.text = std::string(opt_.newline_sensitive ? "\\A" : "^"); piece.anchor = true; return true;
                case '\'': piece.text = std::string("\\z"); piece.anchor = true; return true;
                default: break;
            }
            size_t i = pos_ - 1;
            piece.text = literal_at(i);
            pos_ = i;
            return true;
        }
        size_t i = pos_;
        piece.text = literal_at(i);
        pos_ = i;
        return true;
    }

    // A character inside a class, escaped for RE2.
    std::string class_char(uint32_t cp, std::string_view raw) const {
        if (cp < 0x80) {
            const auto c = static_cast<unsigned char>(cp);
            if (is_alnum(c)) return std::string(1, static_cast<char>(c));
            if (c < 0x20 || c == 0x7F) return hex(c);
            return std::string{'\\', static_cast<char>(c)};
        }
        if (latin1_) return hex(static_cast<unsigned char>(cp));
        return std::string(raw);
    }

    // One bracket member character at i: returns its code point and raw bytes.
    void bracket_char(size_t& i, uint32_t& cp, std::string_view& raw) const {
        size_t n = 1;
        cp = static_cast<unsigned char>(p_[i]);
        if (cp >= 0x80 && !latin1_) {
            const size_t m = utf8_len(p_, i, &cp);
            if (m > 0) n = m;
        }
        raw = p_.substr(i, n);
        i += n;
    }

    bool parse_bracket(Piece& piece) {
        static constexpr std::string_view kUnmatched = "Unmatched [, [^, [:, [., or [=";
        size_t i = pos_ + 1;
        bool negate = false;
        if (i < p_.size() && p_[i] == '^') {
            negate = true;
            ++i;
        }
        std::string items;
        bool first = true;
        while (true) {
            if (i >= p_.size()) {
                fail(std::string(kUnmatched));
                return false;
            }
            if (p_[i] == ']' && !first) {
                ++i;
                break;
            }
            first = false;
            uint32_t lo = 0;
            std::string_view lo_raw;
            bool is_class = false;
            if (p_[i] == '[' && i + 1 < p_.size() && (p_[i + 1] == ':' || p_[i + 1] == '.' || p_[i + 1] == '=')) {
                const char kind = p_[i + 1];
                size_t end = std::string_view::npos;
                for (size_t k = i + 2; k + 1 < p_.size(); ++k)
                    if (p_[k] == kind && p_[k + 1] == ']') {
                        end = k;
                        break;
                    }
                if (end == std::string_view::npos) {
                    fail(std::string(kUnmatched));
                    return false;
                }
                const std::string_view name = p_.substr(i + 2, end - (i + 2));
                i = end + 2;
                if (kind == ':') {
                    static constexpr std::string_view kClasses[] = {"alpha", "upper", "lower", "digit",
                                                                    "xdigit", "space", "print", "punct",
                                                                    "graph", "cntrl", "blank", "alnum"};
                    bool known = false;
                    for (auto k : kClasses) known = known || k == name;
                    if (!known) {
                        fail("Invalid character class name");
                        return false;
                    }
                    items += "[:" + std::string(name) + ":]";
                    if (!latin1_) {
                        if (name == "alpha" || name == "alnum") items += "\\p{L}";
                        if (name == "upper") items += "\\p{Lu}";
                        if (name == "lower") items += "\\p{Ll}";
                    }
                    is_class = true;
                } else {
                    size_t k = 0;
                    std::string_view raw;
                    uint32_t cp = 0;
                    if (name.empty()) {
                        fail("Invalid collation character");
                        return false;
                    }
                    Translator sub(name, ere_, opt_);
                    sub.bracket_char(k, cp, raw);
                    if (k != name.size()) {
                        fail("Invalid collation character");
                        return false;
                    }
                    lo = cp;
                    lo_raw = name;
                }
            } else {
                bracket_char(i, lo, lo_raw);
            }
            const bool range = i + 1 < p_.size() && p_[i] == '-' && p_[i + 1] != ']';
            if (is_class) {
                if (range) {
                    fail("Invalid range end");
                    return false;
                }
                continue;
            }
            if (!range) {
                items += class_char(lo, lo_raw);
                continue;
            }
            ++i;  // '-'
            uint32_t hi = 0;
            std::string_view hi_raw;
            if (p_[i] == '[' && i + 1 < p_.size() && p_[i + 1] == ':') {
                fail("Invalid range end");
                return false;
            }
            if (p_[i] == '[' && i + 1 < p_.size() && (p_[i + 1] == '.' || p_[i + 1] == '=')) {
                const char kind = p_[i + 1];
                size_t end = std::string_view::npos;
                for (size_t k = i + 2; k + 1 < p_.size(); ++k)
                    if (p_[k] == kind && p_[k + 1] == ']') {
                        end = k;
                        break;
                    }
                if (end == std::string_view::npos) {
                    fail(std::string(kUnmatched));
                    return false;
                }
                const std::string_view name = p_.substr(i + 2, end - (i + 2));
                size_t k = 0;
                if (name.empty()) {
                    fail("Invalid collation character");
                    return false;
                }
                Translator sub(name, ere_, opt_);
                sub.bracket_char(k, hi, hi_raw);
                if (k != name.size()) {
                    fail("Invalid collation character");
                    return false;
                }
                i = end + 2;
            } else {
                bracket_char(i, hi, hi_raw);
            }
            if (lo > hi) {
                fail("Invalid range end");
                return false;
            }
            items += class_char(lo, lo_raw) + "-" + class_char(hi, hi_raw);
        }
        if (negate && opt_.newline_sensitive) items += "\\n";
        pos_ = i;
        piece.text = std::string("[") + (negate ? "^" : "") + items + "]";
        return true;
    }

    std::string_view p_;
    bool ere_;
    const RegexOptions& opt_;
    bool latin1_ = false;
    size_t pos_ = 0;
    int groups_ = 0;
    std::vector<bool> closed_;
    bool failed_ = false;
    RegexError error_ = RegexError::kNone;
    std::string message_;
};

}  // namespace

RegexTranslation translate_ere(std::string_view pattern, const RegexOptions& options) {
    return Translator(pattern, true, options).run();
}

RegexTranslation translate_bre(std::string_view pattern, const RegexOptions& options) {
    return Translator(pattern, false, options).run();
}

Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;
Regex::~Regex() = default;

Regex Regex::compile(std::string_view pattern, RegexSyntax syntax, const RegexOptions& options) {
    Regex r;
    const RegexTranslation t =
        syntax == RegexSyntax::kExtended ? translate_ere(pattern, options) : translate_bre(pattern, options);
    if (!t.ok()) {
        r.error_ = t.error;
        r.message_ = t.message;
        return r;
    }
    RE2::Options o;
    o.set_log_errors(false);
    o.set_longest_match(true);
    o.set_case_sensitive(!options.icase);
    o.set_dot_nl(!options.newline_sensitive);
    o.set_encoding(t.latin1 ? RE2::Options::EncodingLatin1 : RE2::Options::EncodingUTF8);
    r.re_ = std::make_unique<RE2>(t.re2, o);
    if (!r.re_->ok()) {
        const bool big = r.re_->error_code() == RE2::ErrorPatternTooLarge || r.re_->error_code() == RE2::ErrorRepeatSize;
        r.error_ = big ? RegexError::kTooBig : RegexError::kSyntax;
        r.message_ = big ? "Regular expression too big" : "Invalid regular expression: " + r.re_->error();
        r.re_.reset();
        return r;
    }
    r.groups_ = r.re_->NumberOfCapturingGroups();
    if (!options.icase && !pattern.empty() && r.groups_ == 0) {
        const std::string_view special = syntax == RegexSyntax::kBasic ? "\\.[]*^$" : "\\.[]()*+?{}|^$";
        if (pattern.find_first_of(special) == std::string_view::npos) {
            r.literal_.assign(pattern);
            r.is_literal_ = true;
        }
    }
    return r;
}

bool Regex::match(std::string_view text) const {
    if (!re_) return false;
    if (is_literal_) return text == literal_;
    return re_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::ANCHOR_BOTH, nullptr, 0);
}

bool Regex::search(std::string_view text) const {
    if (!re_) return false;
    if (is_literal_) return text.find(literal_) != std::string_view::npos;
    return re_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, nullptr, 0);
}

bool Regex::search(std::string_view text, std::vector<RegexSpan>& spans, size_t from) const {
    spans.assign(static_cast<size_t>(groups_) + 1, RegexSpan{});
    if (!re_ || from > text.size()) return false;
    if (is_literal_) {
        const size_t at = text.find(literal_, from);
        if (at == std::string_view::npos) return false;
        spans[0] = RegexSpan{static_cast<long>(at), static_cast<long>(at + literal_.size())};
        return true;
    }
    // Most patterns have few groups: no allocation per call for them (sed s///g calls this per match).
    constexpr size_t kInline = 10;
    re2::StringPiece inline_sub[kInline];
    std::vector<re2::StringPiece> heap_sub;
    const size_t nsub = static_cast<size_t>(groups_) + 1;
    re2::StringPiece* sub = inline_sub;
    if (nsub > kInline) {
        heap_sub.resize(nsub);
        sub = heap_sub.data();
    }
    // A null data() marks an unset group, so the text must have a non-null base even when empty.
    if (text.data() == nullptr) text = std::string_view("", 0);
    const re2::StringPiece whole(text.data(), text.size());
    if (!re_->Match(whole, from, text.size(), RE2::UNANCHORED, sub, groups_ + 1)) return false;
    for (size_t k = 0; k < nsub; ++k) {
        if (sub[k].data() == nullptr) continue;
        const long b = static_cast<long>(sub[k].data() - text.data());
        spans[k] = RegexSpan{b, b + static_cast<long>(sub[k].size())};
    }
    return true;
}

}  // namespace bashkit::interp
