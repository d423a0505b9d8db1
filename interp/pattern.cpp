#include "interp/pattern.hpp"

#include "interp/limits.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace bashkit::interp {

// ---------------------------------------------------------------------------------------------------------
// Characters
// ---------------------------------------------------------------------------------------------------------
namespace {

constexpr uint32_t kInvalidByte = 0x80000000u;  // | the byte: a byte outside any valid UTF-8 sequence

// Decodes one character at s[i]; returns its length in bytes (>= 1). With `bytes` (the C locale) every
// byte is a character: one above ASCII is taken as a byte outside any sequence.
size_t pattern_decode_utf8(std::string_view s, size_t i, uint32_t& cp, bool bytes = false) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    if (bytes) {
        cp = kInvalidByte | b0;
        return 1;
    }
    size_t len = 0;
    uint32_t v = 0;
    uint32_t min = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2, v = b0 & 0x1F, min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3, v = b0 & 0x0F, min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4, v = b0 & 0x07, min = 0x10000;
    } else {
        cp = kInvalidByte | b0;
        return 1;
    }
    if (i + len > s.size()) {
        cp = kInvalidByte | b0;
        return 1;
    }
    for (size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) {
            cp = kInvalidByte | b0;
            return 1;
        }
        v = (v << 6) | (b & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        cp = kInvalidByte | b0;
        return 1;
    }
    cp = v;
    return len;
}

uint32_t to_lower(uint32_t c) {
    if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
    if (c >= 0x100 && c <= 0x137) return c | 1;
    if (c >= 0x139 && c <= 0x148) return (c & 1) ? c + 1 : c;
    if (c >= 0x14A && c <= 0x177) return c | 1;
    if (c >= 0x179 && c <= 0x17E) return (c & 1) ? c + 1 : c;
    if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 0x20;
    if (c >= 0x400 && c <= 0x40F) return c + 0x50;
    if (c >= 0x410 && c <= 0x42F) return c + 0x20;
    return c;
}

uint32_t to_upper(uint32_t c) {
    if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 0x20;
    if (c >= 0x100 && c <= 0x137) return c & ~1u;
    if (c >= 0x139 && c <= 0x148) return (c & 1) ? c : c - 1;
    if (c >= 0x14A && c <= 0x177) return c & ~1u;
    if (c >= 0x179 && c <= 0x17E) return (c & 1) ? c : c - 1;
    if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 0x20;
    if (c >= 0x450 && c <= 0x45F) return c - 0x50;
    if (c >= 0x430 && c <= 0x44F) return c - 0x20;
    return c;
}

enum CharClass : uint16_t {
    kAlpha = 1 << 0,
    kDigit = 1 << 1,
    kAlnum = 1 << 2,
    kUpper = 1 << 3,
    kLower = 1 << 4,
    kSpace = 1 << 5,
    kBlank = 1 << 6,
    kPunct = 1 << 7,
    kPrint = 1 << 8,
    kGraph = 1 << 9,
    kCntrl = 1 << 10,
    kXdigit = 1 << 11,
    kWord = 1 << 12,
};

uint16_t class_of_name(std::string_view name) {
    static constexpr std::array<std::pair<std::string_view, uint16_t>, 13> kNames{{
        {"alpha", kAlpha}, {"digit", kDigit}, {"alnum", kAlnum}, {"upper", kUpper}, {"lower", kLower},
        {"space", kSpace}, {"blank", kBlank}, {"punct", kPunct}, {"print", kPrint}, {"graph", kGraph},
        {"cntrl", kCntrl}, {"xdigit", kXdigit}, {"word", kWord},
    }};
    for (const auto& [n, c] : kNames)
        if (n == name) return c;
    return 0;
}

