// Tests of the arithmetic evaluator (interp/arith.hpp).
//
// The table holds {expression, variables, expected value or "!message", variables afterwards}. Every row was
// taken from bash 5.2 and ArithTable.MatchesBash re-checks it against /bin/bash when it exists, so an
// expectation cannot drift from real bash. Messages are bash's without the "bash: line N: " prefix.
#include "interp/arith.hpp"
#include "interp/fiber.hpp"
#include "interp/syntax/parser.hpp"
#include "tests/common/host_run.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

namespace bashkit::interp {
namespace {

using syntax::ArithOp;

// Variables in a map. Arrays are elements named "a[3]"; an indexed subscript is evaluated with eval_text.
class MapHost : public ArithHost {
public:
    std::map<std::string, std::string, std::less<>> vars;
    bool unset_is_error = false;
    std::vector<std::string> readonly;
    int gets = 0, sets = 0, subscripts = 0;

    ArithResult<std::optional<std::string>> get(ArithRef& ref) override {
        ++gets;
        std::string key(ref.name);
        if (ref.has_index) {
            auto idx = subscript(ref);
            if (!idx) return idx.error();
            bool exists = vars.count(key) > 0;
            for (auto it = vars.lower_bound(key + "["); it != vars.end() && it->first.rfind(key + "[", 0) == 0; ++it) {
                exists = true;
            }
            if (*idx == "0" && vars.count(key)) return std::optional<std::string>(vars[key]);
            key += "[" + *idx + "]";
            auto it = vars.find(key);
            if (it != vars.end()) return std::optional<std::string>(it->second);
            return exists ? std::optional<std::string>("") : std::nullopt;
        }
        auto it = vars.find(key);
        if (it == vars.end()) return std::optional<std::string>();
        return std::optional<std::string>(it->second);
    }
    ArithResult<void> set(ArithRef& ref, int64_t value) override {
        ++sets;
        std::string key(ref.name);
        for (const auto& r : readonly) {
            if (r == key) return ArithError{ArithError::Kind::Host, key + ": readonly variable"};
        }
        if (ref.has_index) {
            auto idx = subscript(ref);
            if (!idx) return idx.error();
            key += "[" + *idx + "]";
        }
        vars[key] = std::to_string(value);
        return {};
    }
    ArithResult<std::string> expand(const syntax::Word& word) override {
        std::string out;
        for (const syntax::Node* part : word.parts) {
            if (const auto* lit = part->try_as<syntax::Lit>()) out += lit->text;
            if (const auto* pe = part->try_as<syntax::ParamExp>()) {
                auto it = vars.find(pe->name);
                if (it != vars.end()) out += it->second;
            }
        }
        return out;
    }
    bool nounset() const override { return unset_is_error; }

private:
    ArithResult<std::string> subscript(ArithRef& ref) {
        if (ref.resolved) return *ref.resolved;
        ++subscripts;
        std::string text(ref.index_text);
        if (ref.index_word != nullptr) {
            auto w = expand(*ref.index_word);
            if (!w) return w.error();
            text = *w;
        }
        ArithOptions o;
        o.depth = ref.depth;
        auto r = eval_text(text, *this, o);
        if (!r) return r.error();
        ref.resolved = std::to_string(*r);
        return *ref.resolved;
    }
};

std::string repeat(std::string_view s, size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
}

// "5" or "!message".
std::string show(const ArithResult<int64_t>& r) {
    return r ? std::to_string(*r) : "!" + r.error().message;
}

struct Case {
    std::string expr;
    std::vector<std::pair<std::string, std::string>> vars;
    std::string expect;
    std::vector<std::string> after;  // "name=value" or "name=<unset>"
};

const std::vector<Case>& cases() {
    static const std::vector<Case> table = {
    {R"~(0)~", {}, R"~(0)~", {}},
    {R"~(1)~", {}, R"~(1)~", {}},
    {R"~(42)~", {}, R"~(42)~", {}},
    {R"~(007)~", {}, R"~(7)~", {}},
    {R"~(010)~", {}, R"~(8)~", {}},
    {R"~(0x10)~", {}, R"~(16)~", {}},
    {R"~(0X1f)~", {}, R"~(31)~", {}},
    {R"~(0xFF)~", {}, R"~(255)~", {}},
    {R"~(0xff)~", {}, R"~(255)~", {}},
    {R"~(2#1010)~", {}, R"~(10)~", {}},
    {R"~(8#777)~", {}, R"~(511)~", {}},
    {R"~(16#ff)~", {}, R"~(255)~", {}},
    {R"~(16#FF)~", {}, R"~(255)~", {}},
    {R"~(36#z)~", {}, R"~(35)~", {}},
    {R"~(36#Z)~", {}, R"~(35)~", {}},
    {R"~(37#Z)~", {}, R"~(!37#Z: value too great for base (error token is "37#Z"))~", {}},
    {R"~(62#Z)~", {}, R"~(61)~", {}},
    {R"~(63#@)~", {}, R"~(62)~", {}},
    {R"~(64#@)~", {}, R"~(62)~", {}},
    {R"~(64#_)~", {}, R"~(63)~", {}},
    {R"~(64#zZ)~", {}, R"~(2301)~", {}},
    {R"~(10#0009)~", {}, R"~(9)~", {}},
    {R"~(2#0)~", {}, R"~(0)~", {}},
    {R"~(0x)~", {}, R"~(0)~", {}},
    {R"~(00)~", {}, R"~(0)~", {}},
    {R"~(9223372036854775807)~", {}, R"~(9223372036854775807)~", {}},
    {R"~(9223372036854775808)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(99999999999999999999)~", {}, R"~(7766279631452241919)~", {}},
    {R"~(0xffffffffffffffff)~", {}, R"~(-1)~", {}},
    {R"~(0x1ffffffffffffffff)~", {}, R"~(-1)~", {}},
    {R"~(64#zzzzzzzzzzzzzzzzzz)~", {}, R"~(4099276460824344803)~", {}},
    {R"~(18446744073709551618#1)~", {}, R"~(1)~", {}},
    {R"~(09)~", {}, R"~(!09: value too great for base (error token is "09"))~", {}},
    {R"~(08)~", {}, R"~(!08: value too great for base (error token is "08"))~", {}},
    {R"~(0b1)~", {}, R"~(!0b1: value too great for base (error token is "0b1"))~", {}},
    {R"~(1e3)~", {}, R"~(!1e3: value too great for base (error token is "1e3"))~", {}},
    {R"~(12a)~", {}, R"~(!12a: value too great for base (error token is "12a"))~", {}},
    {R"~(0xg)~", {}, R"~(!0xg: value too great for base (error token is "0xg"))~", {}},
    {R"~(1#1)~", {}, R"~(!1#1: invalid arithmetic base (error token is "1#1"))~", {}},
    {R"~(65#1)~", {}, R"~(!65#1: invalid arithmetic base (error token is "65#1"))~", {}},
    {R"~(0#1)~", {}, R"~(!0#1: invalid number (error token is "0#1"))~", {}},
    {R"~(010#1)~", {}, R"~(!010#1: invalid number (error token is "010#1"))~", {}},
    {R"~(08#1)~", {}, R"~(!08#1: value too great for base (error token is "08#1"))~", {}},
    {R"~(2#)~", {}, R"~(!2#: invalid integer constant (error token is "2#"))~", {}},
    {R"~(10#)~", {}, R"~(!10#: invalid integer constant (error token is "10#"))~", {}},
    {R"~(64#)~", {}, R"~(!64#: invalid integer constant (error token is "64#"))~", {}},
    {R"~(2##1)~", {}, R"~(!2##1: invalid integer constant (error token is "2##1"))~", {}},
    {R"~(2#102)~", {}, R"~(!2#102: value too great for base (error token is "2#102"))~", {}},
    {R"~(2#1#1)~", {}, R"~(!2#1#1: invalid number (error token is "2#1#1"))~", {}},
    {R"~(2#_)~", {}, R"~(!2#_: value too great for base (error token is "2#_"))~", {}},
    {R"~(2#@)~", {}, R"~(!2#@: value too great for base (error token is "2#@"))~", {}},
    {R"~(0x#1)~", {}, R"~(!0x#1: invalid number (error token is "0x#1"))~", {}},
    {R"~(2#1_1)~", {}, R"~(!2#1_1: value too great for base (error token is "2#1_1"))~", {}},
    {R"~(1+09)~", {}, R"~(!1+09: value too great for base (error token is "09"))~", {}},
    {R"~(1 + 09 + 2)~", {}, R"~(!1 + 09: value too great for base (error token is "09"))~", {}},
    {R"~((1+09))~", {}, R"~(!(1+09: value too great for base (error token is "09"))~", {}},
    {R"~(x=09)~", {}, R"~(!x=09: value too great for base (error token is "09"))~", {}},
    {R"~(10#-1)~", {}, R"~(!10#: invalid integer constant (error token is "10#"))~", {}},
    {R"~(1+2#)~", {}, R"~(!1+2#: invalid integer constant (error token is "2#"))~", {}},
    {R"~(1+2)~", {}, R"~(3)~", {}},
    {R"~(1-2)~", {}, R"~(-1)~", {}},
    {R"~(2*3)~", {}, R"~(6)~", {}},
    {R"~(7/2)~", {}, R"~(3)~", {}},
    {R"~(-7/2)~", {}, R"~(-3)~", {}},
    {R"~(7/-2)~", {}, R"~(-3)~", {}},
    {R"~(-7%3)~", {}, R"~(-1)~", {}},
    {R"~(7%-3)~", {}, R"~(1)~", {}},
    {R"~(7%3)~", {}, R"~(1)~", {}},
    {R"~(1+2*3-4/2%3)~", {}, R"~(5)~", {}},
    {R"~((1+2)*3)~", {}, R"~(9)~", {}},
    {R"~(2**10)~", {}, R"~(1024)~", {}},
    {R"~(2**63)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(2**64)~", {}, R"~(0)~", {}},
    {R"~(2**62*2)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~((-2)**63)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(-2**2)~", {}, R"~(4)~", {}},
    {R"~(3**0)~", {}, R"~(1)~", {}},
    {R"~(0**0)~", {}, R"~(1)~", {}},
    {R"~(0**5)~", {}, R"~(0)~", {}},
    {R"~(2**3**2)~", {}, R"~(512)~", {}},
    {R"~((2**3)**2)~", {}, R"~(64)~", {}},
    {R"~(2**-1)~", {}, R"~(!2**-1: exponent less than 0 (error token is "1"))~", {}},
    {R"~(2**-1 + 3)~", {}, R"~(!2**-1 + 3: exponent less than 0 (error token is "+ 3"))~", {}},
    {R"~(-1**-1)~", {}, R"~(!-1**-1: exponent less than 0 (error token is "1"))~", {}},
    {R"~(2**9999999999)~", {}, R"~(0)~", {}},
    {R"~(3**9999999999)~", {}, R"~(-2661479581325256021)~", {}},
    {R"~((-1)**9999999999)~", {}, R"~(-1)~", {}},
    {R"~(7**4611686018427387904)~", {}, R"~(1)~", {}},
    {R"~(1/0)~", {}, R"~(!1/0: division by 0 (error token is "0"))~", {}},
    {R"~(1%0)~", {}, R"~(!1%0: division by 0 (error token is "0"))~", {}},
    {R"~(1/0 + 5)~", {}, R"~(!1/0 + 5: division by 0 (error token is "0 + 5"))~", {}},
    {R"~(5 / 0)~", {}, R"~(!5 / 0: division by 0 (error token is "0"))~", {}},
    {R"~(1/ 0)~", {}, R"~(!1/ 0: division by 0 (error token is "0"))~", {}},
    {R"~(1 /	0)~", {}, R"~(!1 /	0: division by 0 (error token is "0"))~", {}},
    {R"~(0/0)~", {}, R"~(!0/0: division by 0 (error token is "0"))~", {}},
    {R"~((-9223372036854775807-1)/-1)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~((-9223372036854775807-1)%-1)~", {}, R"~(0)~", {}},
    {R"~(-9223372036854775808)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(- 9223372036854775808)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(9223372036854775807+1)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(-9223372036854775807-2)~", {}, R"~(9223372036854775807)~", {}},
    {R"~(9223372036854775807*2)~", {}, R"~(-2)~", {}},
    {R"~(4611686018427387904*2)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(-(-9223372036854775807-1))~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(1<<0)~", {}, R"~(1)~", {}},
    {R"~(1<<1)~", {}, R"~(2)~", {}},
    {R"~(1<<62)~", {}, R"~(4611686018427387904)~", {}},
    {R"~(1<<63)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(1<<64)~", {}, R"~(1)~", {}},
    {R"~(1<<65)~", {}, R"~(2)~", {}},
    {R"~(1<<-1)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(5>>-1)~", {}, R"~(0)~", {}},
    {R"~(-8>>1)~", {}, R"~(-4)~", {}},
    {R"~(-8>>65)~", {}, R"~(-4)~", {}},
    {R"~(-1>>63)~", {}, R"~(-1)~", {}},
    {R"~(-1<<63)~", {}, R"~(-9223372036854775808)~", {}},
    {R"~(1>>1)~", {}, R"~(0)~", {}},
    {R"~(256>>4)~", {}, R"~(16)~", {}},
    {R"~(1<<2+1)~", {}, R"~(8)~", {}},
    {R"~(1+1<<2)~", {}, R"~(8)~", {}},
    {R"~(1<2)~", {}, R"~(1)~", {}},
    {R"~(2<=2)~", {}, R"~(1)~", {}},
    {R"~(3>2)~", {}, R"~(1)~", {}},
    {R"~(2>=3)~", {}, R"~(0)~", {}},
    {R"~(1==1)~", {}, R"~(1)~", {}},
    {R"~(1!=1)~", {}, R"~(0)~", {}},
    {R"~(5&3)~", {}, R"~(1)~", {}},
    {R"~(5|3)~", {}, R"~(7)~", {}},
    {R"~(5^3)~", {}, R"~(6)~", {}},
    {R"~(~0)~", {}, R"~(-1)~", {}},
    {R"~(~-1)~", {}, R"~(0)~", {}},
    {R"~(!5)~", {}, R"~(0)~", {}},
    {R"~(!0)~", {}, R"~(1)~", {}},
    {R"~(!!7)~", {}, R"~(1)~", {}},
    {R"~(~~5)~", {}, R"~(5)~", {}},
    {R"~(-~5)~", {}, R"~(6)~", {}},
    {R"~(+5)~", {}, R"~(5)~", {}},
    {R"~(-5)~", {}, R"~(-5)~", {}},
    {R"~(- -5)~", {}, R"~(5)~", {}},
    {R"~(--5)~", {}, R"~(5)~", {}},
    {R"~(-+-5)~", {}, R"~(5)~", {}},
    {R"~(+-+5)~", {}, R"~(-5)~", {}},
    {R"~(++5)~", {}, R"~(5)~", {}},
    {R"~(++ 5)~", {}, R"~(5)~", {}},
    {R"~(1<2==1)~", {}, R"~(1)~", {}},
    {R"~(3&1==1)~", {}, R"~(1)~", {}},
    {R"~(1|2^3&4)~", {}, R"~(3)~", {}},
    {R"~(5 > 3 > 1)~", {}, R"~(0)~", {}},
    {R"~(1 == 1 == 1)~", {}, R"~(1)~", {}},
    {R"~(1 && 2)~", {}, R"~(1)~", {}},
    {R"~(1 && 0)~", {}, R"~(0)~", {}},
    {R"~(0 || 3)~", {}, R"~(1)~", {}},
    {R"~(0 || 0)~", {}, R"~(0)~", {}},
    {R"~(0 || 0 && 1)~", {}, R"~(0)~", {}},
    {R"~(1 || 0 && 0)~", {}, R"~(1)~", {}},
    {R"~(2 & 1 && 1)~", {}, R"~(0)~", {}},
    {R"~(1,2,3)~", {}, R"~(3)~", {}},
    {R"~((1,2)+3)~", {}, R"~(5)~", {}},
    {R"~(1 ? 2 : 3)~", {}, R"~(2)~", {}},
    {R"~(0 ? 2 : 3)~", {}, R"~(3)~", {}},
    {R"~(1 ? 2 : 3 ? 4 : 5)~", {}, R"~(2)~", {}},
    {R"~(0 ? 2 : 0 ? 4 : 5)~", {}, R"~(5)~", {}},
    {R"~(0 ? 1/0 : 2)~", {}, R"~(2)~", {}},
    {R"~(1 ? 2 : 1/0)~", {}, R"~(2)~", {}},
    {R"~(1 ? 2, 3 : 4)~", {}, R"~(3)~", {}},
    {R"~(1 ? 2 : 3 , 4)~", {}, R"~(4)~", {}},
    {R"~(0 && 1/0)~", {}, R"~(0)~", {}},
    {R"~(1 || 1/0)~", {}, R"~(1)~", {}},
    {R"~(0 && 2**-1)~", {}, R"~(!0 && 2**-1: exponent less than 0 (error token is "1"))~", {}},
    {R"~(0 ? 2**-1 : 2)~", {}, R"~(!0 ? 2**-1 : 2: exponent less than 0 (error token is ": 2"))~", {}},
    {R"~(0 && 09)~", {}, R"~(!0 && 09: value too great for base (error token is "09"))~", {}},
    {R"~(1 || 09)~", {}, R"~(!1 || 09: value too great for base (error token is "09"))~", {}},
    {R"~(   )~", {}, R"~(0)~", {}},
    {R"~()~", {}, R"~(0)~", {}},
    {R"~(	1+1	)~", {}, R"~(2)~", {}},
    {R"~( 7 )~", {}, R"~(7)~", {}},
    {R"~(1+)~", {}, R"~(!1+: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(1 +)~", {}, R"~(!1 +: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(+)~", {}, R"~(!+: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(1 2)~", {}, R"~(!1 2: syntax error in expression (error token is "2"))~", {}},
    {R"~(a b)~", {}, R"~(!a b: syntax error in expression (error token is "b"))~", {}},
    {R"~(1 . 2)~", {}, R"~(!1 . 2: syntax error: invalid arithmetic operator (error token is ". 2"))~", {}},
    {R"~(. 2)~", {}, R"~(!. 2: syntax error: operand expected (error token is ". 2"))~", {}},
    {R"~(1 + . 2)~", {}, R"~(!1 + . 2: syntax error: operand expected (error token is ". 2"))~", {}},
    {R"~(1.5)~", {}, R"~(!1.5: syntax error: invalid arithmetic operator (error token is ".5"))~", {}},
    {R"~(0x1.5)~", {}, R"~(!0x1.5: syntax error: invalid arithmetic operator (error token is ".5"))~", {}},
    {R"~((1).5)~", {}, R"~(!(1).5: syntax error: operand expected (error token is ".5"))~", {}},
    {R"~(x++ .5)~", {}, R"~(!x++ .5: syntax error: invalid arithmetic operator (error token is ".5"))~", {}},
    {R"~(x @ 1)~", {}, R"~(!x @ 1: syntax error: invalid arithmetic operator (error token is "@ 1"))~", {}},
    {R"~(1 @ 1)~", {}, R"~(!1 @ 1: syntax error: invalid arithmetic operator (error token is "@ 1"))~", {}},
    {R"~(1 $ 1)~", {}, R"~(!1 $ 1: syntax error: invalid arithmetic operator (error token is "$ 1"))~", {}},
    {R"~(1 # 2)~", {}, R"~(!1 # 2: syntax error: invalid arithmetic operator (error token is "# 2"))~", {}},
    {R"~(())~", {}, R"~(!(): syntax error: operand expected (error token is ")"))~", {}},
    {R"~((1)~", {}, R"~(!(1: missing `)' (error token is "1"))~", {}},
    {R"~(1))~", {}, R"~(!1): syntax error in expression (error token is ")"))~", {}},
    {R"~(((1))~", {}, R"~(!((1): missing `)' (error token is ")"))~", {}},
    {R"~(1 ? 2)~", {}, R"~(!1 ? 2: `:' expected for conditional expression (error token is "2"))~", {}},
    {R"~(1 ? 2 :)~", {}, R"~(!1 ? 2 :: expression expected (error token is ":"))~", {}},
    {R"~(1 ? : 3)~", {}, R"~(!1 ? : 3: expression expected (error token is ": 3"))~", {}},
    {R"~(1 ? 2 : 3 : 4)~", {}, R"~(!1 ? 2 : 3 : 4: syntax error in expression (error token is ": 4"))~", {}},
    {R"~(1 = 2)~", {}, R"~(!1 = 2: attempted assignment to non-variable (error token is "= 2"))~", {}},
    {R"~(x =)~", {}, R"~(!x =: syntax error: operand expected (error token is "="))~", {}},
    {R"~(x = )~", {}, R"~(!x = : syntax error: operand expected (error token is "= "))~", {}},
    {R"~(1 = = 2)~", {}, R"~(!1 = = 2: attempted assignment to non-variable (error token is "= = 2"))~", {}},
    {R"~(3 !== 2)~", {}, R"~(!3 !== 2: syntax error: operand expected (error token is "= 2"))~", {}},
    {R"~(1 == = 2)~", {}, R"~(!1 == = 2: syntax error: operand expected (error token is "= 2"))~", {}},
    {R"~(x **= 2)~", {}, R"~(!x **= 2: syntax error: operand expected (error token is "= 2"))~", {}},
    {R"~(1 ? 2 : x = 3)~", {}, R"~(!1 ? 2 : x = 3: attempted assignment to non-variable (error token is "= 3"))~", {}},
    {R"~(1 + x = 5)~", {}, R"~(!1 + x = 5: attempted assignment to non-variable (error token is "= 5"))~", {}},
    {R"~((x) = 1)~", {}, R"~(!(x) = 1: attempted assignment to non-variable (error token is "= 1"))~", {}},
    {R"~(x++ = 1)~", {}, R"~(!x++ = 1: attempted assignment to non-variable (error token is "= 1"))~", {}},
    {R"~(-x = 1)~", {}, R"~(!-x = 1: attempted assignment to non-variable (error token is "= 1"))~", {}},
    {R"~(x+++y)~", {}, R"~(0)~", {}},
    {R"~(x---y)~", {}, R"~(0)~", {}},
    {R"~(x+ ++y)~", {}, R"~(1)~", {}},
    {R"~(x++y)~", {}, R"~(!x++y: syntax error in expression (error token is "y"))~", {}},
    {R"~(x++++)~", {}, R"~(!x++++: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(--x++)~", {}, R"~(!--x++: ++: assignment requires lvalue (error token is "++"))~", {}},
    {R"~(++x++)~", {}, R"~(!++x++: ++: assignment requires lvalue (error token is "++"))~", {}},
    {R"~(++x ++y)~", {}, R"~(!++x ++y: ++: assignment requires lvalue (error token is "++y"))~", {}},
    {R"~(++(x))~", {}, R"~(0)~", {}},
    {R"~(++1)~", {}, R"~(1)~", {}},
    {R"~(1++)~", {}, R"~(!1++: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(~)~", {}, R"~(!~: syntax error: operand expected (error token is "~"))~", {}},
    {R"~(!)~", {}, R"~(!!: syntax error: operand expected (error token is "!"))~", {}},
    {R"~(a[1)~", {}, R"~(!a[1: bad array subscript (error token is "a[1"))~", {}},
    {R"~(a[1]])~", {}, R"~(!a[1]]: syntax error: invalid arithmetic operator (error token is "]"))~", {}},
    {R"~(1,)~", {}, R"~(!1,: syntax error: operand expected (error token is ","))~", {}},
    {R"~(1 ,)~", {}, R"~(!1 ,: syntax error: operand expected (error token is ","))~", {}},
    {R"~(, 1)~", {}, R"~(!, 1: syntax error: operand expected (error token is ", 1"))~", {}},
    {R"~(x[)~", {}, R"~(!x[: bad array subscript (error token is "x["))~", {}},
    {R"~(=)~", {}, R"~(!=: syntax error: operand expected (error token is "="))~", {}},
    {R"~(==1)~", {}, R"~(!==1: syntax error: operand expected (error token is "==1"))~", {}},
    {R"~(1==)~", {}, R"~(!1==: syntax error: operand expected (error token is "=="))~", {}},
    {R"~(?)~", {}, R"~(!?: syntax error: operand expected (error token is "?"))~", {}},
    {R"~(1 ?)~", {}, R"~(!1 ?: expression expected (error token is "?"))~", {}},
    {R"~(&& 1)~", {}, R"~(!&& 1: syntax error: operand expected (error token is "&& 1"))~", {}},
    {R"~(1 &&)~", {}, R"~(!1 &&: syntax error: operand expected (error token is "&&"))~", {}},
    {R"~(1 || )~", {}, R"~(!1 || : syntax error: operand expected (error token is "|| "))~", {}},
    {R"~(()~", {}, R"~(!(: syntax error: operand expected (error token is "("))~", {}},
    {R"~())~", {}, R"~(!): syntax error: operand expected (error token is ")"))~", {}},
    {R"~(1 2 3)~", {}, R"~(!1 2 3: syntax error in expression (error token is "2 3"))~", {}},
    {R"~(+ +)~", {}, R"~(!+ +: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(x y z)~", {}, R"~(!x y z: syntax error in expression (error token is "y z"))~", {}},
    {R"~(x 09)~", {}, R"~(!x 09: value too great for base (error token is "09"))~", {}},
    {R"~(x y[)~", {}, R"~(!x y[: bad array subscript (error token is "y["))~", {}},
    {R"~(x=)~", {}, R"~(!x=: syntax error: operand expected (error token is "="))~", {}},
    {R"~(1 ,, 2)~", {}, R"~(!1 ,, 2: syntax error: operand expected (error token is ", 2"))~", {}},
    {R"~(1 ? 2 ? 3 : 4)~", {}, R"~(!1 ? 2 ? 3 : 4: `:' expected for conditional expression (error token is "4"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(5)~"}}, R"~(5)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~()~"}}, R"~(0)~", {}},
    {R"~(x)~", {}, R"~(0)~", {}},
    {R"~(x+1)~", {{R"~(x)~", R"~( 7 )~"}}, R"~(8)~", {}},
    {R"~(x*3)~", {{R"~(x)~", R"~(1+2)~"}}, R"~(9)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(y+1)~"}, {R"~(y)~", R"~(2)~"}}, R"~(3)~", {}},
    {R"~(x*2)~", {{R"~(x)~", R"~(y)~"}, {R"~(y)~", R"~(z)~"}, {R"~(z)~", R"~(7)~"}}, R"~(14)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(foo bar)~"}}, R"~(!foo bar: syntax error in expression (error token is "bar"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(1/0)~"}}, R"~(!1/0: division by 0 (error token is "0"))~", {}},
    {R"~(x + 1)~", {{R"~(x)~", R"~(1+)~"}}, R"~(!1+: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~((1)~"}}, R"~(!(1: missing `)' (error token is "1"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(1))~"}}, R"~(!1): syntax error in expression (error token is ")"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(x)~"}}, R"~(!x: expression recursion level exceeded (error token is "x"))~", {}},
    {R"~(1 + x + 2)~", {{R"~(x)~", R"~(x)~"}}, R"~(!x: expression recursion level exceeded (error token is "x"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(x + 1)~"}}, R"~(!x + 1: expression recursion level exceeded (error token is "x + 1"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(1+x)~"}}, R"~(!1+x: expression recursion level exceeded (error token is "x"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(x=x+1)~"}}, R"~(!x=x+1: expression recursion level exceeded (error token is "x+1"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(x = 1)~"}}, R"~(1)~", {R"~(x=1)~"}},
    {R"~(x)~", {{R"~(x)~", R"~(a=5)~"}}, R"~(5)~", {R"~(a=5)~"}},
    {R"~(x)~", {{R"~(x)~", R"~(1,2)~"}}, R"~(2)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(09)~"}}, R"~(!09: value too great for base (error token is "09"))~", {}},
    {R"~(x+1)~", {{R"~(x)~", R"~(0x10)~"}}, R"~(17)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(2#101)~"}}, R"~(5)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(-3)~"}}, R"~(-3)~", {}},
    {R"~(-x)~", {{R"~(x)~", R"~(-3)~"}}, R"~(3)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(  )~"}}, R"~(0)~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(a[1)~"}}, R"~(!a[1: bad array subscript (error token is "a[1"))~", {}},
    {R"~(x + 1)~", {{R"~(x)~", R"~(a[1)~"}}, R"~(!a[1: bad array subscript (error token is "a[1"))~", {}},
    {R"~(x)~", {{R"~(x)~", R"~(y++)~"}}, R"~(0)~", {R"~(y=1)~"}},
    {R"~(x + x)~", {{R"~(x)~", R"~(y++)~"}}, R"~(1)~", {R"~(y=2)~"}},
    {R"~(x=5)~", {}, R"~(5)~", {R"~(x=5)~"}},
    {R"~(x = 5)~", {{R"~(x)~", R"~(1/0)~"}}, R"~(5)~", {R"~(x=5)~"}},
    {R"~(x += 5)~", {{R"~(x)~", R"~(1/0)~"}}, R"~(!1/0: division by 0 (error token is "0"))~", {R"~(x=1/0)~"}},
    {R"~(x += 5)~", {{R"~(x)~", R"~(2)~"}}, R"~(7)~", {R"~(x=7)~"}},
    {R"~(x = y = 3)~", {}, R"~(3)~", {R"~(x=3)~", R"~(y=3)~"}},
    {R"~(x<<=2)~", {{R"~(x)~", R"~(5)~"}}, R"~(20)~", {R"~(x=20)~"}},
    {R"~(x>>=1)~", {{R"~(x)~", R"~(20)~"}}, R"~(10)~", {R"~(x=10)~"}},
    {R"~(x&=7)~", {{R"~(x)~", R"~(10)~"}}, R"~(2)~", {R"~(x=2)~"}},
    {R"~(x|=8)~", {{R"~(x)~", R"~(2)~"}}, R"~(10)~", {R"~(x=10)~"}},
    {R"~(x^=3)~", {{R"~(x)~", R"~(10)~"}}, R"~(9)~", {R"~(x=9)~"}},
    {R"~(x*=3)~", {{R"~(x)~", R"~(9)~"}}, R"~(27)~", {R"~(x=27)~"}},
    {R"~(x-=1)~", {{R"~(x)~", R"~(27)~"}}, R"~(26)~", {R"~(x=26)~"}},
    {R"~(x%=7)~", {{R"~(x)~", R"~(27)~"}}, R"~(6)~", {R"~(x=6)~"}},
    {R"~(x/=2)~", {{R"~(x)~", R"~(6)~"}}, R"~(3)~", {R"~(x=3)~"}},
    {R"~(x/=-1)~", {{R"~(x)~", R"~(-9223372036854775808)~"}}, R"~(-9223372036854775808)~", {R"~(x=-9223372036854775808)~"}},
    {R"~(x%=-1)~", {{R"~(x)~", R"~(-9223372036854775808)~"}}, R"~(0)~", {R"~(x=0)~"}},
    {R"~(x /= 0)~", {{R"~(x)~", R"~(1)~"}}, R"~(!x /= 0: division by 0 (error token is "0"))~", {R"~(x=1)~"}},
    {R"~(x /= 0, 5)~", {{R"~(x)~", R"~(1)~"}}, R"~(!x /= 0, 5: division by 0 (error token is ", 5"))~", {R"~(x=1)~"}},
    {R"~(x %= 0 )~", {{R"~(x)~", R"~(1)~"}}, R"~(!x %= 0 : division by 0 (error token is "0 "))~", {R"~(x=1)~"}},
    {R"~(0 && (x /= 0))~", {{R"~(x)~", R"~(1)~"}}, R"~(0)~", {R"~(x=1)~"}},
    {R"~(x <<= 64)~", {{R"~(x)~", R"~(1)~"}}, R"~(1)~", {R"~(x=1)~"}},
    {R"~(x=5, 1+)~", {{R"~(x)~", R"~(1)~"}}, R"~(!x=5, 1+: syntax error: operand expected (error token is "+"))~", {R"~(x=5)~"}},
    {R"~(x=5, 1/0)~", {{R"~(x)~", R"~(1)~"}}, R"~(!x=5, 1/0: division by 0 (error token is "0"))~", {R"~(x=5)~"}},
    {R"~(x=1 ? 2 : 3)~", {}, R"~(2)~", {R"~(x=2)~"}},
    {R"~(x = 1, y = x + 1)~", {}, R"~(2)~", {R"~(x=1)~", R"~(y=2)~"}},
    {R"~(x += (x=5))~", {{R"~(x)~", R"~(1)~"}}, R"~(6)~", {R"~(x=6)~"}},
    {R"~((x=5) + x)~", {}, R"~(10)~", {R"~(x=5)~"}},
    {R"~(x + (x=5))~", {}, R"~(5)~", {R"~(x=5)~"}},
    {R"~(x+=1)~", {{R"~(x)~", R"~(y)~"}, {R"~(y)~", R"~(4)~"}}, R"~(5)~", {R"~(x=5)~", R"~(y=4)~"}},
    {R"~(x = x + 1)~", {{R"~(x)~", R"~(3)~"}}, R"~(4)~", {R"~(x=4)~"}},
    {R"~(x=9223372036854775807, x+=1)~", {}, R"~(-9223372036854775808)~", {R"~(x=-9223372036854775808)~"}},
    {R"~(1 ? x = 2 : 3)~", {}, R"~(2)~", {R"~(x=2)~"}},
    {R"~(0 ? x = 2 : 3)~", {}, R"~(3)~", {R"~(x=<unset>)~"}},
    {R"~(0 ? 1 : (x = 3))~", {}, R"~(3)~", {R"~(x=3)~"}},
    {R"~(1 || (x = 3))~", {}, R"~(1)~", {R"~(x=<unset>)~"}},
    {R"~(0 && x++)~", {}, R"~(0)~", {R"~(x=<unset>)~"}},
    {R"~(1 && x++)~", {}, R"~(0)~", {R"~(x=1)~"}},
    {R"~(x = 0x10 + 010)~", {}, R"~(24)~", {R"~(x=24)~"}},
    {R"~(x=)~", {{R"~(x)~", R"~(3)~"}}, R"~(!x=: syntax error: operand expected (error token is "="))~", {R"~(x=3)~"}},
    {R"~(x = 1 +)~", {{R"~(x)~", R"~(3)~"}}, R"~(!x = 1 +: syntax error: operand expected (error token is "+"))~", {R"~(x=3)~"}},
    {R"~(x++)~", {{R"~(x)~", R"~(5)~"}}, R"~(5)~", {R"~(x=6)~"}},
    {R"~(x--)~", {{R"~(x)~", R"~(5)~"}}, R"~(5)~", {R"~(x=4)~"}},
    {R"~(++x)~", {{R"~(x)~", R"~(5)~"}}, R"~(6)~", {R"~(x=6)~"}},
    {R"~(--x)~", {{R"~(x)~", R"~(5)~"}}, R"~(4)~", {R"~(x=4)~"}},
    {R"~(x++)~", {}, R"~(0)~", {R"~(x=1)~"}},
    {R"~(--x)~", {}, R"~(-1)~", {R"~(x=-1)~"}},
    {R"~(x++ + ++x)~", {{R"~(x)~", R"~(7)~"}}, R"~(16)~", {R"~(x=9)~"}},
    {R"~(x-- - --x)~", {{R"~(x)~", R"~(9)~"}}, R"~(2)~", {R"~(x=7)~"}},
    {R"~(x+++y)~", {{R"~(x)~", R"~(1)~"}, {R"~(y)~", R"~(10)~"}}, R"~(11)~", {R"~(x=2)~", R"~(y=10)~"}},
    {R"~(x---y)~", {{R"~(x)~", R"~(1)~"}, {R"~(y)~", R"~(10)~"}}, R"~(-9)~", {R"~(x=0)~", R"~(y=10)~"}},
    {R"~(x+ ++y)~", {{R"~(x)~", R"~(1)~"}, {R"~(y)~", R"~(10)~"}}, R"~(12)~", {R"~(x=1)~", R"~(y=11)~"}},
    {R"~(x ++)~", {{R"~(x)~", R"~(1)~"}}, R"~(1)~", {R"~(x=2)~"}},
    {R"~(++ x)~", {{R"~(x)~", R"~(1)~"}}, R"~(2)~", {R"~(x=2)~"}},
    {R"~(- -x)~", {{R"~(x)~", R"~(1)~"}}, R"~(1)~", {R"~(x=1)~"}},
    {R"~(-(-x))~", {{R"~(x)~", R"~(1)~"}}, R"~(1)~", {R"~(x=1)~"}},
    {R"~(x++)~", {{R"~(x)~", R"~(y+1)~"}, {R"~(y)~", R"~(2)~"}}, R"~(3)~", {R"~(x=4)~", R"~(y=2)~"}},
    {R"~(++x)~", {{R"~(x)~", R"~(9223372036854775807)~"}}, R"~(-9223372036854775808)~", {R"~(x=-9223372036854775808)~"}},
    {R"~(x++ * 2)~", {{R"~(x)~", R"~(3)~"}}, R"~(6)~", {R"~(x=4)~"}},
    {R"~(x = x++)~", {{R"~(x)~", R"~(3)~"}}, R"~(3)~", {R"~(x=3)~"}},
    {R"~(x++, x++, x)~", {{R"~(x)~", R"~(0)~"}}, R"~(2)~", {R"~(x=2)~"}},
    {R"~(0 ? x++ : y++)~", {}, R"~(0)~", {R"~(x=<unset>)~", R"~(y=1)~"}},
    {R"~(1 ? x++ : y++)~", {}, R"~(0)~", {R"~(x=1)~", R"~(y=<unset>)~"}},
    {R"~((x++))~", {{R"~(x)~", R"~(1)~"}}, R"~(1)~", {R"~(x=2)~"}},
    {R"~(x++ ++)~", {{R"~(x)~", R"~(1)~"}}, R"~(!x++ ++: syntax error: operand expected (error token is "+"))~", {R"~(x=2)~"}},
    {R"~(0 ? x : 2)~", {{R"~(x)~", R"~(1/0)~"}}, R"~(2)~", {}},
    {R"~(0 ? x : 2)~", {{R"~(x)~", R"~(y++)~"}}, R"~(2)~", {R"~(y=<unset>)~"}},
    {R"~(1 || x)~", {{R"~(x)~", R"~(y++)~"}}, R"~(1)~", {R"~(y=<unset>)~"}},
    {R"~(0 && x)~", {{R"~(x)~", R"~(y++)~"}}, R"~(0)~", {R"~(y=<unset>)~"}},
    {R"~(1 || x)~", {{R"~(x)~", R"~(1/0)~"}}, R"~(1)~", {}},
    {R"~(0 && 2**(x-1))~", {{R"~(x)~", R"~(0)~"}}, R"~(!0 && 2**(x-1): exponent less than 0 (error token is ")"))~", {}},
    {R"~(0 && (1/0))~", {}, R"~(0)~", {}},
    {R"~(1 ? 3 : y++)~", {}, R"~(3)~", {R"~(y=<unset>)~"}},
    {R"~(y++ ? y : -1)~", {{R"~(y)~", R"~(0)~"}}, R"~(-1)~", {R"~(y=1)~"}},
    {R"~(y++ || y)~", {{R"~(y)~", R"~(0)~"}}, R"~(1)~", {R"~(y=1)~"}},
    {R"~(++x++)~", {{R"~(x)~", R"~(1)~"}}, R"~(!++x++: ++: assignment requires lvalue (error token is "++"))~", {R"~(x=2)~"}},
    {R"~(--x++)~", {{R"~(x)~", R"~(1)~"}}, R"~(!--x++: ++: assignment requires lvalue (error token is "++"))~", {R"~(x=0)~"}},
    {R"~(x++ = 1)~", {{R"~(x)~", R"~(1)~"}}, R"~(!x++ = 1: attempted assignment to non-variable (error token is "= 1"))~", {R"~(x=2)~"}},
    {R"~((x=5) = 1)~", {}, R"~(!(x=5) = 1: attempted assignment to non-variable (error token is "= 1"))~", {R"~(x=5)~"}},
    {R"~(x = 2, (y=3) + 1 = 4)~", {}, R"~(!x = 2, (y=3) + 1 = 4: attempted assignment to non-variable (error token is "= 4"))~", {R"~(x=2)~", R"~(y=3)~"}},
    {R"~(x=3, x**-x)~", {}, R"~(!x=3, x**-x: exponent less than 0 (error token is "x"))~", {R"~(x=3)~"}},
    {R"~(y=2, 09)~", {}, R"~(!y=2, 09: value too great for base (error token is "09"))~", {R"~(y=2)~"}},
    {R"~(z=1, z/0)~", {}, R"~(!z=1, z/0: division by 0 (error token is "0"))~", {R"~(z=1)~"}},
    {R"~(A_1 * a1 + _x)~", {{R"~(_x)~", R"~(1)~"}, {R"~(A_1)~", R"~(3)~"}, {R"~(a1)~", R"~(2)~"}}, R"~(7)~", {}},
    {R"~(_x + 1)~", {{R"~(_x)~", R"~(4)~"}}, R"~(5)~", {}},
    {R"~(a[1] + a[2])~", {{R"~(a[1])~", R"~(5)~"}, {R"~(a[2])~", R"~(6)~"}}, R"~(11)~", {}},
    {R"~(a[1+1])~", {{R"~(a[2])~", R"~(6)~"}}, R"~(6)~", {}},
    {R"~(a[i])~", {{R"~(a[1])~", R"~(5)~"}, {R"~(i)~", R"~(1)~"}}, R"~(5)~", {}},
    {R"~(a[x])~", {{R"~(a[1])~", R"~(5)~"}, {R"~(x)~", R"~(1+0)~"}}, R"~(5)~", {}},
    {R"~(a[3])~", {{R"~(a[1])~", R"~(5)~"}}, R"~(0)~", {}},
    {R"~(a[1]++)~", {{R"~(a[1])~", R"~(5)~"}}, R"~(5)~", {R"~(a[1]=6)~"}},
    {R"~(++a[1])~", {{R"~(a[1])~", R"~(5)~"}}, R"~(6)~", {R"~(a[1]=6)~"}},
    {R"~(a[2] = 7)~", {{R"~(a[1])~", R"~(5)~"}}, R"~(7)~", {R"~(a[2]=7)~"}},
    {R"~(a[1] *= a[1])~", {{R"~(a[1])~", R"~(5)~"}}, R"~(25)~", {R"~(a[1]=25)~"}},
    {R"~(a[i++] += 5)~", {{R"~(a[0])~", R"~(1)~"}, {R"~(i)~", R"~(0)~"}}, R"~(6)~", {R"~(a[0]=6)~", R"~(i=1)~"}},
    {R"~(a[i++]++)~", {{R"~(a[0])~", R"~(1)~"}, {R"~(i)~", R"~(0)~"}}, R"~(1)~", {R"~(a[0]=2)~", R"~(i=1)~"}},
    {R"~(a[a[1]])~", {{R"~(a[1])~", R"~(2)~"}, {R"~(a[2])~", R"~(9)~"}}, R"~(9)~", {}},
    {R"~(a[ 1 ] + 1)~", {{R"~(a[1])~", R"~(5)~"}}, R"~(6)~", {}},
    {R"~(a[1/0])~", {}, R"~(!1/0: division by 0 (error token is "0"))~", {}},
    {R"~(a[1])~", {{R"~(a[1])~", R"~(1/0)~"}}, R"~(!1/0: division by 0 (error token is "0"))~", {}},
    {R"~(a[1] + 1)~", {{R"~(a[1])~", R"~(x+)~"}}, R"~(!x+: syntax error: operand expected (error token is "+"))~", {}},
    {R"~(0 && a[1/0])~", {}, R"~(0)~", {}},
    {R"~(a [1])~", {{R"~(a[1])~", R"~(5)~"}}, R"~(!a [1]: syntax error: invalid arithmetic operator (error token is "[1]"))~", {}},
    };
    return table;
}

