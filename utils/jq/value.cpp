#include "utils/jq/value.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

namespace bashkit::utils::jq {

namespace {
thread_local interp::MemoryBudget* tl_budget = nullptr;

const std::vector<Value>& empty_array() {
    static const std::vector<Value> a;
    return a;
}
}  // namespace

interp::MemoryBudget* current_budget() { return tl_budget; }

void ensure_fits(size_t bytes) {
    if (tl_budget && !tl_budget->fits(bytes)) throw interp::MemoryLimitExceeded(tl_budget->limit());
}

BudgetScope::BudgetScope(interp::MemoryBudget* b) : prev(tl_budget) { tl_budget = b; }
BudgetScope::~BudgetScope() { tl_budget = prev; }

Box::~Box() {
    if (budget && charged) budget->release(charged);
}

void Box::charge(size_t n) {
    if (!budget) {
        budget = tl_budget;
        if (!budget) return;
    }
    if (n > charged) {
        budget->charge(n - charged);
    } else if (n < charged) {
        budget->release(charged - n);
    }
    charged = n;
}

namespace {
// What a heap part costs: its box and what its containers hold (an object's keys beyond std::string's own
// inline buffer are counted as they are added).
constexpr size_t kBoxCost = 64;
using Item = std::pair<std::string, Value>;
size_t key_heap(const std::string& k) { return k.size() > 15 ? k.size() + 1 : 0; }
size_t str_cost(const std::string& s) { return kBoxCost + (s.capacity() > 15 ? s.capacity() + 1 : 0); }
size_t arr_cost(const std::vector<Value>& a) { return kBoxCost + a.capacity() * sizeof(Value); }
size_t obj_cost(const ObjBox& o) {
    return kBoxCost + o.items.capacity() * sizeof(Item) + o.key_bytes + (o.index ? o.index->size() * 48 : 0);
}
}  // namespace

namespace {
void destroy_box(Box* b) noexcept {
    switch (b->kind) {
        case Kind::String: delete static_cast<StrBox*>(b); break;
        case Kind::Array: delete static_cast<ArrBox*>(b); break;
        case Kind::Object: delete static_cast<ObjBox*>(b); break;
        case Kind::Number: delete static_cast<LitBox*>(b); break;
        default: break;
    }
}
// The boxes that died while another was being taken apart on this thread (see unref).
thread_local std::vector<Box*>* t_dying = nullptr;
}  // namespace

void Value::unref(Box* b) noexcept {
    if (b->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    // A dying array or object destroys its elements in its own destructor: one C++ frame per level of nesting,
    // and a value a million levels deep (`reduce range(1e6) as $i (null; [.])`) overflowed the stack, in a
    // pipeline stage's thread the embedding process's. The boxes that die meanwhile wait in a list instead,
    // so the depth stays constant. (Without memory for the list, a box is taken apart where it is.)
    if (t_dying) {
        try {
            t_dying->push_back(b);
            return;
        } catch (...) {
            destroy_box(b);
            return;
        }
    }
    std::vector<Box*> dying;
    t_dying = &dying;
    for (Box* cur = b;;) {
        destroy_box(cur);
        if (dying.empty()) break;
        cur = dying.back();
        dying.pop_back();
    }
    t_dying = nullptr;
}

Value Value::string(std::string_view s) {
    Value v;
    if (s.size() <= kInlineMax) {
        v.u_.s.k = Kind::String;
        v.u_.s.flags = kInline;
        v.u_.s.len = static_cast<uint8_t>(s.size());
        std::memcpy(v.u_.s.chars, s.data(), s.size());
        return v;
    }
    return string(std::string(s));
}

Value Value::string(std::string&& s) {
    if (s.size() <= kInlineMax) return string(std::string_view(s));
    auto* b = new StrBox();
    Value v;
    v.set_box(Kind::String, b);  // owns b from here: released if charge throws
    b->s = std::move(s);
    b->charge(str_cost(b->s));
    return v;
}

Value Value::array(std::vector<Value> a) {
    auto* b = new ArrBox();
    Value v;
    v.set_box(Kind::Array, b);
    b->a = std::move(a);
    b->charge(arr_cost(b->a));
    return v;
}

Value Value::object() {
    auto* b = new ObjBox();
    Value v;
    v.set_box(Kind::Object, b);
    b->charge(kBoxCost);
    return v;
}

Value Value::number_literal(double d, std::string_view lit) {
    Value v = number(d);
    v.u_.o.flags = kLiteral;
    if (std::isfinite(d) && format_double(d) == lit) return v;
    auto* b = new LitBox();
    v.set_box(Kind::Number, b, kLiteral);
    b->d = d;
    b->text = std::string(lit);
    b->charge(kBoxCost + lit.size());
    return v;
}

double Value::num() const {
    if (kind() != Kind::Number) return 0;
    return boxed() ? static_cast<const LitBox*>(box())->d : u_.o.n;
}
const LitBox* Value::literal() const {
    return kind() == Kind::Number && boxed() ? static_cast<const LitBox*>(box()) : nullptr;
}
std::string_view Value::str() const {
    if (kind() != Kind::String) return {};
    if (u_.s.flags & kInline) return {u_.s.chars, u_.s.len};
    return static_cast<const StrBox*>(box())->s;
}
const std::vector<Value>& Value::arr() const {
    return kind() == Kind::Array ? static_cast<const ArrBox*>(box())->a : empty_array();
}
const ObjBox& Value::obj() const { return *static_cast<const ObjBox*>(box()); }

std::string& Value::str_mut() {
    if (!boxed() || box()->refs.load(std::memory_order_acquire) != 1) {
        auto* b = new StrBox();
        b->s = std::string(str());
        Value v;
        v.set_box(Kind::String, b);
        b->charge(str_cost(b->s));
        swap(v);
    }
    return static_cast<StrBox*>(box())->s;
}
std::vector<Value>& Value::arr_mut() {
    if (box()->refs.load(std::memory_order_acquire) != 1) {
        auto* b = new ArrBox();
        Value v;
        v.set_box(Kind::Array, b);
        b->a = arr();
        b->charge(arr_cost(b->a));
        swap(v);
    }
    return static_cast<ArrBox*>(box())->a;
}
ObjBox& Value::obj_mut() {
    if (box()->refs.load(std::memory_order_acquire) != 1) {
        auto* b = new ObjBox();
        Value v;
        v.set_box(Kind::Object, b);
        b->items = obj().items;
        b->key_bytes = obj().key_bytes;
        b->reindex();
        b->charge(obj_cost(*b));
        swap(v);
    }
    return *static_cast<ObjBox*>(box());
}

void Value::recharge() {
    if (!boxed()) return;
    switch (kind()) {
        case Kind::String: box()->charge(str_cost(static_cast<StrBox*>(box())->s)); break;
        case Kind::Array: box()->charge(arr_cost(arr())); break;
        case Kind::Object: box()->charge(obj_cost(obj())); break;
        default: break;
    }
}

void Value::shrink() {
    if (!boxed() || box()->refs.load(std::memory_order_acquire) != 1) return;
    // Small containers (most of a document) give back their spare room; a large array keeps it (at most
    // half of it is spare, and a copy would double it for a moment).
    if (kind() == Kind::Array) {
        auto& a = static_cast<ArrBox*>(box())->a;
        if (a.capacity() != a.size() && a.size() <= 4096) a.shrink_to_fit();
    } else if (kind() == Kind::Object) {
        auto* o = static_cast<ObjBox*>(box());
        if (o->items.capacity() != o->items.size() && o->items.size() <= 4096) {
            o->items.shrink_to_fit();
            o->reindex();  // the keys' inline buffers moved
        }
    }
    recharge();
}

size_t Value::size() const {
    if (kind() == Kind::Array) return arr().size();
    if (kind() == Kind::Object) return obj().items.size();
    return 0;
}

constexpr size_t kIndexFrom = 16;

const Value* ObjBox::find(std::string_view k) const {
    size_t p = pos(k);
    return p == std::string::npos ? nullptr : &items[p].second;
}
size_t ObjBox::pos(std::string_view k) const {
    if (index && index->size() == items.size()) {
        auto it = index->find(k);
        return it == index->end() ? std::string::npos : it->second;
    }
    for (size_t i = 0; i < items.size(); ++i)
        if (items[i].first == k) return i;
    return std::string::npos;
}
void ObjBox::reindex() {
    if (items.size() < kIndexFrom) {
        index.reset();
        return;
    }
    if (!index) index = std::make_unique<std::unordered_map<std::string_view, size_t>>();
    index->clear();
    for (size_t i = 0; i < items.size(); ++i) index->emplace(items[i].first, i);
}

const Value* Value::get(std::string_view key) const { return kind() == Kind::Object ? obj().find(key) : nullptr; }

void Value::set(std::string key, Value v) {
    ObjBox& o = obj_mut();
    size_t p = o.pos(key);
    if (p != std::string::npos) {
        o.items[p].second = std::move(v);
        return;
    }
    size_t cap = o.items.capacity();
    o.key_bytes += key_heap(key);
    o.items.emplace_back(std::move(key), std::move(v));
    if (o.items.size() >= kIndexFrom) {
        if (o.index && o.index->size() + 1 == o.items.size() && o.items.capacity() == cap) {
            o.index->emplace(o.items.back().first, o.items.size() - 1);
        } else {
            o.reindex();  // the keys' inline buffers moved with the vector: rebuild
        }
    }
    o.charge(obj_cost(o));
}

bool Value::erase(std::string_view key) {
    if (kind() != Kind::Object || !obj().find(key)) return false;
    ObjBox& o = obj_mut();
    size_t p = o.pos(key);
    o.key_bytes -= key_heap(o.items[p].first);
    o.items.erase(o.items.begin() + static_cast<std::ptrdiff_t>(p));
    o.reindex();
    o.charge(obj_cost(o));
    return true;
}

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::Invalid: return "<invalid>";
        case Kind::Null: return "null";
        case Kind::False:
        case Kind::True: return "boolean";
        case Kind::Number: return "number";
        case Kind::String: return "string";
        case Kind::Array: return "array";
        case Kind::Object: return "object";
    }
    return "?";
}