bool in_class(uint32_t c, uint16_t cls) {
    if (c & kInvalidByte) return false;
    bool alpha = false, digit = false, space = false, blank = false, punct = false, print = false,
         graph = false, cntrl = false, xdigit = false;
    if (c < 0x80) {
        alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        digit = c >= '0' && c <= '9';
        space = c == ' ' || (c >= '\t' && c <= '\r');
        blank = c == ' ' || c == '\t';
        cntrl = c < 0x20 || c == 0x7F;
        print = c >= 0x20 && c < 0x7F;
        graph = c > 0x20 && c < 0x7F;
        punct = graph && !alpha && !digit;
        xdigit = digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    } else {
        cntrl = c < 0xA0 || c == 0x2028 || c == 0x2029;
        space = c == 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200A) ||
                c == 0x2028 || c == 0x2029 || c == 0x205F || c == 0x3000;
        blank = space && c != 0x2028 && c != 0x2029;
        print = !cntrl;
        graph = print && !space && c != 0xA0;
        punct = (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB5 && c != 0xBA) || c == 0xD7 || c == 0xF7 ||
                (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E) || (c >= 0x3001 && c <= 0x303F);
        alpha = graph && !punct;
    }
    const bool upper = alpha && to_lower(c) != c;
    const bool lower = alpha && to_upper(c) != c;
    uint16_t have = 0;
    if (alpha) have |= kAlpha;
    if (digit) have |= kDigit;
    if (alpha || digit) have |= kAlnum | kWord;
    if (c == '_') have |= kWord;
    if (upper) have |= kUpper;
    if (lower) have |= kLower;
    if (space) have |= kSpace;
    if (blank) have |= kBlank;
    if (punct) have |= kPunct;
    if (print) have |= kPrint;
    if (graph) have |= kGraph;
    if (cntrl) have |= kCntrl;
    if (xdigit) have |= kXdigit;
    return (have & cls) != 0;
}

// One character of the text.
struct Ch {
    uint32_t cp;
    bool lead;  // at the start of the text or after a '/': a '.' here is protected in pathname mode
};

// The text a pattern runs over, as characters: a view of the bytes when they are all ASCII (no copy: a
// 60 MB variable matched by `${x%%b*}` once cost 12 bytes a character, twice), else the decoded code points
// and their byte offsets (8 bytes a character).
class Text {
public:
    explicit Text(std::string_view s, bool bytes) : s_(s) {
        for (unsigned char c : s)
            if (c >= 0x80) {
                ascii_ = false;
                break;
            }
        if (ascii_) return;
        cps_.reserve(s.size());
        offs_.reserve(s.size());
        for (size_t i = 0; i < s.size();) {
            uint32_t cp = 0;
            const size_t n = pattern_decode_utf8(s, i, cp, bytes);
            cps_.push_back(cp);
            offs_.push_back(static_cast<uint32_t>(i));
            i += n;
        }
    }
    size_t size() const { return ascii_ ? s_.size() : cps_.size(); }
    uint32_t cp(size_t j) const { return ascii_ ? static_cast<unsigned char>(s_[j]) : cps_[j]; }
    Ch at(size_t j) const { return Ch{cp(j), j == 0 || cp(j - 1) == '/'}; }
    // The byte offset of character j (the text's size past the last one).
    size_t offset(size_t j) const { return j >= size() ? s_.size() : ascii_ ? j : offs_[j]; }

private:
    std::string_view s_;
    bool ascii_ = true;
    std::vector<uint32_t> cps_;
    std::vector<uint32_t> offs_;
};

// The characters of a Text in order or from the end (the suffix and search passes run the reversed
// automaton over them), without a copy.
struct TextRun {
    const Text& text;
    bool reversed = false;
    size_t size() const { return text.size(); }
    Ch operator[](size_t i) const { return text.at(reversed ? text.size() - 1 - i : i); }
};

// ---------------------------------------------------------------------------------------------------------
// Parse tree
// ---------------------------------------------------------------------------------------------------------

struct CharSet {
    bool negate = false;
    uint16_t classes = 0;
    std::vector<std::pair<uint32_t, uint32_t>> ranges;  // inclusive; singles are [c, c]

    bool has(uint32_t c) const {
        for (const auto& [lo, hi] : ranges)
            if (c >= lo && c <= hi) return true;
        return false;
    }
    bool matches(uint32_t c, bool nocase) const {
        bool in = has(c) || (classes != 0 && in_class(c, classes));
        if (!in && nocase) in = has(to_lower(c)) || has(to_upper(c));
        return in != negate;
    }
};

struct Node;
using Seq = std::vector<Node>;

struct Node {
    enum Kind : uint8_t { Lit, Any, Star, Set, Group } kind = Lit;
    char op = 0;        // Group: one of ? * + @ !
    uint32_t value = 0;  // Lit: code point; Set: index into the set table
    std::vector<Seq> alts;  // Group
};

class Parser {
public:
    Parser(std::string_view p, const PatternOptions& o, std::vector<CharSet>& sets)
        : p_(p), opt_(o), sets_(sets), group_failed_(p.size(), false), closes_after_(p.size() + 1, false) {
        for (size_t i = p.size(); i-- > 0;) closes_after_[i] = closes_after_[i + 1] || p[i] == ')';
    }

    Seq parse_all() {
        size_t pos = 0;
        Seq s;
        parse_seq(pos, 0, false, s);
        // Outside a group `|` and `)` never stop the sequence; parse_seq with in_group=false consumed all.
        return s;
    }

private:
    void push_lit(Seq& s, uint32_t cp) {
        Node n;
        n.kind = Node::Lit;
        n.value = cp;
        s.push_back(std::move(n));
    }