std::string after_state(const MapHost& h, const std::string& name) {
    auto it = h.vars.find(name);
    return name + "=" + (it == h.vars.end() ? "<unset>" : it->second);
}

TEST(ArithTable, Size) { EXPECT_GE(cases().size(), 200u); }

TEST(ArithTable, EvalText) {
    run_on_eval_stack([] {
        for (const Case& c : cases()) {
            MapHost h;
            for (const auto& [k, v] : c.vars) h.vars[k] = v;
            auto r = eval_text(c.expr, h);
            EXPECT_EQ(show(r), c.expect) << "expression: " << c.expr;
            for (const std::string& a : c.after) {
                std::string name = a.substr(0, a.find('='));
                EXPECT_EQ(after_state(h, name), a) << "expression: " << c.expr;
            }
        }
    });
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char ch : s) {
        if (ch == '\'') out += "'\\''";
        else out += ch;
    }
    return out + "'";
}

// Runs a script with /bin/bash and returns its standard output and error.
std::string run_bash(const std::string& script) {
    return bashkit::testing::run_bash_script(script, "", "2>&1").out;
}

// Drops "<name>: line N: " from a bash diagnostic.
std::string strip_prefix(const std::string& line) {
    size_t at = line.find(": line ");
    if (at == std::string::npos) return line;
    size_t p = at + 7;
    while (p < line.size() && line[p] >= '0' && line[p] <= '9') ++p;
    return line.compare(p, 2, ": ") == 0 ? line.substr(p + 2) : line;
}

