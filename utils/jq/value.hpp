// jq's values: null, booleans, numbers (doubles; a number read from JSON or a program literal keeps its
// literal text, printed as jq 1.7.1's decNumber would, until arithmetic touches it), strings, arrays and
// objects (keys in insertion order, as jq prints them). Heap parts are shared and copied on write.
//
// Memory: every heap part is charged to the thread's current budget (BudgetScope) while it lives.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interp/governor.hpp"

namespace bashkit::utils::jq {

enum class Kind : uint8_t { Invalid, Null, False, True, Number, String, Array, Object };

// The budget heap parts are charged to on this thread (null: not charged).
struct BudgetScope {
    explicit BudgetScope(interp::MemoryBudget* b);
    ~BudgetScope();
    BudgetScope(const BudgetScope&) = delete;
    BudgetScope& operator=(const BudgetScope&) = delete;
    interp::MemoryBudget* prev;
};

// The budget of this thread's BudgetScope (null when none).
interp::MemoryBudget* current_budget();
// Throws interp::MemoryLimitExceeded unless the current budget can take `bytes` more: called before building a
// value whose size is known in advance (`. + .` on a string), since a value is charged once it exists and
// the peak would otherwise reach the budget plus that value.
void ensure_fits(size_t bytes);

// A heap part: strings longer than a Value holds inline, arrays, objects, and number literals whose text
// differs from their double's. Shared by reference count (atomic: the prelude's constants are read by every
// session's thread), copied on write.
struct Box {
    explicit Box(Kind k) : kind(k) {}
    Box(const Box&) = delete;
    Box& operator=(const Box&) = delete;
    ~Box();
    void charge(size_t n);  // sets the charge to n bytes
    std::atomic<uint32_t> refs{1};
    Kind kind;
    interp::MemoryBudget* budget = nullptr;
    size_t charged = 0;
};

class Value;
struct StrBox;
struct ArrBox;
struct ObjBox;
struct LitBox;

// 16 bytes: the kind, flags, and either a double, a Box pointer or a string of up to 13 bytes inline (most
// JSON strings: names, enums, ids), so that a value of a parsed document costs little beyond its text.
class Value {
public:
    Value() { u_.o = blank(); }  // null
    Value(const Value& o) {
        u_ = o.u_;
        if (boxed()) u_.o.h->refs.fetch_add(1, std::memory_order_relaxed);
    }
    Value(Value&& o) noexcept {
        u_ = o.u_;
        o.u_.o = blank();
    }
    Value& operator=(const Value& o) {
        if (o.boxed()) o.u_.o.h->refs.fetch_add(1, std::memory_order_relaxed);  // first: o may share our box
        if (boxed()) unref(u_.o.h);
        u_ = o.u_;
        return *this;
    }
    Value& operator=(Value&& o) noexcept {
        if (this != &o) {
            if (boxed()) unref(u_.o.h);
            u_ = o.u_;
            o.u_.o = blank();
        }
        return *this;
    }
    ~Value() {
        if (boxed()) unref(u_.o.h);
    }
    void swap(Value& o) noexcept { std::swap(u_, o.u_); }

    static Value invalid() { Value v; v.u_.o.k = Kind::Invalid; return v; }
    static Value null() { return Value(); }
    static Value boolean(bool b) { Value v; v.u_.o.k = b ? Kind::True : Kind::False; return v; }
    static Value number(double d) { Value v; v.u_.o.k = Kind::Number; v.u_.o.n = d; return v; }
    // A number with its literal text (canonical decNumber form) when it differs from the double's.
    static Value number_literal(double d, std::string_view lit);
    static Value string(std::string&& s);
    static Value string(std::string_view s);
    static Value string(const char* s) { return string(std::string_view(s)); }
    static Value array(std::vector<Value> a = {});
    static Value object();

    Kind kind() const { return u_.o.k; }
    bool is_valid() const { return kind() != Kind::Invalid; }
    bool is_null() const { return kind() == Kind::Null; }
    bool is_number() const { return kind() == Kind::Number; }
    bool is_string() const { return kind() == Kind::String; }
    bool is_array() const { return kind() == Kind::Array; }
    bool is_object() const { return kind() == Kind::Object; }
    bool truthy() const { return kind() != Kind::Null && kind() != Kind::False; }

    double num() const;
    const LitBox* literal() const;  // null unless a literal number whose text differs from the double's
    bool is_literal() const { return u_.o.flags & kLiteral; }
    std::string_view str() const;   // "" unless a string; valid while this value lives unchanged
    const std::vector<Value>& arr() const;
    const ObjBox& obj() const;
    std::string& str_mut();          // copy on write (moves an inline string to the heap)
    std::vector<Value>& arr_mut();   // copy on write
    ObjBox& obj_mut();               // copy on write
    void recharge();                 // after a mutation that grew or shrank the heap part
    void shrink();                   // an array's or object's spare capacity given back (a parsed document)