    // Parses until the end, or (in a group) until an unescaped `|` or `)` at this level.
    void parse_seq(size_t& pos, int depth, bool in_group, Seq& out) {
        int plain_parens = 0;  // in a group, a plain (..) nests: its | and ) are literal, as in bash
        while (pos < p_.size()) {
            const char c = p_[pos];
            if (in_group && plain_parens == 0 && (c == '|' || c == ')')) return;
            if (in_group && (c == '(' || c == ')')) {
                plain_parens += c == '(' ? 1 : -1;
                push_lit(out, static_cast<unsigned char>(c));
                ++pos;
                continue;
            }
            if (c == '\\') {
                if (pos + 1 < p_.size()) {
                    uint32_t cp = 0;
                    const size_t n = pattern_decode_utf8(p_, pos + 1, cp, opt_.bytes);
                    push_lit(out, cp);
                    pos += 1 + n;
                } else {
                    push_lit(out, '\\');
                    ++pos;
                }
                continue;
            }
            const bool ext_op = c == '?' || c == '*' || c == '+' || c == '@' || c == '!';
            if (opt_.extglob && ext_op && pos + 1 < p_.size() && p_[pos + 1] == '(' && depth < Pattern::kMaxDepth &&
                !group_failed_[pos] && closes_after_[pos] && failed_work_ < kMaxFailedWork) {
                const size_t attempt_start = pos;
                size_t q = pos + 2;
                Node g;
                g.kind = Node::Group;
                g.op = c;
                bool closed = false;
                while (true) {
                    Seq alt;
                    parse_seq(q, depth + 1, true, alt);
                    g.alts.push_back(std::move(alt));
                    if (q >= p_.size()) break;
                    if (p_[q] == ')') {
                        closed = true;
                        ++q;
                        break;
                    }
                    ++q;  // '|'
                }
                if (closed) {
                    out.push_back(std::move(g));
                    pos = q;
                    continue;
                }
                group_failed_[pos] = true;  // a retry from here would fail the same way
                failed_work_ += p_.size() - attempt_start;
            }
            if (opt_.extglob && ext_op && pos + 1 < p_.size() && p_[pos + 1] == '(') {
                push_lit(out, static_cast<unsigned char>(c));  // an unclosed group is literal text
                ++pos;
                continue;
            }
            if (c == '*') {
                if (out.empty() || out.back().kind != Node::Star) {
                    Node n;
                    n.kind = Node::Star;
                    out.push_back(std::move(n));
                }
                ++pos;
                continue;
            }
            if (c == '?') {
                Node n;
                n.kind = Node::Any;
                out.push_back(std::move(n));
                ++pos;
                continue;
            }
            if (c == '[') {
                CharSet set;
                size_t q = pos;
                if (parse_bracket(q, set)) {
                    Node n;
                    n.kind = Node::Set;
                    n.value = static_cast<uint32_t>(sets_.size());
                    sets_.push_back(std::move(set));
                    out.push_back(std::move(n));
                    pos = q;
                    continue;
                }
            }
            uint32_t cp = 0;
            const size_t n = pattern_decode_utf8(p_, pos, cp, opt_.bytes);
            push_lit(out, cp);
            pos += n;
        }
    }

    // One member of a bracket at p_[i] (not ']' in a closing position): a character, possibly escaped, or
    // a [.x.] / [=x=] element. Returns false when it is a [:class:] or invalid element (handled by caller).
    bool bracket_char(size_t& i, uint32_t& cp) {
        if (p_[i] == '\\' && i + 1 < p_.size()) {
            i += 1 + pattern_decode_utf8(p_, i + 1, cp, opt_.bytes);
            return true;
        }
        i += pattern_decode_utf8(p_, i, cp, opt_.bytes);
        return true;
    }

    // Finds "x]" closing a [x ... x] element opened at p_[i] == '[' and p_[i+1] == x.
    size_t element_end(size_t i) const {
        const char kind = p_[i + 1];
        for (size_t k = i + 2; k + 1 < p_.size(); ++k)
            if (p_[k] == kind && p_[k + 1] == ']') return k;
        return std::string_view::npos;
    }

