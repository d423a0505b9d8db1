// Recursive-descent parser for bash: words, with their quotes, parameter expansions, command, process and
// arithmetic substitutions, backquotes and extglob groups.
#include <algorithm>
#include <cstring>

#include "interp/syntax/parser_impl.hpp"

namespace bashkit::syntax::detail {
namespace {

bool is_digit(int c) { return c >= '0' && c <= '9'; }
bool is_special_param(int c) {
    return c == '@' || c == '*' || c == '#' || c == '?' || c == '-' || c == '$' || c == '!' || c == '0';
}

// Bytes that read_word of a command-level word (WordMode Normal, Cond, CondPattern) adds to the literal
// without a second look: not a terminator, quote, escape, expansion or extglob/process-substitution opener.
struct PlainTable {
    bool word[256] = {};
    bool dquote[256] = {};
    constexpr PlainTable() {
        for (int c = 0; c < 256; ++c) word[c] = dquote[c] = true;
        for (unsigned char c : std::string_view(" \t\n;&|()<>\\'\"`$?*+@!")) word[c] = false;
        for (unsigned char c : std::string_view("\"\\$`")) dquote[c] = false;
    }
};
constexpr PlainTable kPlain;

}  // namespace

// ---------------------------------------------------------------- words

Word* Parser::read_word(WordMode m, bool in_dq) {
    Pos wpos = lexer_.pos();
    Parts parts;
    LitBuf lit;
    int depth = 0;
    bool ext = opt_.extglob || m == WordMode::Cond || m == WordMode::CondPattern || m == WordMode::ExtAlt;
    bool cmdlike = m == WordMode::Normal || m == WordMode::Cond || m == WordMode::CondPattern;
    bool lead_slash = pat_lead_slash_;
    pat_lead_slash_ = false;
    bool sq_open = false;  // inside '..' of a double-quoted ${x-word}
    // Where those quotes close, as bash's reader finds them (the next quote: no escapes there). A
    // substitution or quotes in them are read within them (`"${x-'${\'}"`: the `'` ends the `${` bash's
    // reader skips as text; read past it, the `${` would take it).
    uint32_t sq_close = 0;
    auto in_sq = [&](auto read) -> Node* {
        if (!sq_open || sq_close >= lexer_.end()) return read();
        const uint32_t end = lexer_.end();
        lexer_.set_end(sq_close);
        Node* q = read();
        lexer_.set_end(end);
        return q;
    };
    int ternary = 0;       // ParamOff: '?' waiting for their ':'
    for (;;) {
        if (failed()) break;
        int c = lexer_.peek();
        if (c < 0) break;
        if (cmdlike && kPlain.word[c]) {  // a run of plain bytes at once, as lit_char would add them one by one
            const char* p = src_.data();
            uint32_t from = lexer_.off(), to = from + 1;
            while (to < lexer_.end() && kPlain.word[static_cast<unsigned char>(p[to])]) ++to;
            lit_add(lit, from, to - from, lexer_.pos());
            lexer_.advance(to - from);
            continue;
        }
        // the next byte: raw after a backslash (the escaped byte), else across line continuations
        int n = c == '\\' ? lexer_.peek(1) : lexer_.peekj(1);
        // terminators
        if (cmdlike) {
            if (Lexer::is_meta(c) && !((c == '<' || c == '>') && n == '(')) break;
        } else if (m == WordMode::Regex) {
            if (depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '<' ||
                               c == '>' || c == ')'))
                break;
            if (c == '(') ++depth;
            if (c == ')') --depth;
            if (c == '(' || c == ')' || c == '|' || c == ' ' || c == '\t' || c == '\n' || c == ';' ||
                c == '&' || c == '<' || c == '>') {
                lit_char(lit);
                continue;
            }
        } else if (m == WordMode::ExtAlt) {
            if (depth == 0 && (c == '|' || c == ')')) break;
            if (c == '(') ++depth;
            if (c == ')') --depth;
        } else if (m == WordMode::ParamArg || m == WordMode::ParamPatArg) {
            if (c == '}' && !sq_open) break;
        } else if (m == WordMode::ParamPat) {
            if (c == '/' && lead_slash) {
                lead_slash = false;
                lit_char(lit);
                continue;
            }
            if (c == '}' || c == '/') break;
        } else if (m == WordMode::ParamOff) {
            // ${s:a?b:c:len}: a ':' that closes a '?' belongs to the offset's conditional
            if (c == '}') break;
            if (c == ':' && ternary-- == 0) break;
            if (c == '?') ++ternary;
        }
        switch (c) {
        case '\\': {
            if (n == '\n') {
                lexer_.advance(2);
                continue;
            }
            if (n < 0 && opt_.stream_input) {
                lexer_.advance();
                continue;
            }
            if (n < 0) {
                // A backslash that ends the input stands for itself, as a quoted one would: an Escaped
                // part of text `\`, which the printer writes `\\` (a raw `\` would join what follows it).
                lit_flush(lit, parts);
                Escaped* e = arena_.node<Escaped>(lexer_.pos());
                e->text = src_.substr(lexer_.off(), 1);
                parts.push_back(e);
                lexer_.advance();
                continue;
            }
            if (in_dq) {
                // inside "${x:-...}": backslash keeps its double-quote meaning
                // (and \' in a pattern, where single quotes quote, and \/ in the pattern of ${x/p/r},
                // where it is a slash of the pattern: "${x//\/a/b}")
                bool pat = m == WordMode::ParamPat || m == WordMode::ParamPatArg;
                if (n == '$' || n == '`' || n == '"' || n == '\\' || n == '}' || (n == '\'' && pat) ||
                    (n == '/' && m == WordMode::ParamPat)) {
                    lit_add(lit, lexer_.off() + 1, 1, lexer_.pos());
                    lexer_.advance(2);
                } else if (n == '\'' && m == WordMode::ParamArg && !sq_open) {
                    // "${x-\'}": the quote is escaped for bash's reader (it opens no pair), and both stay
                    lit_char(lit);
                    lit_char(lit);
                } else {
                    lit_char(lit);
                }
                continue;
            }
            lit_flush(lit, parts);
            Escaped* e = arena_.node<Escaped>(lexer_.pos());
            e->text = src_.substr(lexer_.off() + 1, 1);
            parts.push_back(e);
            lexer_.advance(2);
            continue;
        }
        case '\'':
            if (in_dq && m == WordMode::ParamArg) {
                // "${x-'a}'}": the quotes stay in the value, and a } between them (expansions still
                // happen there) does not end the word
                sq_open = !sq_open;
                if (sq_open) {
                    const size_t q = src_.find('\'', lexer_.off() + 1);
                    sq_close = q == std::string_view::npos || q > lexer_.end() ? lexer_.end()
                                                                               : static_cast<uint32_t>(q);
                }
                break;
            }
            // bash 5.2: inside double quotes, single quotes quote only in the pattern and replacement
            // words of ${x#p}, ${x/p/r}, ${x^p} and the like
            if (in_dq && m != WordMode::ParamPat && m != WordMode::ParamPatArg) break;
            lit_flush(lit, parts);
            if (Node* q = read_squote()) parts.push_back(q);
            continue;
        case '"':
            lit_flush(lit, parts);
            if (Node* q = in_sq([&] { return read_dquote(false); })) parts.push_back(q);
            continue;
        case '`':
            lit_flush(lit, parts);
            if (Node* q = in_sq([&] { return read_backtick(false); })) parts.push_back(q);
            continue;
        case '$': {
            Pos p = lexer_.pos();
            uint32_t off = lexer_.off();
            Node* q = nullptr;
            if (in_dq && (n == '\'' || n == '"')) {
                // In the word of a ${..} inside double quotes, $'..' is ANSI-C quoting and $".." a
                // translated string (bash's extquote, on by default); in a here-document body they stay text.
                if (in_heredoc_body_) break;
                q = in_sq([&] { return n == '\'' ? read_ansic() : read_dquote(true); });
            } else {
                // read_dollar reads $'..' and $".." outside double quotes only
                q = in_sq([&] { return read_dollar(in_dq); });
            }
            if (q) {
                lit_flush(lit, parts);
                parts.push_back(q);
            } else if (!failed()) {
                lit_add(lit, off, 1, p);
                lexer_.advance();
            }
            continue;
        }
        case '<':
        case '>':
            if (n == '(' && m != WordMode::Limit && !in_dq) {
                lit_flush(lit, parts);
                if (Node* q = read_procsubst()) parts.push_back(q);
                continue;
            }
            break;
        case '?':
        case '*':
        case '+':
        case '@':
        case '!':
            if (n == '(' && ext && m != WordMode::Limit && !in_dq) {
                lit_flush(lit, parts);
                if (Node* q = read_extglob()) parts.push_back(q);
                continue;
            }
            break;
        default: break;
        }
        lit_char(lit);
    }
    if (m == WordMode::Regex && depth > 0 && !failed()) {
        error(wpos, "unexpected EOF while looking for matching `)'");
        return nullptr;
    }
    lit_flush(lit, parts);
    return make_word(wpos, parts);
}