namespace {
int kind_rank(Kind k) {
    switch (k) {
        case Kind::Null: return 1;
        case Kind::False: return 2;
        case Kind::True: return 3;
        case Kind::Number: return 4;
        case Kind::String: return 5;
        case Kind::Array: return 6;
        case Kind::Object: return 7;
        default: return 0;
    }
}

std::vector<const std::pair<std::string, Value>*> sorted_items(const ObjBox& o) {
    std::vector<const std::pair<std::string, Value>*> v;
    v.reserve(o.items.size());
    for (const auto& it : o.items) v.push_back(&it);
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->first < b->first; });
    return v;
}
}  // namespace

namespace {

// A decimal number as its significant digits (no leading or trailing zeros; empty for zero) and the power of
// ten of the first digit: the exact value of a literal's text.
struct Decimal {
    bool neg = false;
    std::string digits;
    long exp = 0;
};

Decimal to_decimal(std::string_view s) {
    Decimal d;
    size_t i = 0;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) d.neg = s[i++] == '-';
    long point = -1, n = 0;
    std::string all;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c == '.') {
            point = n;
        } else if (c >= '0' && c <= '9') {
            all += c;
            ++n;
        } else {
            break;
        }
    }
    long e = 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
            if (e < 100000000) e = e * 10 + (s[i] - '0');
        if (eneg) e = -e;
    }
    if (point < 0) point = n;
    size_t lead = all.find_first_not_of('0');
    if (lead == std::string::npos) return Decimal{d.neg, "", 0};
    size_t trail = all.find_last_not_of('0');
    d.digits = all.substr(lead, trail - lead + 1);
    d.exp = point - static_cast<long>(lead) - 1 + e;
    return d;
}

