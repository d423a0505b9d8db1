#include "utils/search/matcher.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <re2/re2.h>

#include <cstdlib>
#include <cstring>

#include "base/lazy_library.hpp"
#include "interp/governor.hpp"
#include "interp/limits.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::search {
namespace {

// PCRE2 is opened on first use (base/lazy_library.hpp): most runs never use -P, and a start-up that loads it
// pays its relocations and page faults. The members are named as the 8-bit functions pcre2.h's macros expand
// to, so a call reads as PCRE2's own: `pcre().pcre2_match(...)`.
#define BASHKIT_PCRE2_FUNCTIONS(X) \
    X(pcre2_code_free_8) X(pcre2_compile_8) X(pcre2_compile_context_create_8) X(pcre2_compile_context_free_8) \
    X(pcre2_general_context_create_8) X(pcre2_general_context_free_8) X(pcre2_get_error_message_8) \
    X(pcre2_get_ovector_pointer_8) X(pcre2_jit_compile_8) X(pcre2_jit_stack_assign_8) \
    X(pcre2_jit_stack_create_8) X(pcre2_jit_stack_free_8) X(pcre2_match_8) X(pcre2_match_context_create_8) \
    X(pcre2_match_context_free_8) X(pcre2_match_data_create_from_pattern_8) X(pcre2_match_data_free_8) \
    X(pcre2_set_depth_limit_8) X(pcre2_set_heap_limit_8) X(pcre2_set_match_limit_8)
struct Pcre2Api {
    BASHKIT_PCRE2_FUNCTIONS(BASHKIT_API_MEMBER)
};
BASHKIT_DEFINE_API(Pcre2Api, pcre2_api, BASHKIT_SONAME_PCRE2, BASHKIT_PCRE2_FUNCTIONS)

// The loaded API: only once compile_pcre() has loaded it (every other call follows a compiled pattern).
const Pcre2Api& pcre() { return *pcre2_api(nullptr); }

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

// PCRE2's allocator: every block is charged to the session's budget (a null budget counts nothing), with
// its size kept in front of it so that free can release it.
constexpr size_t kHeader = alignof(std::max_align_t);

void* pcre_alloc(size_t n, void* data) {
    auto* budget = static_cast<interp::MemoryBudget*>(data);
    if (budget && !budget->try_charge(n + kHeader)) return nullptr;
    void* p = std::malloc(n + kHeader);
    if (!p) {
        if (budget) budget->release(n + kHeader);
        return nullptr;
    }
    *static_cast<size_t*>(p) = n;
    return static_cast<char*>(p) + kHeader;
}

void pcre_free(void* block, void* data) {
    if (!block) return;
    void* p = static_cast<char*>(block) - kHeader;
    auto* budget = static_cast<interp::MemoryBudget*>(data);
    if (budget) budget->release(*static_cast<size_t*>(p) + kHeader);
    std::free(p);
}

// Limits of one match: PCRE2's default backtracking limit (GNU grep keeps it), a heap of 64 MiB for the
// backtracking frames (charged to the budget as well), and a JIT stack of at most 8 MiB.
constexpr uint32_t kMatchLimit = 10'000'000;
constexpr uint32_t kDepthLimit = 10'000'000;
constexpr uint32_t kHeapLimitKiB = 64 * 1024;
constexpr size_t kJitStackMin = 32 * 1024;
constexpr size_t kJitStackMax = 8 << 20;

// GNU grep 3.8's words for a match that failed (pcresearch.c).
std::string pcre_match_error(int rc) {
    switch (rc) {
        case PCRE2_ERROR_NOMEMORY: return "memory exhausted";
        case PCRE2_ERROR_JIT_STACKLIMIT: return "exhausted PCRE JIT stack";
        case PCRE2_ERROR_MATCHLIMIT: return "exceeded PCRE's backtracking limit";
        case PCRE2_ERROR_DEPTHLIMIT: return "exceeded PCRE's nested backtracking limit";
        case PCRE2_ERROR_RECURSELOOP: return "PCRE detected recurse loop";
        case PCRE2_ERROR_HEAPLIMIT: return "exceeded PCRE's heap limit";
        default: return "internal PCRE error: " + std::to_string(rc);
    }
}

}  // namespace

struct Pcre {
    pcre2_general_context* gen = nullptr;
    pcre2_compile_context* cctx = nullptr;
    pcre2_match_context* mctx = nullptr;
    pcre2_code* code = nullptr;
    pcre2_jit_stack* jit_stack = nullptr;
    pcre2_match_data* md = nullptr;
    ~Pcre() {
        if (md) pcre().pcre2_match_data_free(md);
        if (jit_stack) pcre().pcre2_jit_stack_free(jit_stack);
        if (code) pcre().pcre2_code_free(code);
        if (mctx) pcre().pcre2_match_context_free(mctx);
        if (cctx) pcre().pcre2_compile_context_free(cctx);
        if (gen) pcre().pcre2_general_context_free(gen);
    }
};