    // Object access.
    const Value* get(std::string_view key) const;
    void set(std::string key, Value v);
    bool erase(std::string_view key);

    size_t size() const;  // array/object length

private:
    static constexpr uint8_t kLiteral = 1;  // a number read from JSON or a program literal (compared exactly)
    static constexpr uint8_t kBoxed = 2;    // o.h is a Box this value holds a reference to
    static constexpr uint8_t kInline = 4;   // a string kept in s.chars
    static constexpr size_t kInlineMax = 13;
    struct Other {
        Kind k;
        uint8_t flags;
        uint8_t pad[6];
        union {
            double n;
            Box* h;
        };
    };
    static Other blank(Kind k = Kind::Null) {
        Other o;
        std::memset(&o, 0, sizeof o);
        o.k = k;
        return o;
    }
    struct Inline {
        Kind k;
        uint8_t flags;
        uint8_t len;
        char chars[kInlineMax];
    };
    union U {
        Other o;
        Inline s;
    } u_;
    bool boxed() const { return u_.o.flags & kBoxed; }
    Box* box() const { return u_.o.h; }
    void set_box(Kind k, Box* b, uint8_t flags = 0) {
        u_.o = blank();
        u_.o.k = k;
        u_.o.flags = static_cast<uint8_t>(flags | kBoxed);
        u_.o.h = b;
    }
    static void unref(Box* b) noexcept;
};
static_assert(sizeof(Value) == 16);

struct StrBox : Box {
    StrBox() : Box(Kind::String) {}
    std::string s;
};
struct ArrBox : Box {
    ArrBox() : Box(Kind::Array) {}
    std::vector<Value> a;
};
struct ObjBox : Box {
    ObjBox() : Box(Kind::Object) {}
    std::vector<std::pair<std::string, Value>> items;
    std::unique_ptr<std::unordered_map<std::string_view, size_t>> index;  // when items is large
    size_t key_bytes = 0;  // the keys' heap bytes (beyond std::string's inline buffer)
    const Value* find(std::string_view k) const;
    size_t pos(std::string_view k) const;  // npos when absent
    void reindex();
};
struct LitBox : Box {
    LitBox() : Box(Kind::Number) {}
    double d = 0;
    std::string text;
};

const char* kind_name(Kind k);  // "null", "boolean", "number", ...
inline const char* kind_name(const Value& v) { return kind_name(v.kind()); }

// jq's total order (null < false < true < numbers < strings < arrays < objects).
// Throws JqError "stack overflow: recursion too deep" when the jq evaluator running on this thread is past
// the stack it may use (engine_eval.cpp; nothing without an evaluator): the recursive walks over values
// (comparison, contains, flatten, paths) call it, so a deeply nested value is an error and not a crash.
void guard_stack();
// How deep C stack recursion may go below `base`, an address on the current stack (engine_eval.cpp).
size_t stack_allowance(uintptr_t base);
int compare(const Value& a, const Value& b);
bool equal(const Value& a, const Value& b);

// The shortest round-trip form of a double, as jq 1.7.1's jvp_dtoa_fmt prints it (1e+17, 1e-05, 0.001).
std::string format_double(double d);

struct DumpOptions {
    int indent = 2;       // 0: compact
    bool tab = false;
    bool sort = false;
    bool ascii = false;
    bool color = false;
    std::string colors[8];  // escape sequences (without \x1b[ and m) for null false true number string array object objkey
};
void dump(std::string& out, const Value& v, const DumpOptions& o, int level = 0);
std::string to_json(const Value& v);  // compact, as tojson
void dump_string(std::string& out, std::string_view s, bool ascii);

// JSON text parser: jq's state machine (its messages and positions), over chunks of a stream of texts.
class ParserCore;
class JsonParser {
public:
    JsonParser();
    ~JsonParser();
    JsonParser(const JsonParser&) = delete;
    JsonParser& operator=(const JsonParser&) = delete;
    void feed(std::string_view data, bool last);  // appends data; last: no more will come
    enum Status { kValue, kNeedMore, kEnd, kError };
    Status next(Value& out, std::string& err);
    void set_seq(bool seq);
    size_t buffered() const;

private:
    std::unique_ptr<ParserCore> p_;
};

// Parses one complete JSON text (fromjson, --argjson): false with jq's message.
bool parse_json(std::string_view text, Value& out, std::string& err);
// Parses every text of s into out; false with a message.
bool parse_json_all(std::string_view text, std::vector<Value>& out, std::string& err);

// Appends code point cp to out as UTF-8.
void put_utf8(std::string& out, uint32_t cp);

// s with invalid UTF-8 sequences replaced by U+FFFD (as jq makes every string).
std::string fix_utf8(std::string s);

// Parses a jq/JSON number token; the literal is kept when it prints differently from the double.
Value number_from_token(std::string_view tok);

}  // namespace bashkit::utils::jq