int compare_decimal(const Decimal& a, const Decimal& b) {
    const bool za = a.digits.empty(), zb = b.digits.empty();
    if (za || zb) {
        if (za && zb) return 0;
        if (za) return b.neg ? 1 : -1;
        return a.neg ? -1 : 1;
    }
    if (a.neg != b.neg) return a.neg ? -1 : 1;
    int mag;
    if (a.exp != b.exp) {
        mag = a.exp < b.exp ? -1 : 1;
    } else {
        int c = a.digits.compare(b.digits);
        mag = c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    return a.neg ? -mag : mag;
}

std::string number_text(const Value& v) {
    const LitBox* l = v.literal();
    return l ? l->text : format_double(v.num());
}

// jq 1.7.1 compares two literals exactly (13911860366432393 != 13911860366432392), others as doubles.
// Only when their doubles are equal: rounding to a double keeps the order, so different doubles already
// order the decimals.
bool exact_numbers(const Value& a, const Value& b) {
    return a.num() == b.num() && a.is_literal() && b.is_literal() && (a.literal() || b.literal());
}

}  // namespace

int compare(const Value& a, const Value& b) {
    guard_stack();
    int ra = kind_rank(a.kind()), rb = kind_rank(b.kind());
    if (ra != rb) return ra < rb ? -1 : 1;
    switch (a.kind()) {
        case Kind::Number: {
            if (exact_numbers(a, b)) return compare_decimal(to_decimal(number_text(a)), to_decimal(number_text(b)));
            double x = a.num(), y = b.num();
            if (x < y) return -1;
            if (x == y) return 0;
            if (std::isnan(x)) return std::isnan(y) ? 0 : -1;
            return 1;
        }
        case Kind::String: {
            int c = a.str().compare(b.str());
            return c < 0 ? -1 : c > 0 ? 1 : 0;
        }
        case Kind::Array: {
            const auto &x = a.arr(), &y = b.arr();
            for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
                int c = compare(x[i], y[i]);
                if (c) return c;
            }
            return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
        }
        case Kind::Object: {
            auto ka = sorted_items(a.obj()), kb = sorted_items(b.obj());
            // keys first (as arrays of strings), then values in key order
            for (size_t i = 0; i < ka.size() && i < kb.size(); ++i) {
                int c = ka[i]->first.compare(kb[i]->first);
                if (c) return c < 0 ? -1 : 1;
            }
            if (ka.size() != kb.size()) return ka.size() < kb.size() ? -1 : 1;
            for (size_t i = 0; i < ka.size(); ++i) {
                int c = compare(ka[i]->second, kb[i]->second);
                if (c) return c;
            }
            return 0;
        }
        default: return 0;
    }
}

