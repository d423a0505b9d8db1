// Snapshot and resume: the shell state to JSON and back.
//
// What is saved is what a person at an interactive shell would expect to find again: variables (value,
// attributes, indexed arrays with their indices, associative arrays in bash's iteration order), functions
// (their source, as `declare -f` prints it, re-parsed on restore), aliases, every set -o and shopt option,
// traps, the cwd, the directory stack, $0, the positional parameters, $? and the umask. Dynamic variables
// (RANDOM, SECONDS, LINENO, ...) are the new session's own. Nothing of the session's surroundings is in it:
// not the files, not the network client (so never a header-binding secret: those live only in the HTTP
// client), not the jobs or descriptors.
//
// Strings are bytes (a variable may hold any byte but NUL) while JSON text is UTF-8: a string that is not
// valid UTF-8, or that starts with a NUL, is written as "\u0000hex:" followed by its bytes in hex (names
// and keys included), so every snapshot is JSON and loads back byte for byte.
#include "interp/state.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "interp/syntax/parser.hpp"

namespace bashkit::interp {

namespace {

using json = nlohmann::json;

constexpr const char* kFormat = "bashkit-shell-state";

// Attribute letters as `declare` shows them, so a snapshot can be read by a person.
constexpr std::pair<uint16_t, char> kAttrLetters[] = {
    {kAttrIndexed, 'a'}, {kAttrAssoc, 'A'},   {kAttrInteger, 'i'}, {kAttrLower, 'l'}, {kAttrNameref, 'n'},
    {kAttrReadonly, 'r'}, {kAttrTrace, 't'}, {kAttrUpper, 'u'},   {kAttrExport, 'x'}, {kAttrCapital, 'c'},
};

std::string attr_letters(uint16_t attrs) {
    std::string s;
    for (auto [bit, c] : kAttrLetters)
        if (attrs & bit) s += c;
    return s;
}

uint16_t parse_attr_letters(const std::string& s) {
    uint16_t attrs = 0;
    for (char c : s) {
        bool known = false;
        for (auto [bit, letter] : kAttrLetters) {
            if (letter == c) {
                attrs |= bit;
                known = true;
            }
        }
        if (!known) throw StateError(std::string("restore_state: unknown variable attribute '") + c + "'");
    }
    return attrs;
}

[[noreturn]] void bad(const std::string& what) { throw StateError("restore_state: " + what); }

const json& member(const json& obj, const char* key, json::value_t type) {
    auto it = obj.find(key);
    if (it == obj.end()) bad(std::string("the snapshot has no '") + key + "'");
    bool ok = it->type() == type ||
              (type == json::value_t::number_integer && it->type() == json::value_t::number_unsigned);
    if (!ok) bad(std::string("'") + key + "' has the wrong type");
    return *it;
}

constexpr std::string_view kHexMark{"\0hex:", 5};

bool valid_utf8(const std::string& s) {
    try {
        (void)json(s).dump();
        return true;
    } catch (const json::type_error&) {
        return false;
    }
}

std::string hex_bytes(const std::string& s) {
    static const char digits[] = "0123456789abcdef";
    std::string out(kHexMark);
    for (unsigned char c : s) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string encode_string(const std::string& s) {
    return (!s.empty() && s[0] == '\0') || !valid_utf8(s) ? hex_bytes(s) : s;
}

std::string decode_string(const std::string& s) {
    if (s.compare(0, kHexMark.size(), kHexMark) != 0) return s;
    auto nibble = [&](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        bad("a hex-encoded string has a bad digit");
    };
    std::string_view hex(s);
    hex.remove_prefix(kHexMark.size());
    if (hex.size() % 2) bad("a hex-encoded string has an odd length");
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) out += char(nibble(hex[i]) * 16 + nibble(hex[i + 1]));
    return out;
}

// Every string and object key through f (encode_string when saving, decode_string when loading).
json map_strings(const json& j, std::string (*f)(const std::string&)) {
    if (j.is_string()) return f(j.get_ref<const std::string&>());
    if (j.is_array()) {
        json out = json::array();
        for (const json& e : j) out.push_back(map_strings(e, f));
        return out;
    }
    if (j.is_object()) {
        json out = json::object();
        for (const auto& [k, v] : j.items()) out[f(k)] = map_strings(v, f);
        return out;
    }
    return j;
}

}  // namespace

std::string state_to_json(const ShellState& st) {
    json j;
    j["format"] = kFormat;
    j["version"] = kStateVersion;
    j["cwd"] = st.cwd;
    j["dirstack"] = st.dirstack;
    j["script_name"] = st.script_name;
    j["params"] = st.frames.empty() ? std::vector<std::string>{} : st.frames.front().params;
    j["status"] = st.status;
    j["umask"] = st.umask;

    json vars = json::array();
    for (const auto& [name, v] : st.vars.visible()) {
        if (v->dyn != DynVar::None) continue;
        json e;
        e["name"] = *name;
        e["attrs"] = attr_letters(v->attrs);
        e["set"] = v->set;
        if (v->is_indexed()) {
            json elems = json::array();
            if (v->idx)
                for (const auto& [k, val] : *v->idx) elems.push_back(json::array({k, val}));
            e["indexed"] = std::move(elems);
        } else if (v->is_assoc()) {
            json elems = json::array();
            if (v->assoc)
                for (const auto& [k, val] : v->assoc->ordered()) elems.push_back(json::array({*k, *val}));
            e["assoc"] = std::move(elems);
        } else {
            e["value"] = v->str();
        }
        vars.push_back(std::move(e));
    }
    j["variables"] = std::move(vars);

    // Functions sorted by name (the table is a hash map), each as the source `declare -f` prints.
    std::vector<const Function*> fns;
    for (const auto& [name, f] : st.funcs) fns.push_back(f.get());
    std::sort(fns.begin(), fns.end(), [](const Function* a, const Function* b) { return a->name < b->name; });
    json funcs = json::array();
    for (const Function* f : fns) {
        std::string text;
        Exec::print_function(*f, text);
        funcs.push_back({{"name", f->name}, {"source", text}, {"file", f->source}, {"attrs", attr_letters(f->attrs)}});
    }
    j["functions"] = std::move(funcs);

    j["aliases"] = st.aliases;

    json set_opts = json::object(), shopts = json::object();
    for (int i = 0; i < kOptCount; ++i) {
        (i < kSetOptCount ? set_opts : shopts)[opt_info(i).name] = bool(st.opts[static_cast<size_t>(i)]);
    }
    j["options"] = {{"set", std::move(set_opts)}, {"shopt", std::move(shopts)}};

    json traps = json::array();
    for (const auto& [sig, t] : st.traps) traps.push_back({{"signal", sig}, {"action", t.action}});
    j["traps"] = std::move(traps);
    // Encoded only when needed: bytes that are not UTF-8, or a string that would read as encoded.
    try {
        std::string text = j.dump(1);
        if (text.find("\\u0000") == std::string::npos) return text;
    } catch (const json::type_error&) {
    }
    return map_strings(j, encode_string).dump(1);
}

void state_from_json(std::string_view text, ShellState& out) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        bad(std::string("not JSON: ") + e.what());
    }
    if (!j.is_object()) bad("not a shell state snapshot (expected a JSON object)");
    if (text.find("\\u0000hex:") != std::string_view::npos) j = map_strings(j, decode_string);
    auto fmt = j.find("format");
    if (fmt == j.end() || !fmt->is_string() || fmt->get<std::string>() != kFormat)
        bad("not a shell state snapshot (no \"format\": \"bashkit-shell-state\")");
    auto ver = j.find("version");
    if (ver == j.end() || !ver->is_number_integer())
        bad("the snapshot has no version");
    if (ver->get<int64_t>() != kStateVersion) {
        bad("snapshot version " + std::to_string(ver->get<int64_t>()) + " is not supported (this bashkit reads version " +
            std::to_string(kStateVersion) + ")");
    }

    ShellState st = out.restore_copy();
    try {
        st.cwd = member(j, "cwd", json::value_t::string).get<std::string>();
        if (st.cwd.empty() || st.cwd[0] != '/') bad("cwd is not an absolute path");
        st.dirstack = member(j, "dirstack", json::value_t::array).get<std::vector<std::string>>();
        st.script_name = member(j, "script_name", json::value_t::string).get<std::string>();
        if (st.frames.empty()) st.frames.emplace_back();
        st.frames.resize(1);
        st.frames.front().params = member(j, "params", json::value_t::array).get<std::vector<std::string>>();
        st.status = member(j, "status", json::value_t::number_integer).get<int>();
        st.umask = member(j, "umask", json::value_t::number_integer).get<uint32_t>() & 0777;

        // Variables: a fresh store with the dynamic ones, then the saved ones.
        MemoryBudget* budget = st.vars.budget();
        st.vars = VarStore{};
        st.vars.set_budget(budget);
        st.scope = 0;
        Exec::install_dynamic_vars(st);
        for (const json& e : member(j, "variables", json::value_t::array)) {
            if (!e.is_object()) bad("a variable is not an object");
            std::string name = member(e, "name", json::value_t::string).get<std::string>();
            if (!valid_name(name)) bad("variable name '" + name + "' is not valid");
            Var& v = st.vars.global(name);
            if (v.dyn != DynVar::None) continue;
            v.attrs = parse_attr_letters(member(e, "attrs", json::value_t::string).get<std::string>());
            v.set = member(e, "set", json::value_t::boolean).get<bool>();
            v.str_mut().clear();
            v.idx.reset();
            v.assoc.reset();
            if (v.is_indexed()) {
                auto arr = std::make_shared<IndexedArray>();
                for (const json& p : member(e, "indexed", json::value_t::array)) {
                    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_string())
                        bad("array " + name + ": expected [index, value] pairs");
                    arr->slot(p[0].get<int64_t>()) = p[1].get<std::string>();
                }
                v.idx = std::move(arr);
            } else if (v.is_assoc()) {
                auto arr = std::make_shared<AssocArray>();
                const json& elems = member(e, "assoc", json::value_t::array);
                // Saved in bash's order, newest first within a hash bucket: inserted back to front, the
                // order comes out the same.
                for (auto it = elems.rbegin(); it != elems.rend(); ++it) {
                    const json& p = *it;
                    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string())
                        bad("array " + name + ": expected [key, value] pairs");
                    arr->slot(p[0].get<std::string>()) = p[1].get<std::string>();
                }
                v.assoc = std::move(arr);
            } else {
                v.set_str(member(e, "value", json::value_t::string).get<std::string>());
            }
            st.vars.add_bytes(static_cast<int64_t>(var_bytes(v)));
        }

        st.funcs.clear();
        sx::ParseOptions po;
        po.extglob = true;
        for (const json& e : member(j, "functions", json::value_t::array)) {
            if (!e.is_object()) bad("a function is not an object");
            std::string name = member(e, "name", json::value_t::string).get<std::string>();
            std::string src = member(e, "source", json::value_t::string).get<std::string>();
            auto parsed = std::make_shared<sx::ParseResult>(sx::parse(src, po));
            const sx::FuncDef* def = nullptr;
            if (parsed->ok() && parsed->script->body.size == 1 && parsed->script->body[0]->cmd)
                def = parsed->script->body[0]->cmd->try_as<sx::FuncDef>();
            if (!def || def->name != name) bad("function " + name + ": its source is not one function definition");
            auto fn = std::make_shared<Function>();
            fn->name = name;
            fn->def = def;
            fn->owner = std::move(parsed);
            fn->source = member(e, "file", json::value_t::string).get<std::string>();
            fn->attrs = parse_attr_letters(member(e, "attrs", json::value_t::string).get<std::string>());
            st.vars.add_bytes(static_cast<int64_t>(function_bytes(name)));
            st.funcs.insert_or_assign(std::move(name), std::move(fn));
        }

        st.aliases.clear();
        for (const auto& [k, v] : member(j, "aliases", json::value_t::object).items()) {
            if (!v.is_string()) bad("alias " + k + ": the value is not a string");
            st.aliases[k] = v.get<std::string>();
            st.vars.add_bytes(static_cast<int64_t>(alias_bytes(k, st.aliases[k])));
        }

        const json& opts = member(j, "options", json::value_t::object);
        for (const char* group : {"set", "shopt"}) {
            for (const auto& [k, v] : member(opts, group, json::value_t::object).items()) {
                int o = group[1] == 'e' ? find_set_option(k) : find_shopt(k);
                if (o < 0) bad(std::string(group) + " option " + k + ": unknown");
                if (!v.is_boolean()) bad(std::string(group) + " option " + k + ": not true or false");
                st.opts[static_cast<size_t>(o)] = v.get<bool>();
            }
        }

        st.traps.clear();
        st.traps_display_only = false;
        for (const json& e : member(j, "traps", json::value_t::array)) {
            if (!e.is_object()) bad("a trap is not an object");
            int sig = member(e, "signal", json::value_t::number_integer).get<int>();
            st.traps[sig] = Trap{member(e, "action", json::value_t::string).get<std::string>(), nullptr};
        }
    } catch (const json::exception& e) {
        bad(e.what());
    }
    out = std::move(st);
}

}  // namespace bashkit::interp
