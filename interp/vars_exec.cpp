// Variable access for the evaluator: lookups with namerefs and dynamic variables, assignments with
// attributes and limits, the environment of commands.
#include <charconv>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>

#include "interp/exec.hpp"
#include "interp/fields.hpp"
#include "interp/quote.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

namespace {

uint32_t intrand32(uint32_t last) {
    int64_t ret = last == 0 ? 123459876 : last;
    int64_t h = ret / 127773;
    int64_t l = ret - 127773 * h;
    int64_t t = 16807 * l - 2836 * h;
    return static_cast<uint32_t>(t < 0 ? t + 0x7fffffff : t);
}

int64_t now_seconds(const vfs::Clock& c) { return c.now().sec; }

}  // namespace

uint64_t Exec::next_random() {
    // bash's brand(): Park-Miller, folded to 15 bits, never the same value twice in a row.
    uint32_t seed = static_cast<uint32_t>(state_.rng);
    int rv;
    do {
        seed = intrand32(seed);
        rv = static_cast<int>(((seed >> 16) ^ (seed & 65535)) & 0x7fff);
    } while (rv == state_.last_random);
    state_.rng = seed;
    state_.last_random = rv;
    return static_cast<uint64_t>(rv);
}

std::string Exec::dyn_value(DynVar d) {
    switch (d) {
        case DynVar::Random: return to_dec(static_cast<int64_t>(next_random()));
        case DynVar::Srandom: {
            uint64_t x = session_.base_seed ^ (session_.seed_counter.fetch_add(1) * 0x9E3779B97F4A7C15ull);
            x ^= x >> 33;
            x *= 0xff51afd7ed558ccdull;
            x ^= x >> 33;
            return to_dec(static_cast<int64_t>(x & 0xffffffffu));
        }
        case DynVar::Seconds: return to_dec(now_seconds(*session_.clock) - state_.seconds_base);
        case DynVar::Lineno: return to_dec(lineno_);
        case DynVar::Bashpid: return to_dec(state_.bashpid);
        case DynVar::EpochSeconds: return to_dec(now_seconds(*session_.clock));
        case DynVar::EpochRealtime: {
            vfs::TimeSpec t = session_.clock->now();
            char buf[64];
            std::snprintf(buf, sizeof buf, "%lld.%06lld", static_cast<long long>(t.sec),
                          static_cast<long long>(t.nsec / 1000));
            return buf;
        }
        case DynVar::BashSubshell: return to_dec(state_.subshell_level);
        case DynVar::Underscore: return state_.last_arg;
        case DynVar::BashCommand: return command_head_ ? *command_head_ : command_text(current_simple_);
        default: return {};
    }
}

std::vector<DebugEntry> Exec::debug_stack() const {
    std::vector<DebugEntry> out;
    for (size_t i = state_.frames.size(); i-- > 0;) {
        const CallFrame& f = state_.frames[i];
        for (size_t j = f.sourced.size(); j-- > 0;)
            out.push_back({"source", f.sourced[j].file, f.sourced[j].call_line});
        if (i > 0)
            out.push_back({f.funcname(), f.source().empty() ? std::string_view("environment") : f.source(), f.call_line});
        else if (f.main_entry)
            out.push_back({"main", f.source(), 0});
    }
    return out;
}

std::string_view Exec::error_name() const {
    // The first entry of debug_stack(), without building it.
    const CallFrame& f = state_.frames.back();
    std::string_view s;
    if (!f.sourced.empty()) s = f.sourced.back().file;
    else if (state_.frames.size() > 1) s = f.source().empty() ? std::string_view("environment") : f.source();
    else if (f.main_entry) s = f.source();
    return s.empty() ? std::string_view(source_name_) : s;
}

std::string_view Exec::current_source_file() const {
    const CallFrame& f = state_.frames.back();
    return f.sourced.empty() ? f.source() : std::string_view(f.sourced.back().file);
}

