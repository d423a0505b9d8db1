// The jq evaluator: a walk of the syntax tree with output callbacks (engine.hpp says why), the builtins
// written in jq (kPrelude, our own definitions of jq 1.7.1's documented behaviour), and the static check
// that reports undefined functions and variables as compile errors.
#include <pthread.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>

#include "utils/jq/engine_impl.hpp"

namespace bashkit::utils::jq {

const Value kNoPath = Value::invalid();

[[noreturn]] void jq_error(std::string msg) { throw JqError{Value::string(std::move(msg))}; }

std::string trunc_dump(const Value& v, size_t bufsize) {
    std::string s = to_json(v);
    if (s.size() > bufsize - 1) {
        s.resize(bufsize - 1);
        s[bufsize - 4] = s[bufsize - 3] = s[bufsize - 2] = '.';
    }
    return s;
}

std::string errdesc(const Value& v) { return std::string(kind_name(v)) + " (" + trunc_dump(v) + ")"; }

namespace {

// The builtins defined in jq.
constexpr const char* kPrelude = R"JQ(
def values: select(. != null);
def nulls: select(. == null);
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def strings: select(type == "string");
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type|. == "array" or . == "object");
def scalars: select(type|. != "array" and . != "object");
def map_values(f): .[] |= f;
def todate: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdateiso8601: strptime("%Y-%m-%dT%H:%M:%SZ") | mktime;
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdate: fromdateiso8601;
def date: todate;
def dateadd(u; n): . + n;
def datesub(u; n): . - n;
def finites: select(isinfinite or isnan | not);
def normals: select(isnormal);
def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $w | [$x] + $w end;
def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;
def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;
def first: .[0];
def last: .[-1];
def nth($n): .[$n];
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def todate(f): strftime(f);
def capture($re): if ($re | type) == "string" then capture($re; null) elif ($re | type) == "array" and ($re | length) > 0 then capture($re[0]; $re[1]) else error(($re | type) + " not a string or array") end;
def capture(re; $flags): match(re; $flags) | [.captures | .[] | select(.name != null) | { key: .name, value: .string }] | from_entries;
def scan($re): scan($re; null);
def scan($re; $flags): match($re; "g" + ($flags // "")) | if (.captures | length > 0) then [ .captures | .[] | .string ] else .string end;
def test($re): if ($re | type) == "string" then test($re; null) elif ($re | type) == "array" and ($re | length) > 0 then test($re[0]; $re[1]) else error(($re | type) + " not a string or array") end;
def match($re): if ($re | type) == "string" then match($re; null) elif ($re | type) == "array" and ($re | length) > 0 then match($re[0]; $re[1]) else error(($re | type) + " not a string or array") end;
def splits($re): splits($re; null);
def splits($re; flags): split($re; flags) | .[];
def sub(re; str): sub(re; str; "");
def gsub(re; str): sub(re; str; "g");
def gsub(re; str; $flags): sub(re; str; $flags + "g");
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row|idx_expr|tostring] |= $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def tostream: path(def r: (.[]?|r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p+$q]);
def fromstream(f): { x: null, e: false } as $init
  | foreach f as $i ($init;
      if .e then $init else . end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input | if (.[0]|length) > $n then setpath([0];.[0][$n:]) else empty end;
def halt_error: halt_error(5);
def debug(msg): (msg | debug | empty), .;
def transpose: if . == [] then [] else . as $in | (map(length) | max) as $max | [range(0; $max) as $j | [range(0; $in|length) as $i | $in[$i][$j] ] ] end;
def finites: select(isinfinite or isnan | not);
def get_prog_origin: null;
def get_jq_origin: null;
def splits($re): splits($re; null);
def del(f): delpaths([path(f)]);
def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];
def from_entries: reduce .[] as $x ({};
    . + { ($x | if .key == null then .k // .name // .Name // .K // .Key
                 else .key end
               | if type == "string" then . else tojson end):
          ($x | if has("value") then .value elif has("v") then .v else .Value end) });
def with_entries(f): to_entries | map(f) | from_entries;
def paths: path(..) | select(length > 0);
def paths(node_filter): . as $dot | paths | select(. as $p | $dot | getpath($p) | node_filter);
def leaf_paths: paths(scalars);
def pick(pathexps): . as $top | reduce path(pathexps) as $p (null; setpath($p; $top | getpath($p)));
def bsearch($t): . as $a
  | {lo: 0, hi: (length - 1), at: null}
  | until(.at != null or .lo > .hi;
      (((.lo + .hi) / 2) | floor) as $m
      | if $a[$m] == $t then .at = $m elif $a[$m] < $t then .lo = $m + 1 else .hi = $m - 1 end)
  | if .at != null then .at else -1 - .lo end;
def index($i): indices($i) | .[0];
def rindex($i): indices($i) | .[-1:][0];
def indices($i): if type == "array" and ($i|type) == "array" then .[$i]
  elif type == "array" then .[[$i]]
  elif ($i|type) == "array" then error("Cannot determine indices of an array in a string")
  else _strindices($i) end;
def env: $ENV;
def add(f): reduce f as $x (null; . + $x);
def any(generator; condition): isempty(first(generator | condition or empty)) | not;
def all(generator; condition): isempty(first(generator | condition and empty));
def any(condition): any(.[]; condition);
def all(condition): all(.[]; condition);
def any: any(.);
def all: all(.);
def isvalid(f): try (f | true) catch false;
def ltrimstr($x): if type == "string" and ($x|type) == "string" and startswith($x) then .[($x|length):] else . end;
def rtrimstr($x): if type == "string" and ($x|type) == "string" and endswith($x) and ($x|length) > 0 then .[:length - ($x|length)] else . end;
def min_by(f): _min_by_impl(map([f]));
def max_by(f): _max_by_impl(map([f]));
def unique_by(f): [group_by(f)[] | .[0]];
def group_by(f): _group_by_impl(map([f]));
def sort_by(f): _sort_by_impl(map([f]));
def unique: unique_by(.);
def join($x): reduce .[] as $i (null; (if .==null then "" else .+$x end) + ($i | if .==null then "" elif (type=="boolean" or type=="number") then tojson else . end)) // "";
def flatten: flatten(1e9);
def abs: if type == "number" and . < 0 then - . else . end;
def toarray: if type == "array" then . else [.] end;
def have_literal_numbers: true;
def have_decnum: false;
)JQ";

struct PreludeData {
    std::shared_ptr<Program> prog;
    PreludeMap map;
    EnvP env;
};

const PreludeData& prelude() {
    static PreludeData* data = [] {
        BudgetScope uncharged(nullptr);  // shared by every session: not charged to the first one's budget
        auto* d = new PreludeData();
        std::string errs;
        int n = 0;
        std::string src = kPrelude;
        // "def @base32d" is not jq syntax: drop such lines (kept above only as notes)
        std::string clean;
        size_t i = 0;
        while (i < src.size()) {
            size_t e = src.find('\n', i);
            if (e == std::string::npos) e = src.size();
            std::string line = src.substr(i, e - i);
            if (line.rfind("def @", 0) != 0) clean += line + "\n";
            i = e + 1;
        }
        d->prog = parse_program(clean + ".", errs, n);
        if (d->prog && d->prog->root->op == Op::FuncDefs) {
            const Node* root = d->prog->root;
            for (size_t k = 0; k + 1 < root->kids.size(); ++k) {
                const Node* def = root->kids[k];
                d->map.defs[def->name + "/" + std::to_string(def->params.size())] = def;
            }
        }
        auto e = std::make_shared<Env>();
        e->k = Env::Prelude;
        e->prelude = &d->map;
        d->env = e;
        return d;
    }();
    return *data;
}

}  // namespace

