// Parse throughput on a realistic agent script (bench/data/agent_script.sh), reported as bytes/s.
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"

namespace sx = bashkit::syntax;

namespace {

const std::string& agent_script() {
    static const std::string text = [] {
        std::ifstream in(BASHKIT_SOURCE_DIR "/bench/data/agent_script.sh", std::ios::binary);
        if (!in) throw std::runtime_error("bench/data/agent_script.sh not found");
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }();
    return text;
}

// The script repeated to about `bytes` bytes, so the parser's per-call overhead is amortised.
std::string repeated(size_t bytes) {
    std::string out;
    while (out.size() < bytes) out += agent_script();
    return out;
}

void BM_ParseAgentScript(benchmark::State& state) {
    const std::string& src = agent_script();
    for (auto _ : state) {
        auto r = sx::parse(src);
        if (!r.ok()) state.SkipWithError("parse failed");
        benchmark::DoNotOptimize(r.script);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(src.size()));
}
BENCHMARK(BM_ParseAgentScript);

void BM_ParseLarge(benchmark::State& state) {
    const std::string src = repeated(size_t(state.range(0)));
    for (auto _ : state) {
        auto r = sx::parse(src);
        if (!r.ok()) state.SkipWithError("parse failed");
        benchmark::DoNotOptimize(r.script);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(src.size()));
}
BENCHMARK(BM_ParseLarge)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

void BM_PrintAgentScript(benchmark::State& state) {
    auto r = sx::parse(agent_script());
    if (!r.ok()) {
        state.SkipWithError("parse failed");
        return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(sx::print(*r.script));
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(agent_script().size()));
}
BENCHMARK(BM_PrintAgentScript);

}  // namespace