const Var* Exec::lookup(std::string_view name) {
    Var* v = state_.vars.find(name);
    if (!v) return nullptr;
    if (v->dyn != DynVar::None) {
        scratch_ = Var{};
        switch (v->dyn) {
            case DynVar::Funcname:
            case DynVar::BashSource:
            case DynVar::BashLineno: {
                scratch_.attrs = kAttrIndexed;
                auto arr = std::make_shared<IndexedArray>();
                // FUNCNAME is empty outside functions, even in a sourced file.
                if (v->dyn != DynVar::Funcname || state_.frames.size() > 1) {
                    int64_t k = 0;
                    for (const DebugEntry& e : debug_stack()) {
                        if (v->dyn == DynVar::Funcname)
                            arr->slot(k++) = std::string(e.funcname);
                        else if (v->dyn == DynVar::BashSource)
                            arr->slot(k++) = std::string(e.source);
                        else
                            arr->slot(k++) = to_dec(e.line);
                    }
                }
                if (arr->empty()) return nullptr;
                scratch_.idx = std::move(arr);
                scratch_.set = true;
                return &scratch_;
            }
            case DynVar::Pipestatus: {
                scratch_.attrs = kAttrIndexed;
                scratch_.idx = std::make_shared<IndexedArray>();
                int64_t k = 0;
                for (int v : state_.pipestatus) scratch_.idx->slot(k++) = to_dec(v);
                scratch_.set = true;
                return &scratch_;
            }
            case DynVar::Groups: {
                scratch_.attrs = kAttrIndexed;
                scratch_.idx = std::make_shared<IndexedArray>();
                scratch_.idx->slot(0) = to_dec(session_.id.gid);
                scratch_.set = true;
                return &scratch_;
            }
            default:
                scratch_.set_str(dyn_value(v->dyn));
                scratch_.set = true;
                scratch_.attrs = v->attrs;
                return &scratch_;
        }
    }
    if (v->attrs & kAttrNameref) {
        bool ok = true;
        std::string target = resolve_nameref(name, ok);
        if (!ok || target.empty()) return v->set ? nullptr : nullptr;
        size_t lb = target.find('[');
        if (lb != std::string::npos && target.back() == ']') {
            std::string base = target.substr(0, lb);
            std::string sub = target.substr(lb + 1, target.size() - lb - 2);
            if (sub == "@" || sub == "*") return nullptr;  // all elements: only $ref itself reads them (params.cpp)
            const Var* arr = lookup(base);
            if (!arr) return nullptr;
            {
                // the subscript is expanded (an associative key, or `$(...)` in an arithmetic one)
                std::string key;
                if (subscript_text(arr, sub, key) != Outcome::Ok) return nullptr;
                sub = std::move(key);
                arr = lookup(base);  // the expansion may have changed the variables
                if (!arr) return nullptr;
            }
            const std::string* val = nullptr;
            if (arr->is_assoc()) {
                if (arr->assoc) val = arr->assoc->get(sub);
            } else {
                int64_t i = 0;
                if (arith_text(sub, i, false) != Outcome::Ok) return nullptr;
                if (arr->is_indexed() && arr->idx) {
                    if (i < 0) i += arr->idx->next_index();
                    val = arr->idx->get(i);
                } else if (i == 0 && arr->set) {
                    val = &arr->str();
                }
            }
            if (!val) return nullptr;
            std::string copy = *val;
            scratch_ = Var{};
            scratch_.set_str(std::move(copy));
            scratch_.set = true;
            return &scratch_;
        }
        if (target == name) return nullptr;  // a nameref without a target reads as unset
        const Var* tv = state_.vars.find(target);
        if (tv && (tv->attrs & kAttrNameref)) return nullptr;  // a chain that did not resolve
        return lookup(target);
    }
    return v;
}

Outcome Exec::subscript_text(const Var* arr, std::string_view text, std::string& out) {
    // An associative array's key is the expanded word; any other subscript is arithmetic, whose text is
    // expanded first (`${!ref}` with ref='a[$(echo 1)]').
    bool expand = arr && arr->is_assoc() ? text.find_first_of("$`'\"\\") != std::string_view::npos
                                         : text.find_first_of("$`") != std::string_view::npos;
    if (!expand) {
        out.assign(text);
        return Outcome::Ok;
    }
    // The word's nodes point into this tree; a function defined inside a $( ) of it keeps the tree alive.
    std::shared_ptr<sx::ParseResult> tree;
    const sx::Word* w = nullptr;
    SubscriptWord* cached = nullptr;
    if (text.size() <= 256) {
        if (!subscript_words_) subscript_words_ = std::make_unique<std::array<SubscriptWord, 32>>();
        cached = &(*subscript_words_)[std::hash<std::string_view>{}(text) % subscript_words_->size()];
        if (cached->tree && cached->text == text) {
            tree = cached->tree;
            w = cached->word;
        }
    }
    if (!tree) {
        tree = std::make_shared<sx::ParseResult>();
        w = sx::parse_word(text, *tree->arena);
        if (cached) *cached = SubscriptWord{std::string(text), tree, w};
    }
    if (!w) {
        out.assign(text);
        return Outcome::Ok;
    }
    OwnerScope scope(*this, tree);
    return expand_word(w, out, false);
}

bool Exec::assign_elem_text(std::string_view name, std::string_view text, std::string_view value, bool append) {
    std::string key;
    if (subscript_text(lookup(name), text, key) != Outcome::Ok) return false;
    return assign_elem(name, key, value, append);
}

std::string Exec::resolve_nameref(std::string_view name, bool& ok) {
    ok = true;
    std::string cur(name);
    for (int hops = 0; hops < 16; ++hops) {
        Var* v = state_.vars.find(cur);
        if (!v || !(v->attrs & kAttrNameref)) return cur;
        if (!v->set || v->str().empty()) return cur;
        if (v->str() == cur) {
            ok = false;
            return {};
        }
        cur = v->str();
    }
    error(std::string(name) + ": circular name reference");
    ok = false;
    return {};
}

Var* Exec::lookup_mut(std::string_view name) {
    Var* v = state_.vars.find(name);
    if (v && (v->attrs & kAttrNameref) && v->set && !v->str().empty()) {
        bool ok;
        std::string target = resolve_nameref(name, ok);
        if (!ok) return nullptr;
        return state_.vars.find(target);
    }
    return v;
}

bool Exec::bytes_locale() {
    for (std::string_view name : {std::string_view("LC_ALL"), std::string_view("LC_CTYPE"), std::string_view("LANG")}) {
        const std::string* v = get_scalar(name);
        if (!v || v->empty()) continue;
        // "UTF-8" or "utf8", in any case, anywhere in the value (read in place: called at every pattern match).
        const std::string& s = *v;
        auto lower = [&](size_t i) { return static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))); };
        for (size_t i = 0; i + 4 <= s.size(); ++i) {
            if (lower(i) != 'u' || lower(i + 1) != 't' || lower(i + 2) != 'f') continue;
            size_t j = i + 3 + (s[i + 3] == '-');
            if (j < s.size() && s[j] == '8') return false;
        }
        return true;
    }
    return false;
}

