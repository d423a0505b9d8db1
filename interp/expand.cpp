// Word expansion: brace, tilde, parameter/arithmetic/command substitution, splitting, pathname expansion,
// quote removal, in bash's order.
#include <algorithm>
#include <charconv>
#include <cstring>

#include "interp/exec.hpp"
#include "interp/fields.hpp"
#include "interp/pattern.hpp"

namespace bashkit::interp {

// ---------------------------------------------------------------- FieldBuilder

void append_escaped(std::string& out, std::string_view s) {
    for (char c : s) {
        if (pattern_special(c)) out.push_back('\\');
        out.push_back(c);
    }
}

// The length of a valid UTF-8 character at s[i] (1 for ASCII and for a byte that does not start one).
static size_t utf8_char_len(std::string_view s, size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 1;
    if (len == 1 || i + len > s.size()) return 1;
    for (size_t k = 1; k < len; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
    return len;
}

FieldBuilder::FieldBuilder(Mode mode, std::string_view ifs, bool ifs_set, MemoryBudget* budget)
    : mode_(mode), budget_(budget) {
    if (mode != Mode::Fields) return;
    if (!ifs_set) ifs = " \t\n";
    ifs_empty_ = ifs.empty();
    for (size_t i = 0; i < ifs.size();) {
        size_t len = utf8_char_len(ifs, i);
        if (i == 0) ifs_first_.assign(ifs.substr(0, len));
        auto c = static_cast<unsigned char>(ifs[i]);
        if (len > 1) {
            ifs_mb_.emplace_back(ifs.substr(i, len));
            ifs_mb_lead_[c] = true;
        } else {
            ifs_map_[c] = true;
            if (c == ' ' || c == '\t' || c == '\n') ifs_ws_[c] = true;
        }
        i += len;
    }
}

void FieldBuilder::append(std::string_view s, bool is_quoted) {
    grow(s.size());
    Field& f = cur_;
    if (mode_ == Mode::Single) {
        f.text.append(s);
        return;
    }
    if (is_quoted) {
        if (!f.diverged) {
            bool special = false;
            for (char c : s)
                if (pattern_special(c)) {
                    special = true;
                    break;
                }
            if (special) {
                f.diverged = true;
                f.pat = f.text;
                append_escaped(f.pat, s);
            }
        } else {
            append_escaped(f.pat, s);
        }
    } else {
        if (f.diverged) f.pat.append(s);
        if (!f.glob)
            for (char c : s)
                if (c == '*' || c == '?' || c == '[') {
                    f.glob = true;
                    break;
                }
    }
    f.text.append(s);
}

void FieldBuilder::lit(std::string_view s) {
    if (lit_splits) {
        expansion(s, false);
        return;
    }
    append(s, false);
    active_ = true;
    after_ws_ = false;
}

void FieldBuilder::quoted(std::string_view s) {
    append(s, true);
    active_ = true;
    after_ws_ = false;
}

void FieldBuilder::raw_pattern(std::string_view pat, std::string_view text) {
    grow(pat.size() + text.size());
    Field& f = cur_;
    if (mode_ != Mode::Single) {
        if (!f.diverged) {
            f.diverged = true;
            f.pat = f.text;
        }
        f.pat.append(pat);
        f.glob = true;
    }
    f.text.append(text);
    active_ = true;
    after_ws_ = false;
}

void FieldBuilder::end_field() {
    fields_.push_back(std::move(cur_));
    cur_ = Field{};
    active_ = false;
}

void FieldBuilder::hard_break() {
    if (mode_ != Mode::Fields) return;
    end_field();
    after_ws_ = false;
}

void FieldBuilder::soft_break() {
    if (mode_ != Mode::Fields) return;
    if (!ifs_empty_) {
        expansion(ifs_first_, false);
        return;
    }
    if (active_) end_field();
    after_ws_ = false;
}

void FieldBuilder::expansion(std::string&& s, bool is_quoted) {
    Field& f = cur_;
    // The same as appending it to an empty field without a pattern form: any text in Single mode, quoted
    // text without a pattern-special byte otherwise (which would start the pattern form).
    if (f.text.empty() && !f.diverged && (is_quoted || mode_ == Mode::Single) &&
        (mode_ == Mode::Single || std::none_of(s.begin(), s.end(), pattern_special))) {
        grow(s.size());
        f.text = std::move(s);
        if (is_quoted || !f.text.empty()) active_ = true;
        if (!f.text.empty() || is_quoted) after_ws_ = false;
        return;
    }
    expansion(std::string_view(s), is_quoted);
}

void FieldBuilder::expansion(std::string_view s, bool is_quoted) {
    if (is_quoted || mode_ != Mode::Fields) {
        append(s, is_quoted);
        if (is_quoted) active_ = true;
        else if (!s.empty()) active_ = true;
        if (!s.empty() || is_quoted) after_ws_ = false;
        return;
    }
    size_t i = 0, n = s.size();
    while (i < n) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (size_t len = ifs_at(s, i)) {
            if (len == 1 && is_ifs_ws(c)) {
                if (active_) {
                    end_field();
                    after_ws_ = true;
                }
            } else {
                if (active_) {
                    end_field();
                    after_ws_ = false;
                } else if (after_ws_) {
                    after_ws_ = false;
                } else {
                    end_field();  // an empty field between two delimiters
                }
            }
            i += len;
            continue;
        }
        size_t j = i + 1;
        while (j < n && !ifs_at(s, j)) ++j;
        append(s.substr(i, j - i), false);
        active_ = true;
        after_ws_ = false;
        i = j;
    }
}

void FieldBuilder::finish(std::vector<Field>& out) {
    if (active_) end_field();
    for (auto& f : fields_) out.push_back(std::move(f));
    fields_.clear();
}

// ---------------------------------------------------------------- helpers

std::string Exec::ifs() const {
    const Var* v = state_.vars.find("IFS");
    if (!v || !v->set) return " \t\n";
    return v->str();
}

namespace {

bool lit_has_brace(const sx::Word* w) {
    for (const sx::Node* p : w->parts)
        if (p->kind == sx::NodeKind::Lit && p->as<sx::Lit>()->text.find('{') != std::string_view::npos) return true;
    return false;
}

// ---- brace expansion over a flat list of items: active characters (from Lit text) and opaque parts.
struct BItem {
    const sx::Node* part;  // non-null: an opaque part
    char c;
};
using BSeq = std::vector<BItem>;

bool parse_seq_int(std::string_view s, int64_t& v) {
    if (s.empty()) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
    }
    if (i >= s.size()) return false;
    int64_t r = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        if (r > (INT64_MAX - 9) / 10) return false;
        r = r * 10 + (s[i] - '0');
    }
    v = neg ? -r : r;
    return true;
}

