// Parameter expansion: ${...} in all its forms.
#include <algorithm>
#include <cstring>

#include "interp/exec.hpp"
#include "interp/fields.hpp"
#include "interp/pattern.hpp"
#include "interp/quote.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

struct ParamValue {
    bool is_list = false;  // @ * forms: `list` holds the elements
    bool star = false;     // joined with IFS[0] when quoted
    bool set = false;      // scalar: the parameter is set
    std::string scalar;
    // The elements of a list form. The positional parameters are borrowed, not copied (each "$@" of a large
    // argument list copied it whole); own() copies them before a change.
    std::vector<std::string> list;
    const std::vector<std::string>* borrowed = nullptr;
    const std::vector<std::string>& items() const { return borrowed ? *borrowed : list; }
    std::vector<std::string>& own() {
        if (borrowed) {
            list = *borrowed;
            borrowed = nullptr;
        }
        return list;
    }
    std::string display;   // the name for messages: "x", "a[1]", "$1"
    bool array_ref = false;  // the name refers to an array as a whole (for @A, @a)
    std::string var_name;    // the variable behind it, when there is one
    bool bad_subscript = false;  // a negative subscript before the start (reported)
};

namespace {

bool is_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// UTF-8 aware character helpers (invalid bytes count as one character each).
size_t char_len(std::string_view s, size_t i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + n > s.size()) return 1;
    for (size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
    return n;
}
size_t count_chars(std::string_view s) {
    size_t n = 0;
    for (size_t i = 0; i < s.size(); i += char_len(s, i)) ++n;
    return n;
}
// Byte offset of character index k (clamped to the end).
size_t char_offset(std::string_view s, size_t k) {
    size_t i = 0;
    while (k > 0 && i < s.size()) {
        i += char_len(s, i);
        --k;
    }
    return i;
}

// Case mapping of one character (ASCII plus Latin-1 supplement and basic Greek/Cyrillic in UTF-8).
void map_char(std::string_view s, size_t i, size_t len, bool upper, std::string& out) {
    if (len == 1) {
        char c = s[i];
        if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
        if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
        out.push_back(c);
        return;
    }
    Utf8Char u = decode_utf8(s, i);
    if (u.len == 0) {
        out.append(s.substr(i, len));
        return;
    }
    uint32_t cp = u.cp;
    if (upper) {
        if ((cp >= 0xE0 && cp <= 0xFE && cp != 0xF7)) cp -= 0x20;
        else if (cp >= 0x3B1 && cp <= 0x3C9 && cp != 0x3C2) cp -= 0x20;
        else if (cp >= 0x430 && cp <= 0x44F) cp -= 0x20;
        else if (cp >= 0x450 && cp <= 0x45F) cp -= 0x50;
        else if (cp >= 0x100 && cp <= 0x17F && (cp & 1)) cp -= 1;
    } else {
        if ((cp >= 0xC0 && cp <= 0xDE && cp != 0xD7)) cp += 0x20;
        else if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) cp += 0x20;
        else if (cp >= 0x410 && cp <= 0x42F) cp += 0x20;
        else if (cp >= 0x400 && cp <= 0x40F) cp += 0x50;
        else if (cp >= 0x100 && cp <= 0x17F && !(cp & 1)) cp += 1;
    }
    append_code_point(out, cp);
}

}  // namespace

// Looks up a parameter given as text (for ${!x} and namerefs): "name", "name[sub]", "1", "@", ...
// sub is evaluated here.
static Outcome lookup_spec(Exec& ex, std::string_view spec, ParamValue& v, bool& bad);

