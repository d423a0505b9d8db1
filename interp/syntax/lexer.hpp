// The modal lexer under the parser: a byte cursor that tracks (line, column) and classifies the next
// token of the command-level modes. Word contents (quotes, expansions, here-document bodies,
// arithmetic text) are scanned by the parser's word readers on top of this cursor, each with its
// own terminator rules (see WordMode in parser_impl.hpp), because they nest into full parses.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "interp/syntax/ast.hpp"

namespace bashkit::syntax::detail {

enum class Tok : uint8_t {
    Eof,
    Newline,
    Word,      // a word starts here (the parser reads it)
    IoNumber,  // digits immediately followed by < or >
    IoVar,     // {name} immediately followed by < or >
    Semi,      // ;
    DSemi,     // ;;
    SemiAnd,   // ;&
    DSemiAnd,  // ;;&
    Amp,       // &
    AndAnd,    // &&
    Pipe,      // |
    OrOr,      // ||
    PipeAmp,   // |&
    LParen,    // (
    RParen,    // )
    Less,      // <
    Great,     // >
    DGreat,    // >>
    DLess,     // <<
    DLessDash, // <<-
    TLess,     // <<<
    LessAnd,   // <&
    GreatAnd,  // >&
    LessGreat, // <>
    Clobber,   // >|
    AndGreat,  // &>
    AndDGreat, // &>>
};

// Lexer modes for next(): the command level and the inside of [[ ]] (where < and > are string
// comparisons and no redirection or fd prefix exists).
enum class LexMode : uint8_t { Command, Cond };

struct Token {
    Tok kind = Tok::Eof;
    Pos pos;
    uint32_t off = 0;
    uint32_t len = 0;  // in source bytes (line continuations inside an operator count)
};

struct LexState {
    uint32_t off = 0;
    uint32_t line = 1;
    uint32_t col = 1;
    uint32_t frame = 0;  // the text the cursor is in: 0 is the source, others are alias values
};

// An alias value being read (bash's pushed string). The source is frame 0. Frames are never removed
// while the parser lives, so a saved LexState stays valid after its frame was left.
struct AliasFrame {
    std::string_view text;     // the value, copied into the parse's arena
    std::string_view name;     // the alias: not expanded again while this frame is on the chain
    uint32_t parent = 0;       // the frame the alias word was read in
    LexState resume;           // where reading goes on in the parent once the value is read
    uint32_t resume_end = 0;   // the parent's end then (narrowed when the alias is inside a subscript)
    uint32_t nest = 0;         // substitution nesting when pushed: only that level leaves the frame
    bool expand_next = false;  // the value ends with a blank: the word after it is checked for an alias
};

class Lexer {
public:
    Lexer(std::string_view src, Pos origin);

    std::string_view src() const { return src_; }
    // The current text, which alias frames change: the parser reads it through this reference.
    const std::string_view& src_ref() const { return src_; }
    uint32_t off() const { return state_.off; }
    uint32_t end() const { return end_; }
    // Narrows (or restores) the end of input; used to read a sub-range such as a subscript as a word.
    void set_end(uint32_t e) { end_ = e; }
    bool eof() const { return state_.off >= end_; }
    // The byte k positions ahead, or -1 past the end.
    int peek(uint32_t k = 0) const {
        uint64_t i = uint64_t(state_.off) + k;
        return i < end_ ? static_cast<unsigned char>(src_[i]) : -1;
    }
    // Most advances are a byte or a few (a word read byte by byte): those count lines inline.
    void advance(uint32_t n = 1) {
        if (n <= 8 && state_.off + n <= src_.size()) {
            for (const char *p = src_.data() + state_.off, *e = p + n; p != e; ++p) {
                if (*p == '\n') {
                    ++state_.line;
                    state_.col = 1;
                } else {
                    ++state_.col;
                }
            }
            state_.off += n;
            return;
        }
        advance_far(n);
    }
    // Moves to byte offset `to` (>= off()), counting lines on the way.
    void advance_to(uint32_t to) { advance(to - state_.off); }
    Pos pos() const { return {state_.line, state_.col}; }
    LexState save() const { return state_; }
    void restore(const LexState& s);
    // Jumps to the end of the input (used after an error so every loop of the parser stops).
    void force_eof();

