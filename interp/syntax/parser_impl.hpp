// Internal: the recursive-descent parser, implemented by parser.cpp (the command level), parser_compound.cpp
// (compound commands, [[ ]]), parser_words.cpp (words) and arith_parser.cpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/syntax/lexer.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/syntax/small_vec.hpp"

namespace bashkit::syntax::detail {

inline bool is_name_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_name_char(int c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// What ends a word, per context. Each is one lexer mode for the bytes of a word.
using Parts = SmallVec<Node*, 8>;  // the parts of a word being read
using Stmts = SmallVec<Stmt*, 4>;  // the statements of a list being read

enum class WordMode : uint8_t {
    Normal,       // command words: blanks and ; & | ( ) < > end it
    Cond,         // inside [[ ]]: like Normal
    CondPattern,  // right of == != in [[ ]]: like Normal, extglob always on
    Regex,        // right of =~: ( ) | are part of the regex, blanks inside ( ) too
    ExtAlt,       // one alternative inside ?( ) *( ) ...: | and ) end it at depth 0
    ParamArg,     // ${x:-word}: } ends it; inside double quotes a '..' stays literal but hides a }
    ParamPatArg,  // ${x#pat}, ${x^pat}, the replacement of ${x/p/r}: } ends it; '..' quotes even inside "..."
    ParamPat,     // ${x/pat/...}: / or } ends it
    ParamOff,     // ${x:off:len}: : or } ends it
    Limit,        // only the (narrowed) end of input ends it
};

enum class ArithEnd : uint8_t { DParen, Bracket, ForPart, Whole };

// Sets a variable for a scope and gives its old value back at the scope's end.
template <class T>
struct Restore {
    Restore(T& ref, T value) : ref_(ref), saved_(ref) { ref_ = value; }
    ~Restore() { ref_ = saved_; }
    Restore(const Restore&) = delete;
    Restore& operator=(const Restore&) = delete;

private:
    T& ref_;
    T saved_;
};

// Whether src[i] starts `$(` that is not `$((`; the offset of what closes the substitution opened at `i`
// (`$(`, `${` or a backquote), skipping quotes and escapes, `end` when the input ends first (parser.cpp).
bool is_cmdsubst(std::string_view src, uint32_t i, uint32_t end);
uint32_t substitution_end(std::string_view src, uint32_t i, uint32_t end);

class Parser {
public:
    // eof_line: the line an "unexpected end of file" blames; 0 counts the lines of src.
    Parser(Arena& a, std::string_view src, const ParseOptions& opt, Pos origin, uint32_t depth,
           uint32_t eof_line = 0);

    Script* parse_script();
    // One top-level command line from the cursor (ScriptReader); `complete` as ParseUnit::complete.
    Script* parse_unit(bool& complete);
    std::vector<std::pair<uint32_t, std::string>> unterminated_heredocs_;
    // The whole source as arithmetic (for parse_arith()).
    ArithExpr* parse_arith_text();
    // The whole source as one word (for parse_word()).
    Word* parse_word_text() { return read_range_word(0, static_cast<uint32_t>(src_.size())); }
    // The whole source as the body of an unquoted here-document without delimiter (parse_expanding_text()).
    Word* parse_body_text();

    std::optional<ParseError> err;
    bool failed() const { return err.has_value(); }

    // ---------------------------------------------------------------- shared helpers
    Arena& arena_;
    Lexer lexer_;
    const std::string_view& src_;  // the text the cursor is in: the source or an alias value
    const ParseOptions& opt_;
    uint32_t depth_;

    void error(Pos p, std::string msg);
    void error_near(const Token& t);
    void error_eof();
    // An error inside [[ ]] (ParseError::keeps_status), at token t; at the end of the input it is an ordinary
    // syntax error (status 2), as bash's `[[ x` is.
    void cond_error(const Token& t, std::string msg);
    void error_depth(Pos p) { error(p, "maximum nesting depth exceeded"); }
    bool enter(Pos p) {
        if (++depth_ > opt_.max_depth) {
            error_depth(p);
            return false;
        }
        return true;
    }
    void leave() { --depth_; }
    struct Depth {
        Parser& p;
        bool ok;
        Depth(Parser& parser, Pos pos) : p(parser), ok(parser.enter(pos)) {}
        ~Depth() { p.leave(); }
        Depth(const Depth&) = delete;
        Depth& operator=(const Depth&) = delete;
    };

    // arithmetic over the parts of a raw word (arith_parser.cpp); `exact`: see arith_exact()
    ArithExpr* arith_from_word(Word* raw, bool* exact = nullptr);

private:
    // literal accumulation
    struct LitBuf {
        bool active = false;
        bool contiguous = true;
        uint32_t start = 0, end = 0;
        Pos pos;
        std::string buf;
    };
    void lit_add(LitBuf& l, uint32_t off, uint32_t n, Pos p);
    void lit_add_str(LitBuf& l, std::string_view s, Pos p);
    void lit_flush(LitBuf& l, Parts& parts);
    void escaped_backslash(LitBuf& l, Parts& parts);  // `\\` before a quote in double quotes or a body
    void lit_char(LitBuf& l) {  // adds the byte at the cursor and advances
        lit_add(l, lexer_.off(), 1, lexer_.pos());
        lexer_.advance();
    }

    // commands
    Stmts parse_stmts(bool nonempty);
    bool is_stop(const Token& t) const;
    uint32_t skip_newlines();  // returns how many newlines it consumed
    // skip_newlines where a command starts: an alias expanding to nothing before a newline leaves a blank
    // line, as in bash.
    uint32_t skip_newlines_at_command();
    // Set after here-document bodies were read from the input for an alias value: when the cursor
    // reaches the end of the line (first), it goes on after the bodies (second).
    std::optional<std::pair<LexState, LexState>> input_jump_;
    void consume_newline();
    void read_heredocs();
    void read_heredoc(Redirect* r);
    Command* parse_and_or();
    Command* parse_pipeline();
    Command* parse_command();
    Command* parse_simple();
    void parse_trailing_redirs(Command* c);
    Redirect* parse_redirect(Token t);
    bool expect_word(std::string_view kw);
    Command* parse_if();
    Command* parse_while(bool until);
    Command* parse_for(bool select);
    Command* parse_arith_for(Pos p);
    Command* parse_case();
    Command* parse_brace();
    Command* parse_subshell();
    Command* parse_paren_command();
    Command* parse_cond();
    Command* parse_function_kw();
    Command* parse_funcdef_body(FuncDef* f);
    Command* parse_coproc();
    bool at_compound_start();
    // At the reserved word `!`: with extglob, `!(` starts a pattern word instead (`!(*.txt)` is a command
    // word, and in `[[ ]]` an operand), as bash's reader takes it before it looks for reserved words.
    bool at_bang() const { return lexer_.at_word("!") && !(opt_.extglob && lexer_.peekj(1) == '('); }
    // Alias expansion of the word at the cursor (bash's alias_expand_token): at command position, or
    // after an alias whose value ends with a blank. True when the word was replaced by its value.
    bool expand_alias(bool command_position);
    uint32_t alias_count_ = 0;
    size_t alias_bytes_ = 0;
    // [[ ]]
    CondExpr* cond_or();
    CondExpr* cond_and();
    CondExpr* cond_term();
    void cond_skip_newlines();

    // words
    Word* read_word(WordMode m, bool in_dq = false);
    Word* make_word(Pos p, Parts& parts);
    // word_subscript: the subscript ends the word at an unquoted blank, as in an argument of declare
    // (`declare a[ 1 ]=x` is three words); an assignment statement's subscript may hold blanks.
    Assign* try_assignment(bool word_subscript = false);
    enum class SubscriptScan : uint8_t { Closed, OpenQuote, Newline, Eof, WordEnd };
    // Where the subscript is: an assignment or a command word (None), or the parameter of a `${`, unquoted
    // (Brace) or inside double quotes (BraceDq): bash's reader ends a `${` at its first `}` (nested `${`
    // counted, a plain `{` not), and a subscript may go on past that `}` only as far as the word goes: up to
    // an unquoted blank or operator byte (WordEnd; inside double quotes, one between a `"` that closes them
    // and the next that opens them again). In a here-document's body or an arithmetic text, which have no
    // words, it goes on (None).
    // Own: the `}` of its own `${` ends the subscript (a `${` in double quotes inside another `${`).
    enum class SubscriptIn : uint8_t { None, Brace, BraceDq, Own };
    // `braces`: how many `}` end the `${` around the subscript (nested in operands: `${x:-${a[i]}}`).
    SubscriptScan scan_brackets(uint32_t at, bool newlines, uint32_t& pos, SubscriptIn in = SubscriptIn::None,
                                uint32_t braces = 0);
    bool scan_subscript(uint32_t at, uint32_t& close, bool newlines = false, SubscriptIn in = SubscriptIn::None,
                        uint32_t braces = 0);
    // The offset of the `)` that closes the `$(` (or `<(`, `>(`) at `at` (at or after the cursor), read as
    // commands, as bash's reader of a subscript reads it (a here-document in it reads its lines: `a[$(cat <<E`
    // newline `]` newline `E` newline `)]`); nullopt when it does not parse there. The cursor does not move.
    std::optional<uint32_t> cmdsubst_end(uint32_t at, bool in_dq);
    // The offset of what closes the substitution at `i` (`$(`, `<(`, `>(`, `${`, a backquote): a `$(`, `<(` or
    // `>(` read as commands (cmdsubst_end) where it parses, anything else as substitution_end() finds it.
    uint32_t subst_text_end(uint32_t i, uint32_t end, bool in_dq);
    // Its answers, by frame, offset, end of the text and in_dq: one that does not parse is not remembered
    // by the reading (memo_), and each subscript scan around it would read it again (2^n at n levels of
    // `$( M["`).
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, bool>, std::optional<uint32_t>> cmdsubst_ends_;
    bool has_word_break(uint32_t from, uint32_t to);
    uint32_t word_break(uint32_t from, uint32_t to, char quote = 0);
    // The end of a `${` in double quotes as bash's expansion finds it when it takes the quoted text out of the
    // word (parser.cpp): the offset of its `}`, of the closing `"` of a quoted text, of a subscript's `]`, or
    // `to` when the input ends first.
    uint32_t dq_brace_end(uint32_t from, uint32_t to, uint32_t depth = 0);
    uint32_t dq_text_end(uint32_t from, uint32_t to, uint32_t depth);
    uint32_t expansion_subscript_end(uint32_t at, uint32_t to, uint32_t depth);
    // The word at the cursor when it starts `NAME[` at the start of a simple command, where bash reads the
    // subscript up to its matching `]` across blanks and newlines: 1 with `close` set when it is closed,
    // -1 when the input ends first, -2 or -3 (with `close` at the quote) when it ends inside a double or
    // single quote of the subscript (bash reads on to the end there too), 0 when it is not NAME[.
    int command_subscript(uint32_t& close);
    Word* read_range_word(uint32_t from, uint32_t to);
    bool read_array(Assign* as);
    Node* read_squote();
    Node* read_dquote(bool locale);
    Node* read_ansic();
    Node* read_dollar(bool in_dq);
    Node* read_brace_param(bool in_dq);
    Node* read_brace_parts(bool in_dq);
    // Skips the text of a `${` (or, with close `]`, of a `$[` inside one) up to its closing byte, as bash's
    // matched-pair reader does; the cursor ends at that byte.
    bool skip_brace_text(Pos open, bool in_dq, char close = '}');
    // Moves past the `$(`, `<(` or `>(` at the cursor, at the byte where cmdsubst_end() finds its `)` when
    // `commands` (it is read as commands) and no read is speculative, else at its matching `)` as
    // scan_matched_paren() finds it.
    bool skip_paren_text(bool commands, bool in_dq);
    Node* read_cmdsubst();
    Node* read_procsubst_body();
    Node* read_dollar_dparen();
    Node* read_cmdsubst_fallback();
    // `brace_pairs`: a `${` is a pair in which a `)` does not count (not in a `$((` text: bash's reader finds
    // its end by its parentheses alone)
    bool scan_matched_paren(Pos open, bool brace_pairs = true);
    Node* read_arith_bracket();
    Node* read_backtick(bool in_dq);
    Node* read_procsubst();
    Node* read_extglob();
    Stmts parse_subst_body(Pos start, bool& ok);
    // raw arithmetic text; returns false when a ')' closes early (not an arithmetic expression)
    bool read_arith_raw(ArithEnd end, Pos start, Word*& out, char* term = nullptr);

    std::string_view word_text(uint32_t from) const {
        return from <= lexer_.off() ? src_.substr(from, lexer_.off() - from) : std::string_view();
    }
    std::string_view plain_text(const Word* w) const;
    // Source bytes [from, to) without line continuations (arena-copied only when there are some).
    std::string_view joined(uint32_t from, uint32_t to);  // the text of a one-Lit word, else ""

    // A substitution read while speculating, by where it starts: the node, where it ends, and the
    // here-documents it left open (read after its line: a read that finds it again leaves them open too).
    struct Memo {
        Node* node;
        LexState end;
        std::vector<Redirect*> docs;
        uint32_t text_end;  // the end of the text it was read in (narrowed in a subscript): found only there
    };
    std::unordered_map<uint64_t, Memo> memo_;
    uint32_t speculating_ = 0;
    // `docs`: leave its here-documents open again (not for a text bash does not read as commands)
    Node* memo_get(uint32_t off, bool in_dq, bool docs = true);
    uint64_t memo_key(uint32_t off, bool in_dq) const {
        return (uint64_t(lexer_.save().frame) << 33) | (uint64_t(off) << 1) | (in_dq ? 1 : 0);
    }
    void memo_put(uint32_t off, bool in_dq, Node* n, size_t docs_before);
    // A `$((` text that is a command substitution, read alone (read_cmdsubst_fallback): its body, or the
    // error kept for run time. By where the text starts: the same under any speculation around it, and
    // read once, shared with the parsers of those texts (theirs are views of the same source), or each level
    // would read the texts inside it again, 2^n times.
    struct DeferredText {
        List<Stmt*> body;
        std::string_view error;
        Pos pos;
    };
    using DeferredMemo = std::unordered_map<const char*, DeferredText>;
    DeferredMemo own_deferred_memo_;
    DeferredMemo* deferred_memo_ = &own_deferred_memo_;

    // A `${` whose parts read to the end of the input, read as a bad substitution (read_brace_param), by
    // where it starts and all its reading depends on. The `${` around it then reads to the end too, is
    // read as one in turn, and the one around that reads the inner ones again, each level twice (2^n).
    struct BraceFallbackKey {
        uint32_t frame, off, end, braces, dq_braces, docs;
        uint8_t flags;
        bool operator==(const BraceFallbackKey&) const = default;
    };
    struct BraceFallbackHash {
        size_t operator()(const BraceFallbackKey& k) const {
            uint64_t h = (uint64_t(k.frame) << 32 | k.off) * 0x9E3779B97F4A7C15ull;
            h ^= (uint64_t(k.end) << 32 | k.braces) + (h << 6) + (h >> 2);
            h ^= (uint64_t(k.dq_braces) << 40 | uint64_t(k.docs) << 8 | k.flags) + (h << 6) + (h >> 2);
            return size_t(h);
        }
    };
    struct BraceFallback {
        Node* node;
        LexState end;
    };
    std::unordered_map<BraceFallbackKey, BraceFallback, BraceFallbackHash> brace_fallbacks_;
    BraceFallbackKey brace_fallback_key(bool in_dq) const;

    std::vector<Redirect*> heredocs_;
    bool heredoc_eof_ = false;  // a here-document ran to the end of input
    uint32_t eof_line_ = 1;
    bool no_time_ = false;
    bool pat_lead_slash_ = false;  // ${x///}: the next ParamPat word starts with a literal '/'
    // Reading an unquoted here-document body: $'..' and $".." inside ${..} stay literal there (bash 5.2).
    bool in_heredoc_body_ = false;
    // Set when a `${` directly in an arithmetic text read to the end of the input (read_dollar_dparen).
    bool arith_brace_eof_ = false;
    bool in_bracket_text_ = false;  // reading the text of a $[ ] (read_arith_bracket), not in a $( ) in it
    bool in_dparen_text_ = false;  // reading the text of a $(( )) (read_dollar_dparen), not in a $( ) in it
    bool in_arith_text_ = false;  // reading the text of (( )), $(( )), $[ ] or a for (( )): no word ends there
    uint32_t brace_depth_ = 0;    // the `${` around the cursor, in the word or text that holds them
    bool brace_in_dq_ = false;    // whether the outermost of those is inside double quotes
    uint32_t dq_braces_ = 0;      // how many of those are around the innermost double quotes at the cursor
    bool body_to_end_ = false;  // parse_body_text: no delimiter line, no newline added at the end
    uint32_t assign_value_off_ = 0;  // where the value of the last scalar assignment read starts  // the next pipeline starts a $( ) body: `time` is an ordinary word
};

}  // namespace bashkit::syntax::detail