Node* Parser::read_squote() {
    Pos p = lexer_.pos();
    uint32_t from = lexer_.off() + 1;
    const void* q = std::memchr(src_.data() + from, '\'', lexer_.end() - std::min(from, lexer_.end()));
    if (!q || from > lexer_.end()) {
        error(p, "unexpected EOF while looking for matching `''");
        return nullptr;
    }
    uint32_t to = static_cast<uint32_t>(static_cast<const char*>(q) - src_.data());
    SglQuoted* s = arena_.node<SglQuoted>(p);
    s->text = src_.substr(from, to - from);
    lexer_.advance_to(to + 1);
    return s;
}

// `\\'` in double quotes or a here-document's body: the backslash is an Escaped part, apart from the Lit of a
// `\'`, the same text: bash's expansion reads them apart when it reads a `${` again past the `}` its reader
// ended it at, where the quote opens a pair in the first only (`"${x-${a[}]}\\'}"` is a bad substitution,
// `"${x-${a[}]}\'}"` is not), and the printer writes each as it was.
void Parser::escaped_backslash(LitBuf& lit, Parts& parts) {
    lit_flush(lit, parts);
    Escaped* e = arena_.node<Escaped>(lexer_.pos());
    e->text = src_.substr(lexer_.off() + 1, 1);
    parts.push_back(e);
    lexer_.advance(2);
}

Node* Parser::read_dquote(bool locale) {
    Pos p = lexer_.pos();
    lexer_.advance_joined(locale ? 2 : 1);  // $" or "
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    Restore<uint32_t> keep(dq_braces_, brace_depth_);
    Parts parts;
    LitBuf lit;
    for (;;) {
        if (failed()) return nullptr;
        int c = lexer_.peek();
        if (c < 0) {
            error(p, "unexpected EOF while looking for matching `\"'");
            return nullptr;
        }
        if (c == '"') {
            lexer_.advance();
            break;
        }
        if (c == '\\') {
            int n = lexer_.peek(1);
            if (n == '\n') {
                lexer_.advance(2);
                continue;
            }
            if (n == '\\' && lexer_.peek(2) == '\'') {
                escaped_backslash(lit, parts);
                continue;
            }
            if (n == '$' || n == '`' || n == '"' || n == '\\') {
                lit_add(lit, lexer_.off() + 1, 1, lexer_.pos());
                lexer_.advance(2);
                continue;
            }
            lit_char(lit);
            continue;
        }
        if (c == '$') {
            Pos dp = lexer_.pos();
            uint32_t off = lexer_.off();
            Node* n = read_dollar(true);
            if (n) {
                lit_flush(lit, parts);
                parts.push_back(n);
            } else if (!failed()) {
                lit_add(lit, off, 1, dp);
                lexer_.advance();
            }
            continue;
        }
        if (c == '`') {
            lit_flush(lit, parts);
            if (Node* n = read_backtick(true)) parts.push_back(n);
            continue;
        }
        // a run of plain bytes at once
        const char* s = src_.data();
        uint32_t from = lexer_.off(), to = from + 1;
        while (to < lexer_.end() && kPlain.dquote[static_cast<unsigned char>(s[to])]) ++to;
        lit_add(lit, from, to - from, lexer_.pos());
        lexer_.advance(to - from);
    }
    lit_flush(lit, parts);
    DblQuoted* q = arena_.node<DblQuoted>(p);
    q->locale = locale;
    q->parts = arena_.list<Node*>(parts);
    return q;
}

static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x110000) {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

Node* Parser::read_ansic() {
    Pos p = lexer_.pos();
    lexer_.advance_joined(2);  // $'
    uint32_t from = lexer_.off();
    std::string out;
    bool truncated = false;
    auto put = [&](char ch) {
        if (ch == '\0') truncated = true;
        if (!truncated) out += ch;
    };
    for (;;) {
        int c = lexer_.peek();
        if (c < 0) {
            error(p, "unexpected EOF while looking for matching `''");
            return nullptr;
        }
        if (c == '\'') break;
        if (c != '\\') {
            put(static_cast<char>(c));
            lexer_.advance();
            continue;
        }
        int n = lexer_.peek(1);
        if (n < 0) {
            put('\\');
            lexer_.advance();
            continue;
        }
        lexer_.advance(2);
        switch (n) {
        case 'n': put('\n'); break;
        case 't': put('\t'); break;
        case 'r': put('\r'); break;
        case 'a': put('\a'); break;
        case 'b': put('\b'); break;
        case 'e':
        case 'E': put('\x1b'); break;
        case 'f': put('\f'); break;
        case 'v': put('\v'); break;
        case '\\': put('\\'); break;
        case '\'': put('\''); break;
        case '"': put('"'); break;
        case '?': put('?'); break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            int v = n - '0';
            for (int i = 0; i < 2 && lexer_.peek() >= '0' && lexer_.peek() <= '7'; ++i) {
                v = v * 8 + (lexer_.peek() - '0');
                lexer_.advance();
            }
            put(static_cast<char>(v & 0xFF));
            break;
        }
        case 'x': {
            int v = 0, k = 0;
            while (k < 2 && hexval(lexer_.peek()) >= 0) {
                v = v * 16 + hexval(lexer_.peek());
                lexer_.advance();
                ++k;
            }
            if (k == 0) {
                put('\\');
                put('x');
            } else {
                put(static_cast<char>(v));
            }
            break;
        }
        case 'u':
        case 'U': {
            uint32_t v = 0;
            int k = 0, max = n == 'u' ? 4 : 8;
            while (k < max && hexval(lexer_.peek()) >= 0) {
                v = v * 16 + static_cast<uint32_t>(hexval(lexer_.peek()));
                lexer_.advance();
                ++k;
            }
            if (k == 0) {
                put('\\');
                put(static_cast<char>(n));
            } else if (v == 0) {
                truncated = true;
            } else if (!truncated) {
                put_utf8(out, v);
            }
            break;
        }
        case 'c': {
            int x = lexer_.peek();
            if (x < 0 || x == '\'') {
                put('\\');
                put('c');
                break;
            }
            lexer_.advance();
            if (x == '\\' && lexer_.peek() == '\\') lexer_.advance();
            if (x == '?') put('\x7f');
            else put(static_cast<char>(std::toupper(x) & 0x1f));
            break;
        }
        default:
            put('\\');
            put(static_cast<char>(n));
            break;
        }
    }
    AnsiCQuoted* q = arena_.node<AnsiCQuoted>(p);
    q->raw = src_.substr(from, lexer_.off() - from);
    q->value = arena_.str(out);
    lexer_.advance();  // '
    return q;
}