// {A..B[..S]}: fills out with the words; false when the text is not a sequence.
bool brace_sequence(std::string_view body, std::vector<std::string>& out, size_t limit, bool& too_many) {
    size_t d1 = body.find("..");
    if (d1 == std::string_view::npos) return false;
    std::string_view a = body.substr(0, d1);
    std::string_view rest = body.substr(d1 + 2);
    std::string_view b = rest, st;
    size_t d2 = rest.find("..");
    bool has_step = false;
    if (d2 != std::string_view::npos) {
        b = rest.substr(0, d2);
        st = rest.substr(d2 + 2);
        has_step = true;
    }
    int64_t step = 1;
    if (has_step && !parse_seq_int(st, step)) return false;
    if (step < 0) step = -step;
    if (step == 0) step = 1;
    int64_t x, y;
    if (parse_seq_int(a, x) && parse_seq_int(b, y)) {
        auto padded = [](std::string_view s) {
            size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
            return s.size() > i + 1 && s[i] == '0';
        };
        size_t width = 0;
        if (padded(a) || padded(b)) width = std::max(a.size(), b.size());
        uint64_t span = x <= y ? static_cast<uint64_t>(y) - static_cast<uint64_t>(x)
                               : static_cast<uint64_t>(x) - static_cast<uint64_t>(y);
        uint64_t count = span / static_cast<uint64_t>(step) + 1;
        if (count > limit) {
            too_many = true;
            return true;
        }
        int64_t v = x;
        for (uint64_t k = 0; k < count; ++k) {
            std::string s = std::to_string(v < 0 ? -v : v);
            bool neg = v < 0;
            size_t len = s.size() + (neg ? 1 : 0);
            if (len < width) s.insert(0, width - len, '0');
            if (neg) s.insert(0, 1, '-');
            out.push_back(std::move(s));
            if (x <= y)
                v += step;
            else
                v -= step;
        }
        return true;
    }
    // A range of characters has two ASCII letters as ends ({a..z}, {Z..a}); {^..Z} is no sequence.
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (a.size() == 1 && b.size() == 1 && letter(a[0]) && letter(b[0])) {
        int ca = static_cast<unsigned char>(a[0]), cb = static_cast<unsigned char>(b[0]);
        int s = static_cast<int>(step);
        if (ca <= cb)
            for (int c = ca; c <= cb; c += s) out.emplace_back(1, static_cast<char>(c));
        else
            for (int c = ca; c >= cb; c -= s) out.emplace_back(1, static_cast<char>(c));
        return true;
    }
    return false;
}

// held: the words made so far are charged to the session's budget as they are made (a word of n
// characters takes 16n bytes here); past it, too_many is set and held.over is true.
// cancel: polled at each word made (a million-word expansion takes seconds on a loaded machine); once it is
// raised, too_many and cancelled are set and the caller drops the words.
struct BraceCharge {
    MemoryCharge held;
    const CancelToken* cancel = nullptr;
    bool over = false;
    bool cancelled = false;
    uint32_t tick = 0;
};

bool brace_expand(const BSeq& in, std::vector<BSeq>& out, size_t limit, bool& too_many, int depth,
                  BraceCharge& charge) {
    if (too_many) return true;
    if (depth > 200) {
        out.push_back(in);
        return true;
    }
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i].part || in[i].c != '{') continue;
        // Find the matching close brace and the top-level commas.
        int lvl = 1;
        size_t j = i + 1;
        std::vector<size_t> commas;
        for (; j < in.size(); ++j) {
            if (in[j].part) continue;
            char c = in[j].c;
            if (c == '{') ++lvl;
            else if (c == '}') {
                if (--lvl == 0) break;
            } else if (c == ',' && lvl == 1) commas.push_back(j);
        }
        if (j >= in.size()) continue;  // unmatched: later braces may still expand
        BSeq prefix(in.begin(), in.begin() + static_cast<ptrdiff_t>(i));
        BSeq suffix(in.begin() + static_cast<ptrdiff_t>(j) + 1, in.end());
        if (!commas.empty()) {
            size_t start = i + 1;
            commas.push_back(j);
            for (size_t c : commas) {
                BSeq w = prefix;
                w.insert(w.end(), in.begin() + static_cast<ptrdiff_t>(start), in.begin() + static_cast<ptrdiff_t>(c));
                w.insert(w.end(), suffix.begin(), suffix.end());
                brace_expand(w, out, limit, too_many, depth + 1, charge);
                if (too_many || out.size() > limit) {
                    too_many = true;
                    return true;
                }
                start = c + 1;
            }
            return true;
        }
        // A sequence expression: the body must be plain characters.
        std::string body;
        bool plain = true;
        for (size_t k = i + 1; k < j; ++k) {
            if (in[k].part) {
                plain = false;
                break;
            }
            body.push_back(in[k].c);
        }
        if (plain) {
            std::vector<std::string> words;
            if (brace_sequence(body, words, limit, too_many)) {
                if (too_many) return true;
                for (const std::string& s : words) {
                    BSeq w = prefix;
                    for (char c : s) w.push_back({nullptr, c});
                    w.insert(w.end(), suffix.begin(), suffix.end());
                    brace_expand(w, out, limit, too_many, depth + 1, charge);
                    if (too_many || out.size() > limit) {
                        too_many = true;
                        return true;
                    }
                }
                return true;
            }
        }
        // Not a brace expression: keep the `{` and look further.
    }
    if (charge.cancel && charge.cancel->poll(charge.tick)) {
        charge.cancelled = too_many = true;
        return true;
    }
    if (!charge.held.try_add(in.size() * sizeof(BItem) + sizeof(BSeq))) {
        charge.over = too_many = true;
        return true;
    }
    out.push_back(in);
    return true;
}

}  // namespace

