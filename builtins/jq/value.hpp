// jq's values: null, booleans, numbers (doubles; a number read from JSON or a program literal keeps its
// literal text, printed as jq 1.7.1's decNumber would, until arithmetic touches it), strings, arrays and
// objects (keys in insertion order, as jq prints them). Heap parts are shared and copied on write.
//
// Memory: every heap part is charged to the thread's current budget (BudgetScope) while it lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interp/governor.hpp"

namespace bashkit::builtins::jq {

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

struct Box {
    Box() = default;
    Box(const Box&) = delete;
    Box& operator=(const Box&) = delete;
    virtual ~Box();
    void charge(size_t n);  // sets the charge to n bytes
    interp::MemoryBudget* budget = nullptr;
    size_t charged = 0;
};

class Value;
struct StrBox;
struct ArrBox;
struct ObjBox;
struct LitBox;

class Value {
public:
    Value() = default;  // null
    static Value invalid() { Value v; v.k_ = Kind::Invalid; return v; }
    static Value null() { return Value(); }
    static Value boolean(bool b) { Value v; v.k_ = b ? Kind::True : Kind::False; return v; }
    static Value number(double d) { Value v; v.k_ = Kind::Number; v.n_ = d; return v; }
    // A number with its literal text (canonical decNumber form) when it differs from the double's.
    static Value number_literal(double d, std::string_view lit);
    static Value string(std::string s);
    static Value array(std::vector<Value> a = {});
    static Value object();

    Kind kind() const { return k_; }
    bool is_valid() const { return k_ != Kind::Invalid; }
    bool is_null() const { return k_ == Kind::Null; }
    bool is_number() const { return k_ == Kind::Number; }
    bool is_string() const { return k_ == Kind::String; }
    bool is_array() const { return k_ == Kind::Array; }
    bool is_object() const { return k_ == Kind::Object; }
    bool truthy() const { return k_ != Kind::Null && k_ != Kind::False; }

    double num() const { return n_; }
    const LitBox* literal() const;  // null unless a literal number whose text differs from the double's
    bool is_literal() const { return lit_; }
    const std::string& str() const;
    const std::vector<Value>& arr() const;
    const ObjBox& obj() const;
    std::string& str_mut();          // copy on write
    std::vector<Value>& arr_mut();   // copy on write
    ObjBox& obj_mut();               // copy on write
    void recharge();                 // after a mutation that grew the heap part

    // Object access.
    const Value* get(std::string_view key) const;
    void set(std::string key, Value v);
    bool erase(std::string_view key);

    size_t size() const;  // array/object length

private:
    Kind k_ = Kind::Null;
    bool lit_ = false;  // a number read from JSON or a program literal (compared exactly with another one)
    double n_ = 0;
    std::shared_ptr<Box> h_;
};

struct StrBox : Box {
    std::string s;
};
struct ArrBox : Box {
    std::vector<Value> a;
};
struct ObjBox : Box {
    std::vector<std::pair<std::string, Value>> items;
    std::unordered_map<std::string_view, size_t> index;  // when items is large
    const Value* find(std::string_view k) const;
    size_t pos(std::string_view k) const;  // npos when absent
    void reindex();
};
struct LitBox : Box {
    std::string text;
};

const char* kind_name(Kind k);  // "null", "boolean", "number", ...
inline const char* kind_name(const Value& v) { return kind_name(v.kind()); }

// jq's total order (null < false < true < numbers < strings < arrays < objects).
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

// s with invalid UTF-8 sequences replaced by U+FFFD (as jq makes every string).
std::string fix_utf8(std::string s);

// Parses a jq/JSON number token; the literal is kept when it prints differently from the double.
Value number_from_token(std::string_view tok);

}  // namespace bashkit::builtins::jq