const PreludeMap& prelude_map() { return prelude().map; }

namespace {
// The stack of the evaluator running on this thread: recursion may go stack_limit bytes below stack_base
// (0: no evaluator, unchecked).
thread_local uintptr_t tl_stack_base = 0;
thread_local size_t tl_stack_limit = 0;
}  // namespace

void guard_stack() {
    char probe;
    const auto here = reinterpret_cast<uintptr_t>(&probe);
    if (tl_stack_base > here && tl_stack_base - here > tl_stack_limit) jq_error("stack overflow: recursion too deep");
}

void Interp::check_stack() { guard_stack(); }

Value Interp::first_value(const Node* n, const Value& in, const EnvP& env, bool& found) {
    Value r;
    found = false;
    each(n, in, env, [&](Value&& v) {
        r = std::move(v);
        found = true;
        return false;
    });
    return r;
}

namespace {

EnvP push_var(const EnvP& parent, std::string_view name, Value v) {
    auto e = std::make_shared<Env>();
    e->k = Env::Var;
    e->parent = parent;
    e->name = name;
    e->val = std::move(v);
    return e;
}

// Every variable a pattern binds (for ?// alternatives: all are bound, to null when not in the pattern).
void pattern_vars(const Node* p, std::vector<std::string_view>& out) {
    if (!p) return;
    if (p->op == Op::PVar) {
        out.push_back(p->name);
        return;
    }
    if (p->op == Op::PArray) {
        for (const Node* k : p->kids) pattern_vars(k, out);
        return;
    }
    if (p->op == Op::PObject) {
        for (size_t i = 0; i < p->kids.size(); i += 2) {
            if (p->kids[i]->op == Op::PVar) out.push_back(p->kids[i]->name);
            pattern_vars(p->kids[i + 1], out);
        }
    }
}

// Recursive descent over a value (..), with an explicit stack: pre-order, as jq's recurse(.[]?).
bool recurse_all(Interp& I, const Value& in, const Value* path, const Emit& emit) {
    struct Frame {
        Value v;
        Value path;
        size_t i;
    };
    if (!emit(Value(in), path)) return false;
    std::vector<Frame> stack;
    const bool track = path && path->is_valid();
    stack.push_back({in, track ? *path : Value::invalid(), 0});
    while (!stack.empty()) {
        I.tick();
        Frame& f = stack.back();
        const Value& v = f.v;
        size_t n = v.is_array() ? v.arr().size() : v.is_object() ? v.obj().items.size() : 0;
        if (f.i >= n) {
            stack.pop_back();
            continue;
        }
        size_t i = f.i++;
        Value child, key;
        if (v.is_array()) {
            child = v.arr()[i];
            if (track) key = Value::number(static_cast<double>(i));
        } else {
            child = v.obj().items[i].second;
            if (track) key = Value::string(v.obj().items[i].first);
        }
        Value cp = track ? append_path(f.path, key) : Value::invalid();
        if (!emit(Value(child), path ? (track ? &cp : &kNoPath) : nullptr)) return false;
        if (child.is_array() || child.is_object()) stack.push_back({std::move(child), std::move(cp), 0});
    }
    return true;
}

Value slice_key(const Value& from, const Value& to) {
    Value k = Value::object();
    k.set("start", from);
    k.set("end", to);
    return k;
}

}  // namespace

