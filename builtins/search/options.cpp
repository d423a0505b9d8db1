#include "builtins/search/options.hpp"

#include "builtins/common/args.hpp"

namespace bashkit::builtins::search {

ParsedArgs parse_options(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs, int digit_id,
                         bool permute) {
    // The utilities' one getopt_long (builtins/common/args.hpp), over grep's and rg's tables.
    std::vector<builtins::OptionSpec> common;
    common.reserve(specs.size());
    for (const auto& s : specs) {
        const builtins::ArgKind kind = s.arg == ArgKind::kNone       ? builtins::ArgKind::none
                                       : s.arg == ArgKind::kRequired ? builtins::ArgKind::required
                                                                     : builtins::ArgKind::optional;
        common.push_back({s.id, s.short_name, s.long_name, kind});
    }
    builtins::ParseConfig config;
    config.mode = permute ? builtins::ParseMode::Permute : builtins::ParseMode::StopAtOperand;
    config.digit_option = digit_id;
    config.digits_in_clusters = true;
    builtins::ParsedArgs parsed = builtins::parse_args(argv, common, config);
    ParsedArgs r;
    r.options.reserve(parsed.options.size());
    for (auto& o : parsed.options) r.options.push_back({o.id, std::move(o.value), o.has_value, std::move(o.spelled)});
    r.operands = std::move(parsed.operands);
    r.error = std::move(parsed.error);
    return r;
}

}  // namespace bashkit::builtins::search
