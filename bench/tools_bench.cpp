// Utility benchmarks: the workloads of bench/compare_tools (grep, sort, wc, sed, awk, jq), measured in-process
// over an in-memory file system, without process start-up or host I/O. The data is the same kind of
// log-like text as compare_tools generates, smaller (TOOLS_BENCH_MB, default 8 MB), made once per process.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bi = bashkit::interp;

namespace {

const bi::CommandRegistry& registry() { return bashkit::utils::all_utilities(); }

size_t data_bytes() {
    const char* mb = std::getenv("TOOLS_BENCH_MB");
    const long v = mb ? std::atol(mb) : 8;
    return static_cast<size_t>(v > 0 ? v : 8) << 20;
}

// A deterministic generator (Park-Miller, as compare_tools' awk one).
struct Rng {
    uint64_t seed;
    uint64_t operator()(uint64_t m) {
        seed = seed * 16807 % 2147483647;
        return seed % m;
    }
};

// "LEVEL word N word word ..." lines, about `bytes` of them.
std::string make_text(size_t bytes) {
    static constexpr const char* kSyl[] = {"ka", "lo", "mi", "ne", "ru", "ta", "po", "si",
                                           "de", "fa", "gu", "ho", "ji", "be", "zo", "wa"};
    static constexpr const char* kLevel[] = {"INFO", "INFO", "INFO", "INFO", "INFO", "INFO",
                                             "DEBUG", "DEBUG", "DEBUG", "WARN", "WARN", "ERROR"};
    Rng r{20240607};
    std::string voc[1500];
    for (auto& w : voc)
        for (uint64_t j = 0, n = 2 + r(3); j < n; ++j) w += kSyl[r(16)];
    std::string out;
    out.reserve(bytes + 256);
    while (out.size() < bytes) {
        out += kLevel[r(12)];
        out += ' ';
        out += voc[r(1500)];
        out += ' ';
        out += std::to_string(r(100000));
        for (uint64_t j = 0, n = 3 + r(8); j < n; ++j) {
            out += ' ';
            out += voc[r(1500)];
        }
        out += '\n';
    }
    return out;
}

// One JSON array of objects, about `bytes` long.
std::string make_json(size_t bytes) {
    Rng r{99991};
    std::string out = "[";
    for (uint64_t i = 0; out.size() < bytes; ++i) {
        if (i) out += ',';
        out += "\n{\"id\":" + std::to_string(i) + ",\"x\":" + std::to_string(r(11)) + ",\"score\":" +
               std::to_string(r(1000)) + "." + std::to_string(r(100)) + ",\"ok\":" + (r(2) ? "true" : "false") + "}";
    }
    out += "\n]\n";
    return out;
}

// A file system with /data/text.txt and /data/array.json, made once.
bashkit::vfs::MemoryFs& data_fs() {
    static bashkit::vfs::MemoryFs* fs = [] {
        auto* f = new bashkit::vfs::MemoryFs();
        (void)f->mkdir("/data", 0755);
        for (auto [path, body] : {std::pair{"/data/text.txt", make_text(data_bytes())},
                                  std::pair{"/data/array.json", make_json(data_bytes() / 2)}}) {
            auto h = f->open(path, bashkit::vfs::OpenFlags::write | bashkit::vfs::OpenFlags::create, 0644);
            if (h) (void)(*h)->write(body);
        }
        return f;
    }();
    return *fs;
}

void run_tool(benchmark::State& state, const std::string& script, size_t bytes) {
    bi::Shell sh(data_fs(), registry());
    for (auto _ : state) {
        auto r = sh.run(script);
        if (r.exit_code != 0) state.SkipWithError(("status " + std::to_string(r.exit_code) + ": " + r.err).c_str());
        benchmark::DoNotOptimize(r.out);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

void BM_GrepCountLiteral(benchmark::State& s) { run_tool(s, "grep -c ERROR /data/text.txt", data_bytes()); }
void BM_GrepCountRegex(benchmark::State& s) {
    run_tool(s, "grep -c -E 'ka(lo|mi)+ [0-9]+7 ' /data/text.txt", data_bytes());
}
void BM_Sort(benchmark::State& s) { run_tool(s, "sort /data/text.txt > /dev/null", data_bytes()); }
void BM_SortKeyNumeric(benchmark::State& s) { run_tool(s, "sort -k3,3n /data/text.txt > /dev/null", data_bytes()); }
void BM_WcLines(benchmark::State& s) { run_tool(s, "wc -l /data/text.txt", data_bytes()); }
void BM_WcWords(benchmark::State& s) { run_tool(s, "wc -w /data/text.txt", data_bytes()); }
void BM_SedSubst(benchmark::State& s) { run_tool(s, "sed 's/a/b/g' /data/text.txt > /dev/null", data_bytes()); }
void BM_AwkSum(benchmark::State& s) { run_tool(s, "awk '{s+=$3} END {print s}' /data/text.txt", data_bytes()); }
void BM_JqSelect(benchmark::State& s) {
    run_tool(s, "jq '.[] | select(.x > 5)' /data/array.json > /dev/null", data_bytes() / 2);
}

BENCHMARK(BM_GrepCountLiteral)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GrepCountRegex)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sort)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SortKeyNumeric)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WcLines)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WcWords)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SedSubst)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AwkSum)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JqSelect)->Unit(benchmark::kMillisecond);

}  // namespace
