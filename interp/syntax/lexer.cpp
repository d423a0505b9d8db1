#include "interp/syntax/lexer.hpp"

#include <cstring>

namespace bashkit::syntax::detail {

Lexer::Lexer(std::string_view src, Pos origin)
    : src_(src), end_(static_cast<uint32_t>(src.size())), state_{0, origin.line, origin.col, 0} {
    AliasFrame base;
    base.text = src;
    frames_.push_back(base);
}

void Lexer::restore(const LexState& s) {
    stopped_ = false;
    if (s.frame != state_.frame) {  // within one text, a narrowed end (set_end) stays
        src_ = frames_[s.frame].text;
        end_ = static_cast<uint32_t>(src_.size());
    }
    state_ = s;
}

void Lexer::push_alias(std::string_view text, std::string_view name, bool expand_next, Pos origin) {
    AliasFrame f;
    f.text = text;
    f.name = name;
    f.parent = state_.frame;
    f.resume = state_;
    f.resume_end = end_;
    f.nest = nest_;
    f.expand_next = expand_next;
    frames_.push_back(f);
    restore(LexState{0, origin.line, origin.col, static_cast<uint32_t>(frames_.size() - 1)});
    alias_next = expand_next;
}

void Lexer::pop_alias() {
    const AliasFrame& f = frames_[state_.frame];
    alias_next = f.expand_next;
    restore(f.resume);
    end_ = f.resume_end;
}

bool Lexer::expanding(std::string_view name) const {
    for (uint32_t f = state_.frame; f != 0; f = frames_[f].parent)
        if (frames_[f].name == name) return true;
    return false;
}

bool Lexer::input_after_alias(LexState& input) const {
    if (state_.frame == 0 || frames_[state_.frame].nest != nest_) return false;
    uint32_t child = state_.frame;
    while (frames_[child].parent != 0 && frames_[frames_[child].parent].nest == nest_) child = frames_[child].parent;
    input = frames_[child].resume;
    return true;
}

void Lexer::advance_far(uint32_t n) {
    uint32_t stop = state_.off + n;
    if (stop > src_.size()) stop = static_cast<uint32_t>(src_.size());
    const char* p = src_.data();
    while (state_.off < stop) {
        const void* nl = std::memchr(p + state_.off, '\n', stop - state_.off);
        if (!nl) {
            state_.col += stop - state_.off;
            state_.off = stop;
            break;
        }
        uint32_t at = static_cast<uint32_t>(static_cast<const char*>(nl) - p);
        state_.line += 1;
        state_.col = 1;
        state_.off = at + 1;
    }
}

void Lexer::force_eof() {
    // Stays in the text it is in (a word being read keeps offsets into it) and leaves no alias value.
    end_ = static_cast<uint32_t>(src_.size());
    advance_to(end_);
    stopped_ = true;
}

void Lexer::skip_blanks() {
    const char* p = src_.data();
    for (;;) {
        uint32_t i = state_.off;
        while (i < end_ && (p[i] == ' ' || p[i] == '\t')) ++i;
        state_.col += i - state_.off;
        state_.off = i;
        if (i >= end_) {
            if (state_.frame != 0 && frames_[state_.frame].nest == nest_ && !stopped_) {
                pop_alias();  // the end of an alias value: reading goes on after the alias word
                p = src_.data();
                continue;
            }
            return;
        }
        if (p[i] == '\\' && i + 1 < end_ && p[i + 1] == '\n') {
            advance(2);
        } else if (p[i] == '#') {
            const void* nl = std::memchr(p + i, '\n', end_ - i);
            uint32_t to = nl ? static_cast<uint32_t>(static_cast<const char*>(nl) - p) : end_;
            advance_to(to);
        } else {
            return;
        }
    }
}

static bool lex_name_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool lex_name_char(int c) { return lex_name_start(c) || (c >= '0' && c <= '9'); }

Token Lexer::next_new(LexMode mode) {
    skip_blanks();
    if (memo_valid_ && state_.off == memo_.off && end_ == memo_end_ && mode == memo_mode_ && src_.data() == memo_text_ &&
        src_.size() == memo_size_)
        return memo_;
    Token t = classify(mode);
    memo_ = t;
    memo_end_ = end_;
    memo_mode_ = mode;
    memo_valid_ = true;
    memo_text_ = src_.data();
    memo_size_ = src_.size();
    return t;
}

Token Lexer::classify(LexMode mode) const {
    Token t;
    t.pos = pos();
    t.off = state_.off;
    int c = peek();
    // the bytes after it, across line continuations: looked at only after an operator's first byte
    auto c1 = [&] { return peekj(1); };
    auto c2 = [&] { return peekj(2); };
    auto op = [&](Tok k, uint32_t len) {
        t.kind = k;
        t.len = offset_after_joined(len) - state_.off;
        return t;
    };
    switch (c) {
    case -1: return op(Tok::Eof, 0);
    case '\n': return op(Tok::Newline, 1);
    case ';':
        if (c1() == ';') return c2() == '&' ? op(Tok::DSemiAnd, 3) : op(Tok::DSemi, 2);
        if (c1() == '&') return op(Tok::SemiAnd, 2);
        return op(Tok::Semi, 1);
    case '&':
        if (c1() == '&') return op(Tok::AndAnd, 2);
        if (c1() == '>' && mode == LexMode::Command) return c2() == '>' ? op(Tok::AndDGreat, 3) : op(Tok::AndGreat, 2);
        return op(Tok::Amp, 1);
    case '|':
        if (c1() == '|') return op(Tok::OrOr, 2);
        if (c1() == '&') return op(Tok::PipeAmp, 2);
        return op(Tok::Pipe, 1);
    case '(': return op(Tok::LParen, 1);
    case ')': return op(Tok::RParen, 1);
    case '<':
        if (c1() == '(') return op(Tok::Word, 0);  // process substitution
        if (mode == LexMode::Cond) return op(Tok::Less, 1);
        if (c1() == '<') {
            if (c2() == '<') return op(Tok::TLess, 3);
            if (c2() == '-') return op(Tok::DLessDash, 3);
            return op(Tok::DLess, 2);
        }
        if (c1() == '&') return op(Tok::LessAnd, 2);
        if (c1() == '>') return op(Tok::LessGreat, 2);
        return op(Tok::Less, 1);
    case '>':
        if (c1() == '(') return op(Tok::Word, 0);
        if (mode == LexMode::Cond) return op(Tok::Great, 1);
        if (c1() == '>') return op(Tok::DGreat, 2);
        if (c1() == '&') return op(Tok::GreatAnd, 2);
        if (c1() == '|') return op(Tok::Clobber, 2);
        return op(Tok::Great, 1);
    default: break;
    }
    if (mode == LexMode::Command) {
        // an fd prefix: the raw offsets step over line continuations
        auto byte = [&](uint32_t i) { return i < end_ ? static_cast<unsigned char>(src_[i]) : -1; };
        auto redir_at = [&](uint32_t i) {
            int d = byte(i);
            return (d == '<' || d == '>') && byte(skip_cont(i + 1)) != '(';
        };
        if (c >= '0' && c <= '9') {
            uint32_t i = skip_cont(state_.off + 1);
            while (byte(i) >= '0' && byte(i) <= '9') i = skip_cont(i + 1);
            if (redir_at(i)) {
                t.kind = Tok::IoNumber;
                t.len = i - state_.off;
                return t;
            }
        } else if (c == '{' && lex_name_start(c1())) {
            uint32_t i = skip_cont(skip_cont(state_.off + 1) + 1);
            while (lex_name_char(byte(i))) i = skip_cont(i + 1);
            if (byte(i) == '}') {
                uint32_t j = skip_cont(i + 1);
                if (redir_at(j)) {
                    t.kind = Tok::IoVar;
                    t.len = j - state_.off;
                    return t;
                }
            }
        }
    }
    return op(Tok::Word, 0);
}

bool Lexer::at_word_spliced(std::string_view kw) const {
    uint32_t i = skip_cont(state_.off);
    for (char k : kw) {
        if (i >= end_ || src_[i] != k) return false;
        i = skip_cont(i + 1);
    }
    return i >= end_ || is_meta(static_cast<unsigned char>(src_[i]));
}

std::string_view token_text(Tok t) {
    switch (t) {
    case Tok::Eof:
    case Tok::Newline: return "newline";
    case Tok::Semi: return ";";
    case Tok::DSemi: return ";;";
    case Tok::SemiAnd: return ";&";
    case Tok::DSemiAnd: return ";;&";
    case Tok::Amp: return "&";
    case Tok::AndAnd: return "&&";
    case Tok::Pipe: return "|";
    case Tok::OrOr: return "||";
    case Tok::PipeAmp: return "|&";
    case Tok::LParen: return "(";
    case Tok::RParen: return ")";
    case Tok::Less: return "<";
    case Tok::Great: return ">";
    case Tok::DGreat: return ">>";
    case Tok::DLess: return "<<";
    case Tok::DLessDash: return "<<-";
    case Tok::TLess: return "<<<";
    case Tok::LessAnd: return "<&";
    case Tok::GreatAnd: return ">&";
    case Tok::LessGreat: return "<>";
    case Tok::Clobber: return ">|";
    case Tok::AndGreat: return "&>";
    case Tok::AndDGreat: return "&>>";
    case Tok::Word:
    case Tok::IoNumber:
    case Tok::IoVar: return "";
    }
    return "";
}

}  // namespace bashkit::syntax::detail