bool Exec::bytes_locale_for(std::string_view pattern, std::string_view text) {
    auto ascii = [](std::string_view s) {
        for (char c : s)
            if (static_cast<unsigned char>(c) >= 0x80) return false;
        return true;
    };
    return !(ascii(pattern) && ascii(text)) && bytes_locale();
}

const std::string* Exec::get_scalar(std::string_view name) {
    const Var* v = lookup(name);
    if (!v) return nullptr;
    return v->scalar_value();
}

std::string Exec::get_str(std::string_view name) {
    const std::string* s = get_scalar(name);
    return s ? *s : std::string();
}

bool Exec::variable_bytes_fit(std::string_view name, size_t more) {
    const ExecutionLimits& L = session_.limits;
    if (L.max_total_variable_bytes && state_.vars.total_bytes() + more > L.max_total_variable_bytes) {
        error(std::string(name) + ": variables exceed the total size limit (" +
              std::to_string(L.max_total_variable_bytes) + " bytes)");
        return false;
    }
    if (!state_.vars.fits(more)) {
        error(std::string(name) + ": " + memory_limit_message(session_.memory.limit()));
        return false;
    }
    return true;
}

bool Exec::check_var_limits(const Var& v, std::string_view name) {
    (void)v;
    (void)name;
    return true;
}