bool Interp::bind_pattern(const Node* pat, const Value& v, const EnvP& env, EnvP& /*unused*/, const Value& in,
                          const std::function<bool(const EnvP&)>& k) {
    switch (pat->op) {
        case Op::PVar: return k(push_var(env, pat->name, v));
        case Op::PArray: {
            if (!v.is_array() && !v.is_null()) jq_error("Cannot index " + std::string(kind_name(v)) + " with number");
            std::function<bool(size_t, const EnvP&)> step = [&](size_t i, const EnvP& e) -> bool {
                if (i == pat->kids.size()) return k(e);
                Value elem = v.is_array() && i < v.arr().size() ? v.arr()[i] : Value();
                EnvP dummy;
                return bind_pattern(pat->kids[i], elem, e, dummy, in, [&](const EnvP& e2) { return step(i + 1, e2); });
            };
            return step(0, env);
        }
        case Op::PObject: {
            std::function<bool(size_t, const EnvP&)> step = [&](size_t i, const EnvP& e) -> bool {
                if (i >= pat->kids.size()) return k(e);
                const Node* key = pat->kids[i];
                const Node* sub = pat->kids[i + 1];
                auto with_key = [&](const Value& kv, const EnvP& e1) -> bool {
                    if (!kv.is_string()) {
                        jq_error("Cannot index " + std::string(kind_name(v)) + " with " + kind_name(kv));
                    }
                    Value elem;
                    if (v.is_object()) {
                        const Value* f = v.get(kv.str());
                        if (f) elem = *f;
                    } else if (!v.is_null()) {
                        jq_error("Cannot index " + std::string(kind_name(v)) + " with string \"" + std::string(kv.str()) + "\"");
                    }
                    EnvP e2 = e1;
                    if (key->op == Op::PVar) e2 = push_var(e1, key->name, elem);
                    if (!sub) return step(i + 2, e2);
                    EnvP dummy;
                    return bind_pattern(sub, elem, e2, dummy, in, [&](const EnvP& e3) { return step(i + 2, e3); });
                };
                if (key->op == Op::PVar) return with_key(Value::string(key->name), e);
                bool go = true;
                each(key, in, e, [&](Value&& kv) {
                    go = with_key(kv, e);
                    return go;
                });
                return go;
            };
            return step(0, env);
        }
        default: jq_error("bad pattern");
    }
}