TEST(ArithTable, MatchesBash) {
    if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash";
    // One script runs every case in a subshell and prints a separator line after each.
    std::string script;
    for (const Case& c : cases()) {
        script += "(\n";
        for (const auto& [k, v] : c.vars) script += k + "=" + shell_quote(v) + "\n";
        script += "__e=" + shell_quote(c.expr) + "\n";
        script += "( echo \"=$(($__e))\" ) 2>&1\n";
        script += "let \"$__e\" >/dev/null 2>&1\n";
        for (const std::string& a : c.after) {
            std::string name = a.substr(0, a.find('='));
            script += "echo \"@" + name + "=${" + name + "-<unset>}\"\n";
        }
        script += ")\necho '#--#'\n";
    }
    std::string out = run_bash(script);
    size_t pos = 0;
    for (const Case& c : cases()) {
        size_t sep = out.find("#--#\n", pos);
        ASSERT_NE(sep, std::string::npos) << "bash output ended early at: " << c.expr;
        std::string block = out.substr(pos, sep - pos);
        pos = sep + 5;
        std::vector<std::string> lines;
        for (size_t b = 0; b < block.size();) {
            size_t e = block.find('\n', b);
            if (e == std::string::npos) e = block.size();
            lines.push_back(block.substr(b, e - b));
            b = e + 1;
        }
        ASSERT_FALSE(lines.empty()) << c.expr;
        std::string got = lines[0].rfind("=", 0) == 0 ? lines[0].substr(1) : "!" + strip_prefix(lines[0]);
        EXPECT_EQ(got, c.expect) << "bash disagrees with the table on: " << c.expr;
        std::vector<std::string> after;
        for (size_t i = 1; i < lines.size(); ++i) {
            if (lines[i].rfind("@", 0) == 0) after.push_back(lines[i].substr(1));
        }
        EXPECT_EQ(after, c.after) << "bash disagrees with the table on: " << c.expr;
    }
}