// ---------------------------------------------------------------- words

namespace {

// Splits a word into brace-expansion items.
BSeq word_items(const sx::Word* w) {
    BSeq seq;
    for (const sx::Node* p : w->parts) {
        if (p->kind == sx::NodeKind::Lit) {
            for (char c : p->as<sx::Lit>()->text) seq.push_back({nullptr, c});
        } else {
            seq.push_back({p, 0});
        }
    }
    return seq;
}

}  // namespace

bool Exec::brace_splits(const sx::Word* w) {
    if (!state_.opts[OptBraceexpand] || !lit_has_brace(w)) return false;
    std::vector<std::vector<std::pair<const sx::Node*, std::string>>> words;
    return brace_words(w, words) == Outcome::Ok && words.size() > 1;
}

Outcome Exec::brace_words(const sx::Word* w, std::vector<std::vector<std::pair<const sx::Node*, std::string>>>& out) {
    BSeq items = word_items(w);
    std::vector<BSeq> results;
    bool too_many = false;
    BraceCharge charge{MemoryCharge(&session_.memory), cancel_};
    brace_expand(items, results, session_.limits.max_array_entries, too_many, 0, charge);
    if (charge.cancelled) return Outcome::Fatal;
    if (charge.over) {
        error("brace expansion: " + memory_limit_message(session_.memory.limit()));
        state_.status = 1;
        return Outcome::Fail;
    }
    if (too_many) {
        error("brace expansion: too many words (limit " + std::to_string(session_.limits.max_array_entries) + ")");
        state_.status = 1;
        return Outcome::Fail;
    }
    uint32_t tick = 0;
    for (const BSeq& r : results) {
        if (cancel_->poll(tick)) return Outcome::Fatal;
        std::vector<std::pair<const sx::Node*, std::string>> segs;
        for (const BItem& it : r) {
            if (it.part) {
                segs.emplace_back(it.part, std::string());
            } else {
                if (segs.empty() || segs.back().first) segs.emplace_back(nullptr, std::string());
                segs.back().second.push_back(it.c);
            }
        }
        out.push_back(std::move(segs));
    }
    return Outcome::Ok;
}

std::string Exec::tilde_prefix(std::string_view user, bool& ok) {
    ok = true;
    if (user.empty()) {
        const std::string* h = get_scalar("HOME");
        if (h) return *h;
        return session_.id.home;
    }
    if (user == "+") {
        const std::string* p = get_scalar("PWD");
        if (p) return *p;
        ok = false;
        return {};
    }
    if (user == "-") {
        const std::string* p = get_scalar("OLDPWD");
        if (p) return *p;
        ok = false;
        return {};
    }
    if (user == "root") return "/root";  // before the session's user: `~root` is not $HOME when running as root
    if (user == session_.id.user) return session_.id.home;
    ok = false;
    return {};
}

namespace {

// The tilde prefix of a Lit at the start of a word: the text up to the first '/' (or all of it when the
// word has no other part after it). Returns false when there is no expandable prefix.
bool split_tilde(std::string_view lit, bool last_part, std::string_view& user, std::string_view& rest,
                 bool stop_at_colon) {
    if (lit.empty() || lit[0] != '~') return false;
    size_t end = 1;
    while (end < lit.size() && lit[end] != '/' && !(stop_at_colon && lit[end] == ':')) ++end;
    if (end == lit.size() && !last_part) return false;  // the prefix continues into a quoted part
    user = lit.substr(1, end - 1);
    rest = lit.substr(end);
    return true;
}

}  // namespace

Outcome Exec::expand_parts(sx::List<sx::Node*> parts, FieldBuilder& fb, bool quoted) {
    for (const sx::Node* p : parts) {
        Outcome r = expand_part(p, fb, quoted);
        if (r != Outcome::Ok) return r;
    }
    return Outcome::Ok;
}

Outcome Exec::expand_part(const sx::Node* p, FieldBuilder& fb, bool quoted) {
    switch (p->kind) {
        case sx::NodeKind::Lit: {
            std::string_view t = p->as<sx::Lit>()->text;
            if (quoted)
                fb.quoted(t);
            else
                fb.lit(t);
            return Outcome::Ok;
        }
        case sx::NodeKind::Escaped:
            fb.quoted(p->as<sx::Escaped>()->text);
            return Outcome::Ok;
        case sx::NodeKind::SglQuoted:
            fb.quoted(p->as<sx::SglQuoted>()->text);
            return Outcome::Ok;
        case sx::NodeKind::AnsiCQuoted:
            fb.quoted(p->as<sx::AnsiCQuoted>()->value);
            return Outcome::Ok;
        case sx::NodeKind::DblQuoted: {
            // "" makes a field; "$@" with no parameters makes none.
            const auto* dq = p->as<sx::DblQuoted>();
            if (dq->parts.empty()) fb.mark_quoted();
            return expand_parts(dq->parts, fb, true);
        }
        case sx::NodeKind::ParamExp:
            return expand_param(p->as<sx::ParamExp>(), fb, quoted);
        case sx::NodeKind::CmdSubst: {
            std::string out;
            const auto* cs = p->as<sx::CmdSubst>();
            Outcome r = command_subst(cs->body, out, cs->deferred_error.empty() ? nullptr : cs);
            if (r != Outcome::Ok) return r;
            fb.expansion(std::move(out), quoted);
            return Outcome::Ok;
        }
        case sx::NodeKind::ArithSubst: {
            std::string out;
            Outcome r = arith_subst(p->as<sx::ArithSubst>(), out);
            if (r != Outcome::Ok) return r;
            fb.expansion(out, quoted);
            return Outcome::Ok;
        }
        case sx::NodeKind::ProcSubst: {
            std::string path;
            Outcome r = proc_subst(p->as<sx::ProcSubst>(), path);
            if (r != Outcome::Ok) return r;
            fb.expansion(path, quoted);
            return Outcome::Ok;
        }
        case sx::NodeKind::ExtGlob: {
            const auto* g = p->as<sx::ExtGlob>();
            std::string pat, text;
            pat.push_back(g->op);
            pat.push_back('(');
            text = pat;
            for (uint32_t i = 0; i < g->alternatives.size; ++i) {
                if (i) {
                    pat.push_back('|');
                    text.push_back('|');
                }
                FieldBuilder sub(FieldBuilder::Mode::Pattern, {}, false, &session_.memory);
                Outcome r = expand_parts(g->alternatives[i]->parts, sub, quoted);
                if (r != Outcome::Ok) return r;
                text += sub.text();
                pat += sub.take_pattern();
            }
            pat.push_back(')');
            text.push_back(')');
            if (quoted)
                fb.quoted(text);
            else
                fb.raw_pattern(pat, text);
            return Outcome::Ok;
        }
        default:
            return Outcome::Ok;
    }
}

