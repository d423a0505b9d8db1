#include "builtins/search/options.hpp"

namespace bashkit::builtins::search {

ParsedArgs parse_options(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs, int digit_id,
                         bool permute) {
    ParsedArgs r;
    bool only_operands = false;
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (only_operands || a.size() < 2 || a[0] != '-') {
            r.operands.push_back(a);
            if (!permute && !only_operands) only_operands = true;
            continue;
        }
        if (a == "--") {
            only_operands = true;
            continue;
        }
        if (a[1] == '-') {
            const size_t eq = a.find('=');
            const std::string_view name = std::string_view(a).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const OptionSpec* hit = nullptr;
            std::vector<const OptionSpec*> prefixed;
            for (const auto& s : specs) {
                if (s.long_name.empty()) continue;
                if (s.long_name == name) {
                    hit = &s;
                    break;
                }
                if (s.long_name.starts_with(name)) prefixed.push_back(&s);
            }
            if (!hit) {
                if (prefixed.size() == 1) {
                    hit = prefixed[0];
                } else if (prefixed.size() > 1) {
                    // Options that are aliases of each other (same id) are not ambiguous.
                    bool same = true;
                    for (auto* p : prefixed) same = same && p->id == prefixed[0]->id;
                    if (same) {
                        hit = prefixed[0];
                    } else {
                        r.error = "option '" + std::string(a.substr(0, eq)) + "' is ambiguous; possibilities:";
                        for (auto* p : prefixed) r.error += " '--" + std::string(p->long_name) + "'";
                        return r;
                    }
                } else {
                    r.error = "unrecognized option '" + a + "'";
                    return r;
                }
            }
            ParsedOption o;
            o.id = hit->id;
            o.spelling = "--" + std::string(hit->long_name);
            if (eq != std::string::npos) {
                if (hit->arg == ArgKind::kNone) {
                    r.error = "option '--" + std::string(hit->long_name) + "' doesn't allow an argument";
                    return r;
                }
                o.arg = a.substr(eq + 1);
                o.has_arg = true;
            } else if (hit->arg == ArgKind::kRequired) {
                if (i + 1 >= argv.size()) {
                    r.error = "option '--" + std::string(hit->long_name) + "' requires an argument";
                    return r;
                }
                o.arg = argv[++i];
                o.has_arg = true;
            }
            r.options.push_back(std::move(o));
            continue;
        }
        // A cluster of short options.
        for (size_t k = 1; k < a.size(); ++k) {
            const char c = a[k];
            if (digit_id && c >= '0' && c <= '9') {
                size_t e = k;
                while (e < a.size() && a[e] >= '0' && a[e] <= '9') ++e;
                ParsedOption o;
                o.id = digit_id;
                o.arg = a.substr(k, e - k);
                o.has_arg = true;
                o.spelling = "-" + o.arg;
                r.options.push_back(std::move(o));
                k = e - 1;
                continue;
            }
            const OptionSpec* hit = nullptr;
            for (const auto& s : specs)
                if (s.short_name == c) {
                    hit = &s;
                    break;
                }
            if (!hit) {
                r.error = std::string("invalid option -- '") + c + "'";
                return r;
            }
            ParsedOption o;
            o.id = hit->id;
            o.spelling = std::string("-") + c;
            if (hit->arg != ArgKind::kNone) {
                if (k + 1 < a.size()) {
                    o.arg = a.substr(k + 1);
                    o.has_arg = true;
                } else if (hit->arg == ArgKind::kRequired) {
                    if (i + 1 >= argv.size()) {
                        r.error = std::string("option requires an argument -- '") + c + "'";
                        return r;
                    }
                    o.arg = argv[++i];
                    o.has_arg = true;
                }
                r.options.push_back(std::move(o));
                break;
            }
            r.options.push_back(std::move(o));
        }
    }
    return r;
}

}  // namespace bashkit::builtins::search