// The same table through parse_arith() and eval(): where the text parses, the tree gives bash's value, side
// effects and message (trees only exist for text without syntax errors).
void trees_agree(int& parsed);

TEST(ArithTable, TreesAgree) {
    int parsed = 0;
    run_on_eval_stack([&] { trees_agree(parsed); });
    EXPECT_GE(parsed, 200);
}

void trees_agree(int& parsed) {
    for (const Case& c : cases()) {
        syntax::Arena arena;
        const syntax::ArithExpr* e = syntax::parse_arith(c.expr, arena, syntax::Pos{1, 1});
        if (e == nullptr) {
            bool blank = c.expr.find_first_not_of(" \t\n") == std::string::npos;
            bool bash_failed = c.expect.rfind("!", 0) == 0;
            EXPECT_TRUE(blank || bash_failed) << "does not parse, but bash evaluates it: " << c.expr;
            continue;
        }
        ++parsed;
        MapHost h;
        for (const auto& [k, v] : c.vars) h.vars[k] = v;
        ArithOptions o;
        o.source = c.expr;
        EXPECT_FALSE(has_expansions(*e)) << c.expr;
        auto r = eval(*e, h, o);
        EXPECT_EQ(show(r), c.expect) << "tree of: " << c.expr;
        for (const std::string& a : c.after) {
            std::string name = a.substr(0, a.find('='));
            EXPECT_EQ(after_state(h, name), a) << "tree of: " << c.expr;
        }
    }
}