// Expands one word (already brace-expanded into segments, or the word's own parts) into fields.
namespace {
struct SegmentView {
    const sx::Node* part;
    std::string_view text;
    // A `$name` whose name grew by brace expansion (`$x{a,b}` is `$xa $xb`): part is null, text the name.
    bool var = false;
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `name=` or `name[sub]=` at the start of a literal, with a `~` somewhere after: the length up to and
// including the '=', else 0.
size_t assignment_like_prefix(std::string_view t) {
    if (t.empty() || std::isdigit(static_cast<unsigned char>(t[0])) || t.find('~') == std::string_view::npos) return 0;
    size_t i = 0;
    while (i < t.size() && ident_char(t[i])) ++i;
    if (i == 0) return 0;
    if (i < t.size() && t[i] == '[') {
        size_t close = t.find(']', i);
        if (close == std::string_view::npos) return 0;
        i = close + 1;
    }
    if (i + 1 < t.size() && t[i] == '+' && t[i + 1] == '=') ++i;
    if (i < t.size() && t[i] == '=') return i + 1;
    return 0;
}
}  // namespace

// The value of a word that is only `$name` or `${name}` of a plain variable (set; no array, nameref or dynamic
// value), or null: the words whose expansion is that value before splitting and globbing.
const std::string* Exec::lone_plain_value(const sx::Word* w) {
    if (w->parts.size != 1 || w->parts[0]->kind != sx::NodeKind::ParamExp) return nullptr;
    const auto* pe = w->parts[0]->as<sx::ParamExp>();
    if (pe->op != sx::ParamOp::None || pe->indirect || pe->index || pe->index_all || !valid_name(pe->name))
        return nullptr;
    const Var* v = state_.vars.find(pe->name);
    return v && v->plain() ? &v->str() : nullptr;
}

// The array of a word that is only "${name[@]}" (quoted, no operator) for an indexed or associative array
// without magic (no nameref, no dynamic value), or null.
const Var* Exec::lone_quoted_elements(const sx::Word* w) {
    if (w->parts.size != 1 || w->parts[0]->kind != sx::NodeKind::DblQuoted) return nullptr;
    const auto* dq = w->parts[0]->as<sx::DblQuoted>();
    if (dq->locale || dq->parts.size != 1 || dq->parts[0]->kind != sx::NodeKind::ParamExp) return nullptr;
    const auto* pe = dq->parts[0]->as<sx::ParamExp>();
    if (pe->op != sx::ParamOp::None || pe->indirect || pe->index_all != '@' || !valid_name(pe->name)) return nullptr;
    const Var* v = state_.vars.find(pe->name);
    if (!v || v->dyn != DynVar::None || v->nameref() || !v->is_array()) return nullptr;
    return v;
}

Outcome Exec::expand_word_fields(const sx::Word* w, std::vector<std::string>& out) {
    std::vector<std::pair<size_t, Field>>* defer = deferred_globs_;
    deferred_globs_ = nullptr;
    const Var* iv = state_.vars.find("IFS");
    bool ifs_set = iv && iv->set;
    if (const Var* arr = lone_quoted_elements(w)) {
        // "${name[@]}" of an array: each element is a field, as it is (what the field builder makes of it,
        // through a copy of the whole list and a field per element).
        arr->append_values(out);
        return Outcome::Ok;
    }
    if (const std::string* value = lone_plain_value(w)) {
        // A lone `$name` of a plain variable whose value neither splits nor globs: that value is the one
        // field (none when empty), what the field builder below would make of it in ten times the work.
        // One pass over the value (find_first_of calls memchr once per byte of it, twice).
        const std::string_view ifs = ifs_set ? std::string_view(iv->str()) : std::string_view(" \t\n");
        const bool default_ifs = ifs == " \t\n";
        bool plain = true;
        for (char c : *value) {
            if (c == '*' || c == '?' || c == '[' ||
                (default_ifs ? c == ' ' || c == '\t' || c == '\n' : ifs.find(c) != std::string_view::npos)) {
                plain = false;
                break;
            }
        }
        if (plain) {
            if (!value->empty()) out.push_back(*value);
            return Outcome::Ok;
        }
    }
    std::string ifs_val;
    if (ifs_set) ifs_val = iv->str();

    // braced: a word brace expansion made, which bash no longer sees as assignment-like (`echo q=~/{a,b}`
    // keeps its tildes).
    auto expand_segments = [&](const std::vector<SegmentView>& segs, bool braced) -> Outcome {
        FieldBuilder fb(FieldBuilder::Mode::Fields, ifs_val, ifs_set, &session_.memory);
        for (size_t i = 0; i < segs.size(); ++i) {
            const SegmentView& sg = segs[i];
            if (sg.var) {
                const std::string* v = get_scalar(sg.text);
                if (v) {
                    fb.expansion(*v, false);
                } else if (state_.opts[OptNounset]) {
                    error(std::string(sg.text) + ": unbound variable");
                    exit_status_ = fatal_expansion_status();
                    return Outcome::Fatal;
                }
                continue;
            }
            if (!sg.part) {
                std::string_view text = sg.text;
                if (i == 0 && !braced && assignment_like_prefix(text) > 0) {
                    // bash (outside POSIX mode) expands `~` after the `=` and each ':' of an argument that
                    // looks like an assignment: `echo PATH=~/bin:~/x`.
                    size_t eq = assignment_like_prefix(text);
                    fb.lit(text.substr(0, eq));
                    text.remove_prefix(eq);
                    bool at_start = true;
                    bool last = segs.size() == 1;
                    while (!text.empty()) {
                        if (at_start && text[0] == '~') {
                            size_t end = 1;
                            while (end < text.size() && text[end] != '/' && text[end] != ':') ++end;
                            if (end < text.size() || last) {
                                bool ok;
                                std::string home = tilde_prefix(text.substr(1, end - 1), ok);
                                if (ok) {
                                    fb.quoted(home);
                                    text.remove_prefix(end);
                                    at_start = false;
                                    continue;
                                }
                            }
                        }
                        size_t colon = text.find(':');
                        if (colon == std::string_view::npos) break;
                        fb.lit(text.substr(0, colon + 1));
                        text.remove_prefix(colon + 1);
                        at_start = true;
                    }
                    if (text.empty()) continue;
                } else if (i == 0) {
                    std::string_view user, rest;
                    if (split_tilde(text, segs.size() == 1, user, rest, false)) {
                        bool ok;
                        std::string home = tilde_prefix(user, ok);
                        if (ok) {
                            fb.quoted(home);
                            text = rest;
                            if (text.empty()) continue;
                        }
                    }
                }
                fb.lit(text);
                continue;
            }
            Outcome r = expand_part(sg.part, fb, false);
            if (r != Outcome::Ok) return r;
        }
        std::vector<Field> fields;
        fb.finish(fields);
        for (Field& f : fields) {
            if (f.glob && !state_.opts[OptNoglob]) {
                if (defer) {
                    out.emplace_back();
                    defer->emplace_back(out.size() - 1, std::move(f));
                    continue;
                }
                Outcome r = glob_field(f, out);
                if (r != Outcome::Ok) return r;
            } else {
                out.push_back(std::move(f.text));
            }
        }
        return Outcome::Ok;
    };

    if (state_.opts[OptBraceexpand] && lit_has_brace(w)) {
        std::vector<std::vector<std::pair<const sx::Node*, std::string>>> words;
        Outcome r = brace_words(w, words);
        if (r != Outcome::Ok) return r;
        std::vector<std::string> names;  // storage for grown variable names
        for (const auto& segs : words) {
            std::vector<SegmentView> views;
            views.reserve(segs.size());
            names.clear();
            names.reserve(segs.size());
            for (size_t k = 0; k < segs.size(); ++k) {
                const auto& [part, text] = segs[k];
                if (part && part->kind == sx::NodeKind::ParamExp && k + 1 < segs.size() && !segs[k + 1].first &&
                    !segs[k + 1].second.empty() && ident_char(segs[k + 1].second[0])) {
                    const auto* pe = part->as<sx::ParamExp>();
                    if (!pe->braced && pe->op == sx::ParamOp::None && valid_name(pe->name)) {
                        std::string_view next = segs[k + 1].second;
                        size_t n = 0;
                        while (n < next.size() && ident_char(next[n])) ++n;
                        names.push_back(std::string(pe->name) + std::string(next.substr(0, n)));
                        views.push_back({nullptr, names.back(), true});
                        if (n < next.size()) views.push_back({nullptr, next.substr(n)});
                        ++k;
                        continue;
                    }
                }
                views.push_back({part, text});
            }
            r = expand_segments(views, words.size() > 1);
            if (r != Outcome::Ok) return r;
            if (out.size() > session_.limits.max_array_entries) {
                error("expansion: too many words");
                state_.status = 1;
                return Outcome::Fail;
            }
        }
        return Outcome::Ok;
    }
    std::vector<SegmentView> views;
    views.reserve(w->parts.size);
    for (const sx::Node* p : w->parts) {
        if (p->kind == sx::NodeKind::Lit)
            views.push_back({nullptr, p->as<sx::Lit>()->text});
        else
            views.push_back({p, {}});
    }
    return expand_segments(views, false);
}

Outcome Exec::glob_deferred(std::vector<std::pair<size_t, Field>>& globs, std::vector<std::string>& out) {
    if (globs.empty()) return Outcome::Ok;
    std::vector<std::string> all;
    all.reserve(out.size());
    size_t k = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        if (k < globs.size() && globs[k].first == i) {
            Outcome r = glob_field(globs[k++].second, all);
            if (r != Outcome::Ok) return r;
        } else {
            all.push_back(std::move(out[i]));
        }
    }
    out = std::move(all);
    return Outcome::Ok;
}