bool equal(const Value& a, const Value& b) {
    guard_stack();
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
        case Kind::Number:
            if (exact_numbers(a, b)) return compare_decimal(to_decimal(number_text(a)), to_decimal(number_text(b))) == 0;
            return a.num() == b.num();
        case Kind::String: return a.str() == b.str();
        case Kind::Array: {
            const auto &x = a.arr(), &y = b.arr();
            if (x.size() != y.size()) return false;
            for (size_t i = 0; i < x.size(); ++i)
                if (!equal(x[i], y[i])) return false;
            return true;
        }
        case Kind::Object: {
            const ObjBox &x = a.obj(), &y = b.obj();
            if (x.items.size() != y.items.size()) return false;
            for (const auto& [k, v] : x.items) {
                const Value* o = y.find(k);
                if (!o || !equal(v, *o)) return false;
            }
            return true;
        }
        default: return true;
    }
}

std::string format_double(double d) {
    if (std::isnan(d)) return "null";
    if (d > 1.7976931348623157e308) d = 1.7976931348623157e308;
    if (d < -1.7976931348623157e308) d = -1.7976931348623157e308;
    if (d == 0) return std::signbit(d) ? "-0" : "0";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
    bool neg = false;
    if (s[0] == '-') {
        neg = true;
        s.remove_prefix(1);
    }
    size_t e = s.find('e');
    std::string digits;
    for (char c : s.substr(0, e))
        if (c != '.') digits += c;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    int exp = 0;
    std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exp);
    int decpt = exp + 1;
    int nd = static_cast<int>(digits.size());
    std::string out;
    if (neg) out += '-';
    if (decpt <= -4 || decpt > nd + 15) {
        out += digits[0];
        if (nd > 1) {
            out += '.';
            out.append(digits, 1);
        }
        out += 'e';
        int x = decpt - 1;
        if (x < 0) {
            out += '-';
            x = -x;
        } else {
            out += '+';
        }
        if (x < 10) out += '0';
        out += std::to_string(x);
    } else if (decpt <= 0) {
        out += "0.";
        for (int i = decpt; i < 0; ++i) out += '0';
        out += digits;
    } else {
        for (int i = 0; i < nd; ++i) {
            out += digits[static_cast<size_t>(i)];
            if (i + 1 == decpt && i + 1 < nd) out += '.';
        }
        for (int i = nd; i < decpt; ++i) out += '0';
    }
    return out;
}

Value number_from_token(std::string_view tok) {
    // The canonical decNumber string: coefficient digits and exponent.
    double d = 0;
    {
        std::string t(tok);
        auto r = std::from_chars(t.data(), t.data() + t.size(), d);
        if (r.ec == std::errc::result_out_of_range) {
            // overflow: +-inf, underflow: 0
            bool neg = !t.empty() && t[0] == '-';
            size_t e = t.find_first_of("eE");
            bool small = e != std::string::npos && t.find('-', e) != std::string::npos;
            d = small ? (neg ? -0.0 : 0.0) : (neg ? -HUGE_VAL : HUGE_VAL);
        }
    }
    size_t i = 0;
    bool neg = false;
    if (i < tok.size() && (tok[i] == '-' || tok[i] == '+')) neg = tok[i++] == '-';
    std::string coef;
    long exp = 0;
    while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') coef += tok[i++];
    if (i < tok.size() && tok[i] == '.') {
        ++i;
        while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') {
            coef += tok[i++];
            --exp;
        }
    }
    if (i < tok.size() && (tok[i] == 'e' || tok[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < tok.size() && (tok[i] == '-' || tok[i] == '+')) eneg = tok[i++] == '-';
        long x = 0;
        while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') {
            if (x < 100000000) x = x * 10 + (tok[i] - '0');
            ++i;
        }
        exp += eneg ? -x : x;
    }
    size_t nz = coef.find_first_not_of('0');
    coef = nz == std::string::npos ? "0" : coef.substr(nz);
    std::string lit;
    if (neg) lit += '-';
    long nd = static_cast<long>(coef.size());
    long adj = exp + nd - 1;
    if (exp <= 0 && adj >= -6) {
        if (exp == 0) {
            lit += coef;
        } else if (nd + exp > 0) {
            lit += coef.substr(0, static_cast<size_t>(nd + exp));
            lit += '.';
            lit += coef.substr(static_cast<size_t>(nd + exp));
        } else {
            lit += "0.";
            for (long k = 0; k < -(nd + exp); ++k) lit += '0';
            lit += coef;
        }
    } else {
        lit += coef[0];
        if (nd > 1) {
            lit += '.';
            lit += coef.substr(1);
        }
        lit += 'E';
        lit += adj >= 0 ? '+' : '-';
        lit += std::to_string(adj < 0 ? -adj : adj);
    }
    return Value::number_literal(d, lit);
}