namespace {
void apply_case_attrs(uint16_t attrs, std::string& s) {
    if (attrs & kAttrUpper) {
        for (char& c : s)
            if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    } else if (attrs & kAttrLower) {
        for (char& c : s)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    } else if (attrs & kAttrCapital) {
        bool first = true;
        for (char& c : s) {
            if (first && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
            else if (!first && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
            first = false;
        }
    }
}
}  // namespace

// Computes the stored form of a value for a variable with attrs (integer evaluation, case).
static bool convert_value(Exec& ex, uint16_t attrs, const std::string* old, std::string_view value, bool append,
                          std::string& out) {
    if (attrs & kAttrInteger) {
        // A bad expression ends the assigning command's line (assign_arith_error_); bash names the builtin
        // that assigned.
        std::string prefix = ex.running_builtin_ ? std::string(ex.running_builtin_) + ": " : std::string();
        // `+=` reads the old value before the expression runs, as bash does (`x+='x=7'` adds 7 to the old x),
        // and `old` may not survive the expression (an assignment to the same array can move its elements).
        int64_t o = 0;
        if (append && old && ex.arith_text_prefixed(*old, o, prefix) != Outcome::Ok) {
            ex.assign_arith_error_ = true;
            return false;
        }
        int64_t v = 0;
        if (ex.arith_text_prefixed(value, v, prefix) != Outcome::Ok) {
            ex.assign_arith_error_ = true;
            return false;
        }
        out = to_dec(static_cast<int64_t>(static_cast<uint64_t>(o) + static_cast<uint64_t>(v)));
        return true;
    }
    if (append && old) {
        out.reserve(old->size() + value.size());
        out = *old;
        out.append(value);
    } else {
        out.assign(value);
    }
    apply_case_attrs(attrs, out);
    return true;
}

bool Exec::assign_number(std::string_view name, int64_t value) {
    Var* v = state_.vars.find(name);
    if (v && v->nameref()) return assign(name, to_dec(value));
    if (!v) v = &state_.vars.lookup_or_create(name);
    return assign_number(*v, name, value);
}

bool Exec::assign_number(Var& v, std::string_view name, int64_t value) {
    return assign_to(v, name, DecText(value).view(), false, &value);  // `i++` builds no string
}

bool Exec::assign_to(Var& v, std::string_view name, std::string_view value, bool append, const int64_t* number) {
    if (v.readonly()) {
        report_error(std::string(name) + ": readonly variable");
        return false;
    }
    const ExecutionLimits& L = session_.limits;
    if (v.is_array()) {
        std::string key = "0";
        return assign_elem(name, key, value, append);
    }
    size_t old_size = v.str().size();
    size_t new_size = append ? old_size + value.size() : value.size();
    if (new_size > L.max_variable_bytes) {
        error(std::string(name) + ": value too large (limit " + std::to_string(L.max_variable_bytes) + " bytes)");
        return false;
    }
    // Inline fast path: most assignments fit in the store's reservation.
    if (new_size > old_size && (L.max_total_variable_bytes || !state_.vars.fits(new_size - old_size)) &&
        !variable_bytes_fit(name, new_size - old_size))
        return false;
    // A large value is made beside the old one (a copy, or an append that reallocates): for that moment both
    // are held, so the whole new value must fit in what the budget has left.
    if (new_size >= kBudgetCheckFloor && !state_.vars.fits(new_size)) {
        error(std::string(name) + ": " + memory_limit_message(session_.memory.limit()));
        return false;
    }
    if (v.dyn != DynVar::None) {
        // Assigning a dynamic variable: RANDOM seeds, SECONDS restarts; the others lose their magic.
        if (v.dyn == DynVar::Random) {
            int64_t seed = 0;
            parse_int(value, seed);
            state_.rng = static_cast<uint32_t>(seed);
            state_.last_random = 0;
            return true;
        }
        if (v.dyn == DynVar::Seconds) {
            int64_t n = 0;
            (void)arith_text(value, n, false);
            state_.seconds_base = session_.clock->now().sec - n;
            return true;
        }
        if (v.dyn == DynVar::Lineno || v.dyn == DynVar::Bashpid || v.dyn == DynVar::Funcname ||
            v.dyn == DynVar::BashSource || v.dyn == DynVar::BashLineno || v.dyn == DynVar::Groups ||
            v.dyn == DynVar::BashSubshell || v.dyn == DynVar::Pipestatus || v.dyn == DynVar::BashCommand)
            return true;  // silently ignored, as bash does
        if (v.dyn == DynVar::Underscore) {
            state_.last_arg.assign(value);
            return true;
        }
        v.dyn = DynVar::None;
    }
    if (v.attrs & (kAttrInteger | kAttrUpper | kAttrLower | kAttrCapital)) {
        std::string out;
        if (!convert_value(*this, v.attrs, v.set ? &v.str() : nullptr, value, append, out)) return false;
        state_.vars.add_bytes(static_cast<int64_t>(out.size()) - static_cast<int64_t>(old_size));
        v.set_str(std::move(out));
    } else if (append && v.set) {
        v.str_mut().append(value);
        state_.vars.add_bytes(static_cast<int64_t>(value.size()));
    } else {
        if (number)
            v.set_number(*number, value);
        else
            v.set_str(value);
        state_.vars.add_bytes(static_cast<int64_t>(value.size()) - static_cast<int64_t>(old_size));
    }
    v.set = true;
    if (state_.opts[OptAllexport]) v.attrs |= kAttrExport;
    if (name.size() >= 4 && (name == "OPTIND" || name == "HOME")) set_special(name);
    return true;
}

void Exec::set_special(std::string_view name) {
    if (name == "OPTIND") {
        state_.getopts_pos = 0;
        const std::string* s = get_scalar("OPTIND");
        int64_t n = 1;
        if (s) parse_int(*s, n);
        state_.getopts_optind = n;
    }
}

bool Exec::assign(std::string_view name, std::string_view value, bool append) {
    Var* v = state_.vars.find(name);
    if (v && (v->attrs & kAttrNameref)) {
        bool ok;
        std::string target = resolve_nameref(name, ok);
        if (!ok) return false;
        if (target != name) {
            size_t lb = target.find('[');
            if (lb != std::string::npos && target.back() == ']') {
                std::string sub = target.substr(lb + 1, target.size() - lb - 2);
                if (sub == "@" || sub == "*") {  // a nameref to a[@] reads all elements and writes none
                    report_error(target + ": bad array subscript");
                    return false;
                }
                return assign_elem_text(target.substr(0, lb), sub, value, append);
            }
            if (!valid_name(target)) {
                error("`" + target + "': not a valid identifier");
                return false;
            }
            return assign(target, value, append);
        }
        // An unset nameref: the assignment sets the name it refers to.
        if (!v->set) {
            if (!valid_name(value)) {
                error("`" + std::string(value) + "': not a valid identifier");
                return false;
            }
            v->set_str(value);
            v->set = true;
            return true;
        }
    }
    if (!v) v = &state_.vars.lookup_or_create(name);
    return assign_to(*v, name, value, append);
}

bool Exec::assign_elem(std::string_view name, std::string_view key, std::string_view value, bool append,
                       bool key_is_arith_done, std::string_view written) {
    Var* v = state_.vars.find(name);
    std::string resolved;
    if (v && (v->attrs & kAttrNameref)) {
        bool ok;
        resolved = resolve_nameref(name, ok);
        if (!ok) return false;
        if (!valid_name(resolved)) {  // a nameref to an element (`a[0]`) has no elements of its own
            report_error("`" + resolved + "': not a valid identifier");
            return false;
        }
        name = resolved;
        v = state_.vars.find(name);
    }
    // The subscript of an indexed array as a number (key already evaluated, or arithmetic text).
    auto index_of = [&](int64_t& idx) {
        if (!key_is_arith_done) return arith_text(key, idx, false) == Outcome::Ok;
        parse_int(key, idx);
        return true;
    };
    std::string new_key;
    if (!v) {
        // A new variable is an indexed array: its subscript is evaluated first, and a negative one has nothing
        // to count back from (the variable is not created).
        int64_t idx = 0;
        if (!index_of(idx)) return false;
        if (idx < 0) {
            report_error(std::string(name) + "[" + std::string(written.empty() ? key : written) +
                         "]: bad array subscript");
            return false;
        }
        new_key = to_dec(idx);
        key = new_key;
        key_is_arith_done = true;
        v = &state_.vars.lookup_or_create(name);
    }
    if (v->readonly()) {
        report_error(std::string(name) + ": readonly variable");
        return false;
    }
    if (!element_fits(name, value)) return false;
    const ExecutionLimits& L = session_.limits;
    if (v->is_assoc()) {
        AssocArray& a = v->assoc_mut();
        bool created = false;
        std::string& slot = a.slot(key, &created);
        if (created && a.size() > L.max_array_entries) {
            a.erase(key);
            error(std::string(name) + ": too many array elements (limit " + std::to_string(L.max_array_entries) + ")");
            return false;
        }
        std::string out;
        if (!convert_value(*this, v->attrs, created ? nullptr : &slot, value, append, out)) {
            if (created) a.erase(key);
            return false;
        }
        state_.vars.add_bytes(static_cast<int64_t>(out.size()) - static_cast<int64_t>(slot.size()) +
                           (created ? static_cast<int64_t>(key.size() + kElemOverhead) : 0));
        slot = std::move(out);
        v->set = true;
        return true;
    }
    int64_t idx = 0;
    if (!index_of(idx)) return false;
    if (idx < 0) {
        // Counted back from the end (a set scalar is an array of one element); before the start it is an error
        // and the variable stays as it was.
        int64_t n = v->is_indexed() ? (v->idx ? v->idx->next_index() : 0) : (v->set ? 1 : 0);
        if (idx + n < 0) {
            report_error(std::string(name) + "[" + std::string(written.empty() ? key : written) +
                         "]: bad array subscript");
            return false;
        }
        idx += n;
    }
    return store_element(*v, name, idx, value, append);
}

bool Exec::element_fits(std::string_view name, std::string_view value) {
    const ExecutionLimits& L = session_.limits;
    if (value.size() > L.max_variable_bytes) {
        error(std::string(name) + ": value too large (limit " + std::to_string(L.max_variable_bytes) + " bytes)");
        return false;
    }
    return variable_bytes_fit(name, value.size());
}

bool Exec::store_element(Var& var, std::string_view name, int64_t idx, std::string_view value, bool append) {
    const ExecutionLimits& L = session_.limits;
    Var* v = &var;
    if (!v->is_indexed()) {
        // A scalar becomes element 0 of a new indexed array.
        auto arr = std::make_shared<IndexedArray>();
        if (v->set) arr->slot(0) = std::move(v->str_mut());
        v->str_mut().clear();
        v->idx = std::move(arr);
        v->attrs |= kAttrIndexed;
        v->dyn = DynVar::None;
    }
    const std::string* old = v->idx_mut().get(idx);
    if (!old && v->idx->size() >= L.max_array_entries) {
        error(std::string(name) + ": too many array elements (limit " + std::to_string(L.max_array_entries) + ")");
        return false;
    }
    if (!(v->attrs & (kAttrInteger | kAttrUpper | kAttrLower | kAttrCapital))) {
        // No conversion: the value goes straight into its slot.
        bool created = false;
        std::string& slot = v->idx_mut().slot(idx, &created);
        const size_t before = slot.size();
        if (append) slot.append(value);
        else slot.assign(value);
        state_.vars.add_bytes(static_cast<int64_t>(slot.size()) - static_cast<int64_t>(before) +
                              (created ? static_cast<int64_t>(kElemOverhead) : 0));
        v->set = true;
        return true;
    }
    std::string out;
    if (!convert_value(*this, v->attrs, old, value, append, out)) return false;
    // The slot is found again: an integer array's expression may have changed the array.
    bool created = false;
    std::string& slot = v->idx_mut().slot(idx, &created);
    state_.vars.add_bytes(static_cast<int64_t>(out.size()) +
                          (created ? static_cast<int64_t>(kElemOverhead) : -static_cast<int64_t>(slot.size())));
    slot = std::move(out);
    v->set = true;
    return true;
}

bool Exec::assign_array(std::string_view name, const std::vector<std::string>& values, bool append) {
    Var* v = lookup_mut(name);
    if (!v) v = &state_.vars.lookup_or_create(name);
    if (v->readonly()) {
        report_error(std::string(name) + ": readonly variable");
        return false;
    }
    if (v->is_assoc()) {
        error(std::string(name) + ": cannot assign a list to an associative array without keys");
        return false;
    }
    if (!v->is_indexed()) {
        v->attrs |= kAttrIndexed;
        v->idx = std::make_shared<IndexedArray>();
        if (append && v->set) v->idx->slot(0) = v->str();
        v->str_mut().clear();
        v->dyn = DynVar::None;
    }
    IndexedArray& a = v->idx_mut();
    if (!append) {
        state_.vars.add_bytes(-static_cast<int64_t>(var_bytes(*v)));
        a.clear();
    }
    int64_t next = a.next_index();
    if (a.size() + values.size() > session_.limits.max_array_entries) {
        error(std::string(name) + ": too many array elements (limit " + std::to_string(session_.limits.max_array_entries) + ")");
        return false;
    }
    size_t bytes = 0;
    for (const std::string& s : values) bytes += s.size() + kElemOverhead;
    if (!variable_bytes_fit(name, bytes)) return false;
    for (const std::string& s : values) {
        std::string out;
        if (!convert_value(*this, v->attrs, nullptr, s, false, out)) return false;
        state_.vars.add_bytes(static_cast<int64_t>(out.size() + kElemOverhead));
        a.slot(next++) = std::move(out);
    }
    v->set = true;
    return true;
}

bool Exec::unset_var(std::string_view name) {
    Var* v = state_.vars.find(name);
    if (!v) return true;
    if (v->readonly()) {
        error(std::string(name) + ": cannot unset: readonly variable");
        return false;
    }
    state_.vars.unset(name, state_.scope);
    return true;
}

Outcome Exec::eval_assign_value(const sx::Assign* a, AssignValue& out, int assoc) {
    // (cleared, not replaced: out's element list may be the evaluator's spare one, see assign_node)
    out.is_array = out.has_index = out.has_number = false;
    out.number = 0;
    out.index.clear();
    out.scalar.clear();
    out.elems.clear();
    if (a->is_array) {
        out.is_array = true;
        if (assoc < 0) {
            const Var* cur = lookup(a->name);
            assoc = cur && cur->is_assoc();
        }
        for (const sx::ArrayElem& el : a->elems) {
            if (el.key && !assoc && el.value && state_.opts[OptBraceexpand]) {
                // bash brace-expands an indexed list's `[k]=v` as written; when that makes several words,
                // each is a plain element: a=([1]={x,y}) is ("[1]=x" "[1]=y").
                bool brace = false;
                for (const sx::Node* p : el.value->parts)
                    if (p->kind == sx::NodeKind::Lit && p->as<sx::Lit>()->text.find('{') != std::string_view::npos)
                        brace = true;
                std::vector<std::vector<std::pair<const sx::Node*, std::string>>> words;
                if (brace) {
                    Outcome r = brace_words(el.value, words);
                    if (r != Outcome::Ok) return r;
                }
                if (words.size() > 1) {
                    std::string text =
                        "[" + sx::print(*el.key) + (el.append ? "]+=" : "]=") + sx::print(*el.value);
                    auto tree = std::make_shared<sx::ParseResult>();
                    const sx::Word* w = sx::parse_word(text, *tree->arena);
                    if (w) {
                        std::vector<std::string> vals;
                        Outcome r;
                        {
                            OwnerScope scope(*this, tree);
                            r = expand_word_fields(w, vals);
                        }
                        if (r != Outcome::Ok) return r;
                        for (auto& v : vals) {
                            AssignValue::Elem e;
                            e.value = std::move(v);
                            out.elems.push_back(std::move(e));
                        }
                        continue;
                    }
                }
            }
            if (el.key) {
                AssignValue::Elem e;
                e.keyed = true;
                e.append = el.append;
                Outcome r = expand_word(el.key, e.key, false);
                if (r != Outcome::Ok) return r;
                r = assoc ? expand_word(el.value, e.value, false) : expand_assign_value(el.value, e.value);
                if (r != Outcome::Ok) return r;
                out.elems.push_back(std::move(e));
            } else {
                std::vector<std::string> vals;
                ArgvLease lease(*this, vals, el.value != nullptr);  // a pooled buffer: `a+=($i)` in a loop
                Outcome r = el.value ? expand_word_fields(el.value, vals) : Outcome::Ok;
                if (r != Outcome::Ok) return r;
                for (auto& v : vals) {
                    AssignValue::Elem e;
                    e.value = std::move(v);
                    if (assoc && el.value) e.word = sx::print(*el.value);
                    out.elems.push_back(std::move(e));
                }
            }
        }
        return Outcome::Ok;
    }
    std::optional<int64_t> number;
    Outcome r = expand_assign_value(a->value, out.scalar, &number);
    if (r != Outcome::Ok) return r;
    if (number) {
        out.has_number = true;
        out.number = *number;
    }
    if (a->index) {
        out.has_index = true;
        if (assoc < 0) {
            const Var* cur = lookup(a->name);
            assoc = cur && cur->is_assoc();
        }
        // An indexed array's subscript is arithmetic text: a['1']=x is an error, as $(( '1' )) is.
        r = assoc ? expand_word(a->index, out.index, false) : expand_arith_word(a->index, out.index);
        if (r != Outcome::Ok) return r;
    }
    return Outcome::Ok;
}

bool Exec::assign_fatal() {
    if (!assign_arith_error_) return false;
    assign_arith_error_ = false;
    exit_status_ = state_.status = 1;
    discard_line_ = state_.script_input;  // a script goes on with its next line, a -c shell exits
    return true;
}

Outcome Exec::do_assign(const sx::Assign* a, uint32_t scope_override, uint16_t add_attrs, const AssignValue* pre) {
    assign_arith_error_ = false;
    Outcome r = assign_node(a, scope_override, add_attrs, pre);
    return assign_fatal() ? Outcome::Fatal : r;
}

Outcome Exec::assign_node(const sx::Assign* a, uint32_t scope_override, uint16_t add_attrs, const AssignValue* pre) {
    // `ref=(...)` through a nameref: without a target, bash drops the nameref attribute (with a warning) and
    // assigns the array to ref itself; a target that is an element (`a[0]`, `a[@]`) cannot take a list.
    // Otherwise the list goes to the target, which it creates when unset.
    std::string resolved;
    if (a->is_array && !a->index) {
        Var* raw = state_.vars.find(a->name);
        if (raw && raw->nameref()) {
            bool ok = true;
            std::string target = resolve_nameref(a->name, ok);
            if (!ok) return state_.status = 1, Outcome::Fail;
            if (target == a->name && !raw->readonly()) {
                error("warning: " + std::string(a->name) + ": removing nameref attribute");
                raw->attrs &= static_cast<uint16_t>(~kAttrNameref);
            } else if (target != a->name && !valid_name(target)) {
                report_error("`" + target + "': not a valid identifier");
                return state_.status = 1, Outcome::Fail;
            } else if (target != a->name && scope_override == UINT32_MAX) {
                resolved = std::move(target);
            }
        }
    }
    std::string_view name = resolved.empty() ? a->name : std::string_view(resolved);
    // The value is expanded before the binding exists: `local a=("${a[@]}")` and `x=$x cmd` see the outer x.
    AssignValue own;
    // A list's elements go in the evaluator's spare vector, handed back at the end: `a+=($i)` in a loop
    // allocates no list per round.
    struct SpareElems {
        Exec& ex;
        std::vector<AssignValue::Elem>& elems;
        ~SpareElems() {
            if (elems.capacity() == 0 || elems.capacity() > 64) return;
            elems.clear();
            ex.spare_elems_ = std::move(elems);
        }
    } spare{*this, own.elems};
    if (a->is_array) own.elems = std::move(spare_elems_);
    if (!pre && a->is_array && !a->index && scope_override == UINT32_MAX) {
        // Except `name=(...)` on its own line: bash makes name an array first, so the values see it (a
        // $(declare -p name) among them). A readonly name fails before they are expanded; a new name is an
        // empty array, a scalar becomes element 0.
        Var* t = lookup_mut(name);
        if (t && t->readonly()) {
            report_error(std::string(name) + ": readonly variable");
            state_.status = 1;
            return Outcome::Fail;
        }
        bool created = !t;
        if (created) t = &state_.vars.lookup_or_create(name);
        if (!t->is_array()) {
            auto arr = std::make_shared<IndexedArray>();
            if (t->set && t->dyn == DynVar::None) arr->slot(0) = std::move(t->str_mut());
            t->str_mut().clear();
            t->idx = std::move(arr);
            t->attrs |= kAttrIndexed;
            t->dyn = DynVar::None;
        }
        if (created) t->set = true;
    }
    if (!pre) {
        Outcome r = eval_assign_value(a, own);
        if (r != Outcome::Ok) return r;
        pre = &own;
    }
    const AssignValue& val = *pre;
    if (xtrace_assign_) [[unlikely]] {
        xtrace_assign_ = false;  // not the assignments its own expansions make
        xtrace_line(xtrace_assign_text(a, val, -1, false));
        xtrace_assign_ = true;
    }
    if (a->index && a->index->parts.size == 0) {  // a[]=x (a subscript that expands to nothing is 0)
        report_error(std::string(name) + "[]: bad array subscript");
        state_.status = 1;
        return Outcome::Fail;
    }
    Var* v = nullptr;
    if (scope_override != UINT32_MAX) {
        v = &state_.vars.declare_at(name, scope_override);
        if (v->readonly()) {
            report_error(std::string(name) + ": readonly variable");
            state_.status = 1;
            return Outcome::Fail;
        }
        v->attrs |= add_attrs;
    }

    if (val.is_array && a->index) {  // a[0]=(3 4)
        std::string key;
        if (expand_word(a->index, key, false) != Outcome::Ok) return Outcome::Fail;
        report_error(std::string(name) + "[" + key + "]: cannot assign list to array member");
        state_.status = 1;
        return Outcome::Fail;
    }
    if (val.is_array) {
        Var* target = v ? v : lookup_mut(name);
        if (!target) target = &state_.vars.lookup_or_create(name);
        if (target->readonly()) {
            report_error(std::string(name) + ": readonly variable");
            state_.status = 1;
            return Outcome::Fail;
        }
        bool assoc = target->is_assoc();
        // bash 5.2: `[k]+=v` in `A=(...)` appends to k's value from before the assignment.
        std::shared_ptr<const AssocArray> old_assoc;
        if (!a->append) {
            state_.vars.add_bytes(-static_cast<int64_t>(var_bytes(*target)));
            if (assoc) {
                old_assoc = target->assoc;
                target->assoc = std::make_shared<AssocArray>();
            } else {
                target->attrs |= kAttrIndexed;
                target->idx = std::make_shared<IndexedArray>();
                target->str_mut().clear();
                target->dyn = DynVar::None;
            }
            target->set = true;
        } else if (!target->is_array()) {
            auto arr = std::make_shared<IndexedArray>();
            if (target->set) arr->slot(0) = target->str();
            target->str_mut().clear();
            target->idx = std::move(arr);
            target->attrs |= kAttrIndexed;
            target->set = true;
        }
        std::string tname(name);
        int64_t next = 0;
        if (!assoc) next = target->idx ? target->idx->next_index() : 0;
        // A declaration builtin hands bash the list as text: a bad integer element's message does not name
        // the builtin (`declare -ia a=("x y")`), and a plain element it skips is quoted as written.
        const bool in_decl = running_builtin_ != nullptr;
        BuiltinNameScope builtin_name(*this);
        for (size_t k = 0; k < val.elems.size(); ++k) {
            const AssignValue::Elem& el = val.elems[k];
            if (el.keyed) {
                if (assoc && el.append && !a->append) {
                    const std::string* before = old_assoc ? old_assoc->get(el.key) : nullptr;
                    if (!assign_elem(tname, el.key, (before ? *before : std::string()) + el.value, false))
                        return state_.status = 1, Outcome::Fail;
                } else if (assoc) {
                    if (!assign_elem(tname, el.key, el.value, el.append)) return state_.status = 1, Outcome::Fail;
                } else {
                    int64_t kk = 0;
                    if (arith_text(el.key, kk, true) != Outcome::Ok) return Outcome::Fatal;
                    Var* cur = state_.vars.find(tname);
                    if (kk < 0 && cur && cur->idx) kk += cur->idx->next_index();
                    if (kk < 0) {  // bash names the element as written, its key expanded: `[-5]=q`
                        report_error("[" + el.key + (el.append ? "]+=" : "]=") + el.value + ": bad array subscript");
                        return state_.status = 1, Outcome::Fail;
                    }
                    if (!assign_elem(tname, to_dec(kk), el.value, el.append, true)) return state_.status = 1, Outcome::Fail;
                    next = kk + 1;
                }
                continue;
            }
            if (assoc && !val.elems.empty() && val.elems[0].keyed) {
                // bash 5.2: a list that starts with `[k]=v` takes no plain elements; each one is skipped
                // with a warning, and the assignment still succeeds.
                const std::string& word = el.word.empty() ? el.value : el.word;
                error(tname + ": " + (in_decl ? single_quote(word) : word) +
                      ": must use subscript when assigning associative array");
                continue;
            }
            if (assoc) {
                // bash 5.2: (k1 v1 k2 v2) pairs in an associative array assignment.
                std::string v2 = k + 1 < val.elems.size() && !val.elems[k + 1].keyed ? val.elems[k + 1].value : std::string();
                if (k + 1 < val.elems.size() && !val.elems[k + 1].keyed) ++k;
                if (!assign_elem(tname, el.value, v2, false)) return state_.status = 1, Outcome::Fail;
                continue;
            }
            // `a+=($i)`: the target found above takes the element directly (no lookup by name, no decimal key
            // to write and parse back), unless -i may evaluate the value and so create variables, which can
            // move the target.
            if (!(target->attrs & (kAttrInteger | kAttrNameref)) && next >= 0) {
                if (!element_fits(tname, el.value) || !store_element(*target, tname, next, el.value, false))
                    return state_.status = 1, Outcome::Fail;
            } else if (!assign_elem(tname, to_dec(next), el.value, false, true)) {
                return state_.status = 1, Outcome::Fail;
            }
            ++next;
        }
        return Outcome::Ok;
    }

    if (val.has_index) {
        Var* cur = v ? v : lookup_mut(name);
        if (!(cur && cur->is_assoc())) {
            int64_t k = 0;
            if (arith_text(val.index, k, true) != Outcome::Ok) {
                discard_line_ = exit_status_ == 1 && state_.script_input;  // as a bad subscript in an expansion
                return Outcome::Fatal;
            }
            // A statement's message shows the subscript as written (`a[$i]`), a declaration's as expanded.
            const std::string written = running_builtin_ ? std::string() : sx::print(*a->index);
            if (!assign_elem(name, to_dec(k), val.scalar, a->append, true, written)) {
                state_.status = 1;
                return Outcome::Fail;
            }
            return Outcome::Ok;
        }
        if (!assign_elem(name, val.index, val.scalar, a->append)) {
            state_.status = 1;
            return Outcome::Fail;
        }
        return Outcome::Ok;
    }
    // A number's text (`x=$((...))`) goes in with its number, so that the next arithmetic read does not parse it.
    const int64_t* number = val.has_number && !a->append ? &val.number : nullptr;
    if (!v && number) {
        v = state_.vars.find(name);
        if (v && v->nameref()) v = nullptr;  // assign() resolves it
    }
    bool ok = v ? assign_to(*v, name, val.scalar, a->append, number) : assign(name, val.scalar, a->append);
    if (!ok) {
        state_.status = 1;
        return Outcome::Fail;
    }
    return Outcome::Ok;
}

Environment Exec::build_env(const std::vector<std::pair<std::string, std::string>>* extra) {
    // Environment sorts what it is given: the exported variables are gathered in the table's order.
    std::vector<std::pair<std::string, std::string>> vars;
    state_.vars.for_each_visible([&](const std::string& name, const Var& v) {
        if (!(v.attrs & kAttrExport) || v.is_array()) return;
        if (v.dyn != DynVar::None) {
            const Var* d = lookup(name);
            if (d && d->set) vars.emplace_back(name, d->str());
            return;
        }
        if (v.set) vars.emplace_back(name, v.str());
    });
    if (extra)
        for (const auto& e : *extra) vars.push_back(e);
    return Environment(std::move(vars));
}

void Exec::set_pipestatus(const std::vector<int>& statuses) { state_.pipestatus = statuses; }

void Exec::install_dynamic_vars(ShellState& st) {
    auto dyn = [&](const char* name, DynVar d, uint16_t attrs = 0) {
        Var& v = st.vars.global(name);
        v.dyn = d;
        v.set = true;
        v.attrs |= attrs;
    };
    dyn("RANDOM", DynVar::Random, kAttrInteger);
    dyn("SRANDOM", DynVar::Srandom);
    dyn("SECONDS", DynVar::Seconds, kAttrInteger);
    dyn("LINENO", DynVar::Lineno, kAttrInteger);
    dyn("BASHPID", DynVar::Bashpid, kAttrInteger);
    dyn("FUNCNAME", DynVar::Funcname, kAttrIndexed);
    dyn("BASH_SOURCE", DynVar::BashSource, kAttrIndexed);
    dyn("BASH_LINENO", DynVar::BashLineno, kAttrIndexed);
    dyn("EPOCHSECONDS", DynVar::EpochSeconds);
    dyn("EPOCHREALTIME", DynVar::EpochRealtime);
    dyn("BASH_SUBSHELL", DynVar::BashSubshell);
    dyn("GROUPS", DynVar::Groups, kAttrIndexed);
    dyn("PIPESTATUS", DynVar::Pipestatus, kAttrIndexed);
    dyn("_", DynVar::Underscore);
    dyn("BASH_COMMAND", DynVar::BashCommand);
}

}  // namespace bashkit::interp