Outcome Exec::expand_words(sx::List<sx::Word*> words, std::vector<std::string>& out) {
    std::vector<std::pair<size_t, Field>> globs;
    for (const sx::Word* w : words) {
        if (std::string_view text; literal_as_is(w, text)) {
            out.emplace_back(text);
            continue;
        }
        deferred_globs_ = &globs;
        Outcome r = expand_word_fields(w, out);
        deferred_globs_ = nullptr;
        if (r != Outcome::Ok) return r;
    }
    return glob_deferred(globs, out);
}

Outcome Exec::expand_word(const sx::Word* w, std::string& out, bool tilde) {
    if (!w) {
        out.clear();
        return Outcome::Ok;
    }
    if (w->parts.size == 1) {
        const sx::Node* p = w->parts[0];
        if (p->kind == sx::NodeKind::Lit && !(tilde && p->as<sx::Lit>()->text.starts_with('~'))) {
            out.assign(p->as<sx::Lit>()->text);
            return Outcome::Ok;
        }
        if (p->kind == sx::NodeKind::SglQuoted) {
            out.assign(p->as<sx::SglQuoted>()->text);
            return Outcome::Ok;
        }
        // `$x`, `${x}`, `"$x"` (a `[[ ]]` operand, a `case` subject): a set ordinary scalar is its own text,
        // without a field builder. Past the builder's budget floor the general path charges the copy.
        if (p->kind == sx::NodeKind::DblQuoted && p->as<sx::DblQuoted>()->parts.size == 1)
            p = p->as<sx::DblQuoted>()->parts[0];
        if (p->kind == sx::NodeKind::ParamExp) {
            const auto* pe = p->as<sx::ParamExp>();
            if (pe->op == sx::ParamOp::None && !pe->indirect && !pe->index && !pe->index_all &&
                valid_name(pe->name)) {
                const Var* v = state_.vars.find(pe->name);
                if (v && v->plain() && v->str().size() < kBudgetCheckFloor) {
                    out.assign(v->str());
                    return Outcome::Ok;
                }
            }
        }
    }
    // Literals and arithmetic substitutions (a subscript `k$((i % 100))`): the text is theirs, one after the
    // other, as the field builder would join them in one word.
    bool plain = !(tilde && w->parts.size > 0 && w->parts[0]->kind == sx::NodeKind::Lit);
    for (const sx::Node* p : w->parts) {
        if (p->kind != sx::NodeKind::Lit && p->kind != sx::NodeKind::ArithSubst) {
            plain = false;
            break;
        }
    }
    if (plain) {
        std::string text;
        for (const sx::Node* p : w->parts) {
            if (p->kind == sx::NodeKind::Lit) {
                text += p->as<sx::Lit>()->text;
                continue;
            }
            int64_t v = 0;
            Outcome r = arith_subst_value(p->as<sx::ArithSubst>(), v);
            if (r != Outcome::Ok) return r;
            text.append(DecText(v).view());
        }
        out = std::move(text);
        return Outcome::Ok;
    }
    FieldBuilder fb(FieldBuilder::Mode::Single, {}, false, &session_.memory);
    for (uint32_t i = 0; i < w->parts.size; ++i) {
        const sx::Node* p = w->parts[i];
        if (i == 0 && tilde && p->kind == sx::NodeKind::Lit) {
            std::string_view user, rest;
            if (split_tilde(p->as<sx::Lit>()->text, w->parts.size == 1, user, rest, false)) {
                bool ok;
                std::string home = tilde_prefix(user, ok);
                if (ok) {
                    fb.quoted(home);
                    fb.lit(rest);
                    continue;
                }
            }
        }
        Outcome r = expand_part(p, fb, false);
        if (r != Outcome::Ok) return r;
    }
    out = std::move(fb.text());
    return Outcome::Ok;
}