void dump_string(std::string& out, std::string_view s, bool ascii) {
    out += '"';
    size_t i = 0, n = s.size();
    while (i < n) {
        size_t start = i;
        while (i < n) {
            unsigned char c = static_cast<unsigned char>(s[i]);
            if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f || (ascii && c >= 0x80)) break;
            ++i;
        }
        out.append(s.data() + start, i - start);
        if (i >= n) break;
        unsigned char c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': out += "\\\""; ++i; continue;
            case '\\': out += "\\\\"; ++i; continue;
            case '\n': out += "\\n"; ++i; continue;
            case '\t': out += "\\t"; ++i; continue;
            case '\r': out += "\\r"; ++i; continue;
            case '\b': out += "\\b"; ++i; continue;
            case '\f': out += "\\f"; ++i; continue;
            default: break;
        }
        char buf[16];
        if (c < 0x80) {
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
            ++i;
            continue;
        }
        // ascii: decode UTF-8 (strings are valid UTF-8)
        uint32_t cp = 0;
        int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        cp = c & (len == 4 ? 0x07 : len == 3 ? 0x0f : 0x1f);
        for (int k = 1; k < len && i + static_cast<size_t>(k) < n; ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3f);
        i += static_cast<size_t>(len);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else {
            std::snprintf(buf, sizeof buf, "\\u%04x", cp);
        }
        out += buf;
    }
    out += '"';
}

namespace {
void newline_indent(std::string& out, const DumpOptions& o, int level) {
    out += '\n';
    if (o.tab) {
        out.append(static_cast<size_t>(level), '\t');
    } else {
        out.append(static_cast<size_t>(level * o.indent), ' ');
    }
}
constexpr const char* kColorOff = "\x1b[0m";
}  // namespace

void dump(std::string& out, const Value& v, const DumpOptions& o, int level) {
    const bool pretty = o.indent > 0 || o.tab;
    const std::string* color = nullptr;
    if (o.color) {
        switch (v.kind()) {
            case Kind::Null: color = &o.colors[0]; break;
            case Kind::False: color = &o.colors[1]; break;
            case Kind::True: color = &o.colors[2]; break;
            case Kind::Number: color = &o.colors[3]; break;
            case Kind::String: color = &o.colors[4]; break;
            case Kind::Array: color = &o.colors[5]; break;
            case Kind::Object: color = &o.colors[6]; break;
            default: break;
        }
    }
    auto put_color = [&] {
        if (color) {
            out += "\x1b[";
            out += *color;
            out += 'm';
        }
    };
    put_color();
    if (level > 10000) {
        out += "<skipped: too deep>";
        if (color) out += kColorOff;
        return;
    }
    switch (v.kind()) {
        case Kind::Invalid: out += "<invalid>"; break;
        case Kind::Null: out += "null"; break;
        case Kind::False: out += "false"; break;
        case Kind::True: out += "true"; break;
        case Kind::Number:
            if (const LitBox* l = v.literal()) {
                out += l->text;
            } else {
                out += format_double(v.num());
            }
            break;
        case Kind::String: dump_string(out, v.str(), o.ascii); break;
        case Kind::Array: {
            const auto& a = v.arr();
            if (a.empty()) {
                out += "[]";
                break;
            }
            out += '[';
            for (size_t i = 0; i < a.size(); ++i) {
                if (i) out += ',';
                if (pretty) newline_indent(out, o, level + 1);
                dump(out, a[i], o, level + 1);
                put_color();
            }
            if (pretty) newline_indent(out, o, level);
            put_color();
            out += ']';
            break;
        }
        case Kind::Object: {
            const ObjBox& ob = v.obj();
            if (ob.items.empty()) {
                out += "{}";
                break;
            }
            out += '{';
            if (pretty) newline_indent(out, o, level + 1);
            std::vector<const std::pair<std::string, Value>*> items;
            if (o.sort) {
                items = sorted_items(ob);
            } else {
                items.reserve(ob.items.size());
                for (const auto& it : ob.items) items.push_back(&it);
            }
            bool first = true;
            for (const auto* it : items) {
                if (!first) {
                    out += ',';
                    if (pretty) newline_indent(out, o, level + 1);
                }
                if (color) out += kColorOff;
                first = false;
                if (color) {
                    out += "\x1b[";
                    out += o.colors[7];
                    out += 'm';
                }
                dump_string(out, it->first, o.ascii);
                if (color) out += kColorOff;
                put_color();
                out += ':';
                if (pretty) out += ' ';
                if (color) out += kColorOff;
                dump(out, it->second, o, level + 1);
                put_color();
            }
            if (pretty) newline_indent(out, o, level);
            put_color();
            out += '}';
            break;
        }
    }
    if (color) out += kColorOff;
}