bool Interp::eval(const Node* n, const Value& in, const Value* path, const EnvP& env, const Emit& emit) {
    tick();
    check_stack();  // every nesting of the evaluator goes through here: programs, natives, callbacks
    switch (n->op) {
        case Op::Identity: return emit(Value(in), path);
        case Op::Recurse: return recurse_all(*this, in, path, emit);
        case Op::Literal: return emit(Value(n->val), path ? &kNoPath : nullptr);
        case Op::Loc: {
            Value o = Value::object();
            o.set("file", Value::string("<top-level>"));
            o.set("line", Value::number(n->line));
            return emit(std::move(o), path ? &kNoPath : nullptr);
        }
        case Op::Format: return emit(format_value(n->name, in), path ? &kNoPath : nullptr);
        case Op::Str: {
            // later parts are the outer loops (a chain of additions)
            std::vector<std::string> parts(n->kids.size());
            std::function<bool(size_t)> step = [&](size_t i) -> bool {
                if (i == 0) {
                    std::string s;
                    for (auto& p : parts) s += p;
                    return emit(Value::string(std::move(s)), path ? &kNoPath : nullptr);
                }
                const Node* k = n->kids[i - 1];
                if (k->op == Op::Literal && k->opt) {  // text
                    parts[i - 1] = k->val.str();
                    return step(i - 1);
                }
                return each(k, in, env, [&](Value&& v) {
                    if (n->name.empty()) {
                        parts[i - 1] = v.is_string() ? v.str() : to_json(v);
                    } else {
                        parts[i - 1] = format_value(n->name, v).str();
                    }
                    return step(i - 1);
                });
            };
            return step(n->kids.size());
        }
        case Op::Index: {
            const Node* t = n->kids[0];
            const Node* kx = n->kids[1];
            auto with_key = [&](const Value& k) -> bool {
                auto cb = [&](Value&& v, const Value* p) -> bool {
                    if (p && !p->is_valid()) {
                        jq_error("Invalid path expression near attempt to access element " + trunc_dump(k, 30) +
                                 " of " + trunc_dump(v, 30));
                    }
                    Value r = index_value(v, k);
                    if (p) {
                        Value np = append_path(*p, k);
                        return emit(std::move(r), &np);
                    }
                    return emit(std::move(r), nullptr);
                };
                return eval(t, in, path, env, mk_emit(cb));
            };
            if (kx->op == Op::Literal) return with_key(kx->val);
            bool go = true;
            each(kx, in, env, [&](Value&& k) {
                go = with_key(k);
                return go;
            });
            return go;
        }
        case Op::Slice: {
            const Node* t = n->kids[0];
            auto with = [&](const Value& from, const Value& to) -> bool {
                auto cb = [&](Value&& v, const Value* p) -> bool {
                    if (p && !p->is_valid()) jq_error("Invalid path expression with result " + trunc_dump(v, 30));
                    Value key = slice_key(from, to);
                    Value r = index_value(v, key);
                    if (p) {
                        Value np = append_path(*p, key);
                        return emit(std::move(r), &np);
                    }
                    return emit(std::move(r), nullptr);
                };
                return eval(t, in, path, env, mk_emit(cb));
            };
            bool go = true;
            auto over_to = [&](const Value& from) -> bool {
                if (!n->kids[2]) return with(from, Value());
                each(n->kids[2], in, env, [&](Value&& to) {
                    go = with(from, to);
                    return go;
                });
                return go;
            };
            if (!n->kids[1]) return over_to(Value());
            each(n->kids[1], in, env, [&](Value&& from) {
                go = over_to(from);
                return go;
            });
            return go;
        }
        case Op::Iterate: {
            auto cb = [&](Value&& v, const Value* p) -> bool {
                if (p && !p->is_valid()) {
                    jq_error("Invalid path expression near attempt to iterate through " + trunc_dump(v, 30));
                }
                if (v.is_array()) {
                    const auto& a = v.arr();
                    for (size_t i = 0; i < a.size(); ++i) {
                        tick();
                        if (p) {
                            Value np = append_path(*p, Value::number(static_cast<double>(i)));
                            if (!emit(Value(a[i]), &np)) return false;
                        } else if (!emit(Value(a[i]), nullptr)) {
                            return false;
                        }
                    }
                    return true;
                }
                if (v.is_object()) {
                    const auto& items = v.obj().items;
                    for (size_t i = 0; i < items.size(); ++i) {
                        tick();
                        if (p) {
                            Value np = append_path(*p, Value::string(items[i].first));
                            if (!emit(Value(items[i].second), &np)) return false;
                        } else if (!emit(Value(items[i].second), nullptr)) {
                            return false;
                        }
                    }
                    return true;
                }
                jq_error("Cannot iterate over " + errdesc(v));
            };
            return eval(n->kids[0], in, path, env, mk_emit(cb));
        }
        case Op::Try: {
            bool downstream = false;
            bool go = true;
            auto cb = [&](Value&& v, const Value* p) -> bool {
                downstream = true;
                bool r = emit(std::move(v), p);
                downstream = false;
                return r;
            };
            try {
                go = eval(n->kids[0], in, path, env, mk_emit(cb));
            } catch (JqError& e) {
                if (downstream) throw;
                if (e.v.is_object() && e.v.get("__jq")) throw;  // break passing through
                if (!n->kids[1]) return true;
                return eval(n->kids[1], e.v, nullptr, env, emit);
            }
            return go;
        }
        case Op::ArrayCons: {
            std::vector<Value> out;
            if (n->kids[0]) {
                // the growing array is charged as it grows (the finished array charges itself)
                interp::MemoryCharge held(current_budget());
                each(n->kids[0], in, env, [&](Value&& v) {
                    // A regrowth holds the old buffer beside the new one, twice as large, while it moves the
                    // elements: charged for that time, before it happens.
                    if (out.size() == out.capacity() && out.size() >= 1024) held.set(out.capacity() * 3 * sizeof(Value));
                    out.push_back(std::move(v));
                    if ((out.size() & 1023) == 0) held.set(out.capacity() * sizeof(Value));
                    return true;
                });
                held.clear();
            }
            return emit(Value::array(std::move(out)), path ? &kNoPath : nullptr);
        }
        case Op::ObjectCons: {
            std::function<bool(size_t, Value)> step = [&](size_t i, Value obj) -> bool {
                if (i >= n->kids.size()) return emit(std::move(obj), path ? &kNoPath : nullptr);
                bool go = true;
                each(n->kids[i], in, env, [&](Value&& k) {
                    if (!k.is_string()) {
                        if (n->kids[i]->op == Op::Literal && k.is_number()) {
                            jq_error("Cannot use number (" + to_json(k) + ") as object key");
                        }
                        jq_error("Object keys must be strings");
                    }
                    each(n->kids[i + 1], in, env, [&](Value&& v) {
                        Value o2 = obj;
                        o2.set(std::string(k.str()), std::move(v));
                        go = step(i + 2, std::move(o2));
                        return go;
                    });
                    return go;
                });
                return go;
            };
            return step(0, Value::object());
        }
        case Op::Neg: {
            return each(n->kids[0], in, env, [&](Value&& v) {
                if (!v.is_number()) jq_error(errdesc(v) + " cannot be negated");
                return emit(Value::number(-v.num()), path ? &kNoPath : nullptr);
            });
        }
        case Op::Pipe: {
            const Node* rhs = n->kids[1];
            auto cb = [&](Value&& v, const Value* p) { return eval(rhs, v, p, env, emit); };
            return eval(n->kids[0], in, path, env, mk_emit(cb));
        }
        case Op::Comma:
            if (!eval(n->kids[0], in, path, env, emit)) return false;
            return eval(n->kids[1], in, path, env, emit);
        case Op::Binop: {
            const Node* a = n->kids[0];
            const Node* b = n->kids[1];
            return each(b, in, env, [&](Value&& bv) {
                return each(a, in, env, [&](Value&& av) {
                    return emit(binop(n->name, av, bv), path ? &kNoPath : nullptr);
                });
            });
        }
        case Op::And:
        case Op::Or: {
            const bool is_and = n->op == Op::And;
            return each(n->kids[0], in, env, [&](Value&& av) {
                if (is_and && !av.truthy()) return emit(Value::boolean(false), path ? &kNoPath : nullptr);
                if (!is_and && av.truthy()) return emit(Value::boolean(true), path ? &kNoPath : nullptr);
                return each(n->kids[1], in, env, [&](Value&& bv) {
                    return emit(Value::boolean(bv.truthy()), path ? &kNoPath : nullptr);
                });
            });
        }
        case Op::Alt: {
            // An error of the left side is not caught (jq's FORK: both jq 1.6 and 1.7.1 raise it).
            bool any = false;
            bool go = true;
            auto cb = [&](Value&& v, const Value* p) -> bool {
                if (!v.truthy()) return true;
                any = true;
                go = emit(std::move(v), p);
                return go;
            };
            eval(n->kids[0], in, path, env, mk_emit(cb));
            if (!go) return false;
            if (any) return true;
            return eval(n->kids[1], in, path, env, emit);
        }
        case Op::Assign: {
            const Node* lhs = n->kids[0];
            const Node* rhs = n->kids[1];
            const std::string& op = n->name;
            if (op == "=") {
                return each(rhs, in, env, [&](Value&& v) {
                    Value acc = in;
                    each_path(lhs, in, env, [&](const Value& p, Value&&) {
                        acc = setpath(acc, p, 0, v);
                        return true;
                    });
                    return emit(std::move(acc), path ? &kNoPath : nullptr);
                });
            }
            auto modify = [&](const std::function<bool(const Value&, Value&)>& update) {
                Value acc = in;
                std::vector<Value> dels;
                each_path(lhs, in, env, [&](const Value& p, Value&&) {
                    Value cur = getpath(acc, p);
                    Value nv;
                    if (update(cur, nv)) {
                        acc = setpath(acc, p, 0, nv);
                    } else {
                        dels.push_back(p);
                    }
                    return true;
                });
                if (!dels.empty()) acc = delpaths(acc, Value::array(std::move(dels)));
                return acc;
            };
            if (op == "|=") {
                Value r = modify([&](const Value& cur, Value& nv) {
                    bool found = false;
                    nv = first_value(rhs, cur, env, found);
                    return found;
                });
                return emit(std::move(r), path ? &kNoPath : nullptr);
            }
            std::string bop = op.substr(0, op.size() - 1);
            return each(rhs, in, env, [&](Value&& x) {
                Value r = modify([&](const Value& cur, Value& nv) {
                    if (bop == "//") {
                        nv = cur.truthy() ? cur : x;
                    } else {
                        nv = binop(bop, cur, x);
                    }
                    return true;
                });
                return emit(std::move(r), path ? &kNoPath : nullptr);
            });
        }
        case Op::If: {
            std::function<bool(size_t)> branch = [&](size_t i) -> bool {
                if (i + 1 >= n->kids.size()) {
                    const Node* els = n->kids[i];
                    if (!els) return emit(Value(in), path);
                    return eval(els, in, path, env, emit);
                }
                return each(n->kids[i], in, env, [&](Value&& c) {
                    if (c.truthy()) return eval(n->kids[i + 1], in, path, env, emit);
                    return branch(i + 2);
                });
            };
            return branch(0);
        }
        case Op::Reduce:
        case Op::Foreach: {
            const bool fe = n->op == Op::Foreach;
            const Node* src = n->kids[0];
            const Node* pats = n->kids[1];
            const Node* init = n->kids[2];
            const Node* update = n->kids[3];
            const Node* extract = fe ? n->kids[4] : nullptr;
            return each(init, in, env, [&](Value&& init_v) {
                Value acc = std::move(init_v);
                bool go = true;
                each(src, in, env, [&](Value&& item) {
                    bind_alternatives(pats->kids, 0, item, env, in, [&](const EnvP& e) {
                        Value st = std::move(acc);
                        acc = Value();
                        bool any = false;
                        each(update, st, e, [&](Value&& nv) {
                            any = true;
                            if (fe) {
                                acc = nv;
                                if (extract) {
                                    go = each(extract, nv, e, [&](Value&& x) { return emit(std::move(x), path ? &kNoPath : nullptr); });
                                } else {
                                    go = emit(std::move(nv), path ? &kNoPath : nullptr);
                                }
                                return go;
                            }
                            acc = std::move(nv);
                            return true;
                        });
                        if (!any && fe) acc = std::move(st);
                        return go;
                    });
                    return go;
                });
                if (!go) return false;
                if (!fe) return emit(std::move(acc), path ? &kNoPath : nullptr);
                return true;
            });
        }
        case Op::FuncDefs: {
            EnvP e = env;
            for (size_t i = 0; i + 1 < n->kids.size(); ++i) {
                auto f = std::make_shared<Env>();
                f->k = Env::Func;
                f->parent = e;
                f->name = n->kids[i]->name;
                f->arity = n->kids[i]->params.size();
                f->node = n->kids[i];
                e = f;
            }
            return eval(n->kids.back(), in, path, e, emit);
        }
        case Op::Call: return call(n, in, path, env, emit);
        case Op::Var: {
            for (const Env* e = env.get(); e; e = e->parent.get()) {
                if (e->k == Env::Var && e->name == n->name) return emit(Value(e->val), path ? &kNoPath : nullptr);
            }
            if (n->name == "ENV") return emit(Value(host.env), path ? &kNoPath : nullptr);
            if (n->name == "__prog_args") return emit(Value::array(), path ? &kNoPath : nullptr);
            jq_error("$" + n->name + " is not defined");
        }
        case Op::As: {
            const Node* src = n->kids[0];
            std::vector<Node*> pats(n->kids.begin() + 1, n->kids.end() - 1);
            const Node* body = n->kids.back();
            return each(src, in, env, [&](Value&& v) {
                return bind_alternatives(pats, 0, v, env, in,
                                         [&](const EnvP& e) { return eval(body, in, path, e, emit); });
            });
        }
        case Op::Label: {
            uint64_t id = next_label++;
            auto e = std::make_shared<Env>();
            e->k = Env::Label;
            e->parent = env;
            e->name = n->name;
            e->label = id;
            try {
                return eval(n->kids[0], in, path, e, emit);
            } catch (const BreakEx& b) {
                if (b.label != id) throw;
                return true;
            }
        }
        case Op::Break: {
            for (const Env* e = env.get(); e; e = e->parent.get()) {
                if (e->k == Env::Label && e->name == n->name) throw BreakEx{e->label};
            }
            jq_error("$*label-" + n->name + " is not defined");
        }
        default: jq_error("unsupported expression");
    }
}

