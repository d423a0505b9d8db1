// The README's generated sections: between `<!-- NAME:begin -->` and `<!-- NAME:end -->` the README must hold
// exactly what the code produces here. On a difference the test prints the whole block to paste in.
//   commands: the shell builtins (`compgen -b`) and the utilities of each family of utils::families()
//   limits:   the defaults of ExecutionLimits, FsLimits and ArchiveLimits
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "utils/archive/archive.hpp"
#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/limited_fs.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit {
namespace {

std::string readme() {
    std::ifstream in(std::string(BASHKIT_SOURCE_DIR) + "/README.md");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The text between the markers, or "<no NAME block>".
std::string block(const std::string& text, const std::string& name) {
    const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
    auto a = text.find(begin);
    auto b = a == std::string::npos ? a : text.find(end, a);
    if (b == std::string::npos) return "<no " + name + " block>";
    return text.substr(a + begin.size(), b - a - begin.size());
}

std::string code_list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "`" : " `") + n + "`";
    return out;
}

std::vector<std::string> shell_builtins() {
    vfs::MemoryFs fs;
    interp::CommandRegistry none;
    interp::Shell sh(fs, none, {});
    auto r = sh.run("compgen -b");
    std::vector<std::string> names;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) names.push_back(line);
    return names;
}

// A registry help line is "USAGE: SUMMARY" (or "USAGE : SUMMARY"); the separator is the first ": " outside
// brackets and parentheses (usages like find's hold colons of their own).
std::pair<std::string, std::string> split_help(const std::string& help) {
    int depth = 0;
    for (std::size_t i = 0; i + 1 < help.size(); ++i) {
        const char c = help[i];
        if (c == '[' || c == '(') ++depth;
        if ((c == ']' || c == ')') && depth > 0) --depth;
        if (depth == 0 && c == ':' && help[i + 1] == ' ') {
            std::size_t end = i;
            while (end > 0 && help[end - 1] == ' ') --end;
            return {help.substr(0, end), help.substr(i + 2)};
        }
    }
    return {help, ""};
}

std::string commands_block() {
    std::string out;
    const auto builtins = shell_builtins();
    std::size_t total = 0;
    std::string families;
    for (const auto& f : utils::families()) {
        interp::CommandRegistry r;
        f.add(r);
        const auto names = r.names();
        total += names.size();
        families += "\n**" + std::string(f.what) + "** (`utils/" + std::string(f.name) + "/`, " +
                    std::to_string(names.size()) + "):\n\n";
        for (const auto& n : names) {
            const auto [usage, summary] = split_help(r.find(n)->help);
            families += "- `" + usage + "`" + (summary.empty() ? "" : ": " + summary) + "\n";
        }
    }
    out += std::to_string(builtins.size()) + " shell builtins and " + std::to_string(total) + " utilities in " +
           std::to_string(utils::families().size()) + " families.\n\n";
    out += "**shell builtins** (" + std::to_string(builtins.size()) + ", as in bash; `help NAME` shows the usage): " +
           code_list(builtins) + "\n" + families;
    return out;
}

std::string bytes(uint64_t n) {
    if (n >= (uint64_t{1} << 30) && n % (uint64_t{1} << 30) == 0) return std::to_string(n >> 30) + " GiB";
    if (n >= (uint64_t{1} << 20) && n % (uint64_t{1} << 20) == 0) return std::to_string(n >> 20) + " MiB";
    return std::to_string(n) + " bytes";
}

std::string limits_block() {
    const interp::ExecutionLimits e;
    const vfs::FsLimits f;
    const utils::ArchiveLimits a;
    struct Row {
        std::string name, value, flag = {};  // flag: the bashkit command's option that sets it
    };
    const std::vector<Row> rows = {
        {"ExecutionLimits::timeout", std::to_string(e.timeout.count() / 1000) + " s", "--timeout SECONDS"},
        {"ExecutionLimits::max_memory_bytes", bytes(e.max_memory_bytes), "--max-memory SIZE"},
        {"ExecutionLimits::max_output_bytes", bytes(e.max_output_bytes), "--max-output SIZE"},
        {"ExecutionLimits::max_call_depth", std::to_string(e.max_call_depth)},
        {"ExecutionLimits::max_subshell_depth", std::to_string(e.max_subshell_depth)},
        {"ExecutionLimits::max_eval_depth", std::to_string(e.max_eval_depth)},
        {"ExecutionLimits::max_variable_bytes", bytes(e.max_variable_bytes)},
        {"ExecutionLimits::max_total_variable_bytes",
         e.max_total_variable_bytes ? bytes(e.max_total_variable_bytes) : std::string("0 (the memory budget)")},
        {"ExecutionLimits::max_array_entries", std::to_string(e.max_array_entries)},
        {"ExecutionLimits::max_background_jobs", std::to_string(e.max_background_jobs)},
        {"ExecutionLimits::max_threads", std::to_string(e.max_threads)},
        {"ExecutionLimits::max_loop_iterations", e.max_loop_iterations ? std::to_string(e.max_loop_iterations)
                                                                       : std::string("0 (none)")},
        {"ExecutionLimits::max_printf_width", std::to_string(e.max_printf_width)},
        {"FsLimits::max_total_bytes", bytes(f.max_total_bytes), "--max-total-bytes SIZE"},
        {"FsLimits::max_file_bytes", bytes(f.max_file_bytes), "--max-file-bytes SIZE"},
        {"FsLimits::max_nodes", std::to_string(f.max_nodes), "--max-nodes N"},
        {"FsLimits::max_path_length", std::to_string(f.max_path_length)},
        {"FsLimits::max_name_length", std::to_string(f.max_name_length)},
        {"FsLimits::max_depth", std::to_string(f.max_depth)},
        {"FsLimits::max_open_files", std::to_string(f.max_open_files), "--max-open-files N"},
        {"ArchiveLimits::max_expanded_bytes", bytes(a.max_expanded_bytes)},
        {"ArchiveLimits::max_entries", std::to_string(a.max_entries)},
        {"ArchiveLimits::max_archive_bytes", bytes(a.max_archive_bytes)},
    };
    std::string out = "| limit | default | `bashkit` option |\n| --- | --- | --- |\n";
    for (const auto& r : rows)
        out += "| `" + r.name + "` | " + r.value + " | " + (r.flag.empty() ? "" : "`" + r.flag + "`") + " |\n";
    return out;
}

TEST(Readme, CommandListIsTheCodes) {
    const std::string expected = commands_block();
    EXPECT_EQ(block(readme(), "commands"), expected) << "README.md's commands block should read:\n" << expected;
}

TEST(Readme, LimitsTableIsTheCodes) {
    const std::string expected = limits_block();
    EXPECT_EQ(block(readme(), "limits"), expected) << "README.md's limits block should read:\n" << expected;
}

TEST(Readme, EveryRegisteredUtilityIsInOneFamily) {
    std::size_t sum = 0;
    for (const auto& f : utils::families()) {
        interp::CommandRegistry r;
        f.add(r);
        sum += r.names().size();
    }
    EXPECT_EQ(sum, utils::all_utilities().names().size()) << "a name is registered by two families";
    EXPECT_GT(shell_builtins().size(), 50u);
}

}  // namespace
}  // namespace bashkit