std::string to_json(const Value& v) {
    std::string s;
    DumpOptions o;
    o.indent = 0;
    dump(s, v, o);
    return s;
}

// ---- the JSON parser: jq's state machine (jv_parse.c), so its messages and positions match ----

namespace {

struct Machine {
    // stack of containers; for objects, a pending key is a String pushed on top of the object
    std::vector<Value> stack;
    Value next = Value::invalid();
    std::string token;
    enum { kNormal, kString, kEscape } st = kNormal;
    bool string_ok = true;  // UTF-8 etc.
    int line = 1, column = 0;

    const char* value(Value v) {
        if (next.is_valid()) return "Expected separator between values";
        next = std::move(v);
        return nullptr;
    }
    const char* check_literal() {
        if (token.empty()) return nullptr;
        const char* pattern = nullptr;
        Value v;
        switch (token[0]) {
            case 't': pattern = "true"; v = Value::boolean(true); break;
            case 'f': pattern = "false"; v = Value::boolean(false); break;
            case 'n':
                if (token.size() > 1 && token[1] == 'u') pattern = "null";  // else a number: nan
                break;
            default: break;
        }
        if (pattern) {
            if (token != pattern) return "Invalid literal";
            const char* m = value(v);
            if (m) return m;
        } else {
            // a JSON number (jq accepts what strtod does, minus hex/inf/nan forms)
            const std::string& t = token;
            size_t i = 0;
            if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
            // decNumber's special values (jq 1.7.1 reads numbers with it): NaN, sNaN, Inf, Infinity, any case
            std::string word;
            for (size_t k = i; k < t.size(); ++k) word += static_cast<char>(std::tolower(static_cast<unsigned char>(t[k])));
            size_t payload = word.find_first_not_of("0123456789", word.rfind("nan", 1) == 0 ? 3 : 4);
            bool nan = (word.rfind("nan", 0) == 0 || word.rfind("snan", 0) == 0) && payload == std::string::npos;
            if (nan || word == "inf" || word == "infinity") {
                const bool neg = t[0] == '-';
                const char* m = value(word[0] == 'i' ? Value::number(neg ? -HUGE_VAL : HUGE_VAL) : Value::number(NAN));
                if (m) return m;
                token.clear();
                return nullptr;
            }
            size_t ds = i;
            while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
            size_t nd = i - ds;
            if (i < t.size() && t[i] == '.') {
                ++i;
                size_t fs = i;
                while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
                nd += i - fs;
            }
            if (nd == 0) return "Invalid numeric literal";
            if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
                size_t save = i;
                ++i;
                if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
                size_t es = i;
                while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
                if (i == es) i = save;
            }
            if (i != t.size()) return "Invalid numeric literal";
            const char* m = value(number_from_token(t));
            if (m) return m;
        }
        token.clear();
        return nullptr;
    }
    const char* found_string() {
        std::string out;
        const std::string& in = token;
        out.reserve(in.size());
        for (size_t i = 0; i < in.size();) {
            char c = in[i++];
            if (static_cast<unsigned char>(c) < 0x20) {
                return "Invalid string: control characters from U+0000 through U+001F must be escaped";
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i >= in.size()) return "Expected escape character at end of string";
            c = in[i++];
            switch (c) {
                case '\\':
                case '"':
                case '/': out += c; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 't': out += '\t'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 'u': {
                    auto hex4 = [&](size_t at, unsigned& cp) {
                        if (at + 4 > in.size()) return false;
                        cp = 0;
                        for (size_t k = 0; k < 4; ++k) {
                            char h = in[at + k];
                            int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                            if (d < 0) return false;
                            cp = cp * 16 + static_cast<unsigned>(d);
                        }
                        return true;
                    };
                    unsigned cp;
                    if (!hex4(i, cp)) return "Invalid \\uXXXX escape";
                    i += 4;
                    if (cp >= 0xd800 && cp <= 0xdbff) {
                        unsigned lo;
                        if (i + 1 < in.size() && in[i] == '\\' && in[i + 1] == 'u' && hex4(i + 2, lo) && lo >= 0xdc00 &&
                            lo <= 0xdfff) {
                            i += 6;
                            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        } else {
                            cp = 0xfffd;
                        }
                    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                        cp = 0xfffd;
                    }
                    put_utf8(out, cp);
                    break;
                }
                default: return "Invalid escape";
            }
        }
        token.clear();
        return value(Value::string(jq::fix_utf8(std::move(out))));
    }
    const char* structural(char ch) {
        switch (ch) {
            case '[':
                if (stack.size() >= 10000) return "Exceeds depth limit for parsing";
                if (next.is_valid()) return "Expected separator between values";
                stack.push_back(Value::array());
                break;
            case '{':
                if (stack.size() >= 10000) return "Exceeds depth limit for parsing";
                if (next.is_valid()) return "Expected separator between values";
                stack.push_back(Value::object());
                break;
            case ':':
                if (stack.empty() || !stack.back().is_object()) return "':' not as part of an object";
                if (!next.is_valid()) return "Expected string key before ':'";
                if (!next.is_string()) return "Object keys must be strings";
                stack.push_back(std::move(next));
                next = Value::invalid();
                break;
            case ',':
                if (!next.is_valid()) return "Expected value before ','";
                if (stack.empty()) return "',' not as part of an object or array";
                if (stack.back().is_array()) {
                    stack.back().arr_mut().push_back(std::move(next));
                    next = Value::invalid();
                } else if (stack.back().is_string()) {
                    Value key = std::move(stack.back());
                    stack.pop_back();
                    stack.back().set(std::string(key.str()), std::move(next));
                    next = Value::invalid();
                } else {
                    return "Objects must consist of key:value pairs";
                }
                break;
            case ']':
                if (stack.empty() || !stack.back().is_array()) return "Unmatched ']'";
                if (next.is_valid()) {
                    stack.back().arr_mut().push_back(std::move(next));
                } else if (!stack.back().arr().empty()) {
                    return "Expected another array element";
                }
                stack.back().shrink();
                next = std::move(stack.back());
                stack.pop_back();
                break;
            case '}':
                if (stack.empty()) return "Unmatched '}'";
                if (next.is_valid()) {
                    if (!stack.back().is_string()) return "Objects must consist of key:value pairs";
                    Value key = std::move(stack.back());
                    stack.pop_back();
                    stack.back().set(std::string(key.str()), std::move(next));
                } else {
                    if (!stack.back().is_object()) return "Unmatched '}'";
                    if (stack.back().size() != 0) return "Expected another key-value pair";
                }
                stack.back().shrink();
                next = std::move(stack.back());
                stack.pop_back();
                break;
            default: break;
        }
        return nullptr;
    }
    void reset() {
        stack.clear();
        next = Value::invalid();
        token.clear();
        st = kNormal;
    }
};

}  // namespace

