// Interpreter benchmarks: the workloads of bench/compare, measured in-process.
#include <benchmark/benchmark.h>

#include <string>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "sandbox/bashkit_sandbox.hpp"
#include "vfs/memory_fs.hpp"

namespace bi = bashkit::interp;

namespace {

const bi::CommandRegistry& registry() { return bashkit::utils::all_utilities(); }

void run_script(benchmark::State& state, const std::string& script) {
    bashkit::vfs::MemoryFs fs;
    bi::Shell sh(fs, registry());
    for (auto _ : state) {
        auto r = sh.run(script);
        if (r.exit_code != 0) state.SkipWithError(("status " + std::to_string(r.exit_code) + ": " + r.err).c_str());
        benchmark::DoNotOptimize(r.out);
    }
}

void BM_ArithLoop(benchmark::State& state) {
    run_script(state, "x=0; for ((i=0;i<" + std::to_string(state.range(0)) + ";i++)); do x=$((x+i)); done");
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ArithLoop)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_FunctionCalls(benchmark::State& state) {
    run_script(state, "f() { :; }; for ((i=0;i<" + std::to_string(state.range(0)) + ";i++)); do f; done");
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FunctionCalls)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_StringAppend(benchmark::State& state) {
    run_script(state, "s=; for ((i=0;i<" + std::to_string(state.range(0)) + ";i++)); do s+=x; done");
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_StringAppend)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ExecuteTrueWarm(benchmark::State& state) {
    bashkit::vfs::MemoryFs fs;
    bi::Shell sh(fs, registry());
    (void)sh.run("true");
    for (auto _ : state) benchmark::DoNotOptimize(sh.run("true").exit_code);
}
BENCHMARK(BM_ExecuteTrueWarm)->Unit(benchmark::kMicrosecond);

// A two-stage pipeline of a builtin and a utility, and a command substitution, on a warm session.
void BM_PipelineWarm(benchmark::State& state) { run_script(state, "echo hi | wc -c"); }
BENCHMARK(BM_PipelineWarm)->Unit(benchmark::kMicrosecond);

void BM_CommandSubstWarm(benchmark::State& state) { run_script(state, "x=$(echo hi)"); }
BENCHMARK(BM_CommandSubstWarm)->Unit(benchmark::kMicrosecond);

void BM_NewSessionEchoHi(benchmark::State& state) {
    for (auto _ : state) {
        bashkit::vfs::MemoryFs fs;
        bi::Shell sh(fs, registry());
        benchmark::DoNotOptimize(sh.run("echo hi").out);
    }
}
BENCHMARK(BM_NewSessionEchoHi)->Unit(benchmark::kMicrosecond);

// The sandbox API's whole life of a session on an ephemeral (in-memory) tree: open, one execute, close.
void BM_SandboxEphemeralOpenExecuteClose(benchmark::State& state) {
    bashkit::sandbox::BashkitSandboxOptions o;
    o.ephemeral = true;
    bashkit::sandbox::BashkitSandbox sb(o);
    for (auto _ : state) {
        bashkit::sandbox::SandboxSession s = sb.open();
        auto r = s.execute("echo hi");
        if (r.exit_code != 0) state.SkipWithError(r.stderr_.c_str());
        s.close();
    }
}
BENCHMARK(BM_SandboxEphemeralOpenExecuteClose)->Unit(benchmark::kMicrosecond);

// A warm sandbox session (what the Python module and the server call): `true` and a two-stage pipeline.
void sandbox_warm(benchmark::State& state, const std::string& command) {
    bashkit::sandbox::BashkitSandboxOptions o;
    o.ephemeral = true;
    bashkit::sandbox::BashkitSandbox sb(o);
    bashkit::sandbox::SandboxSession s = sb.open();
    (void)s.execute(command);
    for (auto _ : state) {
        auto r = s.execute(command);
        if (r.exit_code != 0) state.SkipWithError(r.stderr_.c_str());
    }
}
void BM_SandboxTrueWarm(benchmark::State& state) { sandbox_warm(state, "true"); }
BENCHMARK(BM_SandboxTrueWarm)->Unit(benchmark::kMicrosecond);
void BM_SandboxPipelineWarm(benchmark::State& state) { sandbox_warm(state, "echo hi | wc -c"); }
BENCHMARK(BM_SandboxPipelineWarm)->Unit(benchmark::kMicrosecond);

}  // namespace