bool Interp::bind_alternatives(const std::vector<Node*>& pats, size_t i, const Value& v, const EnvP& env,
                               const Value& in, const std::function<bool(const EnvP&)>& k) {
    if (pats.size() == 1) {
        EnvP dummy;
        return bind_pattern(pats[0], v, env, dummy, in, k);
    }
    // ?//: every variable of every alternative is bound (null unless this alternative binds it)
    std::vector<std::string_view> names;
    for (const Node* p : pats) pattern_vars(p, names);
    EnvP base = env;
    for (auto nm : names) base = push_var(base, nm, Value());
    try {
        EnvP dummy;
        return bind_pattern(pats[i], v, base, dummy, in, k);
    } catch (JqError&) {
        if (i + 1 >= pats.size()) throw;
        return bind_alternatives(pats, i + 1, v, env, in, k);
    }
}

bool Interp::call(const Node* n, const Value& in, const Value* path, const EnvP& env, const Emit& emit) {
    const size_t arity = n->kids.size();
    for (const Env* e = env.get(); e; e = e->parent.get()) {
        if (e->k == Env::Closure && arity == 0 && e->name == n->name) {
            check_stack();
            return eval(e->node, in, path, e->cenv, emit);
        }
        const bool alias = e->k == Env::Alias && e->arity == arity && e->name == n->name;
        if (alias || (e->k == Env::Func && e->arity == arity && e->name == n->name) || e->k == Env::Prelude) {
            const Node* def = e->node;
            EnvP fenv;
            if (alias) {
                def = e->cenv->node;
                fenv = e->cenv;
            } else if (e->k == Env::Prelude) {
                auto it = e->prelude->defs.find(n->name + "/" + std::to_string(arity));
                if (it == e->prelude->defs.end()) continue;
                def = it->second;
                fenv = prelude().env;
            } else {
                // the Func frame itself: recursion sees the function
                fenv = EnvP(env, e);  // aliasing: keeps env alive, points at e
            }
            check_stack();
            // closures for every parameter, then values for $parameters (first parameter outermost)
            EnvP callee = fenv;
            std::vector<size_t> value_params;
            for (size_t i = 0; i < arity; ++i) {
                auto c = std::make_shared<Env>();
                c->k = Env::Closure;
                c->parent = callee;
                const std::string& pn = def->params[i];
                c->name = pn[0] == '$' ? std::string_view(pn).substr(1) : std::string_view(pn);
                c->node = n->kids[i];
                c->cenv = env;
                callee = c;
                if (pn[0] == '$') value_params.push_back(i);
            }
            if (value_params.empty()) return eval(def->kids[0], in, path, callee, emit);
            std::function<bool(size_t, const EnvP&)> bindv = [&](size_t j, const EnvP& ce) -> bool {
                if (j == value_params.size()) return eval(def->kids[0], in, path, ce, emit);
                size_t i = value_params[j];
                return each(n->kids[i], in, env, [&](Value&& v) {
                    return bindv(j + 1, push_var(ce, std::string_view(def->params[i]).substr(1), std::move(v)));
                });
            };
            return bindv(0, callee);
        }
    }
    const Native* f = find_native(n->name + "/" + std::to_string(arity));
    if (!f) jq_error(n->name + "/" + std::to_string(arity) + " is not defined");
    return (*f)(*this, n, in, path, env, emit);
}