void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

std::string fix_utf8(std::string s) {
    // replace invalid UTF-8 with U+FFFD
    size_t i = 0, n = s.size();
    bool ok = true;
    while (i < n) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (len == 0 || i + static_cast<size_t>(len) > n) {
            ok = false;
            break;
        }
        for (int k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0xc0) != 0x80) ok = false;
        if (!ok) break;
        i += static_cast<size_t>(len);
    }
    if (ok) return s;
    std::string out;
    i = 0;
    while (i < n) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        bool good = len > 0 && i + static_cast<size_t>(len) <= n;
        for (int k = 1; good && k < len; ++k)
            if ((static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0xc0) != 0x80) good = false;
        if (good) {
            out.append(s, i, static_cast<size_t>(len));
            i += static_cast<size_t>(len);
        } else {
            out += "\xef\xbf\xbd";
            ++i;
            while (i < n && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80) ++i;
        }
    }
    return out;
}


}  // namespace bashkit::utils::jq

namespace bashkit::utils::jq {

// The parser proper. Declared in the header with a minimal interface; the machine is kept in a
// thread-unsafe per-object side table (one parser per jq run).
class ParserCore {
public:
    Machine m;
    std::string buf;
    size_t pos = 0;
    bool last = false;
    bool seq = false;
    bool eof_reported = false;
    bool waiting_rs = false;
    bool bom_checked = false;

