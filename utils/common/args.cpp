#include "utils/common/args.hpp"

#include <algorithm>

namespace bashkit::utils {

bool ParsedArgs::has(int id) const {
    return std::any_of(options.begin(), options.end(), [id](const ParsedOption& o) { return o.id == id; });
}

const ParsedOption* ParsedArgs::last(int id) const {
    for (auto it = options.rbegin(); it != options.rend(); ++it)
        if (it->id == id) return &*it;
    return nullptr;
}

namespace {

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One long option word (without the leading "--"). Returns false on error (message in out.error).
bool parse_long(std::string_view word, std::span<const std::string> args, size_t& i,
                std::span<const OptionSpec> specs, ParsedArgs& out) {
    size_t eq = word.find('=');
    std::string_view name = word.substr(0, eq);
    const OptionSpec* found = nullptr;
    for (const auto& s : specs)
        if (!s.long_name.empty() && s.long_name == name) {
            found = &s;
            break;
        }
    if (!found) {
        // Prefix matches: ambiguous only when a later match differs from the first one in meaning.
        std::vector<const OptionSpec*> ambiguous;
        for (const auto& s : specs) {
            if (s.long_name.empty() || s.long_name.size() < name.size() ||
                s.long_name.substr(0, name.size()) != name)
                continue;
            if (!found) {
                found = &s;
            } else if (found->id != s.id || found->arg != s.arg) {
                if (ambiguous.empty()) ambiguous.push_back(found);
                ambiguous.push_back(&s);
            }
        }
        if (!ambiguous.empty()) {
            // glibc lists them in table order.
            std::string msg = "option '--" + std::string(word) + "' is ambiguous; possibilities:";
            for (const auto& s : specs)
                if (std::find(ambiguous.begin(), ambiguous.end(), &s) != ambiguous.end())
                    msg += " '--" + std::string(s.long_name) + "'";
            out.error = std::move(msg);
            return false;
        }
    }
    if (!found) {
        out.error = "unrecognized option '--" + std::string(word) + "'";
        return false;
    }
    ParsedOption o;
    o.id = found->id;
    o.spelled = "--" + std::string(found->long_name);
    if (eq != std::string_view::npos) {
        if (found->arg == ArgKind::none) {
            out.error = "option '--" + std::string(found->long_name) + "' doesn't allow an argument";
            return false;
        }
        o.value = std::string(word.substr(eq + 1));
        o.has_value = true;
    } else if (found->arg == ArgKind::required) {
        if (i + 1 >= args.size()) {
            out.error = "option '--" + std::string(found->long_name) + "' requires an argument";
            return false;
        }
        o.value = args[++i];
        o.has_value = true;
    }
    out.options.push_back(std::move(o));
    return true;
}

// A cluster of short options (without the leading '-').
bool parse_short(std::string_view word, std::span<const std::string> args, size_t& i,
                 std::span<const OptionSpec> specs, ParseConfig config, ParsedArgs& out) {
    for (size_t k = 0; k < word.size(); ++k) {
        char c = word[k];
        if (config.digits_in_clusters && config.digit_option != 0 && c >= '0' && c <= '9') {
            size_t e = k;
            while (e < word.size() && word[e] >= '0' && word[e] <= '9') ++e;
            ParsedOption o;
            o.id = config.digit_option;
            o.value = std::string(word.substr(k, e - k));
            o.has_value = true;
            o.spelled = "-" + o.value;
            out.options.push_back(std::move(o));
            k = e - 1;
            continue;
        }
        const OptionSpec* found = nullptr;
        for (const auto& s : specs)
            if (s.short_name != 0 && s.short_name == c) {
                found = &s;
                break;
            }
        if (!found) {
            out.error = std::string("invalid option -- '") + c + "'";
            return false;
        }
        ParsedOption o;
        o.id = found->id;
        o.spelled = std::string("-") + c;
        if (found->arg != ArgKind::none) {
            std::string_view rest = word.substr(k + 1);
            if (!rest.empty()) {
                o.value = std::string(rest);
                o.has_value = true;
            } else if (found->arg == ArgKind::required) {
                if (i + 1 >= args.size()) {
                    out.error = std::string("option requires an argument -- '") + c + "'";
                    return false;
                }
                o.value = args[++i];
                o.has_value = true;
            }
            out.options.push_back(std::move(o));
            return true;
        }
        out.options.push_back(std::move(o));
    }
    return true;
}

}  // namespace

ParsedArgs parse_args(std::span<const std::string> args, std::span<const OptionSpec> specs, ParseConfig config) {
    ParsedArgs out;
    size_t i = 1;
    for (; i < args.size(); ++i) {
        std::string_view a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        const bool negative_number = config.negative_numbers_are_operands && a.size() >= 2 && a[0] == '-' &&
                                     (a[1] == '.' || (a[1] >= '0' && a[1] <= '9'));
        if (a.size() < 2 || a[0] != '-' || negative_number) {
            if (config.mode == ParseMode::StopAtOperand) break;
            out.operands.emplace_back(a);
            continue;
        }
        if (a[1] == '-') {
            if (!parse_long(a.substr(2), args, i, specs, out)) return out;
            continue;
        }
        if (config.digit_option != 0 && !config.digits_in_clusters && all_digits(a.substr(1))) {
            ParsedOption o;
            o.id = config.digit_option;
            o.value = std::string(a.substr(1));
            o.has_value = true;
            o.spelled = std::string(a);
            out.options.push_back(std::move(o));
            continue;
        }
        if (!parse_short(a.substr(1), args, i, specs, config, out)) return out;
    }
    for (; i < args.size(); ++i) out.operands.push_back(args[i]);
    return out;
}

bool parse_getopt(interp::CommandContext& ctx, std::string_view shortopts, std::span<const OptionSpec> longopts,
                  std::vector<ParsedOption>& options, std::vector<std::string>& operands, ParseConfig config) {
    std::vector<OptionSpec> specs;
    specs.reserve(shortopts.size() + longopts.size() + 2);
    for (size_t k = 0; k < shortopts.size(); ++k) {
        const char c = shortopts[k];
        if (c == ':') continue;
        ArgKind kind = ArgKind::none;
        if (k + 1 < shortopts.size() && shortopts[k + 1] == ':') {
            kind = ArgKind::required;
            if (k + 2 < shortopts.size() && shortopts[k + 2] == ':') kind = ArgKind::optional;
        }
        specs.push_back({static_cast<unsigned char>(c), c, {}, kind});
    }
    specs.insert(specs.end(), longopts.begin(), longopts.end());
    specs.push_back({kOptHelp, 0, "help"});
    specs.push_back({kOptVersion, 0, "version"});
    if (ctx.env.get("POSIXLY_CORRECT") != nullptr) config.mode = ParseMode::StopAtOperand;
    ParsedArgs parsed = parse_args(ctx.argv, specs, config);
    if (!parsed.ok()) {
        usage_error(ctx, parsed.error);
        return false;
    }
    for (auto& o : parsed.options) options.push_back(std::move(o));
    for (auto& o : parsed.operands) operands.push_back(std::move(o));
    return true;
}

int usage_error(const interp::CommandContext& ctx, std::string_view message, int status) {
    std::string_view prog = ctx.argv.empty() ? std::string_view("bashkit") : std::string_view(ctx.argv[0]);
    std::string text;
    if (!message.empty()) {
        text.append(prog).append(": ").append(message).push_back('\n');
    }
    text.append("Try '").append(prog).append(" --help' for more information.\n");
    (void)ctx.err.write(text);
    return status;
}

bool write_out(interp::CommandContext& ctx, std::string_view text) {
    if (text.empty()) return true;
    return ctx.out.write(text).ok();
}

}  // namespace bashkit::utils