Node* Parser::memo_get(uint32_t off, bool in_dq, bool docs) {
    if (memo_.empty()) return nullptr;
    auto it = memo_.find(memo_key(off, in_dq));
    if (it == memo_.end() || it->second.text_end != lexer_.end()) return nullptr;
    lexer_.restore(it->second.end);
    if (docs) heredocs_.insert(heredocs_.end(), it->second.docs.begin(), it->second.docs.end());
    return it->second.node;
}

void Parser::memo_put(uint32_t off, bool in_dq, Node* n, size_t docs_before) {
    if (speculating_ == 0 || !n || failed()) return;
    Memo m{n, lexer_.save(), {}, lexer_.end()};
    if (heredocs_.size() > docs_before)
        m.docs.assign(heredocs_.begin() + static_cast<std::ptrdiff_t>(docs_before), heredocs_.end());
    memo_[memo_key(off, in_dq)] = std::move(m);
}

Node* Parser::read_dollar(bool in_dq) {
    Pos p = lexer_.pos();
    int n = lexer_.peekj(1);
    uint32_t off = lexer_.off();
    if (n == '{' || n == '(' || n == '[') {
        // Not a `${` read where read_brace_param checks its parts' end (outside speculation, at the outermost
        // level): a speculative read did not check it (`${a[};]}` after a `$(` read past it took `;`).
        const bool checked = n == '{' && speculating_ == 0 && brace_depth_ == 0;
        if (Node* m = checked ? nullptr : memo_get(off, in_dq)) return m;
        const size_t docs_before = heredocs_.size();
        Node* r = nullptr;
        if (n == '{') r = read_brace_param(in_dq);
        else if (n == '[') r = read_arith_bracket();
        else if (lexer_.peekj(2) == '(') r = read_dollar_dparen();
        else r = read_cmdsubst();
        memo_put(off, in_dq, r, docs_before);
        return r;
    }
    if (!in_dq && n == '\'') return read_ansic();
    if (!in_dq && n == '"') return read_dquote(true);
    ParamExp* pe = arena_.node<ParamExp>(p);
    uint32_t first = lexer_.skip_cont(off + 1);
    if (is_name_start(n)) {
        uint32_t i = lexer_.skip_cont(first + 1);
        while (i < lexer_.end() && is_name_char(static_cast<unsigned char>(src_[i]))) i = lexer_.skip_cont(i + 1);
        pe->name = joined(first, i);
        lexer_.advance_to(i);
        return pe;
    }
    if (is_digit(n) || is_special_param(n)) {
        pe->name = src_.substr(first, 1);
        lexer_.advance_to(first + 1);
        return pe;
    }
    return nullptr;
}

// Moves to the `}` that ends the `${` opened at p (the cursor inside it) as bash's reader finds it when it
// reads the word (a matched-pair reader): it skips quoted text, backquotes and `$(...)`, so a `}` in them
// does not end the `${` (`${a"}"}` is one), and only a nested `${` nests. `$'...'` is ANSI-C quoting, with
// its escapes, outside double quotes only. False with an error when the input ends first.
bool Parser::skip_brace_text(Pos p, bool in_dq, char close) {
    int depth = 0;
    for (;;) {
        int c = lexer_.peek();
        if (c < 0) {
            error(p, std::string("unexpected EOF while looking for matching `") + close + "'");
            return false;
        }
        // only a nested `${` nests, as in bash (`${a[{1} x]}` ends at the first `}`); `$[` is a pair of its
        // own, in which a `[` nests (`${$[}]}` is one)
        if (c == '$' && (lexer_.peek(1) == '{' || lexer_.peek(1) == '[')) {
            Pos q = lexer_.pos();
            Depth d(*this, q);
            if (!d.ok) return false;
            const char inner = lexer_.peek(1) == '{' ? '}' : ']';
            lexer_.advance(2);
            if (!skip_brace_text(q, in_dq, inner)) return false;
        } else if (close == ']' && c == '[') {
            ++depth;
        } else if (c == '$' && lexer_.peek(1) == '(') {
            // read as commands where it is a command substitution (its here-documents' lines are its own)
            if (!skip_paren_text(lexer_.peek(2) != '(', in_dq)) return false;
        } else if ((c == '<' || c == '>') && lexer_.peek(1) == '(') {
            // a process substitution is read as commands too (`${a:-<(echo })}` is one); in double quotes,
            // where it is text, its parentheses are still a pair
            if (!skip_paren_text(!in_dq, false)) return false;
        } else if (c == '\'' || c == '"' || c == '`' || (c == '$' && lexer_.peek(1) == '\'' && !in_dq)) {
            const bool ansi = c == '$';
            if (ansi) lexer_.advance();
            c = lexer_.peek();
            Pos q = lexer_.pos();
            lexer_.advance();
            for (;;) {
                int d = lexer_.peek();
                if (d < 0) {
                    error(q, std::string("unexpected EOF while looking for matching `") + static_cast<char>(c) +
                                 "'");
                    return false;
                }
                if (d == c) break;
                if (c == '"' && d == '$' && lexer_.peek(1) == '{') {
                    // a nested `${` is a pair of its own in double quotes too (`"${x:"${"}" ...`)
                    Pos r = lexer_.pos();
                    Depth dd(*this, r);
                    if (!dd.ok) return false;
                    lexer_.advance(2);
                    if (!skip_brace_text(r, true)) return false;
                } else if (c == '"' && d == '$' && lexer_.peek(1) == '(') {
                    // a `"` in it is its own: read as commands, else skipped to its matching `)`
                    if (!skip_paren_text(lexer_.peek(2) != '(', true)) return false;
                }
                if (d == '\\' && (c != '\'' || ansi) && lexer_.peek(1) >= 0) lexer_.advance();
                lexer_.advance();
            }
        } else if (c == close && depth-- == 0) {
            break;
        } else if (c == '\\' && lexer_.peek(1) >= 0) {
            lexer_.advance();
        }
        lexer_.advance();
    }
    return true;
}