Outcome Exec::expand_assign_value(const sx::Word* w, std::string& out, std::optional<int64_t>* number) {
    if (!w) {
        out.clear();
        return Outcome::Ok;
    }
    // `s+=x`, `n=0`: one literal without a tilde is its own value.
    if (w->parts.size == 1 && w->parts[0]->kind == sx::NodeKind::Lit) {
        std::string_view t = w->parts[0]->as<sx::Lit>()->text;
        if (t.find('~') == std::string_view::npos) {
            out.assign(t);
            return Outcome::Ok;
        }
    }
    // `x=$((x+i))`: one arithmetic substitution is the value (an assignment neither splits nor globs it).
    if (w->parts.size == 1 && w->parts[0]->kind == sx::NodeKind::ArithSubst) {
        int64_t v = 0;
        Outcome r = arith_subst_value(w->parts[0]->as<sx::ArithSubst>(), v);
        if (r != Outcome::Ok) return r;
        out.assign(DecText(v).view());
        if (number) *number = v;
        return Outcome::Ok;
    }
    FieldBuilder fb(FieldBuilder::Mode::Single, {}, false, &session_.memory);
    fb.assign_tilde = true;
    Outcome r = expand_parts_tilde(w->parts, fb, true);
    if (r != Outcome::Ok) return r;
    out = std::move(fb.text());
    return Outcome::Ok;
}

Outcome Exec::expand_parts_tilde(sx::List<sx::Node*> parts, FieldBuilder& fb, bool colons) {
    bool at_start = true;  // start of the value or just after an unquoted ':'
    for (uint32_t i = 0; i < parts.size; ++i) {
        const sx::Node* p = parts[i];
        if (p->kind != sx::NodeKind::Lit) {
            at_start = false;
            Outcome r = expand_part(p, fb, false);
            if (r != Outcome::Ok) return r;
            continue;
        }
        std::string_view t = p->as<sx::Lit>()->text;
        bool last = i + 1 == parts.size;
        while (!t.empty()) {
            if (at_start && t[0] == '~') {
                std::string_view user, rest;
                size_t end = 1;
                while (end < t.size() && t[end] != '/' && t[end] != ':') ++end;
                if (end < t.size() || last) {
                    user = t.substr(1, end - 1);
                    rest = t.substr(end);
                    bool ok;
                    std::string home = tilde_prefix(user, ok);
                    if (ok) {
                        fb.quoted(home);
                        t = rest;
                        at_start = false;
                        continue;
                    }
                }
            }
            size_t colon = t.find(':');
            if (colon == std::string_view::npos) {
                fb.lit(t);
                at_start = false;
                break;
            }
            fb.lit(t.substr(0, colon + 1));
            t = t.substr(colon + 1);
            at_start = colons;
        }
    }
    return Outcome::Ok;
}

Outcome Exec::expand_pattern(const sx::Word* w, std::string& out, bool tilde) {
    if (!w) {
        out.clear();
        return Outcome::Ok;
    }
    if (std::string_view text; literal_pattern(w, text)) {
        out.assign(text);
        return Outcome::Ok;
    }
    FieldBuilder fb(FieldBuilder::Mode::Pattern, {}, false, &session_.memory);
    Outcome r = tilde ? expand_parts_tilde(w->parts, fb, false) : expand_parts(w->parts, fb, false);
    if (r != Outcome::Ok) return r;
    out = fb.take_pattern();
    return Outcome::Ok;
}