// The value of a named parameter (without indirection).
// length: the ${#name[sub]} form, whose bad subscript is an expansion error.
static Outcome named_value(Exec& ex, std::string_view name, const sx::Word* index, std::string_view index_text,
                      bool has_index_text, char index_all, ParamValue& v, bool length = false) {
    ShellState& st = ex.state();
    v.display = std::string(name);
    if (is_digits(name)) {
        v.display = "$" + std::string(name);
        size_t n = 0;
        for (char c : name) {
            n = n * 10 + static_cast<size_t>(c - '0');
            if (n > 100000000) break;
        }
        if (n == 0) {
            v.set = true;
            v.scalar = st.script_name;
        } else if (n <= ex.params().size()) {
            v.set = true;
            v.scalar = ex.params()[n - 1];
        }
        return Outcome::Ok;
    }
    if (name.size() == 1 && !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
        v.display = "$" + std::string(name);
        switch (name[0]) {
            case '@':
            case '*':
                v.is_list = true;
                v.star = name[0] == '*';
                v.borrowed = &ex.params();
                v.set = !v.borrowed->empty();
                return Outcome::Ok;
            case '#':
                v.set = true;
                v.scalar = to_dec(static_cast<int64_t>(ex.params().size()));
                return Outcome::Ok;
            case '?':
                v.set = true;
                v.scalar = to_dec(st.status);
                return Outcome::Ok;
            case '$':
                v.set = true;
                v.scalar = to_dec(ex.session().id.pid);
                return Outcome::Ok;
            case '!':
                if (st.last_bg_pid) {
                    v.set = true;
                    v.scalar = to_dec(st.last_bg_pid);
                }
                return Outcome::Ok;
            case '-': {
                v.set = true;
                std::string f;
                for (int i = 0; i < kSetOptCount; ++i)
                    if (st.opts[i] && opt_info(i).letter) f.push_back(opt_info(i).letter);
                // bash's order: himBHs... we keep letters in a stable order like bash for the common ones.
                std::string ordered;
                if (st.interactive) f.push_back('i');
                for (char c : std::string_view("abefhikmnptuvxBCEHPT"))
                    if (f.find(c) != std::string::npos) ordered.push_back(c);
                // c: commands from -c (and the API); s: a script read from stdin; nothing for a file
                if (!st.script_input) ordered.push_back('c');
                else if (st.frames.empty() || !st.frames.front().main_entry) ordered.push_back('s');
                v.scalar = ordered;
                return Outcome::Ok;
            }
            default:
                return Outcome::Ok;
        }
    }
    v.var_name = std::string(name);
    // A nameref to an element or to all elements (`a[i]`, `a[@]`): $ref is that parameter, a list for a[@].
    if (!index && !has_index_text && !index_all && !length) {
        const Var* raw = st.vars.find(name);
        if (raw && raw->nameref() && raw->set && raw->str().find('[') != std::string::npos) {
            bool ok = true;
            std::string target = ex.resolve_nameref(name, ok);
            if (ok && target.find('[') != std::string::npos && target.back() == ']') {
                bool bad = false;
                Outcome r = lookup_spec(ex, target, v, bad);
                v.display = std::string(name);
                return r;
            }
        }
    }
    const Var* var = ex.lookup(name);
    if (index_all) {
        v.is_list = true;
        v.star = index_all == '*';
        v.display = std::string(name) + "[" + index_all + "]";
        v.array_ref = true;
        if (var) var->append_values(v.list);
        v.set = !v.list.empty();
        return Outcome::Ok;
    }
    if (index || has_index_text) {
        std::string sub;
        if (index) {
            // An indexed array's subscript is arithmetic text: ${a['1']} is an error, as in $(( '1' )).
            Outcome r = var && var->is_assoc() ? ex.expand_word(index, sub, false) : ex.expand_arith_word(index, sub);
            if (r != Outcome::Ok) return r;
        } else {
            Outcome r = ex.subscript_text(var, index_text, sub);
            if (r != Outcome::Ok) return r;
        }
        v.display = std::string(name) + "[" + sub + "]";
        if (var && var->is_assoc()) {
            if (var->assoc)
                if (const std::string* s = var->assoc->get(sub)) {
                    v.set = true;
                    v.scalar = *s;
                }
            return Outcome::Ok;
        }
        int64_t i = 0;
        Outcome r = ex.arith_text(sub, i, true);
        // A bad subscript ends a -c shell; a script from a file or stdin goes on with the next line.
        if (r == Outcome::Fatal && ex.exit_status() == 1) ex.discard_line_ = ex.state().script_input;
        if (r != Outcome::Ok) return r;
        // A negative subscript counts back from the end of an indexed array; before its start, or on anything
        // else (a scalar, an unset name), it is bad: a message and no value, or for ${#name[sub]} an error
        // that discards the line, named by the subscript's text as written (bash's "-3]: bad array subscript").
        if (i < 0) {
            int64_t n = var && var->is_indexed() && var->idx ? var->idx->next_index() : 0;
            if (i + n < 0) {
                if (!length) {
                    ex.report_error(std::string(name) + ": bad array subscript");
                    v.bad_subscript = true;
                    // With set -e bash exits there, before the command runs, whatever the context (the
                    // condition of an `if`, the left of `||`: errexit's exemptions do not apply) and with
                    // no ERR trap; without it the expansion is empty and the command runs.
                    if (ex.state().opts[OptErrexit]) {
                        ex.exit_status_ = 1;
                        return Outcome::Fatal;
                    }
                    return Outcome::Ok;
                }
                if (!var) return Outcome::Ok;  // ${#unset[-1]} is 0
                ex.report_error((index ? sx::print(*index) : std::string(index_text)) + "]: bad array subscript");
                ex.exit_status_ = 1;
                ex.discard_line_ = true;
                return Outcome::Fatal;
            }
            i += n;
        }
        if (!var) return Outcome::Ok;
        if (var->is_indexed()) {
            if (!var->idx) return Outcome::Ok;
            if (const std::string* s = var->idx->get(i)) {
                v.set = true;
                v.scalar = *s;
            }
            return Outcome::Ok;
        }
        if (i == 0 && var->set) {
            v.set = true;
            v.scalar = var->str();
        }
        return Outcome::Ok;
    }
    if (var) {
        if (const std::string* s = var->scalar_value()) {
            v.set = true;
            v.scalar = *s;
        }
        v.array_ref = var->is_array();
    }
    return Outcome::Ok;
}

static Outcome lookup_spec(Exec& ex, std::string_view spec, ParamValue& v, bool& bad) {
    bad = false;
    size_t lb = spec.find('[');
    if (lb != std::string_view::npos && spec.back() == ']') {
        std::string_view name = spec.substr(0, lb);
        std::string_view sub = spec.substr(lb + 1, spec.size() - lb - 2);
        if (!valid_name(name)) {
            bad = true;
            return Outcome::Ok;
        }
        if (sub == "@" || sub == "*") return named_value(ex, name, nullptr, {}, false, sub[0], v);
        return named_value(ex, name, nullptr, sub, true, 0, v);
    }
    if (valid_name(spec) || is_digits(spec) ||
        (spec.size() == 1 && std::strchr("@*#?$!-", spec[0]) != nullptr))
        return named_value(ex, spec, nullptr, {}, false, 0, v);
    bad = true;
    return Outcome::Ok;
}