    bool parse_bracket(size_t& pos, CharSet& set) {
        size_t i = pos + 1;
        if (i < p_.size() && (p_[i] == '!' || p_[i] == '^')) {
            set.negate = true;
            ++i;
        }
        bool first = true;
        while (true) {
            if (i >= p_.size()) return false;
            const char c = p_[i];
            if (c == ']' && !first) {
                pos = i + 1;
                return true;
            }
            first = false;
            uint32_t lo = 0;
            bool is_char = true;
            if (c == '[' && i + 1 < p_.size() && (p_[i + 1] == ':' || p_[i + 1] == '.' || p_[i + 1] == '=')) {
                const size_t end = element_end(i);
                if (end != std::string_view::npos) {
                    const char kind = p_[i + 1];
                    const std::string_view name = p_.substr(i + 2, end - (i + 2));
                    i = end + 2;
                    if (kind == ':') {
                        set.classes |= class_of_name(name);  // an unknown class adds nothing, as in bash
                        continue;
                    }
                    uint32_t cp = 0;
                    if (!name.empty() && pattern_decode_utf8(name, 0, cp, opt_.bytes) == name.size()) {
                        lo = cp;
                    } else {
                        continue;  // multi-character collating elements are not supported: match nothing
                    }
                } else {
                    bracket_char(i, lo);
                }
            } else {
                is_char = bracket_char(i, lo);
            }
            if (!is_char) continue;
            // A range: lo-hi, unless '-' is last.
            if (i + 1 < p_.size() && p_[i] == '-' && p_[i + 1] != ']') {
                size_t k = i + 1;
                uint32_t hi = 0;
                if (p_[k] == '[' && k + 1 < p_.size() && (p_[k + 1] == '.' || p_[k + 1] == '=')) {
                    const size_t end = element_end(k);
                    if (end != std::string_view::npos) {
                        const std::string_view name = p_.substr(k + 2, end - (k + 2));
                        if (!name.empty() && pattern_decode_utf8(name, 0, hi, opt_.bytes) == name.size()) {
                            k = end + 2;
                        } else {
                            bracket_char(k, hi);
                        }
                    } else {
                        bracket_char(k, hi);
                    }
                } else {
                    bracket_char(k, hi);
                }
                i = k;
                if (lo <= hi) set.ranges.emplace_back(lo, hi);  // a reversed range matches nothing
                continue;
            }
            set.ranges.emplace_back(lo, lo);
        }
    }

    std::string_view p_;
    const PatternOptions& opt_;
    std::vector<CharSet>& sets_;
    std::vector<bool> group_failed_;
    std::vector<bool> closes_after_;  // some ')' follows: a group opened before it may close
    // Unclosed groups are reparsed as literal text; on hostile input (thousands of unclosed groups before
    // a final ')') that is quadratic, so past this much wasted scanning no more groups are tried.
    static constexpr size_t kMaxFailedWork = 1'000'000;
    size_t failed_work_ = 0;
};

// ---------------------------------------------------------------------------------------------------------
// Automaton
// ---------------------------------------------------------------------------------------------------------

struct State {
    enum Op : uint8_t { Char, Any, Star, Set, Split, Neg, Match } op = Match;
    uint32_t arg = 0;   // Char: code point; Set: set index; Neg: start of the negated sub-automaton
    uint32_t out = 0;
    uint32_t out1 = 0;  // Split only
};

}  // namespace

class CompiledPattern {
public:
    PatternOptions opt;
    std::vector<CharSet> sets;
    std::vector<State> states;
    uint32_t fwd_start = 0;
    uint32_t rev_start = 0;
    bool glob = false;
    bool has_neg = false;

    void build(const Seq& seq) {
        fwd_start = emit_seq(seq, false, add_state(State{}));
        rev_start = emit_seq(seq, true, add_state(State{}));
        glob = has_glob(seq);
    }

    // Accept positions of one simulation: bit j set when the automaton from `start` reaches Match after
    // consuming t[from..j). With `every_start`, the automaton is also started at every position >= from.
    // `stop_at_first` ends the run at the first accept. Positions are char indexes into t.
    // Accepting positions of one run, as a bitset over [base, n] (a run from `from` never accepts before it:
    // sizing the set from 0 made find_all's run per match quadratic in the text's length).
    struct Accepts {
        std::vector<uint64_t> bits;
        size_t base = 0;
        bool any = false;
        size_t first = 0, last = 0;
        bool test(size_t j) const {
            if (j < base) return false;
            j -= base;
            return (bits[j >> 6] >> (j & 63)) & 1;
        }
    };

    Accepts run(uint32_t start, const TextRun& t, size_t from, bool every_start, bool stop_at_first,
                PatternStats* stats) const;

private:
    uint32_t add_state(State s) {
        states.push_back(s);
        return static_cast<uint32_t>(states.size() - 1);
    }

