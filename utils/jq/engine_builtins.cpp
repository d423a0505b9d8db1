// The builtins written in C++: paths, arithmetic, strings, formats, math, dates, generators (range, limit,
// first, until, while, repeat, recurse: loops here rather than recursive jq definitions, so that long
// generators use no native stack), input/debug/halt, and the regex builtins over Oniguruma.
#include <oniguruma.h>

#include "base/lazy_library.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <mutex>

#include "utils/jq/engine_impl.hpp"

namespace bashkit::utils::jq {

std::vector<std::string> native_names();

// ---- paths ----

Value append_path(const Value& path, const Value& key) {
    std::vector<Value> a = path.arr();
    a.push_back(key);
    return Value::array(std::move(a));
}

namespace {

// a + b in one allocation of the final size (a copy of a grown by appending held a, the copy and the grown
// buffer at once: four times a's size for `. + .`)
std::string concat(std::string_view a, std::string_view b) {
    std::string r;
    r.reserve(a.size() + b.size());
    r.append(a).append(b);
    return r;
}

size_t utf8_count(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xc0) != 0x80) ++n;
    return n;
}

// byte offset of codepoint index i
size_t utf8_offset(std::string_view s, size_t i) {
    size_t n = 0;
    for (size_t b = 0; b < s.size(); ++b) {
        if ((static_cast<unsigned char>(s[b]) & 0xc0) != 0x80) {
            if (n == i) return b;
            ++n;
        }
    }
    return s.size();
}

bool slice_bounds(const Value& key, size_t len, size_t& start, size_t& end) {
    const Value* fs = key.get("start");
    const Value* fe = key.get("end");
    Value s = fs ? *fs : Value(), e = fe ? *fe : Value();
    if ((!s.is_null() && !s.is_number()) || (!e.is_null() && !e.is_number())) return false;
    double dl = static_cast<double>(len);
    double ds = s.is_null() ? 0 : s.num();
    double de = e.is_null() ? dl : e.num();
    if (std::isnan(ds)) ds = 0;
    if (std::isnan(de)) de = dl;
    if (ds < 0) ds += dl;
    if (de < 0) de += dl;
    // Each end clamped to [0, len], then start rounded down and end up: [1.7:0.5] and [1.7:-4294967296]
    // are empty, [1.7:1.2] holds element 1 (jq 1.7.1's test suite).
    ds = std::clamp(ds, 0.0, dl);
    de = std::clamp(de, 0.0, dl);
    start = static_cast<size_t>(std::floor(ds));
    end = static_cast<size_t>(std::ceil(de));
    if (end > len) end = len;
    if (end < start) end = start;
    return true;
}

[[noreturn]] void cannot_index(const Value& t, const Value& k) {
    if (k.is_string()) jq_error("Cannot index " + std::string(kind_name(t)) + " with string \"" + std::string(k.str()) + "\"");
    jq_error("Cannot index " + std::string(kind_name(t)) + " with " + kind_name(k));
}

}  // namespace

Value index_value(const Value& t, const Value& k) {
    if (t.is_object() && k.is_string()) {
        const Value* v = t.get(k.str());
        return v ? *v : Value();
    }
    if (t.is_array() && k.is_number()) {
        const auto& a = t.arr();
        double d = k.num();
        if (std::isnan(d)) return Value();
        // Out of the array's reach (1e1000, -1e300) before the conversion, which would be undefined there.
        const double f = std::floor(d), n = static_cast<double>(a.size());
        if (f >= n || f < -n) return Value();
        long i = static_cast<long>(f);
        if (i < 0) i += static_cast<long>(a.size());
        if (i < 0 || i >= static_cast<long>(a.size())) return Value();
        return a[static_cast<size_t>(i)];
    }
    if (t.is_null() && (k.is_string() || k.is_number() || k.is_object())) return Value();
    if (k.is_object() && (t.is_array() || t.is_string())) {
        size_t len = t.is_array() ? t.arr().size() : utf8_count(t.str());
        size_t s, e;
        if (!slice_bounds(k, len, s, e)) jq_error("Start and end indices of an array slice must be numbers");
        if (t.is_array()) {
            const auto& a = t.arr();
            return Value::array(std::vector<Value>(a.begin() + static_cast<std::ptrdiff_t>(s),
                                                   a.begin() + static_cast<std::ptrdiff_t>(e)));
        }
        std::string_view str = t.str();
        size_t bs = utf8_offset(str, s), be = utf8_offset(str, e);
        return Value::string(str.substr(bs, be - bs));
    }
    if (t.is_array() && k.is_array()) {
        // indices of the subarray
        const auto& a = t.arr();
        const auto& b = k.arr();
        std::vector<Value> out;
        if (b.empty()) return Value();
        for (size_t i = 0; i + b.size() <= a.size(); ++i) {
            bool m = true;
            for (size_t j = 0; j < b.size() && m; ++j) m = equal(a[i + j], b[j]);
            if (m) out.push_back(Value::number(static_cast<double>(i)));
        }
        return Value::array(std::move(out));
    }
    cannot_index(t, k);
}

Value getpath(const Value& v, const Value& path) {
    if (!path.is_array()) jq_error("Path must be specified as an array");
    Value cur = v;
    for (const Value& k : path.arr()) {
        if (cur.is_null()) return Value();
        cur = index_value(cur, k);
    }
    return cur;
}

namespace {

void setpath_in(Value& v, const std::vector<Value>& path, size_t i, Value nv) {
    guard_stack();
    if (i == path.size()) {
        v = std::move(nv);
        return;
    }
    const Value& k = path[i];
    if (k.is_string()) {
        if (v.is_null()) v = Value::object();
        if (!v.is_object()) cannot_index(v, k);
        ObjBox& o = v.obj_mut();
        size_t p = o.pos(k.str());
        if (p == std::string::npos) {
            Value child;
            setpath_in(child, path, i + 1, std::move(nv));
            v.set(std::string(k.str()), std::move(child));
        } else {
            Value child = std::move(o.items[p].second);
            o.items[p].second = Value();
            setpath_in(child, path, i + 1, std::move(nv));
            v.obj_mut().items[p].second = std::move(child);
        }
        return;
    }
    if (k.is_number()) {
        if (std::isnan(k.num())) jq_error("Cannot set array element at NaN index");
        if (v.is_null()) v = Value::array();
        if (!v.is_array()) cannot_index(v, k);
        auto& a = v.arr_mut();
        long idx = clamp_num<long>(std::floor(k.num()));
        if (idx < 0) {
            idx += static_cast<long>(a.size());
            if (idx < 0) jq_error("Out of bounds negative array index");
        }
        size_t ui = static_cast<size_t>(idx);
        if (ui >= a.size()) {
            if (ui > (1u << 29)) jq_error("Array index too large");
            // the new elements before they exist: the array is charged once grown, too late for 2 GiB
            ensure_fits((ui + 1 - a.size()) * sizeof(Value));
            a.resize(ui + 1);
            v.recharge();
        }
        Value child = std::move(v.arr_mut()[ui]);
        v.arr_mut()[ui] = Value();
        setpath_in(child, path, i + 1, std::move(nv));
        v.arr_mut()[ui] = std::move(child);
        return;
    }
    if (k.is_object()) {
        if (v.is_string()) jq_error("Cannot update string slices");
        if (v.is_null()) v = Value::array();
        if (!v.is_array()) jq_error("Cannot update field at object index of " + std::string(kind_name(v)));
        size_t s, e;
        if (!slice_bounds(k, v.arr().size(), s, e)) jq_error("Start and end indices of an array slice must be numbers");
        Value cur = Value::array(std::vector<Value>(v.arr().begin() + static_cast<std::ptrdiff_t>(s),
                                                    v.arr().begin() + static_cast<std::ptrdiff_t>(e)));
        setpath_in(cur, path, i + 1, std::move(nv));
        if (!cur.is_array()) jq_error("A slice of an array can only be assigned another array");
        auto& a = v.arr_mut();
        a.erase(a.begin() + static_cast<std::ptrdiff_t>(s), a.begin() + static_cast<std::ptrdiff_t>(e));
        a.insert(a.begin() + static_cast<std::ptrdiff_t>(s), cur.arr().begin(), cur.arr().end());
        v.recharge();
        return;
    }
    if (v.is_array() || v.is_null()) jq_error("Cannot update field at object index of array");
    cannot_index(v, k);
}

void delpath_in(Value& v, const std::vector<Value>& path, size_t i) {
    guard_stack();
    if (v.is_null()) return;
    const Value& k = path[i];
    if (i + 1 == path.size()) {
        if (k.is_string()) {
            if (!v.is_object()) jq_error("Cannot delete field at object index of " + std::string(kind_name(v)));
            v.erase(k.str());
        } else if (k.is_number()) {
            if (!v.is_array()) jq_error("Cannot delete field at index of " + std::string(kind_name(v)));
            long idx = clamp_num<long>(std::floor(k.num()));
            long n = static_cast<long>(v.arr().size());
            if (idx < 0) idx += n;
            if (idx < 0) return;
            if (idx < n) {
                auto& a = v.arr_mut();
                a.erase(a.begin() + idx);
            }
        } else if (k.is_object()) {
            if (!v.is_array()) jq_error("Cannot delete slice of " + std::string(kind_name(v)));
            size_t s, e;
            if (!slice_bounds(k, v.arr().size(), s, e)) jq_error("Start and end indices of an array slice must be numbers");
            auto& a = v.arr_mut();
            a.erase(a.begin() + static_cast<std::ptrdiff_t>(s), a.begin() + static_cast<std::ptrdiff_t>(e));
        } else {
            cannot_index(v, k);
        }
        return;
    }
    if (k.is_string()) {
        if (!v.is_object()) cannot_index(v, k);
        ObjBox& o = v.obj_mut();
        size_t p = o.pos(k.str());
        if (p == std::string::npos) return;
        Value child = std::move(o.items[p].second);
        delpath_in(child, path, i + 1);
        v.obj_mut().items[p].second = std::move(child);
    } else if (k.is_number()) {
        if (!v.is_array()) cannot_index(v, k);
        long idx = clamp_num<long>(std::floor(k.num()));
        long n = static_cast<long>(v.arr().size());
        if (idx < 0) idx += n;
        if (idx < 0 || idx >= n) return;
        Value child = std::move(v.arr_mut()[static_cast<size_t>(idx)]);
        delpath_in(child, path, i + 1);
        v.arr_mut()[static_cast<size_t>(idx)] = std::move(child);
    } else if (k.is_object()) {
        Value sub = index_value(v, k);
        delpath_in(sub, path, i + 1);
        setpath_in(v, std::vector<Value>{k}, 0, sub);
    } else {
        cannot_index(v, k);
    }
}

}  // namespace