bool Parser::skip_paren_text(bool commands, bool in_dq) {
    // not while speculating (see read_brace_param)
    if (commands && speculating_ == 0) {
        if (std::optional<uint32_t> end = cmdsubst_end(lexer_.off(), in_dq)) {
            lexer_.advance_to(*end);
            return true;
        }
    }
    Pos open = lexer_.pos();
    lexer_.advance(2);
    return scan_matched_paren(open);
}

// A `${` whose text, read as its parts are, runs past the `}` that ends it when bash reads the word
// (`${y:-${a[1} x]}`: the subscript of the inner one takes that `}`, as bash's expansion does, and the
// input ends before another): bash reads the word and fails only when it expands it ("bad substitution").
// So do we, when the parts read to the end of the input: the text up to that `}` is kept as a bad
// substitution. Any other error is the word's.
Parser::BraceFallbackKey Parser::brace_fallback_key(bool in_dq) const {
    const LexState at = lexer_.save();
    return {at.frame,
            at.off,
            lexer_.end(),
            brace_depth_,
            dq_braces_,
            static_cast<uint32_t>(heredocs_.size()),
            static_cast<uint8_t>((in_dq ? 1 : 0) | (in_heredoc_body_ ? 2 : 0) | (in_arith_text_ ? 4 : 0) |
                                 (brace_in_dq_ ? 8 : 0) | (speculating_ ? 16 : 0))};
}

Node* Parser::read_brace_param(bool in_dq) {
    const BraceFallbackKey key = brace_fallback_key(in_dq);
    if (auto it = brace_fallbacks_.find(key); it != brace_fallbacks_.end()) {
        lexer_.restore(it->second.end);
        return it->second.node;
    }
    const LexState st = lexer_.save();
    const Pos st_pos = lexer_.pos();
    const uint32_t end = lexer_.end();  // an error moves it to the end of the text (force_eof)
    const size_t docs = heredocs_.size();
    // Not while speculating: a speculative read is remembered and found again by the word's own read, and
    // the scan below reads the `$( )` in the text as commands, speculating in turn (2^n at n levels).
    const bool word_bound = !in_dq && brace_depth_ == 0 && !in_heredoc_body_ && !in_arith_text_ && speculating_ == 0;
    Node* n = read_brace_parts(in_dq);
    // The `${` read again as bash's reader reads it, to the `}` it ends at: its start, the offset of its text,
    // whether that `}` was found, and its offset.
    struct Rescan {
        Pos p;
        uint32_t body;
        bool closed;
        uint32_t close;
    };
    auto rescan = [&] {
        lexer_.restore(st);
        Rescan r{lexer_.pos(), 0, false, 0};
        lexer_.advance_joined(2);
        lexer_.splice();
        r.body = lexer_.off();
        r.closed = skip_brace_text(r.p, in_dq);
        err.reset();
        lexer_.set_end(end);
        r.close = lexer_.off();
        return r;
    };
    // The `${` as a bad substitution whose text ends at that `}` (an error when it runs, as in bash).
    auto cut = [&](const Rescan& r) -> Node* {
        if (heredocs_.size() > docs) heredocs_.resize(docs);
        ParamExp* b = arena_.node<ParamExp>(r.p);
        b->braced = true;
        b->name = src_.substr(r.body, r.close - r.body);
        lexer_.advance();
        return b;
    };
    if (n && word_bound) {
        // The parts may go on past the `}` bash's reader ends the `${` at, but only as far as the word goes
        // (`${H[}]: <}`: the word is `${H[}]:`, whose expansion finds no `}`; the parts took ` <}`).
        const LexState after = lexer_.save();
        const Rescan r = rescan();
        if (!r.closed || r.close + 1 >= after.off || !has_word_break(r.close + 1, after.off - 1)) {
            lexer_.restore(after);
            return n;
        }
        return cut(r);
    }
    if (n && in_dq && brace_depth_ == 0 && !in_heredoc_body_ && speculating_ == 0) {
        // In double quotes bash's expansion takes the quoted text out of the word (as far as its reader reads
        // the word) with its own reading of each `${` in it (dq_brace_end), then reads the `${` in that text
        // alone: past the `}` its reader ends it at, the parts may go on only within that text (`"${a[1}"x"]}"`:
        // the subscript `1}"x"`; `"${u:-${a[}"x"]}}"`: the text ends at the last `"`). Else it is a bad
        // substitution of the reader's text (`"${y:${a[}]}" <"}"`: the text ends at the `"` after the `${y:`'s
        // last `}`; the parts took `" <"}`). So in an arithmetic text too (`$["${u-${a[}]}"] <"}"`), where
        // the check below follows.
        const LexState after = lexer_.save();
        const Rescan r = rescan();
        bool within = !r.closed || r.close + 1 >= after.off;
        if (!within) {
            const uint32_t word_end = word_break(r.close + 1, end, '"');
            const LexState at_close = lexer_.save();
            lexer_.restore(st);  // where its `$( )` are read as commands
            const uint32_t close = dq_brace_end(r.body, word_end);
            const uint32_t text_end = close < word_end ? dq_text_end(close + 1, word_end, 0) : word_end;
            within = after.off <= text_end;
            lexer_.restore(at_close);
        }
        if (!within) return cut(r);
        lexer_.restore(after);
        if (!in_arith_text_) return n;
    }
    if (n && !in_dq && in_dparen_text_ && in_arith_text_ && brace_depth_ == 0 && !in_heredoc_body_) {
        // bash's reader does not pair a `${` in a `$((` text (outside double quotes), which it ends by its
        // parentheses alone: parts that read past a `)` closing the parentheses around the `${` went past the
        // end of that text (or of a group in it), whatever `}` they found after it (`<$((${)) y[})]`). The
        // `$((` text is then read as one that is not arithmetic (read_dollar_dparen), its error kept for run
        // time.
        const LexState after = lexer_.save();
        const uint32_t from = st.off + 2, to = after.off;
        int depth = 0;
        bool past = false;
        uint32_t i = from;
        for (; i + 1 < to && !past; ++i) {
            const char c = src_[i];
            if (c == '\\') {
                ++i;
            } else if (c == '\'' || c == '"') {
                while (++i + 1 < to && src_[i] != c)
                    if (c == '"' && src_[i] == '\\') ++i;
            } else if (c == '(') {
                ++depth;
            } else if (c == ')' && depth-- == 0) {
                past = true;
            }
        }
        // unless the `}` bash's reader ends it at comes first (`$((${a[})) <]}`: cut there, below)
        if (past) {
            const uint32_t paren = i - 1;
            const Rescan r = rescan();
            lexer_.restore(after);
            past = !r.closed || r.close > paren;
        }
        if (past) {
            arith_brace_eof_ = true;
            error(st_pos, "unexpected EOF while looking for matching `}'");
            return nullptr;
        }
    }
    if (n && in_arith_text_ && !in_heredoc_body_) {
        // In an arithmetic text, whose end bash's reader finds first by its parentheses (by its brackets in
        // a `$[` text), the parts stop at that end too (`$((${a[})) <]}`: the subscript took `)) <]`;
        // `$[${H[}]:] <}`: the offset took `] <`).
        const LexState after = lexer_.save();
        const Rescan r = rescan();
        const bool brackets = in_bracket_text_ && !in_dq && brace_depth_ == 0;  // directly in a `$[` text
        const char open = brackets ? '[' : '(', close = brackets ? ']' : ')';
        bool past = false;
        int depth = 0;
        for (uint32_t i = r.close + 1; r.closed && i + 1 < after.off && !past; ++i) {
            const char c = src_[i];
            if (c == '\\') ++i;
            else if (c == open) ++depth;
            else if (c == close && depth-- == 0) past = true;
        }
        if (!past) {
            lexer_.restore(after);
            return n;
        }
        return cut(r);
    }
    if (n || !err || err->message.rfind("unexpected EOF", 0) != 0) return n;
    // Inside another `${` of the same word or text, that one reads to the end too (as bash's expansion
    // finds no `}` for it either: `${a-x${b[}]:y}` is a bad substitution as a whole) and is read as the bad
    // substitution: read here, the one around it would go on after this one's `}` and read the `${` after
    // it to the end again, and the one around that again, each level twice (2^n at n levels).
    if (brace_depth_ > 0) return nullptr;
    ParseError e = std::move(*err);
    err.reset();
    lexer_.set_end(end);
    lexer_.restore(st);
    if (heredocs_.size() > docs) heredocs_.resize(docs);
    Pos p = lexer_.pos();
    lexer_.advance_joined(2);
    lexer_.splice();
    uint32_t body = lexer_.off();
    if (!skip_brace_text(p, in_dq)) {
        err = std::move(e);
        if (in_arith_text_) arith_brace_eof_ = true;  // see read_dollar_dparen
        return nullptr;
    }
    ParamExp* b = arena_.node<ParamExp>(p);
    b->braced = true;
    b->name = src_.substr(body, lexer_.off() - body);
    lexer_.advance();
    brace_fallbacks_.emplace(key, BraceFallback{b, lexer_.save()});
    return b;
}

