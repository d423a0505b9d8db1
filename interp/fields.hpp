// Building the fields of one word during expansion: quote tracking, IFS splitting, and the pattern form
// for pathname expansion and pattern contexts. Internal to interp/.
#pragma once

#include <bitset>
#include <string>
#include <string_view>
#include <vector>

#include "interp/exec.hpp"

namespace bashkit::interp {

// A word that is one unquoted literal: true with its text in `text`.
inline bool one_literal(const sx::Word* w, std::string_view& text) {
    if (w->parts.size != 1 || w->parts[0]->kind != sx::NodeKind::Lit) return false;
    text = w->parts[0]->as<sx::Lit>()->text;
    return true;
}

// A word that is one literal without a brace, tilde or glob character expands to its text, as it is: true
// with the text in `text`. (A loop over the bytes: find_first_of calls memchr once per byte of the word.)
inline bool literal_as_is(const sx::Word* w, std::string_view& text) {
    if (!one_literal(w, text)) return false;
    for (char c : text)
        switch (c) {
            case '{': case '~': case '*': case '?': case '[':
                return false;
            default:
                break;
        }
    return true;
}

// A pattern word that is one unquoted literal, without a tilde or a backslash: its pattern form is its text
// (case arms like `0)` or `start|stop)`, `[[ $x == *7* ]]`), with no field builder.
inline bool literal_pattern(const sx::Word* w, std::string_view& text) {
    if (!one_literal(w, text)) return false;
    for (char c : text)
        if (c == '~' || c == '\\') return false;
    return true;
}

// A pattern word that matches only its own text, byte for byte (`0)`, `start)`): one unquoted literal with
// no tilde, backslash, glob or extglob character.
inline bool literal_exact(const sx::Word* w, std::string_view& text) {
    if (!literal_pattern(w, text)) return false;
    for (char c : text)
        if (c == '*' || c == '?' || c == '[' || c == '(') return false;
    return true;
}

// Bytes that mean something in a pattern (`-` and `^` inside a bracket, `&` in a ${x/p/r} replacement): a
// quoted one is escaped in the pattern form.
inline bool pattern_special(char c) {
    switch (c) {
        case '*': case '?': case '[': case ']': case '\\': case '(': case ')': case '|': case '+':
        case '@': case '!': case '&': case '-': case '^':
            return true;
        default:
            return false;
    }
}
// The pattern form of quoted text.
void append_escaped(std::string& out, std::string_view s);

class FieldBuilder {
public:
    enum class Mode : uint8_t {
        Fields,   // command arguments: IFS splitting and globbing
        Single,   // one string: assignments, [[ ]] operands, here-strings, case subject
        Pattern,  // one string in pattern form: case patterns, [[ == ]], ${x#p}
    };

    // budget: the session's memory budget (null: not charged). Past kBudgetCheckFloor bytes, what the builder
    // holds is charged to it as it grows, until the builder is destroyed (then the words are charged where
    // they are held: a command's words, a variable's value): a word that does not fit in what is left throws
    // MemoryLimitExceeded before it is built (`f() { f "$*$*"; }` built a word the size of the whole budget
    // on top of it), and words built at once by parallel jobs are counted together.
    FieldBuilder(Mode mode, std::string_view ifs, bool ifs_set, MemoryBudget* budget);
    ~FieldBuilder() {
        if (held_) budget_->release(held_);
    }
    FieldBuilder(const FieldBuilder&) = delete;
    FieldBuilder& operator=(const FieldBuilder&) = delete;

    Mode mode() const { return mode_; }
    bool splitting() const { return mode_ == Mode::Fields; }

    // Unquoted literal text from the source: never split; glob characters stay active.
    void lit(std::string_view s);
    // Quoted text (or the result of a quoted expansion): never split, glob characters literal.
    void quoted(std::string_view s);
    // The result of an expansion: split by IFS when unquoted in Fields mode; glob characters active when
    // unquoted.
    void expansion(std::string_view s, bool is_quoted);
    // The same, taking the text's buffer when it is the whole field so far (a lone `$(cmd)` in an
    // assignment or quotes: no copy of a large output).
    void expansion(std::string&& s, bool is_quoted);
    // Raw pattern text (extglob groups): goes into the pattern form unescaped, marks the field as a glob.
    void raw_pattern(std::string_view pat, std::string_view text);
    // A quoted part was seen (so "" makes an empty field).
    void mark_quoted() { active_ = true; }
    // "$@" inside quotes: ends the current field, which exists even when empty.
    void hard_break();
    // Between elements of unquoted $@ / ${a[@]}: bash joins them with the first byte of IFS and splits
    // the result, so with IFS=x an empty element makes an empty field; with an empty IFS the elements
    // stay apart and empty ones vanish.
    void soft_break();

    // Fields mode: the finished fields.
    void finish(std::vector<Field>& out);
    // Single / Pattern mode: the text (after quote removal) and the pattern form.
    std::string& text() { return cur_.text; }
    std::string take_pattern() { return cur_.diverged ? std::move(cur_.pat) : std::move(cur_.text); }
    bool glob() const { return cur_.glob; }
    // Whether anything (even an empty quoted string) was produced.
    bool active() const { return active_; }

    // Inside the word of an unquoted ${x:-word}: its literal text is part of an expansion, so it splits.
    bool lit_splits = false;
    // Building the value of an assignment: a `~` after an unquoted ':' inside ${x-word} expands too.
    bool assign_tilde = false;

private:
    // Counts n more bytes built; past the floor charges them (MemoryLimitExceeded when they do not fit).
    void grow(size_t n) {
        built_ += n;
        if (built_ >= kBudgetCheckFloor && budget_) [[unlikely]] {
            budget_->charge(built_ - held_);
            held_ = built_;
        }
    }
    void append(std::string_view s, bool is_quoted);
    void end_field();
    bool is_ifs_ws(unsigned char c) const { return ifs_ws_[c]; }
    // The length of the IFS character at s[i] (a multibyte one in UTF-8, as bash in a UTF-8 locale), 0 when
    // s[i] does not start one.
    size_t ifs_at(std::string_view s, size_t i) const {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (ifs_mb_lead_[c])
            for (const std::string& m : ifs_mb_)
                if (s.compare(i, m.size(), m) == 0) return m.size();
        return ifs_map_[c] ? 1 : 0;
    }

    Mode mode_;
    MemoryBudget* budget_;
    size_t built_ = 0;  // bytes appended so far (text and pattern form alike)
    size_t held_ = 0;   // charged to budget_: built_, once past the floor
    Field cur_;
    bool active_ = false;
    // After a field ended by IFS white space (a following non-white delimiter joins it).
    bool after_ws_ = false;
    std::string ifs_first_;  // the first character of IFS, empty when IFS is
    bool ifs_empty_ = true;
    std::vector<Field> fields_;
    // Sets of bytes as bits: a builder is made for every word expanded, and three zeroed 256-byte tables (a
    // `rep stos` each) were a tenth of a `case` loop's time.
    std::bitset<256> ifs_map_;
    std::bitset<256> ifs_ws_;
    std::vector<std::string> ifs_mb_;  // the multibyte characters of IFS
    std::bitset<256> ifs_mb_lead_;     // first bytes of ifs_mb_
};

}  // namespace bashkit::interp