Value setpath(const Value& v, const Value& path, size_t i, const Value& nv) {
    if (!path.is_array()) jq_error("Path must be specified as an array");
    Value r = v;
    setpath_in(r, path.arr(), i, nv);
    return r;
}

namespace {

// Deletes keys from v at once (jq's jv_dels): array indices, negative ones included, and slices are all
// taken against the array as it was before any deletion.
void dels(Value& v, const std::vector<Value>& keys) {
    if (v.is_null() || keys.empty()) return;
    if (!v.is_array()) {
        for (const Value& k : keys) delpath_in(v, std::vector<Value>{k}, 0);
        return;
    }
    const size_t n = v.arr().size();
    std::vector<char> del(n, 0);
    for (const Value& k : keys) {
        if (k.is_number()) {
            double d = std::trunc(k.num());
            if (std::isnan(d)) d = 0;
            if (d < 0) d += static_cast<double>(n);
            if (d >= 0 && d < static_cast<double>(n)) del[static_cast<size_t>(d)] = 1;
        } else if (k.is_object()) {
            size_t s, e;
            if (!slice_bounds(k, n, s, e)) jq_error("Start and end indices of an array slice must be numbers");
            for (size_t i = s; i < e; ++i) del[i] = 1;
        } else {
            Value probe = v;
            delpath_in(probe, std::vector<Value>{k}, 0);  // its error
        }
    }
    std::vector<Value> kept;
    kept.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (!del[i]) kept.push_back(v.arr()[i]);
    v = Value::array(std::move(kept));
}

// jq's delpaths_sorted: paths (sorted) grouped by their component at `start`; a group whose first path ends
// there deletes the key, the others delete inside it.
void del_sorted(Value& v, const std::vector<const std::vector<Value>*>& ps, size_t start) {
    guard_stack();
    std::vector<Value> keys;
    for (size_t i = 0; i < ps.size();) {
        const Value& key = (*ps[i])[start];
        const bool whole = ps[i]->size() == start + 1;
        size_t j = i;
        while (j < ps.size() && equal(key, (*ps[j])[start])) ++j;
        if (whole) {
            keys.push_back(key);
        } else {
            Value sub = v.is_null() ? Value() : index_value(v, key);
            if (!sub.is_null()) {
                std::vector<const std::vector<Value>*> group(ps.begin() + static_cast<std::ptrdiff_t>(i),
                                                             ps.begin() + static_cast<std::ptrdiff_t>(j));
                del_sorted(sub, group, start + 1);
                setpath_in(v, std::vector<Value>{key}, 0, std::move(sub));
            }
        }
        i = j;
    }
    dels(v, keys);
}

}  // namespace

Value delpaths(const Value& v, Value paths) {
    if (!paths.is_array()) jq_error("Paths must be specified as an array");
    std::vector<Value> ps = paths.arr();
    for (const Value& p : ps)
        if (!p.is_array()) jq_error("Path must be specified as an array");
    if (ps.empty()) return v;
    std::sort(ps.begin(), ps.end(), [](const Value& a, const Value& b) { return compare(a, b) < 0; });
    if (ps[0].arr().empty()) return Value();  // everything is deleted
    std::vector<const std::vector<Value>*> refs;
    refs.reserve(ps.size());
    for (const Value& p : ps) refs.push_back(&p.arr());
    Value r = v;
    del_sorted(r, refs, 0);
    return r;
}

std::string tostring(const Value& v) { return v.is_string() ? std::string(v.str()) : to_json(v); }

// ---- arithmetic ----

namespace {

Value deep_merge(const Value& a, const Value& b) {
    Value r = a;
    for (const auto& [k, v] : b.obj().items) {
        const Value* cur = r.get(k);
        if (cur && cur->is_object() && v.is_object()) {
            Value m = deep_merge(*cur, v);
            r.set(k, std::move(m));
        } else {
            r.set(k, v);
        }
    }
    return r;
}

[[noreturn]] void binop_error(const Value& a, const Value& b, const char* what) {
    jq_error(errdesc(a) + " and " + errdesc(b) + " " + what);
}

}  // namespace

Value binop(const std::string& op, const Value& a, const Value& b) {
    char c = op[0];
    if (op.size() == 2 || c == '<' || c == '>') {
        if (op == "==") return Value::boolean(equal(a, b));
        if (op == "!=") return Value::boolean(!equal(a, b));
        int r = compare(a, b);
        if (op == "<") return Value::boolean(r < 0);
        if (op == "<=") return Value::boolean(r <= 0);
        if (op == ">") return Value::boolean(r > 0);
        return Value::boolean(r >= 0);
    }
    switch (c) {
        case '+':
            if (a.is_null()) return b;
            if (b.is_null()) return a;
            if (a.is_number() && b.is_number()) return Value::number(a.num() + b.num());
            if (a.is_string() && b.is_string()) {
                ensure_fits(a.str().size() + b.str().size());
                return Value::string(concat(a.str(), b.str()));
            }
            if (a.is_array() && b.is_array()) {
                ensure_fits((a.arr().size() + b.arr().size()) * sizeof(Value));
                std::vector<Value> r = a.arr();
                r.insert(r.end(), b.arr().begin(), b.arr().end());
                return Value::array(std::move(r));
            }
            if (a.is_object() && b.is_object()) {
                Value r = a;
                for (const auto& [k, v] : b.obj().items) r.set(k, v);
                return r;
            }
            binop_error(a, b, "cannot be added");
        case '-':
            if (a.is_number() && b.is_number()) return Value::number(a.num() - b.num());
            if (a.is_array() && b.is_array()) {
                std::vector<Value> r;
                for (const Value& x : a.arr()) {
                    bool found = false;
                    for (const Value& y : b.arr())
                        if (equal(x, y)) {
                            found = true;
                            break;
                        }
                    if (!found) r.push_back(x);
                }
                return Value::array(std::move(r));
            }
            binop_error(a, b, "cannot be subtracted");
        case '*':
            if (a.is_number() && b.is_number()) return Value::number(a.num() * b.num());
            if ((a.is_string() && b.is_number()) || (a.is_number() && b.is_string())) {
                const Value& s = a.is_string() ? a : b;
                double d = a.is_string() ? b.num() : a.num();
                if (std::isnan(d) || d < 0) return Value();
                long n = d > 1e9 ? 1000000000L : static_cast<long>(d);
                if (static_cast<double>(s.str().size()) * static_cast<double>(n) > 1e9) jq_error("Repeat string result too long");
                ensure_fits(s.str().size() * static_cast<size_t>(n));
                std::string r;
                r.reserve(s.str().size() * static_cast<size_t>(n));
                for (long i = 0; i < n; ++i) r += s.str();
                return Value::string(std::move(r));
            }
            if (a.is_object() && b.is_object()) return deep_merge(a, b);
            binop_error(a, b, "cannot be multiplied");
        case '/':
            if (a.is_number() && b.is_number()) {
                if (b.num() == 0) binop_error(a, b, "cannot be divided because the divisor is zero");
                return Value::number(a.num() / b.num());
            }
            if (a.is_string() && b.is_string()) {
                // split
                std::string_view s = a.str();
                std::string_view sep = b.str();
                std::vector<Value> out;
                if (s.empty()) return Value::array();
                if (sep.empty()) {
                    for (size_t i = 0; i < s.size();) {
                        size_t j = i + 1;
                        while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xc0) == 0x80) ++j;
                        out.push_back(Value::string(s.substr(i, j - i)));
                        i = j;
                    }
                    return Value::array(std::move(out));
                }
                size_t pos = 0;
                for (;;) {
                    size_t f = s.find(sep, pos);
                    if (f == std::string::npos) {
                        out.push_back(Value::string(s.substr(pos)));
                        break;
                    }
                    out.push_back(Value::string(s.substr(pos, f - pos)));
                    pos = f + sep.size();
                }
                return Value::array(std::move(out));
            }
            binop_error(a, b, "cannot be divided");
        case '%':
            if (a.is_number() && b.is_number()) {
                double x = a.num(), y = b.num();
                if (std::isnan(x) || std::isnan(y)) return Value::number(NAN);
                auto clamp = [](double d) -> intmax_t {
                    if (d >= 9.2233720368547758e18) return INTMAX_MAX;
                    if (d <= -9.2233720368547758e18) return INTMAX_MIN;
                    return static_cast<intmax_t>(d);
                };
                intmax_t bi = clamp(y);
                if (bi == 0) binop_error(a, b, "cannot be divided (remainder) because the divisor is zero");
                intmax_t ai = clamp(x);
                if (bi == -1) return Value::number(0);  // INTMAX_MIN % -1 overflows
                // The remainder takes the dividend's sign whatever the divisor's: no need to negate a negative
                // divisor (which overflows for INTMAX_MIN, a clamped -1e20).
                intmax_t r = ai % bi;
                return Value::number(static_cast<double>(r));
            }
            binop_error(a, b, "cannot be divided");
        default: break;
    }
    jq_error("unknown operator " + op);
}

// ---- formats ----

namespace {

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const char kB32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

std::string sh_quote(const Value& v) {
    switch (v.kind()) {
        case Kind::String: {
            std::string r = "'";
            for (char c : v.str()) {
                if (c == '\'') {
                    r += "'\\''";
                } else {
                    r += c;
                }
            }
            return r + "'";
        }
        case Kind::Array:
        case Kind::Object: jq_error(errdesc(v) + " can not be escaped for shell");
        default: return to_json(v);
    }
}

}  // namespace