Outcome Exec::expand_heredoc_text(const sx::Word* body, std::string& out) {
    FieldBuilder fb(FieldBuilder::Mode::Single, {}, false, &session_.memory);
    Outcome e = expand_parts(body->parts, fb, true);
    if (e != Outcome::Ok) return e;
    out = std::move(fb.text());
    return Outcome::Ok;
}

Outcome Exec::expand_heredoc(const sx::Redirect* r, std::string& out) {
    out.clear();
    if (!r->body) return Outcome::Ok;
    if (r->quoted_delim) {
        for (const sx::Node* p : r->body->parts)
            if (p->kind == sx::NodeKind::Lit) out.append(p->as<sx::Lit>()->text);
        return Outcome::Ok;
    }
    FieldBuilder fb(FieldBuilder::Mode::Single, {}, false, &session_.memory);
    Outcome e = expand_parts(r->body->parts, fb, true);
    if (e != Outcome::Ok) return e;
    out = std::move(fb.text());
    return Outcome::Ok;
}

// ---------------------------------------------------------------- substitutions

Outcome Exec::command_subst(sx::List<sx::Stmt*> body, std::string& out, const sx::CmdSubst* deferred) {
    if (subshell_depth_ + 1 > session_.limits.max_subshell_depth) {
        error("command substitution: maximum nesting depth exceeded (" +
              std::to_string(session_.limits.max_subshell_depth) + ")");
        state_.status = 1;
        return Outcome::Fatal;
    }
    // $(<file): the file's content, without running anything.
    if (body.size == 1 && !body[0]->background && body[0]->cmd->kind == sx::NodeKind::Simple) {
        const auto* sc = body[0]->cmd->as<sx::Simple>();
        if (sc->words.empty() && sc->assigns.empty() && sc->redirs.size == 1 &&
            sc->redirs[0]->op == sx::RedirOp::In && sc->redirs[0]->fd < 0) {
            std::vector<std::string> words;
            Outcome r = expand_word_fields(sc->redirs[0]->target, words);
            if (r != Outcome::Ok) return r;
            // A failure is the substitution's status ($? of `x=$(< missing)` is 1).
            if (words.size() != 1) {
                error("ambiguous redirect");
                state_.status = last_cmdsubst_status_ = 1;
                out.clear();
                return Outcome::Ok;
            }
            int err = 0;
            StreamPtr s = open_path(words[0], 0, err);
            out.clear();
            if (!s) {
                error(words[0] + ": " + std::string(vfs::error_message(static_cast<vfs::Errc>(err))));
                state_.status = last_cmdsubst_status_ = 1;
                return Outcome::Ok;
            }
            IoResult rr = s->read_all(out, session_.limits.max_variable_bytes + 1);
            (void)rr;
            if (out.size() > session_.limits.max_variable_bytes) {
                error("command substitution: output exceeds the variable size limit");
                out.clear();
                state_.status = 1;
                return Outcome::Fatal;
            }
            while (!out.empty() && out.back() == '\n') out.pop_back();
            state_.status = 0;
            last_cmdsubst_status_ = 0;
            return Outcome::Ok;
        }
    }
    auto sink = std::make_shared<StringSink>(session_.limits.max_variable_bytes + 1, &session_.memory);
    // bash numbers a deferred text's lines from the line where the substitution ends.
    const uint32_t base_line =
        deferred ? deferred->pos.line + line_offset_ +
                       static_cast<uint32_t>(std::count(deferred->raw.begin(), deferred->raw.end(), '\n'))
                 : 0;
    int status = in_subshell([&](Exec& child) {
        child.subshell_depth_ = subshell_depth_ + 1;
        child.set_fd(1, sink);
        child.xtrace_level_ = xtrace_level_ + 1;
        if (!child.state_.opts[ShInheritErrexit]) child.state_.opts[OptErrexit] = false;
        return deferred ? child.run_source(deferred->deferred_text, child.source_name_, false, {}, base_line)
                        : child.exec_list(body);
    });
    if (sink->over_budget()) {
        // The budget is full: the command fails, the shell goes on.
        sink->take();
        error("command substitution: " + memory_limit_message(session_.memory.limit()));
        out.clear();
        state_.status = 1;
        return Outcome::Fail;
    }
    out = sink->take();
    if (out.size() > session_.limits.max_variable_bytes) {
        error("command substitution: output exceeds the variable size limit (" +
              std::to_string(session_.limits.max_variable_bytes) + " bytes)");
        out.clear();
        state_.status = 1;
        return Outcome::Fatal;
    }
    if (out.find('\0') != std::string::npos) {
        error("warning: command substitution: ignored null byte in input");
        std::erase(out, '\0');
    }
    while (!out.empty() && out.back() == '\n') out.pop_back();
    state_.status = status;
    last_cmdsubst_status_ = status;
    if (session_.run_token.cancelled() || cancel_->cancelled()) return Outcome::Fatal;
    return Outcome::Ok;
}

[[gnu::always_inline]] inline Outcome Exec::arith_subst_value(const sx::ArithSubst* a, int64_t& v) {
    Outcome r = arith(a->expr, a->raw, a->exact, v, true);
    // bash discards the rest of the command line after an error in $(( )) (status 1) and reads the next
    // line; an unset variable under set -u still ends the shell.
    if (r == Outcome::Fatal && state_.status == 1 && !cancel_->cancelled_fast()) discard_line_ = true;
    return r;
}

Outcome Exec::arith_subst(const sx::ArithSubst* a, std::string& out) {
    int64_t v = 0;
    Outcome r = arith_subst_value(a, v);
    if (r != Outcome::Ok) return r;
    out.assign(DecText(v).view());  // into out's buffer, no temporary string
    return Outcome::Ok;
}

// ---------------------------------------------------------------- pathname expansion