    // Compiles the alternatives so each continues to `next`; returns the entry state.
    uint32_t emit_alts(const std::vector<Seq>& alts, bool rev, uint32_t next) {
        uint32_t entry = emit_seq(alts.back(), rev, next);
        for (size_t k = alts.size() - 1; k-- > 0;) {
            const uint32_t a = emit_seq(alts[k], rev, next);
            entry = add_state(State{State::Split, 0, a, entry});
        }
        return entry;
    }

    // Builds the sequence back to front: each node gets the state that follows it.
    uint32_t emit_seq(const Seq& seq, bool rev, uint32_t next) {
        const size_t n = seq.size();
        for (size_t k = 0; k < n; ++k) {
            const Node& node = rev ? seq[k] : seq[n - 1 - k];
            next = emit_node(node, rev, next);
        }
        return next;
    }

    uint32_t emit_node(const Node& node, bool rev, uint32_t next) {
        switch (node.kind) {
            case Node::Lit: return add_state(State{State::Char, node.value, next, 0});
            case Node::Any: return add_state(State{State::Any, 0, next, 0});
            case Node::Star: return add_state(State{State::Star, 0, next, 0});
            case Node::Set: return add_state(State{State::Set, node.value, next, 0});
            case Node::Group: break;
        }
        switch (node.op) {
            case '@': return emit_alts(node.alts, rev, next);
            case '?': {
                const uint32_t body = emit_alts(node.alts, rev, next);
                return add_state(State{State::Split, 0, body, next});
            }
            case '*': {
                const uint32_t loop = add_state(State{State::Split, 0, 0, next});
                const uint32_t body = emit_alts(node.alts, rev, loop);
                states[loop].out = body;
                return loop;
            }
            case '+': {
                const uint32_t loop = add_state(State{State::Split, 0, 0, next});
                const uint32_t body = emit_alts(node.alts, rev, loop);
                states[loop].out = body;
                return body;
            }
            default: {  // '!'
                has_neg = true;
                const uint32_t match = add_state(State{});
                const uint32_t body = emit_alts(node.alts, rev, match);
                return add_state(State{State::Neg, body, next, 0});
            }
        }
    }

    static bool has_glob(const Seq& seq) {
        for (const Node& n : seq)
            if (n.kind != Node::Lit) return true;
        return false;
    }

    bool protected_dot(const Ch& c) const {
        return opt.pathname && !opt.dotglob && c.lead && c.cp == '.';
    }
    bool wildcard_ok(const Ch& c) const { return !(opt.pathname && (c.cp == '/' || protected_dot(c))); }
    bool char_eq(uint32_t a, uint32_t b) const {
        return a == b || (opt.nocase && !(a & kInvalidByte) && !(b & kInvalidByte) && to_lower(a) == to_lower(b));
    }

    friend class Pattern;
};

namespace {

// A generation-stamped sparse set of states.
struct StateList {
    std::vector<uint32_t> items;
    std::vector<uint32_t> stamp;
    uint32_t gen = 1;
    explicit StateList(size_t n) : stamp(n, 0) {}
    void clear() {
        items.clear();
        ++gen;
    }
    bool insert(uint32_t s) {
        if (stamp[s] == gen) return false;
        stamp[s] = gen;
        items.push_back(s);
        return true;
    }
};

void set_bit(std::vector<uint64_t>& b, size_t j) { b[j >> 6] |= uint64_t{1} << (j & 63); }
bool get_bit(const std::vector<uint64_t>& b, size_t j) { return (b[j >> 6] >> (j & 63)) & 1; }

}  // namespace

