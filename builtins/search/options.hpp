// grep and rg's tables over the utilities' one getopt_long (builtins/common/args.hpp): bundled short options
// (-inr), attached or separate arguments (-m5, -m 5, --max-count=5, --max-count 5), unambiguous abbreviations
// of long options, `--`, GNU's permutation (options may follow operands) and grep's digit options (-5, -n5).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bashkit::builtins::search {

enum class ArgKind { kNone, kRequired, kOptional };

struct OptionSpec {
    std::string_view long_name;  // without "--"; empty for a short-only option
    char short_name = 0;         // 0 for a long-only option
    ArgKind arg = ArgKind::kNone;
    int id = 0;
};

struct ParsedOption {
    int id = 0;
    std::string arg;
    bool has_arg = false;
    std::string spelling;  // as written, for messages: "-m" or "--max-count"
};

struct ParsedArgs {
    std::vector<ParsedOption> options;  // in command-line order
    std::vector<std::string> operands;
    // The first error, in GNU getopt's words (without the program prefix); empty on success.
    std::string error;
};

// kDigitId: the id given to a -NUM digit run (grep's -5 for -C 5); 0 means digits are not options.
ParsedArgs parse_options(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs,
                         int digit_id = 0, bool permute = true);

}  // namespace bashkit::builtins::search
