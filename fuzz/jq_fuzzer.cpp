// libFuzzer target for the jq language: the parser, the compile checks, and the evaluator under a tight
// budget (64 MiB, 100 ms, 1000 outputs). Input: the program, NUL, the JSON input (null when absent or not
// JSON).
//
// Properties: no crash, sanitizer report, leak or hang; every failure is one of the evaluator's declared
// outcomes (JqError, JqHalt, JqCancelled, MemoryLimitExceeded); a parse failure has messages.
#include <chrono>
#include <string>
#include <vector>

#include "utils/jq/engine.hpp"
#include "utils/jq/value.hpp"
#include "fuzz/fuzz_input.hpp"
#include "interp/fiber.hpp"
#include "interp/governor.hpp"

namespace jq = bashkit::utils::jq;
using bashkit::fuzz::finding;

namespace {

class FuzzHost : public jq::Host {
public:
    explicit FuzzHost(std::chrono::steady_clock::time_point deadline) : deadline_(deadline) {}
    bool next_input(jq::Value& out) override {
        if (inputs_-- <= 0) return false;
        out = jq::Value::number(inputs_);
        return true;
    }
    void debug(const jq::Value& msg) override { (void)jq::to_json(msg); }
    void stderr_value(const jq::Value& v) override { (void)jq::to_json(v); }
    jq::Value input_filename() override { return jq::Value(); }
    double input_line_number() override { return 0; }
    bool cancelled() override { return std::chrono::steady_clock::now() > deadline_; }
    double now() override { return 1700000000.5; }

private:
    std::chrono::steady_clock::time_point deadline_;
    int inputs_ = 2;
};

void check(const uint8_t* data, size_t size) {
    bashkit::fuzz::Fields in(data, size);
    std::string program(in[0]);
    bashkit::interp::MemoryBudget budget(size_t{64} << 20);
    jq::BudgetScope scope(&budget);
    std::string errors;
    int nerrors = 0;
    std::shared_ptr<jq::Program> prog = jq::parse_program(program, errors, nerrors);
    if (!prog) {
        if (nerrors == 0 || errors.empty()) finding("a parse failure without a message", program);
        return;
    }
    if (!jq::check_program(*prog, {"ENV", "ARGS", "__prog_args"}, errors, nerrors) || nerrors > 0) return;

    jq::Value input;
    std::string err;
    if (!jq::parse_json(in[1], input, err)) input = jq::Value();
    FuzzHost host(std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
    host.named_args = jq::Value::object();
    try {
        jq::Evaluator ev(prog, host);
        int outputs = 0;
        ev.run(input, [&](const jq::Value& v) {
            (void)jq::to_json(v);
            return ++outputs < 1000;
        });
    } catch (const jq::JqError& e) {
        (void)jq::to_json(e.v);
    } catch (const jq::JqHalt&) {
    } catch (const jq::JqCancelled&) {
    } catch (const bashkit::interp::MemoryLimitExceeded&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    // On a stack as large as the shell's evaluation fiber, where jq runs (a pipeline stage's has 64 MiB):
    // printing a value 10,000 levels deep (jq's limit) takes more than a sanitized build's 8 MiB main stack.
    bashkit::interp::run_on_eval_stack([&] { check(data, size); });
    return 0;
}
