// libFuzzer target for the arithmetic evaluator ($(( )), let, subscripts). Input: the expression, then
// NUL-separated values for the variables a, b, c, d (each itself an expression, as bash evaluates it).
//
// Properties: no crash, sanitizer report or hang (recursion through variable values is bounded by
// max_depth); and where the text parses to a tree without expansions, evaluating the tree (eval) agrees with
// evaluating the text (eval_text: the text parsed again as run-time text, errors kept in the tree) on success,
// value and the variables left behind.
#include <functional>
#include <map>
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "interp/arith.hpp"
#include "interp/fiber.hpp"
#include "interp/syntax/parser.hpp"

namespace ia = bashkit::interp;

namespace {

class MapHost : public ia::ArithHost {
public:
    explicit MapHost(const bashkit::fuzz::Fields& in) {
        const char* names[] = {"a", "b", "c", "d"};
        for (size_t i = 0; i < 4; ++i) {
            if (i + 1 < in.size()) vars[names[i]] = std::string(in[i + 1]);
        }
    }
    ia::ArithResult<std::optional<std::string>> get(ia::ArithRef& ref) override {
        auto key = name_of(ref);
        if (!key.ok()) return key.error();
        ref.resolved = *key;
        auto it = vars.find(*key);
        if (it == vars.end()) return std::optional<std::string>();
        return std::optional<std::string>(it->second);
    }
    ia::ArithResult<void> set(ia::ArithRef& ref, int64_t value) override {
        std::string key;
        if (ref.resolved) {
            key = *ref.resolved;
        } else {
            auto k = name_of(ref);
            if (!k.ok()) return k.error();
            key = *k;
        }
        vars[key] = std::to_string(value);
        return {};
    }
    ia::ArithResult<std::string> expand(const bashkit::syntax::Word&) override {
        return ia::ArithError{ia::ArithError::Kind::Host, "no expansion here"};
    }
    std::map<std::string, std::string> vars;

private:
    // An indexed element: its subscript evaluated as an expression, like bash's indexed arrays.
    ia::ArithResult<std::string> name_of(ia::ArithRef& ref) {
        if (!ref.has_index) return std::string(ref.name);
        if (ref.index_word) return ia::ArithError{ia::ArithError::Kind::Host, "word subscript"};
        ia::ArithOptions o;
        o.depth = ref.depth;
        auto idx = ia::eval_text(ref.index_text, *this, o);
        if (!idx.ok()) return idx.error();
        return std::string(ref.name) + "[" + std::to_string(*idx) + "]";
    }
};

}  // namespace

namespace {

void check(const uint8_t* data, size_t size) {
    bashkit::fuzz::Fields in(data, size);
    std::string_view text = in[0];
    (void)ia::parse_number(text);

    MapHost by_text(in);
    auto r_text = ia::eval_text(text, by_text);

    bashkit::syntax::Arena arena;
    const bashkit::syntax::ArithExpr* tree = bashkit::syntax::parse_arith(text, arena);
    if (!tree || ia::has_expansions(*tree)) return;
    MapHost by_tree(in);
    ia::ArithOptions o;
    o.source = text;
    auto r_tree = ia::eval(*tree, by_tree, o);
    if (r_text.ok() && r_tree.ok()) {
        if (*r_text != *r_tree) bashkit::fuzz::finding("eval and eval_text disagree on the value", text);
        if (by_text.vars != by_tree.vars) bashkit::fuzz::finding("eval and eval_text leave other variables", text);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    // On a stack as large as the shell's evaluation fiber: a variable whose value is an expression opens a
    // new one, down to max_depth (1024) levels, which the 8 MiB main stack of a sanitized build cannot hold.
    ia::run_on_eval_stack([&] { check(data, size); });
    return 0;
}