Value format_value(const std::string& fmt, const Value& v) {
    if (fmt == "text") return Value::string(tostring(v));
    if (fmt == "json") return Value::string(to_json(v));
    if (fmt == "html") {
        std::string s = tostring(v), r;
        for (char c : s) {
            switch (c) {
                case '<': r += "&lt;"; break;
                case '>': r += "&gt;"; break;
                case '&': r += "&amp;"; break;
                case '\'': r += "&apos;"; break;
                case '"': r += "&quot;"; break;
                default: r += c;
            }
        }
        return Value::string(std::move(r));
    }
    if (fmt == "uri") {
        std::string s = tostring(v), r;
        for (unsigned char c : s) {
            if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
                r += static_cast<char>(c);
            } else {
                char buf[4];
                std::snprintf(buf, sizeof buf, "%%%02X", c);
                r += buf;
            }
        }
        return Value::string(std::move(r));
    }
    if (fmt == "csv" || fmt == "tsv") {
        if (!v.is_array()) jq_error(errdesc(v) + " cannot be " + fmt + "-formatted, only an array can be");
        std::string r;
        bool first = true;
        for (const Value& x : v.arr()) {
            if (!first) r += fmt == "csv" ? "," : "\t";
            first = false;
            switch (x.kind()) {
                case Kind::Null: break;
                case Kind::True: r += "true"; break;
                case Kind::False: r += "false"; break;
                case Kind::Number: r += to_json(x); break;
                case Kind::String:
                    if (fmt == "csv") {
                        r += '"';
                        for (char c : x.str()) {
                            if (c == '"') r += '"';
                            r += c;
                        }
                        r += '"';
                    } else {
                        for (char c : x.str()) {
                            switch (c) {
                                case '\t': r += "\\t"; break;
                                case '\n': r += "\\n"; break;
                                case '\r': r += "\\r"; break;
                                case '\\': r += "\\\\"; break;
                                default: r += c;
                            }
                        }
                    }
                    break;
                default: jq_error(errdesc(x) + " is not valid in a csv row");
            }
        }
        return Value::string(std::move(r));
    }
    if (fmt == "sh") {
        if (v.is_array()) {
            std::string r;
            bool first = true;
            for (const Value& x : v.arr()) {
                if (!first) r += ' ';
                first = false;
                r += sh_quote(x);
            }
            return Value::string(std::move(r));
        }
        return Value::string(sh_quote(v));
    }
    if (fmt == "base64") {
        std::string s = tostring(v), r;
        size_t i = 0;
        for (; i + 2 < s.size(); i += 3) {
            uint32_t n = (static_cast<unsigned char>(s[i]) << 16) | (static_cast<unsigned char>(s[i + 1]) << 8) |
                         static_cast<unsigned char>(s[i + 2]);
            r += kB64[(n >> 18) & 63];
            r += kB64[(n >> 12) & 63];
            r += kB64[(n >> 6) & 63];
            r += kB64[n & 63];
        }
        if (i < s.size()) {
            uint32_t n = static_cast<unsigned char>(s[i]) << 16;
            if (i + 1 < s.size()) n |= static_cast<unsigned char>(s[i + 1]) << 8;
            r += kB64[(n >> 18) & 63];
            r += kB64[(n >> 12) & 63];
            r += i + 1 < s.size() ? kB64[(n >> 6) & 63] : '=';
            r += '=';
        }
        return Value::string(std::move(r));
    }
    if (fmt == "base64d") {
        // jq 1.7.1: up to the first '=', every character must be base64; a lone trailing character is an
        // error; the bytes are made a string as every jq string (invalid UTF-8 becomes U+FFFD)
        const std::string s = tostring(v);
        std::string r;
        uint32_t code = 0;
        int n = 0;
        for (char c : s) {
            if (c == '=') break;
            const char* p = c ? std::strchr(kB64, c) : nullptr;
            if (!p) jq_error(errdesc(Value::string(s)) + " is not valid base64 data");
            code = (code << 6) | static_cast<uint32_t>(p - kB64);
            if (++n == 4) {
                r += static_cast<char>((code >> 16) & 0xff);
                r += static_cast<char>((code >> 8) & 0xff);
                r += static_cast<char>(code & 0xff);
                n = 0;
                code = 0;
            }
        }
        if (n == 3) {
            r += static_cast<char>((code >> 10) & 0xff);
            r += static_cast<char>((code >> 2) & 0xff);
        } else if (n == 2) {
            r += static_cast<char>((code >> 4) & 0xff);
        } else if (n == 1) {
            jq_error(errdesc(Value::string(s)) + " trailing base64 byte found");
        }
        return Value::string(fix_utf8(std::move(r)));
    }
    if (fmt == "base32") {
        std::string s = tostring(v), r;
        for (size_t i = 0; i < s.size(); i += 5) {
            uint64_t n = 0;
            size_t chunk = std::min<size_t>(5, s.size() - i);
            for (size_t k = 0; k < 5; ++k) n = (n << 8) | (k < chunk ? static_cast<unsigned char>(s[i + k]) : 0);
            static const int outlen[] = {0, 2, 4, 5, 7, 8};
            for (int k = 0; k < 8; ++k) r += k < outlen[chunk] ? kB32[(n >> (35 - 5 * k)) & 31] : '=';
        }
        return Value::string(std::move(r));
    }
    if (fmt == "base32d") {
        std::string s = tostring(v), r;
        uint64_t acc = 0;
        int bits = 0;
        for (char c : s) {
            const char* p = c ? std::strchr(kB32, c) : nullptr;
            if (!p) continue;
            acc = (acc << 5) | static_cast<uint64_t>(p - kB32);
            bits += 5;
            if (bits >= 8) {
                bits -= 8;
                r += static_cast<char>((acc >> bits) & 0xff);
            }
        }
        std::string quoted, err;
        Value parsed;
        dump_string(quoted, r, false);
        if (parse_json(quoted, parsed, err) && parsed.is_string()) return parsed;
        return Value::string(std::move(r));
    }
    jq_error(fmt + " is not a valid format");
}

// ---- natives ----