// ---- static checks: undefined functions, variables and labels are compile errors ----

namespace {

struct Scope {
    enum K { Var, Func, Label } k;
    std::string name;
    size_t arity;
};

void check_node(const Node* n, std::vector<Scope>& sc, std::vector<std::pair<const Node*, std::string>>& errs) {
    if (!n) return;
    switch (n->op) {
        case Op::FuncDefs: {
            size_t mark = sc.size();
            for (size_t i = 0; i + 1 < n->kids.size(); ++i) {
                const Node* d = n->kids[i];
                sc.push_back({Scope::Func, d->name, d->params.size()});
                size_t m2 = sc.size();
                for (const auto& p : d->params) {
                    if (p[0] == '$') {
                        sc.push_back({Scope::Var, p.substr(1), 0});
                        sc.push_back({Scope::Func, p.substr(1), 0});
                    } else {
                        sc.push_back({Scope::Func, p, 0});
                    }
                }
                check_node(d->kids[0], sc, errs);
                sc.resize(m2);
            }
            check_node(n->kids.back(), sc, errs);
            sc.resize(mark);
            return;
        }
        case Op::Call: {
            for (const Node* k : n->kids) check_node(k, sc, errs);
            for (auto it = sc.rbegin(); it != sc.rend(); ++it)
                if (it->k == Scope::Func && it->name == n->name && it->arity == n->kids.size()) return;
            std::string key = n->name + "/" + std::to_string(n->kids.size());
            if (prelude_map().defs.count(key) || find_native(key)) return;
            errs.emplace_back(n, key + " is not defined");
            return;
        }
        case Op::Var: {
            for (auto it = sc.rbegin(); it != sc.rend(); ++it)
                if (it->k == Scope::Var && it->name == n->name) return;
            if (n->name == "ENV" || n->name == "__prog_args") return;
            errs.emplace_back(n, "$" + n->name + " is not defined");
            return;
        }
        case Op::Break: {
            for (auto it = sc.rbegin(); it != sc.rend(); ++it)
                if (it->k == Scope::Label && it->name == n->name) return;
            errs.emplace_back(n, "$*label-" + n->name + " is not defined");
            return;
        }
        case Op::Label: {
            sc.push_back({Scope::Label, n->name, 0});
            check_node(n->kids[0], sc, errs);
            sc.pop_back();
            return;
        }
        case Op::As: {
            check_node(n->kids[0], sc, errs);
            size_t mark = sc.size();
            std::vector<std::string_view> names;
            for (size_t i = 1; i + 1 < n->kids.size(); ++i) {
                check_node(n->kids[i], sc, errs);
                pattern_vars(n->kids[i], names);
            }
            for (auto nm : names) sc.push_back({Scope::Var, std::string(nm), 0});
            check_node(n->kids.back(), sc, errs);
            sc.resize(mark);
            return;
        }
        case Op::Reduce:
        case Op::Foreach: {
            check_node(n->kids[0], sc, errs);
            check_node(n->kids[2], sc, errs);
            size_t mark = sc.size();
            std::vector<std::string_view> names;
            for (const Node* p : n->kids[1]->kids) {
                check_node(p, sc, errs);
                pattern_vars(p, names);
            }
            for (auto nm : names) sc.push_back({Scope::Var, std::string(nm), 0});
            check_node(n->kids[3], sc, errs);
            if (n->op == Op::Foreach) check_node(n->kids[4], sc, errs);
            sc.resize(mark);
            return;
        }
        case Op::ObjectCons:
            // a constant key that is not a string is a compile error (jq folds constant objects)
            for (size_t i = 0; i < n->kids.size(); i += 2) {
                const Node* k = n->kids[i];
                if (k->op == Op::Literal && !k->val.is_string()) {
                    errs.emplace_back(k, "Cannot use " + errdesc(k->val) + " as object key");
                    return;
                }
            }
            for (const Node* k : n->kids) check_node(k, sc, errs);
            return;
        case Op::PVar: return;
        case Op::PObject:
            for (size_t i = 0; i < n->kids.size(); i += 2) {
                if (n->kids[i]->op != Op::PVar) check_node(n->kids[i], sc, errs);
                check_node(n->kids[i + 1], sc, errs);
            }
            return;
        default:
            for (const Node* k : n->kids) check_node(k, sc, errs);
    }
}

// The definitions of a module, in order.
std::vector<const Node*> module_defs(const Program& m) {
    std::vector<const Node*> defs;
    for (const Node* r = m.root; r && r->op == Op::FuncDefs; r = r->kids.back())
        for (size_t i = 0; i + 1 < r->kids.size(); ++i) defs.push_back(r->kids[i]);
    return defs;
}

void import_scope(const Program& p, std::vector<Scope>& sc) {
    for (const Import& imp : p.imports) {
        if (imp.is_data) {
            sc.push_back({Scope::Var, imp.as, 0});
            sc.push_back({Scope::Var, imp.as + "::" + imp.as, 0});
        } else if (imp.module) {
            for (const Node* d : module_defs(*imp.module))
                sc.push_back({Scope::Func, imp.as.empty() ? d->name : imp.as + "::" + d->name, d->params.size()});
        }
    }
}

}  // namespace