// ---------------------------------------------------------------- trees

const syntax::ArithExpr* parse(syntax::Arena& arena, std::string_view text, syntax::Pos origin = {1, 1}) {
    const syntax::ArithExpr* e = syntax::parse_arith(text, arena, origin);
    EXPECT_NE(e, nullptr) << text;
    return e;
}

TEST(ArithTree, MessagesUseTheSourceAtItsOrigin) {
    // The text of $(( )) starting at line 3, column 10 of a script: messages are the same as from the text
    // (nodes carry byte offsets into the text, whatever line and column it starts at).
    for (std::string text : {"1/0 + 5", "1 +\n  1/0, 2", "x /= 0, 5", "2**-1 + 3", "1 ? 2 : 3**-1", "x = 2, 1 +\n09",
                             "(x) = 1", "--x++", "a[1] + 1 % 0"}) {
        syntax::Arena arena;
        const syntax::ArithExpr* e = parse(arena, text, syntax::Pos{3, 10});
        if (e == nullptr) continue;
        MapHost h1, h2;
        ArithOptions o;
        o.source = text;
        EXPECT_EQ(show(eval(*e, h1, o)), show(eval_text(text, h2))) << text;
        EXPECT_EQ(h1.vars, h2.vars) << text;
    }
}

// Nodes carry the byte offsets of their first and last tokens: messages quote the source as written.
TEST(ArithTree, MessagesQuoteTheSourceAtTheNodesOffsets) {
    syntax::Arena arena;
    MapHost h;
    auto with_source = [](std::string_view text) {
        ArithOptions o;
        o.source = text;
        return o;
    };
    EXPECT_EQ(show(eval(*parse(arena, "1/0+5"), h, with_source("1/0+5"))), "!1/0+5: division by 0 (error token is \"0+5\")");
    EXPECT_EQ(show(eval(*parse(arena, "x=(2**-1)"), h, with_source("x=(2**-1)"))),
              "!x=(2**-1): exponent less than 0 (error token is \")\")");
    EXPECT_EQ(show(eval(*parse(arena, "3+019"), h, with_source("3+019"))),
              "!3+019: value too great for base (error token is \"019\")");
    EXPECT_EQ(show(eval(*parse(arena, "a[1+\n1] / 0"), h, with_source("a[1+\n1] / 0"))),
              "!a[1+\n1] / 0: division by 0 (error token is \"0\")");
}