Outcome Exec::glob_field(const Field& f, std::vector<std::string>& out) {
    const std::string& pat = f.pattern();
    bool extglob = state_.opts[ShExtglob] || f.diverged;
    if (!is_glob(pat, true)) {
        // No live glob character after all (`x='a\*'; echo $x`): the word stays as it is, backslash included.
        out.push_back(f.text);
        return Outcome::Ok;
    }
    PathPattern pp = split_path_pattern(pat, extglob);
    PatternOptions po;
    po.nocase = state_.opts[ShNocaseglob];
    po.extglob = extglob;
    po.pathname = true;
    po.dotglob = state_.opts[ShDotglob];
    po.bytes = bytes_locale();
    bool globstar = state_.opts[ShGlobstar];

    // (display path, filesystem path)
    std::vector<std::pair<std::string, std::string>> cur;
    if (pp.absolute)
        cur.emplace_back("/", "/");
    else
        cur.emplace_back("", state_.cwd);
    auto join = [](const std::string& a, std::string_view b) {
        if (a.empty()) return std::string(b);
        std::string r = a;
        if (r.back() != '/') r.push_back('/');
        r.append(b);
        return r;
    };
    size_t budget = session_.limits.max_array_entries;
    for (size_t ci = 0; ci < pp.components.size(); ++ci) {
        const PathComponent& c = pp.components[ci];
        bool last = ci + 1 == pp.components.size();
        std::vector<std::pair<std::string, std::string>> next;
        if (!c.glob) {
            for (auto& [disp, fsp] : cur) {
                std::string d = disp.empty() ? c.literal : (disp == "/" ? "/" + c.literal : disp + "/" + c.literal);
                std::string p = join(fsp, c.literal);
                if (!last || true) {
                    auto st = session_.fs.lstat(p);
                    if (!st) continue;
                }
                next.emplace_back(std::move(d), std::move(p));
            }
        } else if (c.globstar && globstar) {
            // `**`: this directory and every directory below it (not following symlinks), and, as the
            // last component, every file below too.
            for (auto& [disp, fsp] : cur) {
                std::vector<std::pair<std::string, std::string>> stack{{disp, fsp}};
                std::vector<std::pair<std::string, std::string>> found;
                if (!last) found.emplace_back(disp, fsp);
                while (!stack.empty()) {
                    if (cancel_->cancelled()) return Outcome::Fatal;
                    auto [d, p] = stack.back();
                    stack.pop_back();
                    auto ents = session_.fs.readdir(p.empty() ? "/" : p);
                    if (!ents) continue;
                    std::sort(ents->begin(), ents->end(),
                              [](const vfs::DirEntry& a, const vfs::DirEntry& b) { return a.name > b.name; });
                    for (const auto& e : *ents) {
                        if (e.name[0] == '.' && !po.dotglob) continue;
                        std::string nd = d.empty() ? e.name : (d == "/" ? "/" + e.name : d + "/" + e.name);
                        std::string np = join(p, e.name);
                        auto st = session_.fs.lstat(np);
                        bool dir = st && st->is_directory();
                        if (dir || last) found.emplace_back(nd, np);
                        if (dir) stack.emplace_back(nd, np);
                        if (found.size() > budget) break;
                    }
                }
                for (auto& x : found) next.push_back(std::move(x));
            }
        } else {
            Pattern cp = Pattern::compile(c.pattern, po);
            for (auto& [disp, fsp] : cur) {
                if (cancel_->cancelled()) return Outcome::Fatal;
                auto ents = session_.fs.readdir(fsp.empty() ? "/" : fsp);
                if (!ents) continue;
                // `shopt -u globskipdots`: a pattern that starts with a '.' may match . and .. too.
                if (!state_.opts[ShGlobskipdots] && !c.pattern.empty() && c.pattern[0] == '.') {
                    for (const char* dot : {".", ".."}) {
                        vfs::DirEntry de;
                        de.name = dot;
                        ents->push_back(std::move(de));
                    }
                }
                size_t tick = 0;
                for (const auto& e : *ents) {
                    if (cancel_->poll(tick)) return Outcome::Fatal;
                    if (!cp.match(e.name)) continue;
                    if ((e.name == "." || e.name == "..") && state_.opts[ShGlobskipdots]) continue;
                    std::string nd = disp.empty() ? e.name : (disp == "/" ? "/" + e.name : disp + "/" + e.name);
                    std::string np = join(fsp, e.name);
                    if (!last) {
                        auto st = session_.fs.stat(np);
                        if (!st || !st->is_directory()) continue;
                    }
                    next.emplace_back(std::move(nd), std::move(np));
                }
                if (next.size() > budget) break;
            }
        }
        cur = std::move(next);
        if (cur.empty()) break;
    }
    std::vector<std::string> matches;
    for (auto& [disp, fsp] : cur) {
        if (pp.trailing_slash) {
            auto st = session_.fs.stat(fsp);
            if (!st || !st->is_directory()) continue;
            disp.push_back('/');
        }
        matches.push_back(std::move(disp));
    }
    // GLOBIGNORE
    if (const std::string* gi = get_scalar("GLOBIGNORE"); gi && !gi->empty()) {
        std::vector<std::string> keep;
        PatternOptions io = po;
        io.dotglob = true;
        for (auto& m : matches) {
            bool ignored = false;
            size_t start = 0;
            while (start <= gi->size()) {
                size_t colon = gi->find(':', start);
                std::string_view one = std::string_view(*gi).substr(start, colon == std::string::npos ? std::string::npos : colon - start);
                if (!one.empty() && pattern_match(one, m, io)) ignored = true;
                if (colon == std::string::npos) break;
                start = colon + 1;
            }
            std::string_view base = m;
            if (auto sl = base.rfind('/'); sl != std::string_view::npos) base = base.substr(sl + 1);
            if (base == "." || base == "..") ignored = true;
            if (!ignored) keep.push_back(std::move(m));
        }
        matches = std::move(keep);
    }
    if (matches.empty()) {
        if (state_.opts[ShFailglob]) {
            report_error("no match: " + f.text);
            state_.status = 1;
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
        if (state_.opts[ShNullglob]) return Outcome::Ok;
        out.push_back(f.text);
        return Outcome::Ok;
    }
    std::sort(matches.begin(), matches.end());
    for (auto& m : matches) out.push_back(std::move(m));
    return Outcome::Ok;
}

}  // namespace bashkit::interp