Outcome Exec::param_value(const sx::ParamExp* p, ParamValue& v) {
    if (p->indirect) {
        // A target whose subscript expands the same indirection (ref='A[${!ref}]') recursed without end.
        if (stack_exhausted()) {
            report_error(std::string(p->name) + ": maximum nesting depth exceeded");
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
        ParamValue iv;
        Outcome r = named_value(*this, p->name, p->index, {}, false, p->index_all, iv);
        if (r != Outcome::Ok) return r;
        if (iv.bad_subscript) return Outcome::Ok;  // reported; the expansion is empty
        // ${!a[@]}: the elements joined with spaces name the target (so more than one is an invalid name)
        std::string target = iv.scalar;
        if (iv.is_list) {
            target.clear();
            for (size_t i = 0; i < iv.items().size(); ++i) target += (i ? " " : "") + iv.items()[i];
        }
        // A nameref: ${!ref} gives the name it refers to.
        if (!p->index && !p->index_all && valid_name(p->name)) {
            const Var* raw = state_.vars.find(p->name);
            if (raw && raw->nameref()) {
                v.set = raw->set;
                v.scalar = raw->str();
                v.display = std::string(p->name);
                return Outcome::Ok;
            }
        }
        // An array without the element named (`${!A}` of an associative array, no A[0]) gives nothing;
        // an unset variable is an error, an empty one an invalid name (below).
        if (iv.array_ref && target.empty() && !iv.is_list) return Outcome::Ok;
        // bash says so with set -u too (`set -u; echo "${!f}"`: "f: invalid indirect expansion").
        if (!iv.set && !iv.array_ref) {
            report_error(std::string(p->name) + (p->index ? "[" + sx::print(*p->index) + "]" : std::string()) +
                         ": invalid indirect expansion");
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
        bool bad = false;
        r = lookup_spec(*this, target, v, bad);
        if (r != Outcome::Ok) return r;
        if (bad) {
            report_error(target + ": invalid variable name");
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
        // An unset target is named as written (`set -u; f=nope; echo ${!f}`: "!f: unbound variable").
        if (!v.set && !p->index_all)
            v.display = "!" + std::string(p->name) + (p->index ? "[" + sx::print(*p->index) + "]" : std::string());
        return Outcome::Ok;
    }
    return named_value(*this, p->name, p->index, {}, false, p->index_all, v, p->op == sx::ParamOp::Length);
}

namespace {

// Emits a value (scalar or list) into the builder.
void emit(FieldBuilder& fb, const ParamValue& v, bool quoted, const std::string& ifs_val, bool ifs_set) {
    if (!v.is_list) {
        fb.expansion(v.scalar, quoted);
        return;
    }
    if (fb.mode() != FieldBuilder::Mode::Fields || (quoted && v.star)) {
        std::string sep = v.star ? (ifs_set ? ifs_val.substr(0, ifs_val.empty() ? 0 : 1) : " ") : " ";
        if (v.star && ifs_set && !ifs_val.empty()) sep = ifs_val.substr(0, char_len(ifs_val, 0));  // a character
        // Element by element, as the joined text would be (an empty list still makes "" when quoted): a
        // join would copy the whole list first.
        fb.expansion(std::string_view(), quoted);
        const std::vector<std::string>& items = v.items();
        for (size_t i = 0; i < items.size(); ++i) {
            if (i) fb.expansion(sep, quoted);
            fb.expansion(items[i], quoted);
        }
        if (quoted) fb.mark_quoted();
        return;
    }
    if (quoted) {
        for (size_t i = 0; i < v.items().size(); ++i) {
            if (i) fb.hard_break();
            fb.expansion(v.items()[i], true);
        }
        return;
    }
    for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) fb.soft_break();
        fb.expansion(v.items()[i], false);
    }
}

// Unquoted ${!prefix*} and ${!a[*]} with an empty IFS: bash joins the names into one field (with nothing
// between the names of variables, with a space between the keys), where $* and ${a[*]} stay separate fields.
void unsplit_star_join(ParamValue& v, bool quoted, const std::string& ifs_val, bool ifs_set, std::string_view sep) {
    if (quoted || !v.star || !ifs_set || !ifs_val.empty() || v.items().empty()) return;
    std::string joined;
    for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) joined += sep;
        joined += v.items()[i];
    }
    v.is_list = false;
    v.set = true;
    v.scalar = std::move(joined);
}

}  // namespace