// A script's (( )) whose expansions are all in subscripts: the tree may be evaluated as it is (arith_exact), the
// subscript words expanded by the host, and messages quote the raw text with each expansion as written, at the
// offsets the tree counts (an expansion printed shorter than its source moves the rest of the text).
TEST(ArithTree, ExpansionsInSubscriptsKeepTheTree) {
    auto command = [](const syntax::ParseResult& pr) -> const syntax::ArithCmd* {
        if (!pr.ok() || pr.script->body.size != 1) return nullptr;
        return pr.script->body[0]->cmd->try_as<syntax::ArithCmd>();
    };
    MapHost h;
    h.vars = {{"i", "1"}, {"a[0]", "1"}, {"a[1]", "5"}, {"a[2]", "7"}};
    auto eval_cmd = [&](const syntax::ArithCmd& c) {
        ArithOptions o;
        o.source_word = c.raw;
        return show(eval(*c.expr, h, o));
    };
    syntax::ParseResult ok = syntax::parse("(( a[$i] + a[${i}1-9] * 2 ))\n");
    const syntax::ArithCmd* c = command(ok);
    ASSERT_NE(c, nullptr);
    ASSERT_NE(c->expr, nullptr);
    EXPECT_TRUE(c->exact);
    EXPECT_EQ(eval_cmd(*c), "19");
    syntax::ParseResult div = syntax::parse("(( a[$i]  +  a[\"$i\"] / (a[$((i - 1))]-1) ))\n");
    c = command(div);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->exact);
    EXPECT_EQ(eval_cmd(*c), "!a[$i]  +  a[\"$i\"] / (a[$((i - 1))]-1) : division by 0 (error token is \"(a[$((i - 1))]-1) \")");
    syntax::ParseResult spaced = syntax::parse("(( a[$(echo   1)] / 0 ))\n");
    c = command(spaced);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->exact);
    EXPECT_EQ(eval_cmd(*c), "!a[$(echo 1)] / 0 : division by 0 (error token is \"0 \")");
    // An expansion outside a subscript, or single quotes, leave it to the expanded text.
    for (const char* text : {"(( $i + 1 ))\n", "(( a[$i] + $i ))\n", "(( a['1'] ))\n", "(( a[$i]$i ))\n"}) {
        syntax::ParseResult pr = syntax::parse(text);
        c = command(pr);
        ASSERT_NE(c, nullptr) << text;
        EXPECT_FALSE(c->exact) << text;
    }
}