    // ---- alias values (bash reads them as input pushed in front of the rest)
    // Reads `text` next, as the value of alias `name`, then goes on at the cursor. Positions inside the
    // value count from `origin` (the alias word).
    void push_alias(std::string_view text, std::string_view name, bool expand_next, Pos origin);
    bool in_alias() const { return state_.frame != 0; }
    // Whether alias `name` is being expanded (its frame is on the chain of the cursor).
    bool expanding(std::string_view name) const;
    // Set when a value ending with a blank has been read to its end, cleared by the parser once the next
    // word was looked at (bash's PST_ALEXPNEXT).
    bool alias_next = false;
    size_t frames() const { return frames_.size(); }
    // Substitution bodies ($( ), <( )) nest: a frame pushed at one level is left only at that level, so a
    // construct opened inside an alias value cannot close outside it.
    void enter_nest() { ++nest_; }
    void leave_nest() { --nest_; }
    // Here-document bodies are read from the input, never from an alias value (bash). When the cursor is
    // in an alias value, sets `input` to where the input goes on after the values being read and returns
    // true.
    bool input_after_alias(LexState& input) const;

    // Line continuations (backslash-newline) vanish wherever bash reads input with shell_getc(1): inside
    // operators, reserved words, names after `$`, and openers such as `$(` or `((`. Single quotes, the
    // byte after an escaping backslash, comments and quoted here-documents keep them. These helpers look
    // through them; the word readers handle the rest byte by byte.
    // The first offset at or after i that does not start a line continuation.
    uint32_t skip_cont(uint32_t i) const {
        while (i + 1 < end_ && src_[i] == '\\' && src_[i + 1] == '\n') i += 2;
        return i;
    }
    // The raw offset reached after n bytes with line continuations removed (none skipped after the last).
    uint32_t offset_after_joined(uint32_t n) const {
        uint32_t i = state_.off;
        for (uint32_t k = 0; k < n && i < end_; ++k) i = skip_cont(i) + 1;
        return i < end_ ? i : end_;
    }
    // The byte k positions ahead with line continuations removed, or -1 past the end (k is small).
    int peekj(uint32_t k = 0) const {
        uint32_t i = skip_cont(state_.off);
        for (uint32_t m = 0; m < k && i < end_; ++m) i = skip_cont(i + 1);
        return i < end_ ? static_cast<unsigned char>(src_[i]) : -1;
    }
    // Advances over n bytes with line continuations removed.
    void advance_joined(uint32_t n) { advance_to(offset_after_joined(n)); }
    // Skips line continuations at the cursor.
    void splice() { advance_to(skip_cont(state_.off)); }

    // Skips blanks, line continuations and a comment (a '#' at the start of a token).
    void skip_blanks();
    // Skips blanks, then classifies the token at the cursor without consuming it.
    // The parser asks again at the same place (each level of the grammar looks at the token before it
    // descends): the token depends only on the offset, the end, the text and the mode. The cursor is then at
    // the token already (skip_blanks has nothing to skip), unless the token is the end of an alias value.
    Token next(LexMode mode = LexMode::Command) {
        if (memo_valid_ && state_.off == memo_.off && end_ == memo_end_ && mode == memo_mode_ &&
            src_.data() == memo_text_ && src_.size() == memo_size_ && memo_.kind != Tok::Eof)
            return memo_;
        return next_new(mode);
    }
    // Consumes the operator token returned by next().
    void consume(const Token& t) { advance(t.len); }
    // True when the cursor is at the unquoted word `kw` followed by a word end (line continuations
    // inside are ignored: consume it with advance_joined(kw.size())). The parser asks this for each reserved word
    // in turn at every command, so a first byte that can neither start `kw` nor a continuation answers here.
    bool at_word(std::string_view kw) const {
        if (state_.off < end_ && src_[state_.off] != kw[0] && src_[state_.off] != '\\') return false;
        return at_word_spliced(kw);
    }
    // True when byte c ends an unquoted word at command level.
    static bool is_meta(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
               c == ')' || c == '<' || c == '>';
    }

private:
    void advance_far(uint32_t n);
    Token next_new(LexMode mode);
    bool at_word_spliced(std::string_view kw) const;
    Token classify(LexMode mode) const;
    // The last token next() returned, valid while the text (an alias value is another), the offset, the end
    // and the mode are the same.
    Token memo_;
    uint32_t memo_end_ = 0;
    LexMode memo_mode_ = LexMode::Command;
    bool memo_valid_ = false;
    const char* memo_text_ = nullptr;
    size_t memo_size_ = 0;
    void pop_alias();
    std::string_view src_;
    uint32_t end_;
    LexState state_;
    std::vector<AliasFrame> frames_;  // [0] is the source itself
    uint32_t nest_ = 0;
    bool stopped_ = false;  // force_eof: the end of an alias value is the end of everything
};

// The text of an operator token (for error messages).
std::string_view token_text(Tok t);

}  // namespace bashkit::syntax::detail