Node* Parser::read_brace_parts(bool in_dq) {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(2);
    lexer_.splice();
    // Where the text inside the braces starts: `$` and `{` may be apart (`$\<newline>{`), and line
    // continuations after `{` are not part of it.
    uint32_t body = lexer_.off();
    const LexState body_at = lexer_.save();
    const size_t docs = heredocs_.size();
    if (brace_depth_ == 0) brace_in_dq_ = in_dq;
    struct Nest {
        uint32_t& depth;
        ~Nest() { --depth; }
    } nest{++brace_depth_};
    ParamExp* pe = arena_.node<ParamExp>(p);
    pe->braced = true;
    auto eof_err = [&]() {
        error(p, "unexpected EOF while looking for matching `}'");
        return nullptr;
    };
    // Unrecognised syntax: bash reports "bad substitution" when it runs, so keep the raw text as the name.
    // Its reader (a matched-pair reader) skips quoted text, backquotes and `$(...)`: a `}` in them does not
    // end the `${` (`${a"}"}` is one bad substitution; `"${a["}"` runs to the end of the input). `$'...'`
    // is ANSI-C quoting, with its escapes, outside double quotes only.
    // The text ends where bash's reader ends it, from its start: the parts read may have gone past that `}`
    // (`${a[}] <}`: the subscript takes it, as bash's expansion does).
    auto bad = [&]() -> Node* {
        if (failed()) return nullptr;
        lexer_.restore(body_at);
        if (heredocs_.size() > docs) heredocs_.resize(docs);
        if (!skip_brace_text(p, in_dq)) return nullptr;
        ParamExp* b = arena_.node<ParamExp>(p);
        b->braced = true;
        b->name = src_.substr(body, lexer_.off() - body);
        lexer_.advance();
        return b;
    };
    // Names and digits may be split by line continuations; the cursor ends past any that follow.
    auto read_name = [&]() -> bool {
        lexer_.splice();
        int c = lexer_.peek();
        uint32_t off = lexer_.off();
        auto scan = [&](bool (*ok)(int)) {
            uint32_t i = lexer_.skip_cont(off + 1);
            while (i < lexer_.end() && ok(static_cast<unsigned char>(src_[i]))) i = lexer_.skip_cont(i + 1);
            pe->name = joined(off, i);
            lexer_.advance_to(i);
        };
        if (is_name_start(c)) {
            scan(is_name_char);
            return true;
        }
        if (is_digit(c)) {
            scan(is_digit);
            return true;
        }
        if (is_special_param(c)) {
            pe->name = src_.substr(off, 1);
            lexer_.advance_to(lexer_.skip_cont(off + 1));
            return true;
        }
        return false;
    };
    auto read_index = [&]() -> bool {
        lexer_.splice();
        if (lexer_.peek() != '[') return true;
        uint32_t close = 0;
        // past the `}` of this `${` (and of those around it), only as far as the word goes
        // In double quotes inside another `${` (`"${x:-"${a[1]}"}"`), the word that bounds the subscript is
        // those quotes' text, which a `"` may close or open (the reader's nested quotes): the subscript ends
        // with its own `${` there.
        const SubscriptIn where = in_heredoc_body_ || in_arith_text_ ? SubscriptIn::None
                                  : dq_braces_ > 0                   ? SubscriptIn::Own
                                  : brace_in_dq_                     ? SubscriptIn::BraceDq
                                                                     : SubscriptIn::Brace;
        if (!scan_subscript(lexer_.off(), close, false, where, brace_depth_)) return false;
        std::string_view in = src_.substr(lexer_.off() + 1, close - lexer_.off() - 1);
        if (in == "@" || in == "*") {
            pe->index_all = in[0];
            lexer_.advance_to(close + 1);
        } else {
            pe->index = read_range_word(lexer_.off() + 1, close);
            if (failed()) return false;
            lexer_.advance_to(close + 1);
        }
        return true;
    };
    auto arg = [&](WordMode m) -> Word* { return read_word(m, in_dq); };
    auto close = [&]() -> Node* {
        if (failed()) return nullptr;
        lexer_.splice();
        if (lexer_.peek() == '}') {
            lexer_.advance();
            return pe;
        }
        if (lexer_.peek() < 0) return eof_err();
        return bad();
    };
    int c = lexer_.peek();
    int n = lexer_.peekj(1);
    if (c < 0) return eof_err();
    if (c == '#' && n != '}' && (is_name_start(n) || is_digit(n) || is_special_param(n)) &&
        !((n == '-' || n == '=' || n == '?' || n == '+') && lexer_.peekj(2) != '}')) {
        lexer_.advance();
        pe->op = ParamOp::Length;
        if (!read_name()) return bad();
        if (!read_index()) return bad();
        return close();
    }
    if (c == '!' && n != '}' && (is_name_start(n) || is_digit(n) || is_special_param(n))) {
        lexer_.advance();
        if (!read_name()) return bad();
        int x = lexer_.peek();
        if ((x == '*' || x == '@') && lexer_.peekj(1) == '}') {
            pe->op = ParamOp::PrefixNames;
            pe->at_form = x == '@';
            lexer_.advance_joined(2);
            return pe;
        }
        if (!read_index()) return bad();
        lexer_.splice();
        if (pe->index_all && lexer_.peek() == '}') {
            pe->op = ParamOp::Keys;
            lexer_.advance();
            return pe;
        }
        pe->indirect = true;
    } else {
        if (!read_name()) {
            if (c == '}') {
                lexer_.advance();
                return pe;  // ${}: bad substitution at run time
            }
            return bad();
        }
        if (!read_index()) return bad();
    }
    lexer_.splice();
    c = lexer_.peek();
    n = lexer_.peekj(1);
    switch (c) {
    case '}': lexer_.advance(); return pe;
    case ':':
        if (n == '-' || n == '=' || n == '?' || n == '+') {
            pe->colon = true;
            pe->op = n == '-' ? ParamOp::Default : n == '=' ? ParamOp::Assign : n == '?' ? ParamOp::Error : ParamOp::Alternate;
            lexer_.advance_joined(2);
            pe->arg = arg(WordMode::ParamArg);
            return close();
        }
        if (n == '}') return bad();  // ${x:}: no offset at all (bash: bad substitution when run)
        pe->op = ParamOp::Substring;
        lexer_.advance();
        pe->arg = arg(WordMode::ParamOff);
        if (lexer_.peek() == ':') {
            lexer_.advance();
            pe->arg2 = arg(WordMode::ParamArg);
        }
        return close();
    case '-':
    case '=':
    case '?':
    case '+':
        pe->op = c == '-' ? ParamOp::Default : c == '=' ? ParamOp::Assign : c == '?' ? ParamOp::Error : ParamOp::Alternate;
        lexer_.advance();
        pe->arg = arg(WordMode::ParamArg);
        return close();
    case '#':
    case '%': {
        bool dbl = n == c;
        pe->op = c == '#' ? (dbl ? ParamOp::RemLongPrefix : ParamOp::RemPrefix)
                          : (dbl ? ParamOp::RemLongSuffix : ParamOp::RemSuffix);
        lexer_.advance_joined(dbl ? 2 : 1);
        pe->arg = arg(WordMode::ParamPatArg);
        return close();
    }
    case '/':
        pe->op = ParamOp::Replace;
        lexer_.advance_joined(1);
        if (n == '/') pe->op = ParamOp::ReplaceAll;
        else if (n == '#') pe->op = ParamOp::ReplacePrefix;
        else if (n == '%') pe->op = ParamOp::ReplaceSuffix;
        if (pe->op != ParamOp::Replace) lexer_.advance_joined(1);
        // Like bash, a pattern of ${x//pat/rep} that starts with '/' keeps it: `${x////c}` replaces
        // each '/' with c. Line continuations before it vanish (`${x//\` newline `/}` is `${x///}`).
        lexer_.splice();
        pat_lead_slash_ = pe->op == ParamOp::ReplaceAll && lexer_.peek() == '/';
        pe->arg = arg(WordMode::ParamPat);
        if (lexer_.peek() == '/') {
            lexer_.advance();
            pe->arg2 = arg(WordMode::ParamPatArg);
        }
        return close();
    case '^':
    case ',': {
        bool dbl = n == c;
        pe->op = c == '^' ? (dbl ? ParamOp::UpperAll : ParamOp::UpperFirst)
                          : (dbl ? ParamOp::LowerAll : ParamOp::LowerFirst);
        lexer_.advance_joined(dbl ? 2 : 1);
        Word* w = arg(WordMode::ParamPatArg);
        if (w && !w->parts.empty()) pe->arg = w;
        return close();
    }
    case '@':
        if (n > 0 && std::isalpha(n) && lexer_.peekj(2) == '}') {
            pe->op = ParamOp::Transform;
            pe->transform = static_cast<char>(n);
            lexer_.advance_joined(3);
            return pe;
        }
        return bad();
    case -1: return eof_err();
    default: return bad();
    }
}