TEST(ArithTree, ExpansionsAreSubExpressions) {
    syntax::Arena arena;
    MapHost h;
    h.vars = {{"a", "1+2"}, {"n", "y"}};
    const syntax::ArithExpr* e = parse(arena, "$a * 3");
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(has_expansions(*e));
    // The tree treats $a as (1+2); bash substitutes the text first, which eval_text on "1+2 * 3" reproduces.
    EXPECT_EQ(show(eval(*e, h)), "9");
    EXPECT_EQ(show(eval_text("1+2 * 3", h)), "7");
    // An expansion naming a variable can be assigned to and incremented.
    EXPECT_EQ(show(eval(*parse(arena, "$n = 5"), h)), "5");
    EXPECT_EQ(h.vars["y"], "5");
    EXPECT_EQ(show(eval(*parse(arena, "$n++"), h)), "5");
    EXPECT_EQ(h.vars["y"], "6");
    ArithOptions o;
    o.source = "$a = 5";
    EXPECT_EQ(show(eval(*parse(arena, "$a = 5"), h, o)), "!$a = 5: attempted assignment to non-variable (error token is \"= 5\")");
}

TEST(ArithTree, SubscriptsAndShortCircuit) {
    syntax::Arena arena;
    MapHost h;
    h.vars = {{"a[0]", "1"}, {"a[1]", "2"}, {"i", "0"}};
    EXPECT_EQ(show(eval(*parse(arena, "a[i++] += 5"), h)), "6");
    EXPECT_EQ(h.vars["i"], "1");
    EXPECT_EQ(h.vars["a[0]"], "6");
    EXPECT_EQ(h.subscripts, 1);
    h.gets = h.sets = 0;
    EXPECT_EQ(show(eval(*parse(arena, "0 && (x = a[1/0] + y++)"), h)), "0");
    EXPECT_EQ(show(eval(*parse(arena, "1 ? 7 : x++"), h)), "7");
    EXPECT_EQ(h.gets + h.sets, 0);
    // The untaken side is still checked: bash reports a negative exponent or a bad constant there.
    ArithOptions o;
    o.source = "0 && 08";
    EXPECT_EQ(show(eval(*parse(arena, "0 && 08"), h, o)), "!0 && 08: value too great for base (error token is \"08\")");
}

TEST(ArithTree, DepthBudgetIsShared) {
    syntax::Arena arena;
    MapHost h;
    h.vars = {{"x", "x"}};
    EXPECT_EQ(show(eval(*parse(arena, "1 + x"), h)), "!x: expression recursion level exceeded (error token is \"x\")");
    ArithOptions o;
    o.depth.exprs = o.max_depth;
    EXPECT_FALSE(eval(*parse(arena, "1"), h, o));
    EXPECT_FALSE(eval_text("1", h, o));
    o.depth = ArithDepth{0, o.max_depth};
    EXPECT_FALSE(eval(*parse(arena, "1"), h, o));
    EXPECT_FALSE(eval_text("-1", h, o));  // (a plain number needs no nesting)
    // Subscripts evaluated by the host continue the count: 10 levels of 300 parentheses exceed it.
    std::string text = repeat("a[" + repeat("(", 300), 10) + "1" + repeat(repeat(")", 300) + "]", 10);
    auto r = eval_text(text, h);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("expression recursion level exceeded"), std::string::npos);
    EXPECT_EQ(show(eval_text(repeat("a[" + repeat("(", 30), 10) + "1" + repeat(repeat(")", 30) + "]", 10), h)), "0");
}