    // One step: a value, need more, end, or an error (message in err).
    JsonParser::Status next(Value& out, std::string& err) {
        while (pos < buf.size()) {
            char ch = buf[pos++];
            ++m.column;
            if (ch == '\n') {
                ++m.line;
                m.column = 0;
            }
            if (ch == '\x1e' && seq) {
                if (waiting_rs) {
                    waiting_rs = false;
                    continue;
                }
                const char* msg = m.check_literal();
                if (msg == nullptr && m.st == Machine::kNormal && m.stack.empty() && m.next.is_valid()) {
                    out = std::move(m.next);
                    m.next = Value::invalid();
                    return JsonParser::kValue;
                }
                if (m.st != Machine::kNormal || !m.stack.empty() || msg) {
                    err = "Unfinished abandoned text at line " + std::to_string(m.line) + ", column " +
                          std::to_string(m.column);
                    m.reset();
                    return JsonParser::kError;
                }
                continue;
            }
            if (waiting_rs) continue;
            const char* msg = nullptr;
            bool done_check = false;
            if (m.st == Machine::kNormal) {
                bool ws = ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
                bool structure = ch == '[' || ch == ',' || ch == ']' || ch == '{' || ch == ':' || ch == '}';
                if (ws || structure || ch == '"') {
                    msg = m.check_literal();
                    if (!msg && structure) msg = m.structural(ch);
                    if (!msg && ch == '"') {
                        m.st = Machine::kString;
                        // fast path: copy the plain run of the string
                        size_t e = pos;
                        while (e < buf.size() && buf[e] != '"' && buf[e] != '\\' && buf[e] != '\n') ++e;
                        m.token.append(buf, pos, e - pos);
                        m.column += static_cast<int>(e - pos);
                        pos = e;
                    }
                    done_check = !msg;
                } else {
                    m.token += ch;
                }
            } else {
                if (ch == '"' && m.st == Machine::kString) {
                    msg = m.found_string();
                    m.st = Machine::kNormal;
                    done_check = !msg;
                } else {
                    m.token += ch;
                    m.st = ch == '\\' && m.st == Machine::kString ? Machine::kEscape : Machine::kString;
                    if (m.st == Machine::kString) {
                        size_t e = pos;
                        while (e < buf.size() && buf[e] != '"' && buf[e] != '\\' && buf[e] != '\n') ++e;
                        m.token.append(buf, pos, e - pos);
                        m.column += static_cast<int>(e - pos);
                        pos = e;
                    }
                }
            }
            if (msg) {
                err = std::string(msg) + " at line " + std::to_string(m.line) + ", column " + std::to_string(m.column);
                m.reset();
                if (seq) {
                    waiting_rs = true;
                } else {
                    buf.clear();
                    pos = 0;
                }
                return JsonParser::kError;
            }
            if (done_check && m.stack.empty() && m.next.is_valid()) {
                out = std::move(m.next);
                m.next = Value::invalid();
                return JsonParser::kValue;
            }
        }
        if (pos > (1u << 16)) {
            buf.erase(0, pos);
            pos = 0;
        }
        if (!last) return JsonParser::kNeedMore;
        if (eof_reported) return JsonParser::kEnd;
        eof_reported = true;
        auto at = [&] { return " at EOF at line " + std::to_string(m.line) + ", column " + std::to_string(m.column); };
        if (waiting_rs) return JsonParser::kEnd;
        if (m.st != Machine::kNormal) {
            err = "Unfinished string" + at();
            m.reset();
            return JsonParser::kError;
        }
        if (const char* msg = m.check_literal()) {
            err = msg + at();
            m.reset();
            return JsonParser::kError;
        }
        if (!m.stack.empty()) {
            err = "Unfinished JSON term" + at();
            m.reset();
            return JsonParser::kError;
        }
        if (m.next.is_valid()) {
            out = std::move(m.next);
            m.next = Value::invalid();
            return JsonParser::kValue;
        }
        return JsonParser::kEnd;
    }
};

JsonParser::JsonParser() : p_(std::make_unique<ParserCore>()) {}
JsonParser::~JsonParser() = default;
void JsonParser::feed(std::string_view data, bool last) {
    p_->buf.append(data);
    p_->last = last;
    if (!p_->bom_checked && (p_->buf.size() >= 3 || last)) {
        p_->bom_checked = true;  // a byte order mark before the first text is skipped, as jq does
        if (p_->buf.compare(0, 3, "\xef\xbb\xbf") == 0) p_->buf.erase(0, 3);
    }
}
JsonParser::Status JsonParser::next(Value& out, std::string& err) { return p_->next(out, err); }
void JsonParser::set_seq(bool seq) { p_->seq = seq; }
size_t JsonParser::buffered() const { return p_->buf.size() - p_->pos; }

bool parse_json(std::string_view text, Value& out, std::string& err) {
    JsonParser p;
    p.feed(text, true);
    Value v;
    std::string e;
    auto st = p.next(v, e);
    std::string quoted(text);
    if (st == JsonParser::kError) {
        err = e + " (while parsing '" + quoted + "')";
        return false;
    }
    if (st != JsonParser::kValue) {
        err = "Expected JSON value (while parsing '" + quoted + "')";
        return false;
    }
    Value extra;
    auto st2 = p.next(extra, e);
    if (st2 == JsonParser::kError) {
        err = e + " (while parsing '" + quoted + "')";
        return false;
    }
    if (st2 == JsonParser::kValue) {
        err = "Unexpected extra JSON values (while parsing '" + quoted + "')";
        return false;
    }
    out = std::move(v);
    return true;
}

bool parse_json_all(std::string_view text, std::vector<Value>& out, std::string& err) {
    JsonParser p;
    p.feed(text, true);
    for (;;) {
        Value v;
        auto st = p.next(v, err);
        if (st == JsonParser::kError) return false;
        if (st != JsonParser::kValue) return true;
        out.push_back(std::move(v));
    }
}

}  // namespace bashkit::utils::jq