namespace {

using Args = std::vector<Value>;

// Evaluates the call's arguments as values, cartesian (the last argument outermost), then calls f.
template <class F>
bool with_args(Interp& I, const Node* call, const Value& in, const EnvP& env, F&& f) {
    size_t n = call->kids.size();
    Args args(n);
    std::function<bool(size_t)> step = [&](size_t i) -> bool {
        if (i == 0) return f(args);
        return I.each(call->kids[i - 1], in, env, [&](Value&& v) {
            args[i - 1] = std::move(v);
            return step(i - 1);
        });
    };
    return step(n);
}

#define NATIVE(fn) \
    bool fn(Interp& I, const Node* call, const Value& in, const Value* path, const EnvP& env, const Emit& emit)
#define UNUSED_NATIVE_ARGS \
    (void)I;               \
    (void)call;            \
    (void)in;              \
    (void)path;            \
    (void)env

inline const Value* nopath(const Value* path) { return path ? &kNoPath : nullptr; }

// A cfunction-style builtin: value arguments, one result.
template <Value (*F)(const Value&, const Args&)>
NATIVE(cfn) {
    return with_args(I, call, in, env, [&](const Args& a) { return emit(F(in, a), nopath(path)); });
}

Value f_length(const Value& in, const Args&) {
    switch (in.kind()) {
        case Kind::Null: return Value::number(0);
        case Kind::Number: return Value::number(std::fabs(in.num()));
        case Kind::String: return Value::number(static_cast<double>(utf8_count(in.str())));
        case Kind::Array:
        case Kind::Object: return Value::number(static_cast<double>(in.size()));
        default: jq_error(errdesc(in) + " has no length");
    }
}
Value f_utf8bytelength(const Value& in, const Args&) {
    if (!in.is_string()) jq_error(errdesc(in) + " only strings have UTF-8 byte length");
    return Value::number(static_cast<double>(in.str().size()));
}
Value f_not(const Value& in, const Args&) { return Value::boolean(!in.truthy()); }
Value f_type(const Value& in, const Args&) { return Value::string(kind_name(in)); }
Value keys_of(const Value& in, bool sorted) {
    if (in.is_object()) {
        std::vector<Value> ks;
        std::vector<std::string> names;
        for (const auto& it : in.obj().items) names.push_back(it.first);
        if (sorted) std::sort(names.begin(), names.end());
        for (auto& n : names) ks.push_back(Value::string(std::move(n)));
        return Value::array(std::move(ks));
    }
    if (in.is_array()) {
        std::vector<Value> ks;
        for (size_t i = 0; i < in.arr().size(); ++i) ks.push_back(Value::number(static_cast<double>(i)));
        return Value::array(std::move(ks));
    }
    jq_error(errdesc(in) + " has no keys");
}
Value f_keys(const Value& in, const Args&) { return keys_of(in, true); }
Value f_keys_unsorted(const Value& in, const Args&) { return keys_of(in, false); }
Value f_has(const Value& in, const Args& a) {
    const Value& k = a[0];
    if (in.is_object() && k.is_string()) return Value::boolean(in.get(k.str()) != nullptr);
    if (in.is_array() && k.is_number())
        return Value::boolean(k.num() >= 0 && k.num() < static_cast<double>(in.arr().size()));
    jq_error("Cannot check whether " + std::string(kind_name(in)) + " has a " + kind_name(k) + " key");
}
bool contains(const Value& a, const Value& b) {
    guard_stack();
    if (a.is_object() && b.is_object()) {
        for (const auto& [k, v] : b.obj().items) {
            const Value* x = a.get(k);
            if (!x || !contains(*x, v)) return false;
        }
        return true;
    }
    if (a.is_array() && b.is_array()) {
        for (const Value& y : b.arr()) {
            bool found = false;
            for (const Value& x : a.arr())
                if (contains(x, y)) {
                    found = true;
                    break;
                }
            if (!found) return false;
        }
        return true;
    }
    if (a.is_string() && b.is_string()) return a.str().find(b.str()) != std::string::npos;
    return a.kind() == b.kind() && equal(a, b);  // values of different kinds inside: not contained
}
Value f_contains(const Value& in, const Args& a) {
    // jq's kinds: true and false are two
    if (in.kind() != a[0].kind())
        jq_error(errdesc(in) + " and " + errdesc(a[0]) + " cannot have their containment checked");
    return Value::boolean(contains(in, a[0]));
}
Value f_add(const Value& in, const Args&) {
    if (in.is_object()) {
        Value acc;
        for (const auto& it : in.obj().items) acc = binop("+", acc, it.second);
        return acc;
    }
    if (!in.is_array()) jq_error("Cannot iterate over " + errdesc(in));
    const auto& a = in.arr();
    if (a.empty()) return Value();
    // strings and arrays: append in place
    if (a[0].is_string()) {
        bool all = true;
        size_t total = 0;
        for (const Value& x : a) {
            if (!x.is_string() && !x.is_null()) all = false;
            total += x.str().size();
        }
        if (all) {
            std::string s;
            s.reserve(total);
            for (const Value& x : a) s += x.str();
            return Value::string(std::move(s));
        }
    }
    Value acc = a[0];
    for (size_t i = 1; i < a.size(); ++i) acc = binop("+", acc, a[i]);
    return acc;
}
Value f_tostring(const Value& in, const Args&) { return in.is_string() ? in : Value::string(to_json(in)); }
Value f_tojson(const Value& in, const Args&) { return Value::string(to_json(in)); }
Value f_fromjson(const Value& in, const Args&) {
    if (!in.is_string()) jq_error(errdesc(in) + " only strings can be parsed");
    Value v;
    std::string err;
    if (!parse_json(in.str(), v, err)) jq_error(err);
    return v;
}
Value f_tonumber(const Value& in, const Args&) {
    if (in.is_number()) return in;
    if (!in.is_string()) jq_error(errdesc(in) + " cannot be parsed as a number");
    Value v;
    std::string err;
    if (!parse_json(in.str(), v, err)) jq_error(err);
    if (!v.is_number()) jq_error(errdesc(in) + " cannot be parsed as a number");
    return v;
}
Value sorted_array(const Value& in) {
    if (!in.is_array()) jq_error(errdesc(in) + " cannot be sorted, as it is not an array");
    std::vector<Value> a = in.arr();
    std::stable_sort(a.begin(), a.end(), [](const Value& x, const Value& y) { return compare(x, y) < 0; });
    return Value::array(std::move(a));
}
Value f_sort(const Value& in, const Args&) { return sorted_array(in); }
Value f_reverse(const Value& in, const Args&) {
    if (in.is_null()) return Value::array();
    if (in.is_string()) {
        std::vector<std::string> cps;
        std::string_view s = in.str();
        for (size_t i = 0; i < s.size();) {
            size_t j = i + 1;
            while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xc0) == 0x80) ++j;
            cps.emplace_back(s.substr(i, j - i));
            i = j;
        }
        std::string r;
        for (auto it = cps.rbegin(); it != cps.rend(); ++it) r += *it;
        return Value::string(std::move(r));
    }
    if (!in.is_array()) jq_error("Cannot reverse " + errdesc(in));
    std::vector<Value> a = in.arr();
    std::reverse(a.begin(), a.end());
    return Value::array(std::move(a));
}
// keys: array of [f] arrays, same length as input
std::vector<size_t> sort_perm(const Value& in, const Value& keys) {
    if (!in.is_array()) jq_error(errdesc(in) + " cannot be sorted, as it is not an array");
    std::vector<size_t> idx(in.arr().size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    const auto& k = keys.arr();
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare(k[a], k[b]) < 0; });
    return idx;
}
Value f_sort_by_impl(const Value& in, const Args& a) {
    auto idx = sort_perm(in, a[0]);
    std::vector<Value> r;
    for (size_t i : idx) r.push_back(in.arr()[i]);
    return Value::array(std::move(r));
}
Value f_group_by_impl(const Value& in, const Args& a) {
    auto idx = sort_perm(in, a[0]);
    std::vector<Value> groups;
    std::vector<Value> cur;
    const Value* last = nullptr;
    for (size_t i : idx) {
        const Value& k = a[0].arr()[i];
        if (last && !equal(*last, k)) {
            groups.push_back(Value::array(std::move(cur)));
            cur.clear();
        }
        cur.push_back(in.arr()[i]);
        last = &k;
    }
    if (!cur.empty()) groups.push_back(Value::array(std::move(cur)));
    return Value::array(std::move(groups));
}
Value minmax_by(const Value& in, const Value& keys, bool is_min) {
    if (!in.is_array()) jq_error("Cannot iterate over " + errdesc(in));
    const auto& a = in.arr();
    if (a.empty()) return Value();
    size_t best = 0;
    for (size_t i = 1; i < a.size(); ++i) {
        int c = compare(keys.arr()[i], keys.arr()[best]);
        if (is_min ? c < 0 : c >= 0) best = i;
    }
    return a[best];
}
Value f_min_by_impl(const Value& in, const Args& a) { return minmax_by(in, a[0], true); }
Value f_max_by_impl(const Value& in, const Args& a) { return minmax_by(in, a[0], false); }
Value f_min(const Value& in, const Args&) { return minmax_by(in, in, true); }
Value f_max(const Value& in, const Args&) { return minmax_by(in, in, false); }
Value f_unique(const Value& in, const Args&) {
    Value s = sorted_array(in);
    std::vector<Value> r;
    for (const Value& x : s.arr())
        if (r.empty() || !equal(r.back(), x)) r.push_back(x);
    return Value::array(std::move(r));
}
std::vector<uint32_t> codepoints(std::string_view s) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        int len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        uint32_t cp = len == 1 ? c : c & (len == 4 ? 0x07 : len == 3 ? 0x0f : 0x1f);
        for (int k = 1; k < len && i + static_cast<size_t>(k) < s.size(); ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3f);
        out.push_back(cp);
        i += static_cast<size_t>(len);
    }
    return out;
}
Value f_explode(const Value& in, const Args&) {
    if (!in.is_string()) jq_error(errdesc(in) + " cannot be exploded");
    std::vector<Value> r;
    for (uint32_t cp : codepoints(in.str())) r.push_back(Value::number(cp));
    return Value::array(std::move(r));
}
Value f_implode(const Value& in, const Args&) {
    if (!in.is_array()) jq_error("implode input must be an array");
    std::string s;
    for (const Value& x : in.arr()) {
        if (!x.is_number() || std::isnan(x.num()))
            jq_error(errdesc(x) + " can't be imploded, unicode codepoint needs to be numeric");
        double d = x.num();
        uint32_t cp = d < 0 || d > 0x10ffff || (d >= 0xd800 && d < 0xe000) ? 0xfffd : static_cast<uint32_t>(d);
        put_utf8(s, cp);
    }
    return Value::string(std::move(s));
}
Value f_split1(const Value& in, const Args& a) {
    if (!in.is_string() || !a[0].is_string()) jq_error("split input and separator must be strings");
    return binop("/", in, a[0]);
}
Value f_startswith(const Value& in, const Args& a) {
    if (!in.is_string() || !a[0].is_string()) jq_error("startswith() requires string inputs");
    return Value::boolean(in.str().rfind(a[0].str(), 0) == 0);
}
Value f_endswith(const Value& in, const Args& a) {
    if (!in.is_string() || !a[0].is_string()) jq_error("endswith() requires string inputs");
    std::string_view s = in.str(), t = a[0].str();
    return Value::boolean(s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0);
}
bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
Value trim_impl(const Value& in, bool left, bool right) {
    if (!in.is_string()) jq_error(errdesc(in) + " cannot be trimmed");
    std::string_view s = in.str();
    size_t b = 0, e = s.size();
    if (left)
        while (b < e && is_ws(s[b])) ++b;
    if (right)
        while (e > b && is_ws(s[e - 1])) --e;
    return Value::string(s.substr(b, e - b));
}
Value f_trim(const Value& in, const Args&) { return trim_impl(in, true, true); }
Value f_ltrim(const Value& in, const Args&) { return trim_impl(in, true, false); }
Value f_rtrim(const Value& in, const Args&) { return trim_impl(in, false, true); }
Value f_ascii_downcase(const Value& in, const Args&) {
    if (!in.is_string()) jq_error(errdesc(in) + " cannot be ascii_downcased");
    std::string s(in.str());
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return Value::string(std::move(s));
}
Value f_ascii_upcase(const Value& in, const Args&) {
    if (!in.is_string()) jq_error(errdesc(in) + " cannot be ascii_upcased");
    std::string s(in.str());
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    return Value::string(std::move(s));
}
Value f_strindices(const Value& in, const Args& a) {
    if (!in.is_string() || !a[0].is_string()) jq_error("_strindices requires string inputs");
    std::vector<Value> r;
    std::string_view s = in.str(), t = a[0].str();
    if (t.empty()) return Value::array();
    for (size_t p = s.find(t); p != std::string::npos; p = s.find(t, p + 1))
        r.push_back(Value::number(static_cast<double>(utf8_count(std::string_view(s).substr(0, p)))));
    return Value::array(std::move(r));
}
Value f_flatten(const Value& in, const Args& a) {
    if (!a[0].is_number()) jq_error("flatten depth must not be negative");
    if (a[0].num() < 0) jq_error("flatten depth must not be negative");
    if (!in.is_array()) jq_error("Cannot iterate over " + errdesc(in));
    std::vector<Value> out;
    std::function<void(const Value&, double)> go = [&](const Value& v, double d) {
        guard_stack();
        for (const Value& x : v.arr()) {
            if (x.is_array() && d > 0) {
                go(x, d - 1);
            } else {
                out.push_back(x);
            }
        }
    };
    go(in, a[0].num());
    return Value::array(std::move(out));
}
Value f_setpath(const Value& in, const Args& a) { return setpath(in, a[0], 0, a[1]); }
Value f_delpaths(const Value& in, const Args& a) { return delpaths(in, a[0]); }
Value f_infinite(const Value&, const Args&) { return Value::number(INFINITY); }
Value f_nan(const Value&, const Args&) { return Value::number(NAN); }
Value need_num(const Value& in) {
    if (!in.is_number()) jq_error(errdesc(in) + " number required");
    return in;
}
Value f_isinfinite(const Value& in, const Args&) { return Value::boolean(std::isinf(need_num(in).num())); }
Value f_isnan(const Value& in, const Args&) { return Value::boolean(std::isnan(need_num(in).num())); }
Value f_isnormal(const Value& in, const Args&) { return Value::boolean(std::isnormal(need_num(in).num())); }
Value f_format(const Value& in, const Args& a) {
    if (!a[0].is_string()) jq_error(errdesc(a[0]) + " is not a valid format");
    return format_value(std::string(a[0].str()), in);
}
Value f_ltrimstr(const Value& in, const Args& a) {
    if (in.is_string() && a[0].is_string() && in.str().rfind(a[0].str(), 0) == 0)
        return Value::string(in.str().substr(a[0].str().size()));
    return in;
}
Value f_rtrimstr(const Value& in, const Args& a) {
    if (in.is_string() && a[0].is_string()) {
        std::string_view s = in.str(), t = a[0].str();
        if (s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0)
            return Value::string(s.substr(0, s.size() - t.size()));
    }
    return in;
}
Value f_significand(const Value& in, const Args&) {
    double d = need_num(in).num();
    if (d == 0 || !std::isfinite(d)) return Value::number(d);
    int e;
    double m = std::frexp(d, &e);
    return Value::number(m * 2);
}
Value f_logb(const Value& in, const Args&) { return Value::number(std::logb(need_num(in).num())); }
Value f_gamma(const Value& in, const Args&) { return Value::number(std::lgamma(need_num(in).num())); }
Value f_frexp(const Value& in, const Args&) {
    int e;
    double m = std::frexp(need_num(in).num(), &e);
    return Value::array({Value::number(m), Value::number(e)});
}
Value f_modf(const Value& in, const Args&) {
    double ip;
    double f = std::modf(need_num(in).num(), &ip);
    return Value::array({Value::number(f), Value::number(ip)});
}
Value f_lgamma_r(const Value& in, const Args&) {
    int sign = 1;
    double r = lgamma_r(need_num(in).num(), &sign);
    return Value::array({Value::number(r), Value::number(sign)});
}

// ---- dates ----