// ---------------------------------------------------------------- messages with odd whitespace

TEST(ArithText, Whitespace) {
    MapHost h;
    EXPECT_EQ(show(eval_text("\n1/0", h)), "!\n1/0: division by 0 (error token is \"0\")");
    EXPECT_EQ(show(eval_text("1/\n0", h)), "!1/\n0: division by 0 (error token is \"\n0\")");
    EXPECT_EQ(show(eval_text("1\r", h)), "!1\r: syntax error: invalid arithmetic operator (error token is \"\r\")");
    EXPECT_EQ(show(eval_text("\r1", h)), "!\r1: syntax error: operand expected (error token is \"\r1\")");
    EXPECT_EQ(show(eval_text("1 +\n2", h)), "3");
    EXPECT_EQ(show(eval_text("\n", h)), "0");
    EXPECT_EQ(show(eval_text(std::string_view("1+2\0+5", 6), h)), "3");  // bash strings end at NUL
}

// ---------------------------------------------------------------- the host

TEST(ArithHostTest, SubscriptEvaluatedOnceForCompoundAssignment) {
    MapHost h;
    h.vars = {{"a[0]", "1"}, {"a[1]", "2"}, {"i", "0"}};
    EXPECT_EQ(show(eval_text("a[i++] += 5", h)), "6");
    EXPECT_EQ(h.vars["i"], "1");
    EXPECT_EQ(h.vars["a[0]"], "6");
    EXPECT_EQ(h.subscripts, 1);
    EXPECT_EQ(show(eval_text("a[i++]++", h)), "2");
    EXPECT_EQ(h.vars["i"], "2");
    EXPECT_EQ(h.vars["a[1]"], "3");
    EXPECT_EQ(show(eval_text("a[i-1] = a[0] * 2", h)), "12");
    EXPECT_EQ(h.vars["a[1]"], "12");
    EXPECT_EQ(show(eval_text("a[ 1 ] + a[b[0]]", h)), "18");
}

TEST(ArithHostTest, Nounset) {
    MapHost h;
    h.unset_is_error = true;
    auto r = eval_text("b + 1", h);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ArithError::Kind::Unbound);
    EXPECT_EQ(r.error().message, "b: unbound variable");
    r = eval_text("b[1]", h);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "b: unbound variable");
    h.vars = {{"b", ""}, {"a[0]", "1"}};
    EXPECT_EQ(show(eval_text("b + 1", h)), "1");
    EXPECT_EQ(show(eval_text("a[5]", h)), "0");  // a missing element of an existing array is 0
    EXPECT_EQ(show(eval_text("0 && c", h)), "0");  // not read
    EXPECT_EQ(show(eval_text("c = 4", h)), "4");   // not read either
}

TEST(ArithHostTest, HostErrorsPropagate) {
    MapHost h;
    h.readonly = {"r"};
    auto r = eval_text("x = 1, r = 5", h);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ArithError::Kind::Host);
    EXPECT_EQ(r.error().message, "r: readonly variable");
    EXPECT_EQ(h.vars["x"], "1");
    // An error inside a subscript is reported as is.
    r = eval_text("a[1/0]", h);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "1/0: division by 0 (error token is \"0\")");
}

TEST(ArithHostTest, NoHostCallsWhereEvaluationIsOff) {
    MapHost h;
    EXPECT_EQ(show(eval_text("0 && (x = y + z[1/0] + w++)", h)), "0");
    EXPECT_EQ(show(eval_text("1 || (x = y + z[1/0] + w++)", h)), "1");
    EXPECT_EQ(show(eval_text("1 ? 2 : (x = y + z[1/0] + w++)", h)), "2");
    EXPECT_EQ(show(eval_text("0 ? (x = y + z[1/0] + ++w) : 3", h)), "3");
    EXPECT_EQ(h.gets, 0);
    EXPECT_EQ(h.sets, 0);
}

TEST(ArithHostTest, ParseNumber) {
    EXPECT_EQ(*parse_number("0x1F"), 31);
    EXPECT_EQ(*parse_number("64#_"), 63);
    EXPECT_EQ(*parse_number("017"), 15);
    EXPECT_EQ(parse_number("09").error().message, "value too great for base");
    EXPECT_EQ(parse_number("1#0").error().message, "invalid arithmetic base");
    EXPECT_EQ(parse_number("0#0").error().message, "invalid number");
    EXPECT_EQ(parse_number("16#").error().message, "invalid integer constant");
}

// ---------------------------------------------------------------- hostile input


TEST(ArithHostile, VariableChainHitsBashLimit) {
    // v0=v1, v1=v2, ..., vN=7: bash evaluates 1023 nested references and fails on the next one.
    for (int n : {1022, 1023}) {
        MapHost h;
        auto name = [](int i) {
            std::string s = "v";
            s += std::to_string(i);
            return s;
        };
        for (int i = 0; i < n; ++i) h.vars[name(i)] = name(i + 1);
        h.vars[name(n)] = "7";
        auto r = eval_text("v0", h);
        if (n == 1022) {
            EXPECT_EQ(show(r), "7");
        } else {
            EXPECT_EQ(show(r), "!v1023: expression recursion level exceeded (error token is \"v1023\")");
        }
    }
    MapHost h;
    h.vars["x"] = "x + 1";
    EXPECT_EQ(show(eval_text("x", h)), "!x + 1: expression recursion level exceeded (error token is \"x + 1\")");
}

TEST(ArithHostile, DeepNestingFailsCleanly) {
    MapHost h;
    for (std::string text : {repeat("(", 100000) + "1" + repeat(")", 100000), repeat("-", 100000) + "1",
                             repeat("!", 100000) + "1", repeat("x=", 100000) + "1",
                             repeat("1?", 100000) + "1" + repeat(":1", 100000), repeat("0?1:", 100000) + "1",
                             repeat("a[", 5000) + "1" + repeat("]", 5000), repeat("+", 100000) + "1"}) {
        auto r = eval_text(text, h);
        ASSERT_FALSE(r) << text.substr(0, 20);
        EXPECT_NE(r.error().message.find("expression recursion level exceeded"), std::string::npos)
            << text.substr(0, 20) << ": " << r.error().message.substr(0, 200);
    }
    // Moderate nesting is fine.
    EXPECT_EQ(show(eval_text(repeat("(", 500) + "1" + repeat(")", 500), h)), "1");
    EXPECT_EQ(show(eval_text(repeat("- ", 500) + "1", h)), "1");
    // Chains of binary operators use no recursion: 2**2**...**2 is computed (right to left, wrapping).
    EXPECT_EQ(show(eval_text(repeat("2**", 100000) + "2", h)), "0");
    EXPECT_EQ(show(eval_text(repeat("1||0&&", 100000) + "1", h)), "1");
}

TEST(ArithHostile, LongInputIsLinear) {
    MapHost h;
    h.vars["x"] = "1";
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(show(eval_text(repeat("1+", 200000) + "1", h)), "200001");
    EXPECT_EQ(show(eval_text(repeat("x+", 200000) + "x", h)), "200001");
    EXPECT_EQ(show(eval_text(repeat("1,", 200000) + "5", h)), "5");
    EXPECT_FALSE(eval_text(repeat("a ", 200000), h));
    EXPECT_FALSE(eval_text(repeat("a[1] ", 100000), h));
    EXPECT_EQ(show(eval_text(repeat("9", 100000), h)), "-1");  // 10**100000 - 1 wraps to -1
    EXPECT_EQ(show(eval_text("2**9999999999 + 3**9223372036854775807", h)), "-6148914691236517205");
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    EXPECT_LT(ms.count(), 20000);  // generous for sanitizer builds; quadratic time would take minutes
}

}  // namespace
}  // namespace bashkit::interp