bool check_program(const Program& p, const std::vector<std::string>& vars, std::string& errors, int& nerrors) {
    std::vector<Scope> sc;
    for (const auto& v : vars) sc.push_back({Scope::Var, v, 0});
    import_scope(p, sc);
    std::vector<std::pair<const Program*, std::pair<const Node*, std::string>>> errs;
    // A module's definitions are not checked: jq drops the ones the program never calls before it compiles,
    // so a name a module leaves undefined is an error only when reached (here at run time).
    {
        std::vector<std::pair<const Node*, std::string>> e;
        check_node(p.root, sc, e);
        for (auto& x : e) errs.push_back({&p, std::move(x)});
    }
    nerrors = static_cast<int>(errs.size());
    for (const auto& [prog, err] : errs) {
        const Program& p = *prog;
        const auto& [node, msg] = err;
        size_t ls = p.source.rfind('\n', node->pos == 0 ? 0 : node->pos - 1);
        ls = (ls == std::string::npos || node->pos == 0) ? 0 : ls + 1;
        if (node->pos == 0) ls = 0;
        size_t le = p.source.find('\n', ls);
        le = le == std::string::npos ? p.source.size() : le;
        errors += "jq: error: " + msg + " at " + p.file + ", line " + std::to_string(node->line) + ":\n" +
                  p.source.substr(ls, le - ls) + std::string(node->pos - ls, ' ') + "\n";
    }
    return errs.empty();
}