Value tm_to_value(const struct tm& t, double secs) {
    return Value::array({Value::number(t.tm_year + 1900), Value::number(t.tm_mon), Value::number(t.tm_mday),
                         Value::number(t.tm_hour), Value::number(t.tm_min), Value::number(secs),
                         Value::number(t.tm_wday), Value::number(t.tm_yday)});
}
bool value_to_tm(const Value& v, struct tm& t) {
    if (!v.is_array() || v.arr().size() < 6) return false;
    for (const Value& x : v.arr())
        if (!x.is_number()) return false;
    std::memset(&t, 0, sizeof t);
    const auto& a = v.arr();
    t.tm_year = clamp_num<int>(a[0].num() - 1900);
    t.tm_mon = clamp_num<int>(a[1].num());
    t.tm_mday = clamp_num<int>(a[2].num());
    t.tm_hour = clamp_num<int>(a[3].num());
    t.tm_min = clamp_num<int>(a[4].num());
    t.tm_sec = clamp_num<int>(a[5].num());
    if (a.size() > 6) t.tm_wday = clamp_num<int>(a[6].num());
    if (a.size() > 7) t.tm_yday = clamp_num<int>(a[7].num());
    return true;
}
Value f_gmtime(const Value& in, const Args&) {
    if (!in.is_number()) jq_error("gmtime() requires a number");
    double d = in.num();
    time_t secs = clamp_num<time_t>(std::floor(d));
    struct tm t;
    if (!gmtime_r(&secs, &t)) jq_error("error converting number of seconds since epoch to datetime");
    return tm_to_value(t, t.tm_sec + (d - std::floor(d)));
}
Value f_localtime(const Value& in, const Args&) {
    if (!in.is_number()) jq_error("localtime() requires a number");
    double d = in.num();
    time_t secs = clamp_num<time_t>(std::floor(d));
    struct tm t;
    if (!localtime_r(&secs, &t)) jq_error("error converting number of seconds since epoch to datetime");
    return tm_to_value(t, t.tm_sec + (d - std::floor(d)));
}
Value f_mktime(const Value& in, const Args&) {
    if (!in.is_array()) jq_error("mktime requires array of 6 numbers");
    struct tm t;
    if (!value_to_tm(in, t)) jq_error("mktime requires parsed datetime inputs");
    time_t r = timegm(&t);
    if (r == static_cast<time_t>(-1)) jq_error("invalid gmtime representation");
    return Value::number(static_cast<double>(r));
}
Value strftime_impl(const Value& in, const Args& a, bool local, const char* name) {
    Value v = in;
    if (v.is_number()) v = local ? f_localtime(v, {}) : f_gmtime(v, {});
    if (!v.is_array()) jq_error(std::string(name) + "/1 requires parsed datetime inputs");
    if (!a[0].is_string()) jq_error(std::string(name) + "/1 requires a string format");
    struct tm t;
    if (!value_to_tm(v, t)) jq_error(std::string(name) + "/1 requires parsed datetime inputs");
    char buf[4096];
    size_t n = std::strftime(buf, sizeof buf, std::string(a[0].str()).c_str(), &t);
    if (n == 0 && !a[0].str().empty()) jq_error(std::string(name) + "/1: unknown system failure");
    return Value::string(std::string(buf, n));
}
Value f_strftime(const Value& in, const Args& a) { return strftime_impl(in, a, false, "strftime"); }
Value f_strflocaltime(const Value& in, const Args& a) { return strftime_impl(in, a, true, "strflocaltime"); }
Value f_strptime(const Value& in, const Args& a) {
    if (!in.is_string() || !a[0].is_string()) jq_error("strptime/1 requires string inputs and arguments");
    struct tm t;
    std::memset(&t, 0, sizeof t);
    const std::string text(in.str()), format(a[0].str());  // `end` points into text: it must outlive the check
    const char* end = strptime(text.c_str(), format.c_str(), &t);
    if (!end || *end) jq_error("date \"" + text + "\" does not match format \"" + format + "\"");
    // wday/yday as timegm computes them
    struct tm copy = t;
    time_t secs = timegm(&copy);
    struct tm full;
    if (secs != static_cast<time_t>(-1) && gmtime_r(&secs, &full)) {
        t.tm_wday = full.tm_wday;
        t.tm_yday = full.tm_yday;
    }
    return tm_to_value(t, t.tm_sec);
}

// ---- regex (Oniguruma) ----

// Oniguruma is opened on first use (base/lazy_library.hpp): most runs never match a regex in jq, and a
// start-up that loads it pays its relocations and page faults. The two data members are the UTF-8 encoding
// and the Perl_NG syntax that ONIG_ENCODING_UTF8 and ONIG_SYNTAX_PERL_NG name.
#define BASHKIT_ONIG_FUNCTIONS(X) \
    X(onig_error_code_to_str) X(onig_foreach_name) X(onig_free) X(onig_initialize) X(onig_new) \
    X(onig_region_free) X(onig_region_new) X(onig_search) X(onig_set_match_stack_limit_size) \
    X(onig_set_retry_limit_in_match) X(onig_set_retry_limit_in_search) X(OnigEncodingUTF8) X(OnigSyntaxPerl_NG)
struct OnigApi {
    BASHKIT_ONIG_FUNCTIONS(BASHKIT_API_MEMBER)
};
BASHKIT_DEFINE_API(OnigApi, onig_api, BASHKIT_SONAME_ONIG, BASHKIT_ONIG_FUNCTIONS)

// The loaded API: only once compile_regex() has loaded it (every other call follows a compiled regex).
const OnigApi& onig() { return *onig_api(nullptr); }

std::once_flag onig_once;

struct Regex {
    regex_t* re = nullptr;
    ~Regex() {
        if (re) onig().onig_free(re);
    }
};

constexpr unsigned long kRegexRetryLimit = 10000000;  // Oniguruma's default per match
constexpr unsigned int kRegexStackLimit = 1000000;     // backtrack stack entries

void compile_regex(const Value& re, const Value& flags, Regex& out, bool& global) {
    std::string why;
    if (!onig_api(&why)) jq_error("Regex failure: Oniguruma cannot be loaded: " + why);
    std::call_once(onig_once, [] {
        OnigEncoding encs[1] = {onig().OnigEncodingUTF8};
        onig().onig_initialize(encs, 1);
        // A hostile pattern is an error ("Regex failure: retry-limit-in-match over"), not a hang: retries
        // are bounded per match and per search (one search tries every start position).
        onig().onig_set_retry_limit_in_match(kRegexRetryLimit);
        onig().onig_set_retry_limit_in_search(kRegexRetryLimit);
        onig().onig_set_match_stack_limit_size(kRegexStackLimit);
    });
    if (!re.is_string()) jq_error(errdesc(re) + " cannot be matched, as it is not a string");
    OnigOptionType opts = ONIG_OPTION_CAPTURE_GROUP;
    global = false;
    if (!flags.is_null()) {
        if (!flags.is_string()) jq_error(errdesc(flags) + " is not a string");
        for (char c : flags.str()) {
            switch (c) {
                case 'g': global = true; break;
                case 'i': opts |= ONIG_OPTION_IGNORECASE; break;
                case 'x': opts |= ONIG_OPTION_EXTEND; break;
                case 'n': opts |= ONIG_OPTION_FIND_NOT_EMPTY; break;
                case 'm': opts |= ONIG_OPTION_MULTILINE; break;
                case 's': opts |= ONIG_OPTION_SINGLELINE; break;
                case 'p': opts |= ONIG_OPTION_MULTILINE | ONIG_OPTION_SINGLELINE; break;
                case 'l': opts |= ONIG_OPTION_FIND_LONGEST; break;
                default: jq_error(std::string(flags.str()) + " is not a valid modifier string");
            }
        }
    }
    OnigErrorInfo einfo;
    const auto* p = reinterpret_cast<const OnigUChar*>(re.str().data());
    int r = onig().onig_new(&out.re, p, p + re.str().size(), opts, onig().OnigEncodingUTF8, onig().OnigSyntaxPerl_NG, &einfo);
    if (r != ONIG_NORMAL) {
        OnigUChar buf[ONIG_MAX_ERROR_MESSAGE_LEN];
        onig().onig_error_code_to_str(buf, r, &einfo);
        out.re = nullptr;
        jq_error(std::string("Regex failure: ") + reinterpret_cast<char*>(buf));
    }
}

// match objects for every match (or the first)
std::vector<Value> regex_matches(Interp& I, const Value& in, const Value& re_in, const Value& flags_in,
                                 bool force_global) {
    if (!in.is_string()) jq_error(errdesc(in) + " cannot be matched, as it is not a string");
    Value re = re_in, flags = flags_in;
    if (re.is_array()) {  // test(["re", "flags"])
        if (!flags.is_null()) jq_error(errdesc(re) + " is not a string");
        flags = re.arr().size() > 1 ? re.arr()[1] : Value();
        re = re.arr().empty() ? Value() : re.arr()[0];
    }
    Regex rx;
    bool global;
    compile_regex(re, flags, rx, global);
    global = global || force_global;
    std::string_view s = in.str();
    const auto* start = reinterpret_cast<const OnigUChar*>(s.data());
    const auto* end = start + s.size();
    std::unique_ptr<OnigRegion, void (*)(OnigRegion*)> region_owner(onig().onig_region_new(),
                                                                    [](OnigRegion* r) { onig().onig_region_free(r, 1); });
    OnigRegion* region = region_owner.get();
    std::vector<Value> out;
    // capture names by group number
    std::map<int, std::string> names;
    onig().onig_foreach_name(
        rx.re,
        [](const OnigUChar* name, const OnigUChar* name_end, int ngroups, int* groups, regex_t*, void* arg) -> int {
            auto* m = static_cast<std::map<int, std::string>*>(arg);
            for (int i = 0; i < ngroups; ++i)
                (*m)[groups[i]] = std::string(reinterpret_cast<const char*>(name), static_cast<size_t>(name_end - name));
            return 0;
        },
        &names);
    size_t pos = 0;
    auto cp_index = [&](size_t byte) { return static_cast<double>(utf8_count(std::string_view(s).substr(0, byte))); };
    while (pos <= s.size()) {
        I.tick();
        int r = onig().onig_search(rx.re, start, end, start + pos, end, region, ONIG_OPTION_NONE);
        if (r == ONIG_MISMATCH) break;
        if (r < 0) {
            OnigUChar buf[ONIG_MAX_ERROR_MESSAGE_LEN];
            onig().onig_error_code_to_str(buf, r);
            jq_error(std::string("Regex failure: ") + reinterpret_cast<char*>(buf));
        }
        size_t mb = static_cast<size_t>(region->beg[0]), me = static_cast<size_t>(region->end[0]);
        Value m = Value::object();
        m.set("offset", Value::number(cp_index(mb)));
        m.set("length", Value::number(static_cast<double>(utf8_count(std::string_view(s).substr(mb, me - mb)))));
        m.set("string", Value::string(s.substr(mb, me - mb)));
        std::vector<Value> caps;
        for (int g = 1; g < region->num_regs; ++g) {
            Value c = Value::object();
            if (me == mb) {  // jq 1.7.1: every capture of an empty match is empty at its offset
                c.set("offset", Value::number(cp_index(mb)));
                c.set("string", Value::string(""));
                c.set("length", Value::number(0));
            } else if (region->beg[g] < 0) {
                c.set("offset", Value::number(-1));
                c.set("string", Value());
                c.set("length", Value::number(0));
            } else if (region->beg[g] == region->end[g]) {
                c.set("offset", Value::number(cp_index(static_cast<size_t>(region->beg[g]))));
                c.set("string", Value::string(""));
                c.set("length", Value::number(0));
            } else {
                size_t cb = static_cast<size_t>(region->beg[g]), ce = static_cast<size_t>(region->end[g]);
                c.set("offset", Value::number(cp_index(cb)));
                c.set("length", Value::number(static_cast<double>(utf8_count(std::string_view(s).substr(cb, ce - cb)))));
                c.set("string", Value::string(s.substr(cb, ce - cb)));
            }
            auto it = names.find(g);
            c.set("name", it == names.end() ? Value() : Value::string(it->second));
            caps.push_back(std::move(c));
        }
        m.set("captures", Value::array(std::move(caps)));
        out.push_back(std::move(m));
        if (!global) break;
        if (me == mb) {
            if (me >= s.size()) break;
            // step over one character
            size_t n = me + 1;
            while (n < s.size() && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) ++n;
            pos = n;
        } else {
            pos = me;
        }
    }
    return out;
}