CompiledPattern::Accepts CompiledPattern::run(uint32_t start, const TextRun& t, size_t from,
                                              bool every_start, bool stop_at_first, PatternStats* stats) const {
    const size_t n = t.size();
    Accepts acc;
    acc.base = from;
    acc.bits.assign((n - from + 1 + 63) / 64, 0);
    StateList cur(states.size()), nxt(states.size()), seen(states.size());
    // Positions where the state after a Neg becomes active: one bitset per Neg state met in this run.
    std::vector<std::pair<uint32_t, std::vector<uint64_t>>> neg_future;
    std::vector<uint32_t> stack;
    uint64_t steps = 0;
    size_t future_max = 0;  // the furthest position a Neg scheduled; the run must go on until there

    auto closure = [&](size_t i) {
        // seen = states reached at i (epsilon closure); cur.items keeps the consuming ones.
        while (!stack.empty()) {
            const uint32_t s = stack.back();
            stack.pop_back();
            if (!seen.insert(s)) continue;
            ++steps;
            const State& st = states[s];
            switch (st.op) {
                case State::Split:
                    stack.push_back(st.out1);
                    stack.push_back(st.out);
                    break;
                case State::Star:
                    cur.insert(s);
                    stack.push_back(st.out);
                    break;
                case State::Match:
                    if (!acc.any) acc.first = i;
                    acc.any = true;
                    acc.last = i;
                    set_bit(acc.bits, i - from);
                    break;
                case State::Neg: {
                    Accepts sub = run(st.arg, t, i, false, false, stats);
                    // Where !(..) may end: up to the end, or in pathname mode before the next '/';
                    // a protected leading dot cannot be its first character.
                    size_t limit = n;
                    if (opt.pathname) {
                        for (size_t k = i; k < n; ++k)
                            if (t[k].cp == '/') {
                                limit = k;
                                break;
                            }
                        if (i < n && protected_dot(t[i])) limit = i;
                    }
                    if (!sub.test(i)) stack.push_back(st.out);
                    if (limit > i) {
                        auto it = std::find_if(neg_future.begin(), neg_future.end(),
                                               [&](const auto& e) { return e.first == s; });
                        if (it == neg_future.end()) {
                            neg_future.emplace_back(s, std::vector<uint64_t>((n - from + 1 + 63) / 64, 0));
                            it = neg_future.end() - 1;
                        }
                        for (size_t j = i + 1; j <= limit; ++j)
                            if (!sub.test(j)) {
                                set_bit(it->second, j - from);
                                future_max = std::max(future_max, j);
                            }
                    }
                    break;
                }
                default: cur.insert(s); break;
            }
        }
    };

    // States to enter at the current position (consumed transitions from the previous one).
    std::vector<uint32_t> carried;
    const CancelToken* cancel = stats ? stats->cancel : nullptr;
    uint32_t cancel_tick = 0;  // poll(): the flag, and the clock now and then (the deadline may be unwatched)
    for (size_t i = from; i <= n; ++i) {
        if (cancel && (i & 4095) == 0 && cancel->poll(cancel_tick)) break;
        cur.clear();
        seen.clear();
        for (uint32_t s : carried) stack.push_back(s);
        if (i == from || every_start) stack.push_back(start);
        for (const auto& [s, bits] : neg_future)
            if (get_bit(bits, i - from)) stack.push_back(states[s].out);
        closure(i);
        if (stop_at_first && acc.any) break;
        if (i == n) break;
        carried.clear();
        nxt.clear();
        const Ch c = t[i];
        for (uint32_t s : cur.items) {
            ++steps;
            const State& st = states[s];
            bool ok = false;
            uint32_t to = st.out;
            switch (st.op) {
                case State::Char: ok = char_eq(st.arg, c.cp) && !(opt.pathname && c.cp == '/' && st.arg != '/'); break;
                case State::Any: ok = wildcard_ok(c); break;
                case State::Star:
                    ok = wildcard_ok(c);
                    to = s;
                    break;
                case State::Set: ok = wildcard_ok(c) && sets[st.arg].matches(c.cp, opt.nocase); break;
                default: break;
            }
            if (ok && nxt.insert(to)) carried.push_back(to);
        }
        if (carried.empty() && !every_start && future_max <= i) break;
    }
    if (stats) stats->steps += steps;
    return acc;
}

// ---------------------------------------------------------------------------------------------------------
// Pattern
// ---------------------------------------------------------------------------------------------------------

Pattern::Pattern(std::unique_ptr<CompiledPattern> impl) : impl_(std::move(impl)) {}
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;
Pattern::~Pattern() = default;

Pattern Pattern::compile(std::string_view pattern, PatternOptions options) {
    auto impl = std::make_unique<CompiledPattern>();
    impl->opt = options;
    Parser parser(pattern, impl->opt, impl->sets);
    const Seq seq = parser.parse_all();
    impl->build(seq);
    return Pattern(std::move(impl));
}

bool Pattern::is_glob() const { return impl_->glob; }

namespace {
size_t offset_of(const Text& t, size_t idx, size_t) { return t.offset(idx); }
TextRun forward(const Text& t) { return TextRun{t, false}; }
TextRun reversed(const Text& t) { return TextRun{t, true}; }
}  // namespace

bool Pattern::match(std::string_view text, PatternStats* stats) const {
    const Text t(text, impl_->opt.bytes);
    const auto acc = impl_->run(impl_->fwd_start, forward(t), 0, false, false, stats);
    return acc.test(t.size());
}

std::optional<size_t> Pattern::shortest_prefix(std::string_view text, PatternStats* stats) const {
    const Text t(text, impl_->opt.bytes);
    const auto acc = impl_->run(impl_->fwd_start, forward(t), 0, false, true, stats);
    if (!acc.any) return std::nullopt;
    return offset_of(t, acc.first, text.size());
}