// ---- the evaluator object ----

struct Evaluator::Impl {
    std::shared_ptr<Program> prog;
    Interp I;
    EnvP root;
    std::deque<std::string> names;  // names of imported definitions (foo::a), which Env entries view
    std::map<const Program*, std::vector<EnvP>> module_frames;
    Impl(std::shared_ptr<Program> p, Host& h) : prog(std::move(p)), I(h) {}

    // The environment of a program's body: base, then its imports in order (a later one shadows).
    EnvP import_env(const Program& p, const EnvP& base) {
        EnvP e = base;
        for (const Import& imp : p.imports) {
            if (imp.is_data) {
                e = push_var(e, imp.as, imp.data);
                names.push_back(imp.as + "::" + imp.as);
                e = push_var(e, names.back(), imp.data);
            } else if (imp.module) {
                for (const EnvP& f : frames(*imp.module, base)) {
                    auto a = std::make_shared<Env>();
                    a->k = Env::Alias;
                    a->parent = e;
                    if (imp.as.empty()) {
                        a->name = f->name;
                    } else {
                        names.push_back(imp.as + "::" + std::string(f->name));
                        a->name = names.back();
                    }
                    a->arity = f->arity;
                    a->cenv = f;
                    e = a;
                }
            }
        }
        return e;
    }
    // A module's definitions, each a Func entry that sees the module's imports and earlier definitions.
    const std::vector<EnvP>& frames(const Program& m, const EnvP& base) {
        if (auto it = module_frames.find(&m); it != module_frames.end()) return it->second;
        EnvP e = import_env(m, base);
        std::vector<EnvP> out;
        for (const Node* d : module_defs(m)) {
            auto f = std::make_shared<Env>();
            f->k = Env::Func;
            f->parent = e;
            f->name = d->name;
            f->arity = d->params.size();
            f->node = d;
            e = f;
            out.push_back(f);
        }
        return module_frames[&m] = std::move(out);
    }
};

Evaluator::Evaluator(std::shared_ptr<Program> prog, Host& host) : impl_(std::make_unique<Impl>(std::move(prog), host)) {
    EnvP e = prelude().env;
    Value args = Value::object();
    args.set("positional", host.positional);
    args.set("named", host.named_args);
    e = push_var(e, "ARGS", args);
    e = push_var(e, "ENV", host.env);
    for (const auto& [k, v] : host.named_args.obj().items) e = push_var(e, k, v);
    impl_->root = impl_->import_env(*impl_->prog, e);
}

Evaluator::~Evaluator() = default;

// How far below `base` (an address on the current stack) recursion may go: the thread's stack less half a
// megabyte of margin, at most 64 MiB.
size_t stack_allowance(uintptr_t base) {
    size_t limit = 8u << 20;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* addr = nullptr;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            uintptr_t lo = reinterpret_cast<uintptr_t>(addr);
            if (base > lo && base <= lo + size) {
                size_t avail = base - lo;
                limit = avail > (1u << 20) ? avail - (512u << 10) : avail / 2;
            } else {
                limit = 16u << 20;  // on a fiber: the evaluator's fiber stack is larger than this
            }
        }
        pthread_attr_destroy(&attr);
    }
    if (limit > (64u << 20)) limit = 64u << 20;
    return limit;
}

void Evaluator::run(const Value& input, const std::function<bool(const Value&)>& out) {
    Interp& I = impl_->I;
    // The outermost evaluator on this thread sets the stack's floor (a nested run keeps it).
    struct StackScope {
        bool owner = tl_stack_base == 0;
        StackScope() {
            if (!owner) return;
            char probe;
            tl_stack_base = reinterpret_cast<uintptr_t>(&probe);
            tl_stack_limit = stack_allowance(tl_stack_base);
        }
        ~StackScope() {
            if (owner) tl_stack_base = 0;
        }
        StackScope(const StackScope&) = delete;
        StackScope& operator=(const StackScope&) = delete;
    } stack_scope;
    auto cb = [&](Value&& v, const Value*) { return out(v); };
    try {
        I.eval(impl_->prog->root, input, nullptr, impl_->root, mk_emit(cb));
    } catch (const BreakEx&) {
        throw JqError{Value::string("break")};
    }
}

}  // namespace bashkit::utils::jq