NATIVE(n_match) {
    return with_args(I, call, in, env, [&](const Args& a) {
        for (Value& m : regex_matches(I, in, a[0], a[1], false))
            if (!emit(std::move(m), nopath(path))) return false;
        return true;
    });
}
NATIVE(n_test) {
    return with_args(I, call, in, env, [&](const Args& a) {
        Value fl = a[1];
        return emit(Value::boolean(!regex_matches(I, in, a[0], fl, false).empty()), nopath(path));
    });
}
NATIVE(n_split2) {
    return with_args(I, call, in, env, [&](const Args& a) {
        if (!in.is_string()) jq_error(errdesc(in) + " cannot be matched, as it is not a string");
        auto ms = regex_matches(I, in, a[0], a[1], true);
        std::string_view s = in.str();
        std::vector<Value> out;
        size_t prev = 0;  // byte offset
        for (const Value& m : ms) {
            size_t off = utf8_offset(s, static_cast<size_t>(m.get("offset")->num()));
            size_t len = m.get("string")->str().size();
            out.push_back(Value::string(s.substr(prev, off - prev)));
            prev = off + len;
        }
        out.push_back(Value::string(s.substr(prev)));
        return emit(Value::array(std::move(out)), nopath(path));
    });
}
// sub(re; str; flags): str is evaluated with the capture object as input; multiple outputs -> cartesian
// sub/gsub as jq 1.7.1 defines them: every output of the replacement makes its own result (the n-th
// output of each match's replacement goes into the n-th result), with no match the input is the output.
NATIVE(n_sub) {
    return I.each(call->kids[0], in, env, [&](Value&& re) {
        return I.each(call->kids[2], in, env, [&](Value&& flags) {
            if (!in.is_string()) jq_error(errdesc(in) + " cannot be matched, as it is not a string");
            auto ms = regex_matches(I, in, re, flags, false);
            std::string_view s = in.str();
            std::vector<Value> results;  // null until the n-th output of a replacement adds to it
            size_t prev = 0;
            for (const Value& m : ms) {
                I.tick();
                size_t off = utf8_offset(s, static_cast<size_t>(m.get("offset")->num()));
                size_t len = m.get("string")->str().size();
                Value capobj = Value::object();
                for (const Value& c : m.get("captures")->arr()) {
                    const Value* nm = c.get("name");
                    if (nm && nm->is_string()) capobj.set(std::string(nm->str()), *c.get("string"));
                }
                const Value gap = Value::string(off > prev ? s.substr(prev, off - prev) : std::string());
                size_t ix = 0;
                I.each(call->kids[1], capobj, env, [&](Value&& rep) {
                    if (ix == results.size()) results.emplace_back();
                    results[ix] = binop("+", results[ix], binop("+", gap, rep));
                    ++ix;
                    return true;
                });
                prev = off + len;
            }
            if (results.empty()) return emit(Value(in), nopath(path));
            const Value rest = Value::string(prev < s.size() ? s.substr(prev) : std::string());
            for (const Value& r : results) {
                Value out = binop("+", r, rest);
                if (!out.truthy()) continue;
                if (!emit(std::move(out), nopath(path))) return false;
            }
            return true;
        });
    });
}

// ---- generators and control ----

NATIVE(n_empty) {
    UNUSED_NATIVE_ARGS;
    (void)emit;
    return true;
}
NATIVE(n_error0) {
    UNUSED_NATIVE_ARGS;
    (void)emit;
    throw JqError{in};
}
NATIVE(n_error1) {
    UNUSED_NATIVE_ARGS;
    I.each(call->kids[0], in, env, [&](Value&& v) -> bool { throw JqError{std::move(v)}; });
    (void)emit;
    return true;
}
NATIVE(n_path) {
    return I.each_path(call->kids[0], in, env, [&](const Value& p, Value&&) { return emit(Value(p), nopath(path)); });
}
NATIVE(n_getpath) {
    return I.each(call->kids[0], in, env, [&](Value&& p) {
        Value r;
        try {
            r = getpath(in, p);
        } catch (JqError&) {
            if (!p.is_array()) throw;
            throw;
        }
        if (path) {
            if (!path->is_valid()) return emit(std::move(r), &kNoPath);
            std::vector<Value> np = path->arr();
            np.insert(np.end(), p.arr().begin(), p.arr().end());
            Value npv = Value::array(std::move(np));
            return emit(std::move(r), &npv);
        }
        return emit(std::move(r), nullptr);
    });
}
NATIVE(n_select) {
    return I.each(call->kids[0], in, env, [&](Value&& c) {
        if (c.truthy()) return emit(Value(in), path);
        return true;
    });
}
NATIVE(n_map) {
    if (!in.is_array() && !in.is_object()) jq_error("Cannot iterate over " + errdesc(in));
    std::vector<Value> out;
    interp::MemoryCharge held(current_budget());
    auto visit = [&](const Value& x) {
        I.each(call->kids[0], x, env, [&](Value&& v) {
            out.push_back(std::move(v));
            if ((out.size() & 1023) == 0) held.set(out.capacity() * sizeof(Value));
            return true;
        });
    };
    if (in.is_array()) {
        for (const Value& x : in.arr()) visit(x);
    } else {
        for (const auto& it : in.obj().items) visit(it.second);
    }
    held.clear();
    return emit(Value::array(std::move(out)), nopath(path));
}
namespace {
// Runs run(), which appends to outputs; a language error it raises once outputs is not empty is returned
// instead of thrown.
template <class C, class Run>
std::exception_ptr defer_error(const C& outputs, Run&& run) {
    try {
        run();
    } catch (const JqError&) {
        if (outputs.empty()) throw;
        return std::current_exception();
    } catch (const BreakEx&) {
        if (outputs.empty()) throw;
        return std::current_exception();
    } catch (const JqHalt&) {
        if (outputs.empty()) throw;
        return std::current_exception();
    }
    return nullptr;
}


// A vector used as a stack, its capacity charged to the memory budget.
template <class T>
class BudgetedStack {
public:
    void push(T&& t) {
        v_.push_back(std::move(t));
        if (v_.capacity() != charged_) {
            held_.set(v_.capacity() * sizeof(T));
            charged_ = v_.capacity();
        }
    }
    T pop() {
        T t = std::move(v_.back());
        v_.pop_back();
        return t;
    }
    bool empty() const { return v_.empty(); }

private:
    std::vector<T> v_;
    interp::MemoryCharge held_{current_budget()};
    size_t charged_ = 0;
};

}  // namespace

// recurse(f) and recurse(f; cond), jq's `def r: ., (f | select(cond) | r); r;`: depth first over an
// explicit, budgeted stack of pending outputs (an error f raises after some outputs waits for theirs, as in
// loop_native below)
bool recurse_with(Interp& I, const Node* f, const Node* cond, const Value& in, const Value* path, const EnvP& env,
                  const Emit& emit) {
    struct Item {
        Value v;
        Value p;
        std::exception_ptr err;
    };
    BudgetedStack<Item> stack;
    stack.push({in, path ? *path : Value::invalid(), nullptr});
    std::vector<Item> next;
    while (!stack.empty()) {
        I.tick();
        Item it = stack.pop();
        if (it.err) std::rethrow_exception(it.err);
        if (!emit(Value(it.v), path ? (it.p.is_valid() ? &it.p : &kNoPath) : nullptr)) return false;
        next.clear();
        auto cb = [&](Value&& v, const Value* p) -> bool {
            if (cond) {
                bool ok = false;
                I.each(cond, v, env, [&](Value&& c) {
                    ok = c.truthy();
                    return false;
                });
                if (!ok) return true;
            }
            next.push_back({std::move(v), p && p->is_valid() ? *p : Value::invalid(), nullptr});
            return true;
        };
        std::exception_ptr err = defer_error(
            next, [&] { I.eval(f, it.v, path ? (it.p.is_valid() ? &it.p : &kNoPath) : nullptr, env, mk_emit(cb)); });
        if (err) stack.push({Value(), Value(), std::move(err)});
        for (size_t i = next.size(); i-- > 0;) stack.push(std::move(next[i]));
    }
    return true;
}
NATIVE(n_recurse0) {
    (void)call;
    (void)env;
    // recurse(.[]?)
    struct Frame {
        Value v;
        Value p;
        size_t i;
    };
    if (!emit(Value(in), path)) return false;
    std::vector<Frame> st;
    bool track = path && path->is_valid();
    st.push_back({in, track ? *path : Value::invalid(), 0});
    while (!st.empty()) {
        I.tick();
        Frame& f = st.back();
        size_t n = f.v.is_array() ? f.v.arr().size() : f.v.is_object() ? f.v.obj().items.size() : 0;
        if (f.i >= n) {
            st.pop_back();
            continue;
        }
        size_t i = f.i++;
        Value child = f.v.is_array() ? f.v.arr()[i] : f.v.obj().items[i].second;
        Value cp;
        if (track) {
            cp = append_path(f.p, f.v.is_array() ? Value::number(static_cast<double>(i)) : Value::string(f.v.obj().items[i].first));
        }
        if (!emit(Value(child), path ? (track ? &cp : &kNoPath) : nullptr)) return false;
        if (child.is_array() || child.is_object()) st.push_back({std::move(child), track ? std::move(cp) : Value::invalid(), 0});
    }
    return true;
}
NATIVE(n_recurse1) { return recurse_with(I, call->kids[0], nullptr, in, path, env, emit); }
NATIVE(n_recurse2) { return recurse_with(I, call->kids[0], call->kids[1], in, path, env, emit); }

