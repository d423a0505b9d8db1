// The evaluator's internals, shared by engine_eval.cpp (the language) and engine_builtins.cpp (the
// builtins written in C++).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <functional>
#include <vector>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "utils/jq/engine_ast.hpp"

namespace bashkit::utils::jq {

// A number as an integer of type T (an array index, a time field, an exit code): clamped to T's range
// first, since converting a double out of range is undefined behaviour (`.[-1e20] = 1`); NaN is 0.
template <class T>
T clamp_num(double d) {
    if (std::isnan(d)) return 0;
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (d <= lo) return std::numeric_limits<T>::min();
    if (d >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(d);
}

struct Env;
using EnvP = std::shared_ptr<const Env>;

struct PreludeMap {
    std::unordered_map<std::string, const Node*> defs;  // "name/arity" -> Def
};

struct Env {
    enum K { Var, Closure, Func, Label, Prelude, Alias } k = Var;  // Alias: a module's Func (in cenv) by
                                                                      // the name the importer gives it
    EnvP parent;
    std::string_view name;
    size_t arity = 0;
    Value val;                      // Var
    const Node* node = nullptr;     // Closure: the argument; Func: the Def
    EnvP cenv;                      // Closure: its env
    uint64_t label = 0;             // Label
    const PreludeMap* prelude = nullptr;
};

// A callback for outputs: (value, path). path is null in value mode; in path mode a result that is not a
// path is passed with kNoPath.
struct Emit {
    void* obj;
    bool (*fn)(void*, Value&&, const Value*);
    bool operator()(Value v, const Value* p) const { return fn(obj, std::move(v), p); }
};
template <class L>
Emit mk_emit(L& l) {
    return Emit{&l, [](void* o, Value&& v, const Value* p) { return (*static_cast<L*>(o))(std::move(v), p); }};
}

extern const Value kNoPath;  // Invalid

struct BreakEx {
    uint64_t label;
};

struct Interp;
// A builtin written in C++: evaluates the call (args are the Call node's kids, in env).
using Native = bool (*)(Interp& I, const Node* call, const Value& in, const Value* path, const EnvP& env,
                        const Emit& emit);
const Native* find_native(const std::string& key);  // "name/arity"

[[noreturn]] void jq_error(std::string msg);
std::string trunc_dump(const Value& v, size_t bufsize = 15);
std::string errdesc(const Value& v);  // "number (1)"

struct Interp {
    Host& host;
    uint64_t steps = 0;
    uint64_t next_label = 1;
    int line = 0;

    explicit Interp(Host& h) : host(h) {}

    void tick() {
        if ((++steps & 0x3ff) == 0 && host.cancelled()) throw JqCancelled{};
    }
    void check_stack();  // guard_stack()

    bool eval(const Node* n, const Value& in, const Value* path, const EnvP& env, const Emit& emit);
    // Values only (no paths).
    template <class F>
    bool each(const Node* n, const Value& in, const EnvP& env, F&& f) {
        auto cb = [&](Value&& v, const Value*) { return f(std::move(v)); };
        return eval(n, in, nullptr, env, mk_emit(cb));
    }
    bool call(const Node* n, const Value& in, const Value* path, const EnvP& env, const Emit& emit);
    bool bind_pattern(const Node* pat, const Value& v, const EnvP& env, EnvP& out, const Value& in,
                      const std::function<bool(const EnvP&)>& k);
    bool bind_alternatives(const std::vector<Node*>& pats, size_t i, const Value& v, const EnvP& env,
                           const Value& in, const std::function<bool(const EnvP&)>& k);
    Value first_value(const Node* n, const Value& in, const EnvP& env, bool& found);
    // path(f) outputs
    template <class F>
    bool each_path(const Node* n, const Value& in, const EnvP& env, F&& f) {
        Value root = Value::array();
        auto cb = [&](Value&& v, const Value* p) {
            if (!p || !p->is_valid()) jq_error("Invalid path expression with result " + trunc_dump(v, 30));
            return f(*p, std::move(v));
        };
        return eval(n, in, &root, env, mk_emit(cb));
    }
};

// Path helpers (engine_builtins.cpp).
Value getpath(const Value& v, const Value& path);
Value setpath(const Value& v, const Value& path, size_t i, const Value& nv);
Value delpaths(const Value& v, Value paths);
Value index_value(const Value& t, const Value& k);  // .[k] (throws)
Value append_path(const Value& path, const Value& key);
std::string tostring(const Value& v);
Value binop(const std::string& op, const Value& a, const Value& b);
Value format_value(const std::string& fmt, const Value& v);
const PreludeMap& prelude_map();

}  // namespace bashkit::utils::jq