namespace {

// Compiles grep -P's (or rg -P's) pattern; on failure `error` is PCRE2's message, as GNU grep prints it.
std::unique_ptr<Pcre> compile_pcre(const std::vector<std::string>& patterns, const MatcherOptions& opt,
                                   std::string& error) {
    std::string core;
    for (size_t k = 0; k < patterns.size(); ++k) {
        if (k) core += '|';
        if (patterns.size() > 1) core += "(?:";
        core += patterns[k];
        if (patterns.size() > 1) core += ')';
    }
    std::string src;
    if (opt.line)
        src = "^(?:" + core + ")$";
    else if (opt.word)
        src = "(?<!\\w)(?:" + core + ")(?!\\w)";
    else
        src = core;
    std::string why;
    if (!pcre2_api(&why)) {
        error = "PCRE2 cannot be loaded: " + why;
        return nullptr;
    }
    auto p = std::make_unique<Pcre>();
    p->gen = pcre().pcre2_general_context_create(pcre_alloc, pcre_free, opt.memory);
    if (!p->gen) {
        error = "memory exhausted";
        return nullptr;
    }
    p->cctx = pcre().pcre2_compile_context_create(p->gen);
    p->mctx = pcre().pcre2_match_context_create(p->gen);
    if (!p->cctx || !p->mctx) {
        error = "memory exhausted";
        return nullptr;
    }
    uint32_t flags = PCRE2_DOLLAR_ENDONLY;
    if (opt.icase) flags |= PCRE2_CASELESS;
    if (opt.utf8) flags |= PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF;
    int errcode = 0;
    PCRE2_SIZE erroff = 0;
    p->code = pcre().pcre2_compile(reinterpret_cast<PCRE2_SPTR>(src.data()), src.size(), flags, &errcode, &erroff, p->cctx);
    if (!p->code) {
        PCRE2_UCHAR buf[256];
        if (pcre().pcre2_get_error_message(errcode, buf, sizeof buf) < 0) {
            error = "invalid regular expression";
        } else {
            error = reinterpret_cast<const char*>(buf);
        }
        // ripgrep's words (rg -P is the UTF-8 caller).
        if (opt.utf8) error = "PCRE2: error compiling pattern at offset " + std::to_string(erroff) + ": " + error;
        return nullptr;
    }
    pcre().pcre2_set_match_limit(p->mctx, kMatchLimit);
    pcre().pcre2_set_depth_limit(p->mctx, kDepthLimit);
    pcre().pcre2_set_heap_limit(p->mctx, kHeapLimitKiB);
    if (pcre().pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE) == 0) {
        p->jit_stack = pcre().pcre2_jit_stack_create(kJitStackMin, kJitStackMax, p->gen);
        if (p->jit_stack) pcre().pcre2_jit_stack_assign(p->mctx, nullptr, p->jit_stack);
    }
    p->md = pcre().pcre2_match_data_create_from_pattern(p->code, p->gen);
    if (!p->md) {
        error = "memory exhausted";
        return nullptr;
    }
    return p;
}

}  // namespace

Matcher::~Matcher() = default;

std::string Matcher::pcre_failure() const {
    PCRE2_UCHAR buf[256];
    if (pcre().pcre2_get_error_message(failure_code_, buf, sizeof buf) < 0) return failure_;
    return reinterpret_cast<const char*>(buf);
}

bool Matcher::pcre_match(std::string_view line, size_t from, size_t* begin, size_t* end) const {
    if (failed_) return false;
    if (cancel_ && cancel_->cancelled()) {
        failed_ = true;
        return false;
    }
    if (line.data() == nullptr) line = std::string_view("", 0);
    const int rc = pcre().pcre2_match(pcre_->code, reinterpret_cast<PCRE2_SPTR>(line.data()), line.size(), from, 0,
                               pcre_->md, pcre_->mctx);
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc < 0) {
        failed_ = true;
        failure_ = pcre_match_error(rc);
        failure_code_ = rc;
        return false;
    }
    if (begin) {
        const PCRE2_SIZE* ov = pcre().pcre2_get_ovector_pointer(pcre_->md);
        *begin = ov[0];
        *end = ov[1];
        if (*begin > *end) *begin = *end;  // \K inside a lookahead
    }
    return true;
}

std::unique_ptr<Matcher> Matcher::compile(const std::vector<std::string>& patterns, const MatcherOptions& opt,
                                          std::string& error) {
    std::unique_ptr<Matcher> m(new Matcher());
    m->eol_ = opt.eol;
    if (patterns.empty()) return m;
    if (opt.syntax == Syntax::kPerl) {
        m->pcre_ = compile_pcre(patterns, opt, error);
        if (!m->pcre_) return nullptr;
        m->buffer_search_ = false;
        m->cancel_ = opt.cancel;
        return m;
    }
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
    if (pcre_) return pcre_match(line, 0, nullptr, nullptr);
    if (!re_) return false;
    if (line.data() == nullptr) line = std::string_view("", 0);
    return re_->Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), RE2::UNANCHORED, nullptr, 0);
}

bool Matcher::find_line(std::string_view buf, size_t from, size_t& line_begin, size_t& line_end) const {
    if (!re_ && !pcre_) return false;
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
    if (pcre_) return from <= line.size() && pcre_match(line, from, &begin, &end);
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

}  // namespace bashkit::utils::search