Stmts Parser::parse_subst_body(Pos start, bool& ok) {
    (void)start;
    ok = false;
    no_time_ = true;
    bool saved_in_body = in_heredoc_body_, saved_in_arith = in_arith_text_, saved_in_dq = brace_in_dq_;
    uint32_t saved_braces = brace_depth_, saved_dq_braces = dq_braces_;
    Restore<bool> no_dparen(in_dparen_text_, false), no_bracket(in_bracket_text_, false);
    dq_braces_ = 0;
    in_heredoc_body_ = false;  // a $( ) in a here-document body is a script of its own
    in_arith_text_ = false;    // and its words end as a script's, in an arithmetic text or a ${ } too
    brace_depth_ = 0;
    // A here-document opened before the substitution on its line has its body after that line, not after a
    // newline inside the substitution (`cat <<E; x=$(\n...)`); one the substitution leaves open is read
    // after those, as bash does (it warns).
    std::vector<Redirect*> outer;
    outer.swap(heredocs_);
    uint32_t frame = lexer_.save().frame;
    lexer_.enter_nest();
    Stmts body = parse_stmts(false);
    Token t = lexer_.next();  // may still leave alias values read inside the body
    lexer_.leave_nest();
    outer.insert(outer.end(), heredocs_.begin(), heredocs_.end());
    heredocs_.swap(outer);
    in_heredoc_body_ = saved_in_body;
    in_arith_text_ = saved_in_arith;
    brace_in_dq_ = saved_in_dq;
    brace_depth_ = saved_braces;
    dq_braces_ = saved_dq_braces;
    no_time_ = false;
    if (failed()) return body;
    // The `)` must be in the text that holds the `$(` (the word goes on there): an alias value expanded
    // inside the body cannot close it (bash can; a word here never spans two texts).
    if (lexer_.save().frame != frame) {
        error_near(t);
        return body;
    }
    if (t.kind == Tok::RParen) {
        lexer_.consume(t);
        ok = true;
    } else if (t.kind == Tok::Eof) {
        error({eof_line_, 1}, "unexpected EOF while looking for matching `)'");
    } else {
        error_near(t);
    }
    return body;
}

Node* Parser::read_cmdsubst() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(2);
    bool ok = false;
    Stmts body = parse_subst_body(p, ok);
    if (!ok) return nullptr;
    CmdSubst* c = arena_.node<CmdSubst>(p);
    c->body = arena_.list<Stmt*>(body);
    return c;
}

Node* Parser::read_procsubst() {
    const uint32_t off = lexer_.off();
    if (Node* m = memo_get(off, false)) return m;
    const size_t docs_before = heredocs_.size();
    Node* r = read_procsubst_body();
    memo_put(off, false, r, docs_before);
    return r;
}