bool range_impl(Interp& I, double from, double upto, double by, const Value* path, const Emit& emit) {
    if (by > 0) {
        for (double x = from; x < upto; x += by) {
            I.tick();
            if (!emit(Value::number(x), nopath(path))) return false;
        }
    } else if (by < 0) {
        for (double x = from; x > upto; x += by) {
            I.tick();
            if (!emit(Value::number(x), nopath(path))) return false;
        }
    } else if (from < upto) {
        for (;;) {
            I.tick();
            if (!emit(Value::number(from), nopath(path))) return false;
        }
    }
    return true;
}
NATIVE(n_range1) {
    return I.each(call->kids[0], in, env, [&](Value&& n) {
        if (!n.is_number()) jq_error("Range bounds must be numeric");
        return range_impl(I, 0, n.num(), 1, path, emit);
    });
}
NATIVE(n_range2) {
    return I.each(call->kids[0], in, env, [&](Value&& from) {
        return I.each(call->kids[1], in, env, [&](Value&& upto) {
            if (!from.is_number() || !upto.is_number()) jq_error("Range bounds must be numeric");
            return range_impl(I, from.num(), upto.num(), 1, path, emit);
        });
    });
}
NATIVE(n_range3) {
    return I.each(call->kids[0], in, env, [&](Value&& from) {
        return I.each(call->kids[1], in, env, [&](Value&& upto) {
            return I.each(call->kids[2], in, env, [&](Value&& by) {
                if (!from.is_number() || !upto.is_number() || !by.is_number()) jq_error("Range bounds must be numeric");
                return range_impl(I, from.num(), upto.num(), by.num(), path, emit);
            });
        });
    });
}
NATIVE(n_first1) {
    bool stopped_by_consumer = false;
    auto cb = [&](Value&& v, const Value* p) {
        if (!emit(std::move(v), p)) stopped_by_consumer = true;
        return false;
    };
    I.eval(call->kids[0], in, path, env, mk_emit(cb));
    return !stopped_by_consumer;
}
NATIVE(n_last1) {
    Value last = Value::invalid();
    Value lastp = Value::invalid();
    bool have_path = false;
    auto cb = [&](Value&& v, const Value* p) {
        last = std::move(v);
        have_path = p != nullptr;
        if (p) lastp = *p;
        return true;
    };
    I.eval(call->kids[0], in, path, env, mk_emit(cb));
    if (!last.is_valid()) return true;
    return emit(std::move(last), have_path ? (lastp.is_valid() ? &lastp : &kNoPath) : nullptr);
}
NATIVE(n_limit) {
    return I.each(call->kids[0], in, env, [&](Value&& nv) {
        if (!nv.is_number()) jq_error("Invalid limit: must be a number");
        double n = nv.num();
        if (n <= 0) {
            if (n == 0) return true;
            return I.eval(call->kids[1], in, path, env, emit);
        }
        double count = 0;
        bool consumer_stop = false;
        auto cb = [&](Value&& v, const Value* p) {
            if (!emit(std::move(v), p)) {
                consumer_stop = true;
                return false;
            }
            return ++count < n;
        };
        I.eval(call->kids[1], in, path, env, mk_emit(cb));
        return !consumer_stop;
    });
}
NATIVE(n_nth2) {
    return I.each(call->kids[0], in, env, [&](Value&& nv) {
        if (!nv.is_number()) jq_error("Cannot index array with " + std::string(kind_name(nv)));
        double n = nv.num();
        if (n < 0) jq_error("nth doesn't support negative indices");
        double count = 0;
        Value found = Value::invalid();
        Value fp = Value::invalid();
        bool hp = false;
        auto cb = [&](Value&& v, const Value* p) {
            if (count++ >= n) {
                found = std::move(v);
                hp = p != nullptr;
                if (p) fp = *p;
                return false;
            }
            return true;
        };
        I.eval(call->kids[1], in, path, env, mk_emit(cb));
        if (!found.is_valid()) return true;
        return emit(std::move(found), hp ? (fp.is_valid() ? &fp : &kNoPath) : nullptr);
    });
}
NATIVE(n_isempty) {
    bool any = false;
    auto cb = [&](Value&&, const Value*) {
        any = true;
        return false;
    };
    I.eval(call->kids[0], in, nullptr, env, mk_emit(cb));
    return emit(Value::boolean(!any), nopath(path));
}
// until(cond; update) and while(cond; update) walk jq's recursive definitions
//   def while(cond; update): def _while: if cond then ., (update | _while) else empty end; _while;
//   def until(cond; update): def _until: if cond then . else (update | _until) end; _until;
// depth first over an explicit stack of pending steps, so a long loop, or one whose update yields several
// values, grows a budgeted vector and not the C stack. `cond` and `update` are run to completion at each
// step; an error, `break` or `halt` they raise after yielding some values is held back and raised once the
// steps of those values are done, which is the order jq's lazy evaluation gives
// (`[limit(3; while(true; ., error("x")))]` is [0,0,0]).
namespace {

bool loop_native(Interp& I, const Node* call, const Value& in, const Value* path, const EnvP& env,
                 const Emit& emit, bool is_while) {
    enum class Step : uint8_t { Visit, Emit, Update, Raise };
    struct Task {
        Step step;
        Value v;
        std::exception_ptr err;
    };
    BudgetedStack<Task> stack;
    auto push = [&](Step s, const Value& v, std::exception_ptr err = nullptr) { stack.push({s, v, std::move(err)}); };
    std::vector<Value> outs;
    auto run = [&](const Node* f, const Value& v) {
        outs.clear();
        std::exception_ptr err = defer_error(outs, [&] {
            I.each(f, v, env, [&](Value&& o) {
                outs.push_back(std::move(o));
                return true;
            });
        });
        if (err) push(Step::Raise, Value(), std::move(err));
    };
    push(Step::Visit, in);
    while (!stack.empty()) {
        I.tick();
        Task t = stack.pop();
        switch (t.step) {
            case Step::Raise: std::rethrow_exception(t.err);
            case Step::Emit:
                if (!emit(std::move(t.v), nopath(path))) return false;
                break;
            case Step::Update:
                run(call->kids[1], t.v);
                for (size_t i = outs.size(); i-- > 0;) push(Step::Visit, outs[i]);
                break;
            case Step::Visit:
                run(call->kids[0], t.v);
                for (size_t i = outs.size(); i-- > 0;) {
                    const bool truthy = outs[i].truthy();
                    if (is_while) {
                        if (!truthy) continue;
                        push(Step::Update, t.v);
                        push(Step::Emit, t.v);
                    } else {
                        push(truthy ? Step::Emit : Step::Update, t.v);
                    }
                }
                break;
        }
    }
    return true;
}

}  // namespace
NATIVE(n_until) { return loop_native(I, call, in, path, env, emit, false); }
NATIVE(n_while) { return loop_native(I, call, in, path, env, emit, true); }
NATIVE(n_repeat) {
    // jq's `def repeat(f): def _repeat: f, _repeat; _repeat;` (every round applies f to the same input), as
    // a loop
    for (;;) {
        I.tick();
        bool go = true;
        I.each(call->kids[0], in, env, [&](Value&& v) {
            go = emit(std::move(v), nopath(path));
            return go;
        });
        if (!go) return false;
    }
}
NATIVE(n_input) {
    UNUSED_NATIVE_ARGS;
    Value v;
    if (!I.host.next_input(v)) jq_error("break");
    return emit(std::move(v), nopath(path));
}
NATIVE(n_inputs) {
    UNUSED_NATIVE_ARGS;
    for (;;) {
        Value v;
        if (!I.host.next_input(v)) return true;
        if (!emit(std::move(v), nopath(path))) return false;
    }
}
NATIVE(n_debug) {
    UNUSED_NATIVE_ARGS;
    I.host.debug(in);
    return emit(Value(in), path);
}
NATIVE(n_stderr) {
    UNUSED_NATIVE_ARGS;
    I.host.stderr_value(in);
    return emit(Value(in), path);
}
NATIVE(n_input_filename) {
    UNUSED_NATIVE_ARGS;
    return emit(I.host.input_filename(), nopath(path));
}
NATIVE(n_now) {
    UNUSED_NATIVE_ARGS;
    return emit(Value::number(I.host.now()), nopath(path));
}
NATIVE(n_halt) {
    UNUSED_NATIVE_ARGS;
    (void)emit;
    throw JqHalt{0, Value::invalid()};
}
NATIVE(n_halt_error1) {
    return I.each(call->kids[0], in, env, [&](Value&& code) -> bool {
        (void)path;
        (void)emit;
        if (!code.is_number()) jq_error("halt_error/1: number required");
        throw JqHalt{clamp_num<int>(code.num()), in};
    });
}
NATIVE(n_builtins) {
    UNUSED_NATIVE_ARGS;
    std::vector<Value> out;
    for (const auto& [k, v] : prelude_map().defs)
        if (k[0] != '_') out.push_back(Value::string(k));
    for (const auto& k : native_names())
        if (k[0] != '_' && !prelude_map().defs.count(k)) out.push_back(Value::string(k));
    return emit(Value::array(std::move(out)), nopath(path));
}
NATIVE(n_input_line_number) {
    UNUSED_NATIVE_ARGS;
    return emit(Value::number(I.host.input_line_number()), nopath(path));
}
NATIVE(n_modulemeta) {
    UNUSED_NATIVE_ARGS;
    return emit(module_meta(I.host, in), nopath(path));
}
NATIVE(n_get_search_list) {
    UNUSED_NATIVE_ARGS;
    Value a = Value::array();
    for (const auto& d : I.host.lib_dirs) a.arr_mut().push_back(Value::string(d));
    return emit(std::move(a), nopath(path));
}