std::optional<size_t> Pattern::longest_prefix(std::string_view text, PatternStats* stats) const {
    const Text t(text, impl_->opt.bytes);
    const auto acc = impl_->run(impl_->fwd_start, forward(t), 0, false, false, stats);
    if (!acc.any) return std::nullopt;
    return offset_of(t, acc.last, text.size());
}

std::optional<size_t> Pattern::shortest_suffix(std::string_view text, PatternStats* stats) const {
    const Text t(text, impl_->opt.bytes);
    const auto acc = impl_->run(impl_->rev_start, reversed(t), 0, false, true, stats);
    if (!acc.any) return std::nullopt;
    return offset_of(t, t.size() - acc.first, text.size());
}

std::optional<size_t> Pattern::longest_suffix(std::string_view text, PatternStats* stats) const {
    const Text t(text, impl_->opt.bytes);
    const auto acc = impl_->run(impl_->rev_start, reversed(t), 0, false, false, stats);
    if (!acc.any) return std::nullopt;
    return offset_of(t, t.size() - acc.last, text.size());
}

std::optional<MatchSpan> Pattern::find_first(std::string_view text, PatternStats* stats) const {
    const Text t(text, impl_->opt.bytes);
    const size_t n = t.size();
    // Reverse pass started everywhere: accept at reversed position k means a match starts at n - k.
    const auto starts = impl_->run(impl_->rev_start, reversed(t), 0, true, false, stats);
    if (!starts.any) return std::nullopt;
    const size_t s = n - starts.last;
    const auto ends = impl_->run(impl_->fwd_start, forward(t), s, false, false, stats);
    return MatchSpan{offset_of(t, s, text.size()), offset_of(t, ends.last, text.size())};
}

std::vector<MatchSpan> Pattern::find_all(std::string_view text, PatternStats* stats) const {
    std::vector<MatchSpan> out;
    const Text t(text, impl_->opt.bytes);
    const size_t n = t.size();
    const auto starts = impl_->run(impl_->rev_start, reversed(t), 0, true, false, stats);
    if (!starts.any) return out;
    size_t pos = 0;
    const CancelToken* cancel = stats ? stats->cancel : nullptr;
    uint32_t cancel_tick = 0;
    while (pos <= n) {
        if (cancel && cancel->poll(cancel_tick)) break;
        size_t s = pos;
        while (s <= n && !starts.test(n - s)) ++s;
        if (s > n) break;
        if (s == n && n > 0) {
            // Only an empty match can start at the end; bash does not replace there.
            break;
        }
        const auto ends = impl_->run(impl_->fwd_start, forward(t), s, false, false, stats);
        out.push_back(MatchSpan{offset_of(t, s, text.size()), offset_of(t, ends.last, text.size())});
        pos = ends.last > s ? ends.last : s + 1;
    }
    return out;
}

namespace {
// Bytes that are literal in any pattern: ASCII (never part of a multibyte character, so a byte search finds
// only whole characters) and none of the special ones.
bool plain_ascii(std::string_view s, bool extglob) {
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if (c >= 0x80 || c == '*' || c == '?' || c == '[' || c == '\\' || (extglob && c == '(')) return false;
    }
    return true;
}
}  // namespace

bool pattern_match(std::string_view pattern, std::string_view text, PatternOptions options) {
    // The usual patterns of a `case` or `[[ == ]]` are compared without an automaton built and freed for each
    // test: a pattern without any special byte (`0)`, `start|stop)`) matches only its own bytes, and
    // `*lit*`, `lit*`, `*lit` with an ASCII literal are a search (outside pathname mode, where `*` stops at
    // `/` and a leading `.`).
    if (!options.nocase) {
        if (pattern.find_first_of(options.extglob ? std::string_view("*?[\\(") : std::string_view("*?[\\")) ==
            std::string_view::npos)
            return pattern == text;
        if (!options.pathname) {
            size_t b = 0, e = pattern.size();
            while (b < e && pattern[b] == '*') ++b;
            while (e > b && pattern[e - 1] == '*') --e;
            std::string_view mid = pattern.substr(b, e - b);
            if (plain_ascii(mid, options.extglob)) {
                if (b > 0 && e < pattern.size()) return text.find(mid) != std::string_view::npos;
                if (b > 0) return text.ends_with(mid);
                return text.starts_with(mid);
            }
        }
    }
    return Pattern::compile(pattern, options).match(text);
}