Node* Parser::read_procsubst_body() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    bool out = lexer_.peek() == '>';
    lexer_.advance_joined(2);
    bool ok = false;
    Stmts body = parse_subst_body(p, ok);
    if (!ok) return nullptr;
    ProcSubst* c = arena_.node<ProcSubst>(p);
    c->output = out;
    c->body = arena_.list<Stmt*>(body);
    return c;
}

Node* Parser::read_dollar_dparen() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    LexState st = lexer_.save();
    lexer_.advance_joined(3);
    Word* raw = nullptr;
    const size_t docs = heredocs_.size();
    const uint32_t end = lexer_.end();  // an error moves it to the end of the text (force_eof)
    const bool outer_eof = arith_brace_eof_;
    arith_brace_eof_ = false;
    ++speculating_;
    bool ok = false;
    {
        Restore<bool> in_text(in_dparen_text_, true), not_bracket(in_bracket_text_, false);
        ok = read_arith_raw(ArithEnd::DParen, p, raw);
    }
    --speculating_;
    const bool brace_eof = arith_brace_eof_;
    arith_brace_eof_ = outer_eof;
    if (failed()) {
        // A `${` in the text whose reading ran to the end of the input (`$((${))` at its end): bash's reader
        // does not pair a `${` there and ends the text by its parentheses alone, and the `${` fails only when
        // it runs. Read as a text that is not arithmetic, below: the error is kept for run time, as it is
        // when a `}` after the text ends that reading (`<$((${)) y[})]`).
        if (!brace_eof) return nullptr;
        err.reset();
        lexer_.set_end(end);
        ok = false;
    }
    if (ok) {
        // bash's reader finds the end of the text first, by its parentheses alone: a `)` in a `${` counts
        // (`$(( ${a:-)} ))` ends at the first `)` of `))`, and is a command substitution)
        const LexState after = lexer_.save();
        lexer_.restore(st);
        lexer_.advance_joined(2);
        if (!scan_matched_paren(p, false)) return nullptr;
        ok = lexer_.off() + 1 == after.off;
        lexer_.restore(after);
    }
    if (!ok) {
        // $( (...) ... ): a command substitution whose body starts with a subshell
        lexer_.restore(st);
        Node* n = read_cmdsubst_fallback();
        if (n && heredocs_.size() > docs && !in_heredoc_body_)  // a body's are dropped (read_heredoc)
            n->as<CmdSubst>()->open_docs = arena_.list<Redirect*>(
                std::vector<Redirect*>(heredocs_.begin() + static_cast<std::ptrdiff_t>(docs), heredocs_.end()));
        return n;
    }
    ArithSubst* a = arena_.node<ArithSubst>(p);
    a->raw = raw;
    a->expr = arith_from_word(raw, &a->exact);
    return failed() ? nullptr : a;
}

// After `$((` that is not arithmetic, bash reads the text up to the matching `)` (as a quoted text, not as
// commands: a here-document in it reads no line, `$((cat <<E` newline `)` newline ... ends at that `)`) and
// parses it as a command substitution only when it runs, alone. So do we: the text's body is its parse
// alone, or when it does not parse, the error kept for run time; only an unterminated text is a syntax
// error. Read in place, the body could go on past the text (a here-document in it would read the lines
// after it), and the tree would depend on what follows.
Node* Parser::read_cmdsubst_fallback() {
    Pos p = lexer_.pos();
    lexer_.advance_joined(2);  // $(
    uint32_t from = lexer_.off();
    Pos inner = lexer_.pos();
    if (!scan_matched_paren(p, false)) return nullptr;
    CmdSubst* c = arena_.node<CmdSubst>(p);
    c->raw = src_.substr(from, lexer_.off() - from);
    // Remembered by where the text starts, so that a text read again under speculation (an arithmetic
    // text around it may turn out to be a command substitution) is not parsed again, 2^n times.
    auto found = deferred_memo_->find(c->raw.data());
    if (found == deferred_memo_->end()) {
        DeferredText what;
        Parser sub(arena_, c->raw, opt_, inner, depth_);
        sub.deferred_memo_ = deferred_memo_;
        Stmts body = sub.parse_stmts(false);
        if (!sub.failed()) {
            Token t = sub.lexer_.next();
            if (t.kind != Tok::Eof) sub.error_near(t);
        }
        if (sub.failed()) {
            what.error = arena_.str(sub.err->message);
            what.pos = sub.err->pos;
        } else {
            what.body = arena_.list<Stmt*>(body);
        }
        found = deferred_memo_->emplace(c->raw.data(), what).first;
    }
    c->body = found->second.body;
    c->deferred_error = found->second.error;
    c->deferred_pos = found->second.pos;
    if (!c->deferred_error.empty()) c->deferred_text = c->raw;
    lexer_.advance();  // )
    return c;
}

// Moves to the `)` that closes a substitution opened before the cursor, skipping quotes, escapes,
// backquotes and nested parentheses as bash's parse_matched_pair does; at the end of input reports the
// innermost open construct.
bool Parser::scan_matched_paren(Pos open, bool brace_pairs) {
    uint32_t depth = 0;
    for (;;) {
        int c = lexer_.peek();
        if (c < 0) {
            error(open, "unexpected EOF while looking for matching `)'");
            return false;
        }
        if (c == ')') {
            if (depth == 0) return true;
            --depth;
        } else if (c == '(') {
            ++depth;
        } else if (c == '$' && lexer_.peek(1) == '(') {
            if (memo_get(lexer_.off(), false, false)) continue;  // a substitution already read: jump over it
            lexer_.advance();
            continue;
        } else if (brace_pairs && c == '$' && lexer_.peek(1) == '{') {
            // a pair of its own, as in bash's reader: a `)` in it does not count (`$(${)}}`)
            Pos q = lexer_.pos();
            Depth d(*this, q);
            if (!d.ok) return false;
            lexer_.advance(2);
            if (!skip_brace_text(q, false)) return false;
        } else if (c == '\\') {
            if (lexer_.peek(1) >= 0) lexer_.advance();
        } else if (c == '\'' || c == '"' || c == '`') {
            Pos q = lexer_.pos();
            lexer_.advance();
            for (;;) {
                int d = lexer_.peek();
                if (d < 0) {
                    error(q, std::string("unexpected EOF while looking for matching `") + static_cast<char>(c) + "'");
                    return false;
                }
                if (d == c) break;
                if (c == '"' && d == '$' && lexer_.peek(1) == '(') {
                    // a `"` in it is its own, and so are its here-documents' lines (`$(("$(<<E` newline `"`
                    // newline `E` newline `)"))`): read as commands, else skipped to its matching `)`
                    if (!skip_paren_text(lexer_.peek(2) != '(', true)) return false;
                } else if (c == '"' && d == '$' && lexer_.peek(1) == '{') {
                    // a `${` in double quotes is a pair of its own too (`$(("${"))` runs to the end)
                    Pos r = lexer_.pos();
                    Depth dd(*this, r);
                    if (!dd.ok) return false;
                    lexer_.advance(2);
                    if (!skip_brace_text(r, true)) return false;
                } else if (d == '\\' && c != '\'' && lexer_.peek(1) >= 0) {
                    lexer_.advance();
                }
                lexer_.advance();
            }
        }
        lexer_.advance();
    }
}