// math
template <double (*F)(double)>
Value math1(const Value& in, const Args&) {
    return Value::number(F(need_num(in).num()));
}
template <double (*F)(double, double)>
Value math2(const Value&, const Args& a) {
    return Value::number(F(need_num(a[0]).num(), need_num(a[1]).num()));
}
template <double (*F)(double, double, double)>
Value math3(const Value&, const Args& a) {
    return Value::number(F(need_num(a[0]).num(), need_num(a[1]).num(), need_num(a[2]).num()));
}
double d_exp10(double x) { return std::pow(10.0, x); }
double d_ldexp(double x, double e) { return std::ldexp(x, clamp_num<int>(e)); }
double d_scalbln(double x, double e) { return std::scalbln(x, clamp_num<long>(e)); }
double d_drem(double x, double y) { return std::remainder(x, y); }
double d_nexttoward(double x, double y) { return std::nexttoward(x, static_cast<long double>(y)); }
double d_fabs(double x) { return std::fabs(x); }
double d_floor(double x) { return std::floor(x); }
double d_ceil(double x) { return std::ceil(x); }
double d_round(double x) { return std::round(x); }
double d_sqrt(double x) { return std::sqrt(x); }
double d_trunc(double x) { return std::trunc(x); }
double d_rint(double x) { return std::rint(x); }
double d_nearbyint(double x) { return std::nearbyint(x); }
double d_cbrt(double x) { return std::cbrt(x); }
double d_exp(double x) { return std::exp(x); }
double d_exp2(double x) { return std::exp2(x); }
double d_expm1(double x) { return std::expm1(x); }
double d_log(double x) { return std::log(x); }
double d_log2(double x) { return std::log2(x); }
double d_log10(double x) { return std::log10(x); }
double d_log1p(double x) { return std::log1p(x); }
double d_sin(double x) { return std::sin(x); }
double d_cos(double x) { return std::cos(x); }
double d_tan(double x) { return std::tan(x); }
double d_asin(double x) { return std::asin(x); }
double d_acos(double x) { return std::acos(x); }
double d_atan(double x) { return std::atan(x); }
double d_sinh(double x) { return std::sinh(x); }
double d_cosh(double x) { return std::cosh(x); }
double d_tanh(double x) { return std::tanh(x); }
double d_asinh(double x) { return std::asinh(x); }
double d_acosh(double x) { return std::acosh(x); }
double d_atanh(double x) { return std::atanh(x); }
double d_tgamma(double x) { return std::tgamma(x); }
double d_lgamma(double x) { return std::lgamma(x); }
double d_j0(double x) { return ::j0(x); }
double d_j1(double x) { return ::j1(x); }
double d_y0(double x) { return ::y0(x); }
double d_y1(double x) { return ::y1(x); }
double d_pow(double x, double y) { return std::pow(x, y); }
double d_atan2(double x, double y) { return std::atan2(x, y); }
double d_fmin(double x, double y) { return std::fmin(x, y); }
double d_fmax(double x, double y) { return std::fmax(x, y); }
double d_fmod(double x, double y) { return std::fmod(x, y); }
double d_hypot(double x, double y) { return std::hypot(x, y); }
double d_copysign(double x, double y) { return std::copysign(x, y); }
double d_nextafter(double x, double y) { return std::nextafter(x, y); }
double d_fdim(double x, double y) { return std::fdim(x, y); }
double d_fma(double x, double y, double z) { return std::fma(x, y, z); }

const std::map<std::string, Native>& natives() {
    static const std::map<std::string, Native> m = {
        {"empty/0", n_empty},
        {"not/0", cfn<f_not>},
        {"error/0", n_error0},
        {"error/1", n_error1},
        {"path/1", n_path},
        {"getpath/1", n_getpath},
        {"setpath/2", cfn<f_setpath>},
        {"delpaths/1", cfn<f_delpaths>},
        {"select/1", n_select},
        {"map/1", n_map},
        {"recurse/0", n_recurse0},
        {"recurse/1", n_recurse1},
        {"recurse/2", n_recurse2},
        {"range/1", n_range1},
        {"range/2", n_range2},
        {"range/3", n_range3},
        {"first/1", n_first1},
        {"last/1", n_last1},
        {"limit/2", n_limit},
        {"nth/2", n_nth2},
        {"isempty/1", n_isempty},
        {"until/2", n_until},
        {"while/2", n_while},
        {"repeat/1", n_repeat},
        {"input/0", n_input},
        {"inputs/0", n_inputs},
        {"debug/0", n_debug},
        {"stderr/0", n_stderr},
        {"input_filename/0", n_input_filename},
        {"input_line_number/0", n_input_line_number},
        {"now/0", n_now},
        {"halt/0", n_halt},
        {"halt_error/1", n_halt_error1},
        {"builtins/0", n_builtins},
        {"modulemeta/0", n_modulemeta},
        {"get_search_list/0", n_get_search_list},
        {"length/0", cfn<f_length>},
        {"utf8bytelength/0", cfn<f_utf8bytelength>},
        {"type/0", cfn<f_type>},
        {"keys/0", cfn<f_keys>},
        {"keys_unsorted/0", cfn<f_keys_unsorted>},
        {"has/1", cfn<f_has>},
        {"contains/1", cfn<f_contains>},
        {"add/0", cfn<f_add>},
        {"tostring/0", cfn<f_tostring>},
        {"tojson/0", cfn<f_tojson>},
        {"fromjson/0", cfn<f_fromjson>},
        {"tonumber/0", cfn<f_tonumber>},
        {"sort/0", cfn<f_sort>},
        {"reverse/0", cfn<f_reverse>},
        {"unique/0", cfn<f_unique>},
        {"_sort_by_impl/1", cfn<f_sort_by_impl>},
        {"_group_by_impl/1", cfn<f_group_by_impl>},
        {"_min_by_impl/1", cfn<f_min_by_impl>},
        {"_max_by_impl/1", cfn<f_max_by_impl>},
        {"min/0", cfn<f_min>},
        {"max/0", cfn<f_max>},
        {"explode/0", cfn<f_explode>},
        {"implode/0", cfn<f_implode>},
        {"split/1", cfn<f_split1>},
        {"split/2", n_split2},
        {"startswith/1", cfn<f_startswith>},
        {"endswith/1", cfn<f_endswith>},
        {"ltrimstr/1", cfn<f_ltrimstr>},
        {"rtrimstr/1", cfn<f_rtrimstr>},
        {"trim/0", cfn<f_trim>},
        {"ltrim/0", cfn<f_ltrim>},
        {"rtrim/0", cfn<f_rtrim>},
        {"ascii_downcase/0", cfn<f_ascii_downcase>},
        {"ascii_upcase/0", cfn<f_ascii_upcase>},
        {"_strindices/1", cfn<f_strindices>},
        {"flatten/1", cfn<f_flatten>},
        {"infinite/0", cfn<f_infinite>},
        {"nan/0", cfn<f_nan>},
        {"isinfinite/0", cfn<f_isinfinite>},
        {"isnan/0", cfn<f_isnan>},
        {"isnormal/0", cfn<f_isnormal>},
        {"format/1", cfn<f_format>},
        {"significand/0", cfn<f_significand>},
        {"logb/0", cfn<f_logb>},
        {"gamma/0", cfn<f_gamma>},
        {"frexp/0", cfn<f_frexp>},
        {"modf/0", cfn<f_modf>},
        {"lgamma_r/0", cfn<f_lgamma_r>},
        {"gmtime/0", cfn<f_gmtime>},
        {"localtime/0", cfn<f_localtime>},
        {"mktime/0", cfn<f_mktime>},
        {"strftime/1", cfn<f_strftime>},
        {"strflocaltime/1", cfn<f_strflocaltime>},
        {"strptime/1", cfn<f_strptime>},
        {"match/2", n_match},
        {"test/2", n_test},
        {"sub/3", n_sub},
        {"fabs/0", cfn<math1<d_fabs>>},
        {"floor/0", cfn<math1<d_floor>>},
        {"ceil/0", cfn<math1<d_ceil>>},
        {"round/0", cfn<math1<d_round>>},
        {"sqrt/0", cfn<math1<d_sqrt>>},
        {"trunc/0", cfn<math1<d_trunc>>},
        {"rint/0", cfn<math1<d_rint>>},
        {"nearbyint/0", cfn<math1<d_nearbyint>>},
        {"cbrt/0", cfn<math1<d_cbrt>>},
        {"exp/0", cfn<math1<d_exp>>},
        {"exp2/0", cfn<math1<d_exp2>>},
        {"exp10/0", cfn<math1<d_exp10>>},
        {"expm1/0", cfn<math1<d_expm1>>},
        {"log/0", cfn<math1<d_log>>},
        {"log2/0", cfn<math1<d_log2>>},
        {"log10/0", cfn<math1<d_log10>>},
        {"log1p/0", cfn<math1<d_log1p>>},
        {"sin/0", cfn<math1<d_sin>>},
        {"cos/0", cfn<math1<d_cos>>},
        {"tan/0", cfn<math1<d_tan>>},
        {"asin/0", cfn<math1<d_asin>>},
        {"acos/0", cfn<math1<d_acos>>},
        {"atan/0", cfn<math1<d_atan>>},
        {"sinh/0", cfn<math1<d_sinh>>},
        {"cosh/0", cfn<math1<d_cosh>>},
        {"tanh/0", cfn<math1<d_tanh>>},
        {"asinh/0", cfn<math1<d_asinh>>},
        {"acosh/0", cfn<math1<d_acosh>>},
        {"atanh/0", cfn<math1<d_atanh>>},
        {"tgamma/0", cfn<math1<d_tgamma>>},
        {"lgamma/0", cfn<math1<d_lgamma>>},
        {"j0/0", cfn<math1<d_j0>>},
        {"j1/0", cfn<math1<d_j1>>},
        {"y0/0", cfn<math1<d_y0>>},
        {"y1/0", cfn<math1<d_y1>>},
        {"pow/2", cfn<math2<d_pow>>},
        {"atan2/2", cfn<math2<d_atan2>>},
        {"fmin/2", cfn<math2<d_fmin>>},
        {"fmax/2", cfn<math2<d_fmax>>},
        {"fmod/2", cfn<math2<d_fmod>>},
        {"hypot/2", cfn<math2<d_hypot>>},
        {"copysign/2", cfn<math2<d_copysign>>},
        {"nextafter/2", cfn<math2<d_nextafter>>},
        {"nexttoward/2", cfn<math2<d_nexttoward>>},
        {"fdim/2", cfn<math2<d_fdim>>},
        {"ldexp/2", cfn<math2<d_ldexp>>},
        {"scalb/2", cfn<math2<d_ldexp>>},
        {"scalbln/2", cfn<math2<d_scalbln>>},
        {"drem/2", cfn<math2<d_drem>>},
        {"fma/3", cfn<math3<d_fma>>},
    };
    return m;
}

}  // namespace

std::vector<std::string> native_names() {
    std::vector<std::string> r;
    for (const auto& [k, v] : natives()) r.push_back(k);
    return r;
}

const Native* find_native(const std::string& key) {
    const auto& m = natives();
    auto it = m.find(key);
    return it == m.end() ? nullptr : &it->second;
}

}  // namespace bashkit::utils::jq