size_t pattern_char_count(std::string_view text, bool bytes) {
    if (bytes) return text.size();
    size_t n = 0;
    uint32_t cp = 0;
    for (size_t i = 0; i < text.size(); i += pattern_decode_utf8(text, i, cp)) ++n;
    return n;
}

std::optional<size_t> substitution_match_length(std::string_view p, bool bytes) {
    uint32_t cp = 0;
    size_t i = 0;
    auto next = [&]() -> int {  // the byte at i (-1 at the end), then i moves past its character
        if (i >= p.size()) return -1;
        const int c = static_cast<unsigned char>(p[i]);
        i += pattern_decode_utf8(p, i, cp, bytes);
        return c;
    };
    auto peek = [&]() -> int { return i < p.size() ? static_cast<unsigned char>(p[i]) : -1; };
    size_t len = 0;
    for (int c = next(); c >= 0; c = next()) {
        switch (c) {
        case '*': return std::nullopt;
        case '?':
        case '+':
        case '!':
        case '@':
            if (peek() == '(') return std::nullopt;
            ++len;
            break;
        case '\\':
            ++len;
            next();
            break;
        case '[': {
            // Up to the first `]` that is not the character right after `[` (so `[!]]` ends early); an
            // unclosed bracket counts each of its characters, `[` included.
            size_t bracket = 1;
            bool in_class = false, in_sym = false, in_equiv = false, closed = false, cut = false;
            int b = next();
            for (;;) {
                if (b < 0) {
                    cut = true;
                    break;
                }
                ++bracket;
                if (b == '\\') {
                    if (next() < 0 || peek() < 0) {
                        cut = true;
                        break;
                    }
                } else if (b == '[' && (peek() == ':' || peek() == '.' || peek() == '=')) {
                    const int kind = next();
                    in_class = in_class || kind == ':';
                    in_sym = in_sym || kind == '.';
                    in_equiv = in_equiv || kind == '=';
                    if (kind != ':' && peek() == ']') {  // `[.].]`, `[=]=]`
                        next();
                        ++bracket;
                    }
                } else if (((in_class && b == ':') || (in_sym && b == '.') || (in_equiv && b == '=')) &&
                           peek() == ']') {
                    next();
                    if (b == ':') in_class = false;
                    if (b == '.') in_sym = false;
                    if (b == '=') in_equiv = false;
                }
                b = next();
                if (b == ']') {
                    closed = true;
                    break;
                }
            }
            len += closed ? 1 : bracket;
            if (cut) return len;
            break;
        }
        default: ++len;
        }
    }
    return len;
}

bool is_glob(std::string_view pattern, bool extglob) {
    PatternOptions o;
    o.extglob = extglob;
    return Pattern::compile(pattern, o).is_glob();
}

std::string quote_pattern(std::string_view literal) {
    std::string out;
    out.reserve(literal.size());
    for (char c : literal) {
        switch (c) {
            case '*': case '?': case '[': case ']': case '\\': case '(': case ')': case '|': case '+': case '@':
            case '!':
                out.push_back('\\');
                break;
            default: break;
        }
        out.push_back(c);
    }
    return out;
}

std::string unquote_pattern(std::string_view pattern) {
    std::string out;
    out.reserve(pattern.size());
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '\\' && i + 1 < pattern.size()) ++i;
        out.push_back(pattern[i]);
    }
    return out;
}

PathPattern split_path_pattern(std::string_view pattern, bool extglob) {
    PathPattern out;
    std::vector<std::string> parts(1);
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '\\' && i + 1 < pattern.size()) {
            if (pattern[i + 1] == '/') {  // a quoted slash still separates directories
                parts.emplace_back();
                ++i;
                continue;
            }
            parts.back().push_back(pattern[i]);
            parts.back().push_back(pattern[++i]);
            continue;
        }
        if (pattern[i] == '/') {
            parts.emplace_back();
            continue;
        }
        parts.back().push_back(pattern[i]);
    }
    size_t first = 0, last = parts.size();
    if (!pattern.empty() && parts.size() > 1 && parts.front().empty()) {
        out.absolute = true;
        first = 1;
    }
    if (out.absolute && last - first == 1 && parts[first].empty()) return out;  // just "/"
    if (last - first > 1 && parts.back().empty()) {
        out.trailing_slash = true;
        --last;
    }
    for (size_t k = first; k < last; ++k) {
        PathComponent c;
        c.pattern = parts[k];
        c.literal = unquote_pattern(parts[k]);
        c.glob = is_glob(parts[k], extglob);
        c.globstar = parts[k] == "**";
        out.components.push_back(std::move(c));
    }
    return out;
}

}  // namespace bashkit::interp