Outcome Exec::expand_param(const sx::ParamExp* p, FieldBuilder& fb, bool quoted) {
    // What the parser could not read (`${a&}`, `${#x-y}`, `${}`) keeps its text as the name: bash reports it
    // when it runs and discards the rest of the command line.
    if (p->op == sx::ParamOp::None && !p->indirect && !p->index && !p->index_all) {
        std::string_view n = p->name;
        bool ok = valid_name(n) || is_digits(n) || (n.size() == 1 && std::strchr("@*#?$!-", n[0]) != nullptr);
        if (!ok) {
            error("${" + std::string(n) + "}: bad substitution");
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
    }
    // ${a[]}: an empty subscript written as such (one that expands to nothing is 0).
    if (p->index && p->index->parts.size == 0) {
        report_error("${" + std::string(p->name) + "[]}: bad substitution");
        exit_status_ = 1;
        discard_line_ = true;
        return Outcome::Fatal;
    }
    // Fast path: $name / ${name} of an ordinary variable.
    if (p->op == sx::ParamOp::None && !p->indirect && !p->index && !p->index_all) {
        std::string_view n = p->name;
        const Var* raw = state_.vars.find(n);
        // (a nameref to an element, `a[i]` or `a[@]`, takes the general path)
        bool element_ref = raw && raw->nameref() && raw->set && raw->str().find('[') != std::string::npos;
        if (!element_ref && !n.empty() && (std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) {
            const Var* var = raw && raw->dyn == DynVar::None && !raw->nameref() ? raw : lookup(n);
            if (var && !var->is_array()) {
                if (var->set) {
                    fb.expansion(var->str(), quoted);
                    return Outcome::Ok;
                }
            } else if (var) {
                if (const std::string* s = var->scalar_value()) {
                    fb.expansion(*s, quoted);
                    return Outcome::Ok;
                }
            }
            if (state_.opts[OptNounset]) {
                error(std::string(n) + ": unbound variable");
                exit_status_ = fatal_expansion_status();
                return Outcome::Fatal;
            }
            if (quoted) fb.mark_quoted();  // "$unset" is still one (empty) field
            return Outcome::Ok;
        }
    }

    const Var* ifsv = state_.vars.find("IFS");
    bool ifs_set = ifsv && ifsv->set;
    std::string ifs_val = ifs_set ? ifsv->str() : std::string(" \t\n");

    if (p->op == sx::ParamOp::PrefixNames) {
        ParamValue v;
        v.is_list = true;
        v.star = !p->at_form;
        for (auto& n : state_.vars.names_with_prefix(p->name)) {
            const Var* var = state_.vars.find(n);
            if (var && (var->set || var->is_array())) v.list.push_back(n);
        }
        unsplit_star_join(v, quoted, ifs_val, ifs_set, "");
        emit(fb, v, quoted, ifs_val, ifs_set);
        return Outcome::Ok;
    }
    if (p->op == sx::ParamOp::Keys) {
        ParamValue v;
        v.is_list = true;
        v.star = p->index_all == '*';
        const Var* var = lookup(p->name);
        if (var) {
            if (var->is_indexed() && var->idx)
                for (const auto& [k, s] : *var->idx) v.list.push_back(to_dec(k));
            else if (var->is_assoc() && var->assoc)
                for (const auto& [k, s] : var->assoc->ordered()) v.list.push_back(*k);
            else if (!var->is_array() && var->set)
                v.list.push_back("0");
        }
        unsplit_star_join(v, quoted, ifs_val, ifs_set, " ");
        emit(fb, v, quoted, ifs_val, ifs_set);
        return Outcome::Ok;
    }

    ParamValue v;
    Outcome r = param_value(p, v);
    if (r != Outcome::Ok) return r;

    using Op = sx::ParamOp;
    Op op = p->op;
    bool is_set = v.is_list ? !v.items().empty() : v.set;
    // A list is null when its elements joined make an empty string: "${a[*]:-w}" with IFS= and a=("" "")
    // uses w; "${a[@]:-w}" and the unquoted forms do not (the elements are joined with a space).
    bool is_null = v.scalar.empty();
    if (v.is_list) {
        bool empty_sep = quoted && v.star && ifs_set && ifs_val.empty();
        is_null = std::all_of(v.items().begin(), v.items().end(), [](const std::string& e) { return e.empty(); }) &&
                  (v.items().size() <= 1 || empty_sep);
        // Through ${!ref} with ref='a[@]', bash's : test sees only whether there are elements.
        if (p->indirect) is_null = v.items().empty();
    }

    if (op == Op::Default || op == Op::Assign || op == Op::Error || op == Op::Alternate) {
        bool use_word = p->colon ? (!is_set || is_null) : !is_set;
        if (op == Op::Alternate) {
            // "${unset+word}" is still one empty field ("${@+w}" and "${a[@]+w}" of nothing make none)
            if (quoted && (!use_word || !v.is_list)) fb.mark_quoted();
            if (!use_word) {
                if (p->arg) {
                    bool saved = fb.lit_splits;
                    fb.lit_splits = !quoted;
                    // Unquoted, the word gets tilde expansion like a word of its own.
                    r = quoted ? expand_parts(p->arg->parts, fb, true)
                               : expand_parts_tilde(p->arg->parts, fb, fb.assign_tilde);
                    fb.lit_splits = saved;
                    return r;
                }
            }
            return Outcome::Ok;
        }
        if (!use_word) {
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
        }
        if (op == Op::Default) {
            if (quoted) fb.mark_quoted();
            if (p->arg) {
                bool saved = fb.lit_splits;
                fb.lit_splits = !quoted;
                r = quoted ? expand_parts(p->arg->parts, fb, true)
                           : expand_parts_tilde(p->arg->parts, fb, fb.assign_tilde);
                fb.lit_splits = saved;
                return r;
            }
            return Outcome::Ok;
        }
        if (op == Op::Error) {
            std::string msg;
            if (p->arg) {
                r = expand_word(p->arg, msg);
                if (r != Outcome::Ok) return r;
            }
            if (msg.empty()) msg = p->colon ? "parameter null or not set" : "parameter not set";
            error(v.display.starts_with("$") ? v.display.substr(1) + ": " + msg : v.display + ": " + msg);
            exit_status_ = fatal_expansion_status();
            return Outcome::Fatal;
        }
        // Assign
        std::string val;
        if (p->arg && quoted) {  // "${v:=~}": no tilde expansion inside double quotes
            FieldBuilder vb(FieldBuilder::Mode::Single, {}, false, &session_.memory);
            r = expand_parts(p->arg->parts, vb, true);
            if (r != Outcome::Ok) return r;
            val = std::move(vb.text());
        } else if (p->arg) {
            r = expand_assign_value(p->arg, val);
            if (r != Outcome::Ok) return r;
        }
        // ${!ref:=value} assigns the variable ref names (the elements of ref joined, for ref[@]).
        std::string target(p->name);
        if (p->indirect && !v.is_list) {
            ParamValue iv;
            r = named_value(*this, p->name, p->index, {}, false, p->index_all, iv);
            if (r != Outcome::Ok) return r;
            target = iv.scalar;
            if (iv.is_list) {
                target.clear();
                for (size_t i = 0; i < iv.items().size(); ++i) target += (i ? " " : "") + iv.items()[i];
            }
            if (!valid_name(target)) {  // an element (ref='a[1]') cannot be assigned this way
                report_error(target + ": invalid variable name");
                exit_status_ = 1;
                discard_line_ = true;
                return Outcome::Fatal;
            }
        }
        if (v.is_list || !valid_name(target) || (p->indirect && p->index)) {
            std::string nm = v.display.starts_with("$") ? v.display.substr(1) : v.display;
            report_error(nm + ": cannot assign in this way");
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
        bool ok;
        assign_arith_error_ = false;
        if (p->index) {
            std::string key;
            r = expand_word(p->index, key, false);
            if (r != Outcome::Ok) return r;
            ok = assign_elem(p->name, key, val, false);
        } else {
            ok = assign(target, val);
        }
        if (!ok) {
            if (assign_fatal()) return Outcome::Fatal;  // a bad expression for an integer variable
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
        // The value after assignment (attributes such as -i or -u may have changed it).
        ParamValue nv;
        r = param_value(p, nv);
        if (r != Outcome::Ok) return r;
        if (quoted) fb.mark_quoted();
        fb.expansion(nv.scalar, quoted);
        return Outcome::Ok;
    }

    // set -u: ${#a[@]} needs a set array (bash 5.2: `a=()` is one; a scalar, an unset or a declared-only
    // name is unbound), an error that discards the line with status 1.
    if (op == Op::Length && p->index_all && !p->indirect && state_.opts[OptNounset]) {
        const Var* var = lookup(p->name);
        if (!var || !var->is_array() || !var->set) {
            error(std::string(p->name) + ": unbound variable");
            exit_status_ = 1;
            discard_line_ = true;
            return Outcome::Fatal;
        }
    }
    if (!is_set && !v.is_list && state_.opts[OptNounset] && !(op == Op::Length && false)) {
        error(v.display + ": unbound variable");
        exit_status_ = fatal_expansion_status();
        return Outcome::Fatal;
    }
    if (op == Op::Length && v.is_list && state_.opts[OptNounset] && !is_set && !v.array_ref && false) {
    }

    switch (op) {
        case Op::None:
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
        case Op::Length: {
            size_t n = v.is_list ? v.items().size() : bytes_locale() ? v.scalar.size() : count_chars(v.scalar);
            fb.expansion(to_dec(static_cast<int64_t>(n)), quoted);
            return Outcome::Ok;
        }
        case Op::RemPrefix:
        case Op::RemLongPrefix:
        case Op::RemSuffix:
        case Op::RemLongSuffix: {
            std::string pat;
            r = expand_pattern(p->arg, pat, true);  // `${x#~}`: the tilde expands, quoted or not
            if (r != Outcome::Ok) return r;
            PatternOptions po;
            po.extglob = state_.opts[ShExtglob];
            po.bytes = bytes_locale();
            Pattern cp = Pattern::compile(pat, po);
            auto apply = [&](std::string& s) {
                std::optional<size_t> k;
                switch (op) {
                    case Op::RemPrefix:
                        k = cp.shortest_prefix(s);
                        if (k) s.erase(0, *k);
                        break;
                    case Op::RemLongPrefix:
                        k = cp.longest_prefix(s);
                        if (k) s.erase(0, *k);
                        break;
                    case Op::RemSuffix:
                        k = cp.shortest_suffix(s);
                        if (k) s.erase(*k);
                        break;
                    default:
                        k = cp.longest_suffix(s);
                        if (k) s.erase(*k);
                        break;
                }
            };
            if (v.is_list)
                for (auto& s : v.own()) apply(s);
            else
                apply(v.scalar);
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
        }
        case Op::Replace:
        case Op::ReplaceAll:
        case Op::ReplacePrefix:
        case Op::ReplaceSuffix: {
            // An unset parameter stays empty, whatever the pattern would match (${u/#/R} is empty, ${e/#/R}
            // of an empty e is R); the pattern and the replacement are not expanded.
            if (!is_set && !v.is_list) {
                emit(fb, v, quoted, ifs_val, ifs_set);
                return Outcome::Ok;
            }
            // bash expands a tilde at the start of the pattern of ${x/p/r} and ${x//p/r} (not after the
            // `#` or `%` anchor) and of the replacement, quoted or not.
            std::string pat;
            r = expand_pattern(p->arg, pat, op == Op::Replace || op == Op::ReplaceAll);
            if (r != Outcome::Ok) return r;
            std::string rep_pat;
            if (p->arg2) {
                r = expand_pattern(p->arg2, rep_pat, true);
                if (r != Outcome::Ok) return r;
            }
            bool amp = state_.opts[ShPatsubReplacement];
            // The replacement: quoted characters literal, an unquoted & stands for the match.
            struct Piece {
                bool match;
                std::string text;
            };
            std::vector<Piece> pieces;
            {
                std::string lit;
                for (size_t i = 0; i < rep_pat.size(); ++i) {
                    char c = rep_pat[i];
                    if (c == '\\' && i + 1 < rep_pat.size()) {
                        lit.push_back(rep_pat[++i]);
                    } else if (c == '&' && amp) {
                        pieces.push_back({false, std::move(lit)});
                        lit.clear();
                        pieces.push_back({true, {}});
                    } else {
                        lit.push_back(c);
                    }
                }
                pieces.push_back({false, std::move(lit)});
            }
            auto build = [&](std::string_view matched) {
                std::string out;
                for (const auto& pc : pieces) out += pc.match ? std::string(matched) : pc.text;
                return out;
            };
            PatternOptions po;
            po.extglob = state_.opts[ShExtglob];
            po.bytes = bytes_locale();
            Pattern cp = Pattern::compile(pat, po);
            // bash only tries spans of the length it counts for the pattern (see substitution_match_length).
            // Without `*` or an extglob group every match has one length, so a match of another length
            // means that none can be found.
            const std::optional<size_t> span = substitution_match_length(pat, po.bytes);
            auto counted = [&](std::string_view matched) {
                return !span || pattern_char_count(matched, po.bytes) == *span;
            };
            bool too_big = false;
            auto apply = [&](std::string& s) {
                if (op == Op::ReplacePrefix) {
                    auto k = cp.longest_prefix(s);
                    if (k && counted(std::string_view(s).substr(0, *k))) s = build(std::string_view(s).substr(0, *k)) + s.substr(*k);
                    return;
                }
                if (op == Op::ReplaceSuffix) {
                    auto k = cp.longest_suffix(s);
                    if (k && counted(std::string_view(s).substr(*k))) s = s.substr(0, *k) + build(std::string_view(s).substr(*k));
                    return;
                }
                if (pat.empty()) return;
                if (op == Op::Replace) {
                    auto m = cp.find_first(s);
                    if (m && !counted(std::string_view(s).substr(m->begin, m->end - m->begin))) return;
                    if (m) s = s.substr(0, m->begin) + build(std::string_view(s).substr(m->begin, m->end - m->begin)) + s.substr(m->end);
                    return;
                }
                // Charged before anything is built: the list of matches (up to one per byte), then the
                // result, whose size is known from the matches (`${x//?/$x}` squares the length).
                MemoryCharge held(&session_.memory);
                if (!held.try_add(s.size() * (sizeof(MatchSpan) + 4))) {
                    too_big = true;
                    return;
                }
                PatternStats stats;
                stats.cancel = cancel_;
                auto all = cp.find_all(s, &stats);
                if (cancel_->cancelled_fast()) return;  // cut short: the caller's next check ends the run
                if (all.empty() || !counted(std::string_view(s).substr(all[0].begin, all[0].end - all[0].begin))) return;
                size_t lit_total = 0, amps = 0;
                for (const auto& pc : pieces) {
                    if (pc.match) ++amps;
                    else lit_total += pc.text.size();
                }
                size_t result = s.size();
                for (const auto& m : all) {
                    size_t len = m.end - m.begin;
                    size_t add = lit_total;
                    if (amps && len > (SIZE_MAX / 4) / amps) {
                        too_big = true;
                        return;
                    }
                    add += amps * len;
                    result = result - len + add;
                    if (result > session_.limits.max_variable_bytes) {
                        too_big = true;
                        return;
                    }
                }
                if (!held.try_add(result)) {
                    too_big = true;
                    return;
                }
                std::string out;
                out.reserve(result);
                size_t last = 0;
                for (const auto& m : all) {
                    out.append(s, last, m.begin - last);
                    out += build(std::string_view(s).substr(m.begin, m.end - m.begin));
                    last = m.end;
                }
                out.append(s, last);
                s = std::move(out);
            };
            if (v.is_list) {
                for (auto& s : v.own()) {
                    if (too_big || cancel_->cancelled()) break;
                    apply(s);
                }
            } else {
                apply(v.scalar);
            }
            if (too_big) {
                error(v.display + ": pattern substitution: " + memory_limit_message(session_.memory.limit()));
                state_.status = 1;
                return Outcome::Fail;
            }
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
        }
        case Op::Substring: {
            std::string off_text, len_text;
            int64_t off = 0, len = 0;
            bool has_len = p->arg2 != nullptr;
            if (p->arg) {
                r = expand_word(p->arg, off_text, false);
                if (r != Outcome::Ok) return r;
            }
            r = arith_text(off_text, off, true);
            if (r != Outcome::Ok) return r;
            if (has_len) {
                r = expand_word(p->arg2, len_text, false);
                if (r != Outcome::Ok) return r;
                r = arith_text(len_text, len, true);
                if (r != Outcome::Ok) return r;
            }
            if (v.is_list) {
                std::vector<std::string> out;
                bool positional = p->name == "@" || p->name == "*";
                if (positional && !p->indirect) {
                    // $0 is element 0.
                    const std::vector<std::string>& params = v.items();
                    int64_t n = static_cast<int64_t>(params.size()) + 1;
                    if (off < 0) off += n;
                    if (off < 0 || off > n) off = n;
                    int64_t end = n;
                    if (has_len) {
                        if (len < 0) {
                            error(v.display.substr(1) + ": " + to_dec(len) + ": substring expression < 0");
                            exit_status_ = 1;
                            discard_line_ = true;
                            return Outcome::Fatal;
                        }
                        end = std::min<int64_t>(n, off + len);
                    }
                    for (int64_t i = off; i < end; ++i)
                        out.push_back(i == 0 ? state_.script_name : params[static_cast<size_t>(i - 1)]);
                } else {
                    // Array: by index.
                    const Var* var = lookup(v.var_name);
                    std::vector<std::pair<int64_t, std::string>> elems;
                    if (var && var->is_indexed() && var->idx)
                        for (const auto& [k, s] : *var->idx) elems.emplace_back(k, s);
                    else if (var && var->is_assoc() && var->assoc) {
                        int64_t k = 0;
                        for (const auto& [kk, s] : var->assoc->ordered()) elems.emplace_back(k++, *s);
                    } else if (var && var->set)
                        elems.emplace_back(0, var->str());
                    int64_t top = elems.empty() ? 0 : elems.back().first + 1;
                    if (off < 0) off += top;
                    if (off < 0) {
                        off = INT64_MAX;
                    }
                    if (has_len && len < 0) {
                        error(v.display + ": " + to_dec(len) + ": substring expression < 0");
                        exit_status_ = 1;
                        discard_line_ = true;
                        return Outcome::Fatal;
                    }
                    int64_t taken = 0;
                    for (const auto& [k, s] : elems) {
                        if (k < off) continue;
                        if (has_len && taken >= len) break;
                        out.push_back(s);
                        ++taken;
                    }
                }
                v.borrowed = nullptr;
                v.list = std::move(out);
                emit(fb, v, quoted, ifs_val, ifs_set);
                return Outcome::Ok;
            }
            std::string& s = v.scalar;
            const bool bytes = bytes_locale();
            int64_t n = static_cast<int64_t>(bytes ? s.size() : count_chars(s));
            if (off < 0) off += n;
            if (off < 0 || off > n) {
                v.scalar.clear();
                emit(fb, v, quoted, ifs_val, ifs_set);
                return Outcome::Ok;
            }
            int64_t end = n;
            if (has_len) {
                if (len < 0) {
                    end = n + len;
                    if (end < off) {
                        error(v.display + ": " + to_dec(len) + ": substring expression < 0");
                        exit_status_ = 1;
                        discard_line_ = true;
                        return Outcome::Fatal;
                    }
                } else {
                    end = off + len > n ? n : off + len;
                }
            }
            size_t b0 = bytes ? static_cast<size_t>(off) : char_offset(s, static_cast<size_t>(off));
            size_t b1 = bytes ? static_cast<size_t>(end) : char_offset(s, static_cast<size_t>(end));
            v.scalar = s.substr(b0, b1 - b0);
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
        }
        case Op::UpperFirst:
        case Op::UpperAll:
        case Op::LowerFirst:
        case Op::LowerAll: {
            std::string pat;
            if (p->arg) {
                r = expand_pattern(p->arg, pat);
                if (r != Outcome::Ok) return r;
            }
            bool upper = op == Op::UpperFirst || op == Op::UpperAll;
            bool all = op == Op::UpperAll || op == Op::LowerAll;
            std::optional<Pattern> cp;
            PatternOptions po;
            po.bytes = bytes_locale();
            if (!pat.empty()) cp = Pattern::compile(pat, po);
            auto apply = [&](std::string& s) {
                std::string out;
                for (size_t i = 0; i < s.size();) {
                    size_t l = po.bytes ? 1 : char_len(s, i);
                    bool doit = (all || i == 0) && (!cp || cp->match(std::string_view(s).substr(i, l)));
                    if (doit)
                        map_char(s, i, l, upper, out);
                    else
                        out.append(s, i, l);
                    i += l;
                }
                s = std::move(out);
            };
            if (v.is_list)
                for (auto& s : v.own()) apply(s);
            else
                apply(v.scalar);
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
        }
        case Op::Transform: {
            char t = p->transform;
            const Var* var = v.var_name.empty() ? nullptr : lookup(v.var_name);
            auto attr_letters = [&](const Var* vv) {
                std::string a;
                if (!vv) return a;
                if (vv->is_indexed()) a += 'a';
                if (vv->is_assoc()) a += 'A';
                if (vv->attrs & kAttrInteger) a += 'i';
                if (vv->attrs & kAttrLower) a += 'l';
                if (vv->attrs & kAttrNameref) a += 'n';
                if (vv->attrs & kAttrReadonly) a += 'r';
                if (vv->attrs & kAttrTrace) a += 't';
                if (vv->attrs & kAttrUpper) a += 'u';
                if (vv->attrs & kAttrExport) a += 'x';
                return a;
            };
            auto one = [&](std::string& s) {
                switch (t) {
                    case 'Q': s = quote_for_reuse(s, QuoteStyle::Single); break;
                    case 'E': s = ansi_c_decode(s, EscapeMode::DollarQuote).bytes; break;
                    case 'u': if (!s.empty()) { std::string o; size_t l = char_len(s, 0); map_char(s, 0, l, true, o); s = o + s.substr(l); } break;
                    case 'U': { std::string o; for (size_t i = 0; i < s.size();) { size_t l = char_len(s, i); map_char(s, i, l, true, o); i += l; } s = o; break; }
                    case 'L': { std::string o; for (size_t i = 0; i < s.size();) { size_t l = char_len(s, i); map_char(s, i, l, false, o); i += l; } s = o; break; }
                    case 'P': break;
                    default: break;
                }
            };
            if (t == 'a') {
                std::string a = attr_letters(var);
                if (v.is_list) {
                    for (auto& s : v.own()) s = a;
                } else {
                    // the attributes of a declared variable, set or not (`declare -A A; ${A@a}` is A)
                    v.scalar = var ? a : std::string();
                    v.set = true;
                }
                emit(fb, v, quoted, ifs_val, ifs_set);
                return Outcome::Ok;
            }
            if (t == 'A') {
                // Nothing to declare: quoted, one empty field, as for the other transforms.
                if (!var || (!is_set && !v.is_list && !v.array_ref && attr_letters(var).empty())) {
                    if (quoted && !v.is_list) fb.mark_quoted();
                    return Outcome::Ok;
                }
                std::string a = attr_letters(var);
                std::string out;
                if (v.is_list && var->is_array()) {
                    print_declare(v.var_name, *var, out);
                    if (!out.empty() && out.back() == '\n') out.pop_back();
                } else if (v.array_ref && var->is_array()) {
                    // ${a@A} on an array: element 0 only, as a declare with the flags.
                    if (!is_set) {
                        out = "declare -" + a + " " + v.var_name;
                    } else {
                        out = "declare -" + a + " " + v.var_name + "=" + quote_for_reuse(v.scalar, QuoteStyle::Single);
                    }
                } else if (!is_set) {
                    out = "declare -" + a + " " + v.var_name;  // declared with attributes, no value
                } else {
                    if (a.empty())
                        out = v.var_name + "=" + quote_for_reuse(v.scalar, QuoteStyle::Single);
                    else
                        out = "declare -" + a + " " + v.var_name + "=" + quote_for_reuse(v.scalar, QuoteStyle::Single);
                }
                fb.expansion(out, quoted);
                return Outcome::Ok;
            }
            if (t == 'K' || t == 'k') {
                if (v.is_list && var && var->is_array()) {
                    std::vector<std::string> items;
                    if (var->is_indexed() && var->idx)
                        for (const auto& [k, s] : *var->idx) {
                            items.push_back(to_dec(k));
                            items.push_back(s);
                        }
                    if (var->is_assoc() && var->assoc)
                        for (const auto& [k, s] : var->assoc->ordered()) {
                            items.push_back(*k);
                            items.push_back(*s);
                        }
                    if (t == 'k') {
                        v.borrowed = nullptr;
                        v.list = std::move(items);
                        emit(fb, v, quoted, ifs_val, ifs_set);
                        return Outcome::Ok;
                    }
                    std::string out;
                    for (size_t i = 0; i + 1 < items.size(); i += 2) {
                        out += var->is_assoc() ? quote_for_reuse(items[i], QuoteStyle::Single) == items[i] ? items[i] : quote_for_reuse(items[i], QuoteStyle::Single) : items[i];
                        out += " ";
                        out += quote_declare_value(items[i + 1]);
                        out += " ";
                    }
                    fb.expansion(out, quoted);
                    return Outcome::Ok;
                }
                if (v.is_list) {
                    for (auto& s : v.own()) s = quote_for_reuse(s, QuoteStyle::Single);
                } else if (is_set) {
                    v.scalar = quote_for_reuse(v.scalar, QuoteStyle::Single);
                }
                emit(fb, v, quoted, ifs_val, ifs_set);
                return Outcome::Ok;
            }
            if (!is_set) {
                // Nothing to transform: quoted, one empty field, except for "${a[@]@Q}" and "${@@Q}".
                if (quoted && !(v.is_list && !v.star)) fb.mark_quoted();
                return Outcome::Ok;
            }
            if (v.is_list)
                for (auto& s : v.own()) one(s);
            else
                one(v.scalar);
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
        }
        default:
            emit(fb, v, quoted, ifs_val, ifs_set);
            return Outcome::Ok;
    }
}

}  // namespace bashkit::interp