Node* Parser::read_arith_bracket() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(2);
    // bash's reader ends the text by its brackets alone, skipping quoted text and substitutions but pairing
    // no `${` (`$[${x:-]}` ends at that `]`): one that runs to the end of the input so is an error
    // (`$[${H[}]:`, `$[${x:-[}]`), whatever the `${`'s own reading finds.
    {
        const uint32_t end = lexer_.end();
        int depth = 0;
        bool closed = false;
        for (uint32_t i = lexer_.off(); i < end && !closed; ++i) {
            const char c = src_[i];
            if (c == '\\') {
                ++i;
            } else if (c == '\'') {
                while (++i < end && src_[i] != c) {}
            } else if (c == '"') {
                // a `${` or `$(` in it is a pair of its own (`$["${u:-${a[}"x"]}}"]`)
                while (++i < end && src_[i] != c) {
                    if (src_[i] == '\\') {
                        ++i;
                    } else if (src_[i] == '`' || (src_[i] == '$' && i + 1 < end && (src_[i + 1] == '(' || src_[i + 1] == '{'))) {
                        i = subst_text_end(i, end, true);
                    }
                }
            } else if (c == '`' || (c == '$' && i + 1 < end && src_[i + 1] == '(')) {
                i = subst_text_end(i, end, false);
            } else if (c == '[') {
                ++depth;
            } else if (c == ']' && depth-- == 0) {
                closed = true;
            }
        }
        if (!closed) {
            error(p, "unexpected EOF while looking for matching `]'");
            return nullptr;
        }
    }
    Word* raw = nullptr;
    {
        Restore<bool> in_text(in_bracket_text_, true), not_dparen(in_dparen_text_, false);
        if (!read_arith_raw(ArithEnd::Bracket, p, raw) || failed()) return nullptr;
    }
    ArithSubst* a = arena_.node<ArithSubst>(p);
    a->bracket = true;
    a->raw = raw;
    a->expr = arith_from_word(raw, &a->exact);
    return failed() ? nullptr : a;
}

bool Parser::read_arith_raw(ArithEnd end, Pos start, Word*& out, char* term) {
    Restore<bool> keep(in_arith_text_, true);
    Pos wpos = lexer_.pos();
    Parts parts;
    LitBuf lit;
    uint32_t depth = 0;
    bool done = false;
    while (!done) {
        if (failed()) return false;
        int c = lexer_.peek();
        if (c < 0) {
            if (end == ArithEnd::Whole) break;
            error(start, end == ArithEnd::Bracket ? "unexpected EOF while looking for matching `]'"
                                                  : "unexpected EOF while looking for matching `)'");
            return false;
        }
        switch (c) {
        case '\\':
            if (lexer_.peek(1) == '\n') {
                lexer_.advance(2);
                continue;
            }
            lit_char(lit);
            if (lexer_.peek() >= 0) lit_char(lit);
            continue;
        case '(':
        case '[':
            if ((c == '(') == (end != ArithEnd::Bracket) || end == ArithEnd::Whole) {
                if (++depth > opt_.max_depth) {
                    error_depth(lexer_.pos());
                    return false;
                }
            }
            break;
        case ')':
        case ']':
            if (end == ArithEnd::Whole) {
                if (depth > 0) --depth;
                break;
            }
            if ((c == ')') != (end != ArithEnd::Bracket)) break;
            if (depth > 0) {
                --depth;
                break;
            }
            if (end == ArithEnd::Bracket) {
                lexer_.advance();
                done = true;
                continue;
            }
            if (lexer_.peekj(1) == ')') {
                lexer_.advance_joined(2);
                if (term) *term = ')';
                done = true;
                continue;
            }
            if (lexer_.peekj(1) < 0 && end != ArithEnd::DParen) {
                error(start, "unexpected EOF while looking for matching `)'");
                return false;
            }
            return false;
        case ';':
            if (end == ArithEnd::ForPart && depth == 0) {
                lexer_.advance();
                if (term) *term = ';';
                done = true;
                continue;
            }
            break;
        case '$': {
            Pos p = lexer_.pos();
            uint32_t off = lexer_.off();
            Node* n = read_dollar(false);
            if (n) {
                lit_flush(lit, parts);
                parts.push_back(n);
            } else if (!failed()) {
                lit_add(lit, off, 1, p);
                lexer_.advance();
            }
            continue;
        }
        case '`':
            lit_flush(lit, parts);
            if (Node* n = read_backtick(false)) parts.push_back(n);
            continue;
        case '"':
            lit_flush(lit, parts);
            if (Node* n = read_dquote(false)) parts.push_back(n);
            continue;
        case '\'':
            lit_flush(lit, parts);
            if (Node* n = read_squote()) parts.push_back(n);
            continue;
        default: break;
        }
        lit_char(lit);
    }
    lit_flush(lit, parts);
    out = make_word(wpos, parts);
    return true;
}

Node* Parser::read_backtick(bool in_dq) {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance();
    std::string text;
    Pos inner = lexer_.pos();
    uint32_t raw_from = lexer_.off();
    for (;;) {
        int c = lexer_.peek();
        if (c < 0) {
            error(p, "unexpected EOF while looking for matching ``'");
            return nullptr;
        }
        if (c == '`') {
            lexer_.advance();
            break;
        }
        if (c == '\\') {
            int n = lexer_.peek(1);
            if (n == '`' || n == '\\' || n == '$' || (in_dq && n == '"')) {
                text += static_cast<char>(n);
                lexer_.advance(2);
                continue;
            }
        }
        text += static_cast<char>(c);
        lexer_.advance();
    }
    const std::string_view body_text = arena_.str(text);
    Parser sub(arena_, body_text, opt_, inner, depth_);
    Stmts body = sub.parse_stmts(false);
    if (!sub.failed()) {
        Token t = sub.lexer_.next();
        if (t.kind != Tok::Eof) sub.error_near(t);
    }
    CmdSubst* c = arena_.node<CmdSubst>(p);
    c->backquote = true;
    if (sub.failed()) {
        // bash parses backquoted text only when it runs: the error belongs to run time
        c->deferred_error = arena_.str(sub.err->message);
        c->deferred_pos = sub.err->pos;
        c->deferred_text = body_text;
        c->raw = src_.substr(raw_from, lexer_.off() - 1 - raw_from);
        return c;
    }
    c->body = arena_.list<Stmt*>(body);
    return c;
}

Node* Parser::read_extglob() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    ExtGlob* g = arena_.node<ExtGlob>(p);
    g->op = static_cast<char>(lexer_.peek());
    lexer_.advance_joined(2);
    SmallVec<Word*, 8> alts;
    for (;;) {
        Word* w = read_word(WordMode::ExtAlt);
        if (failed()) return nullptr;
        alts.push_back(w);
        int c = lexer_.peek();
        if (c == '|') {
            lexer_.advance();
            continue;
        }
        if (c == ')') {
            lexer_.advance();
            break;
        }
        error(p, "unexpected EOF while looking for matching `)'");
        return nullptr;
    }
    g->alternatives = arena_.list<Word*>(alts);
    return g;
}

}  // namespace bashkit::syntax::detail
