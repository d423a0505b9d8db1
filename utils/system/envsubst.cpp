// envsubst (GNU gettext): replaces $VAR and ${VAR} in stdin with the exported environment's values (empty when
// unset); with SHELL-FORMAT, only the variables named there; -v lists SHELL-FORMAT's variables.
#include <string>
#include <vector>

#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"
#include "interp/governor.hpp"

namespace bashkit::utils::systemutil {

namespace {

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Calls fn(name, begin, end) for each $NAME / ${NAME} reference in s, in order.
template <class Fn>
void references(std::string_view s, Fn fn) {
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '$' || i + 1 >= s.size()) continue;
        size_t j = i + 1;
        const bool brace = s[j] == '{';
        if (brace) ++j;
        if (j >= s.size() || !name_start(s[j])) continue;
        size_t k = j;
        while (k < s.size() && name_char(s[k])) ++k;
        if (brace) {
            if (k >= s.size() || s[k] != '}') continue;
            fn(s.substr(j, k - j), i, k + 1);
            i = k;
        } else {
            fn(s.substr(j, k - j), i, k);
            i = k - 1;
        }
    }
}

}  // namespace

int cmd_envsubst(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'v', 'v', "variables"}, {'h', 'h', "help"}, {'V', 'V', "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool list = false;
    for (const auto& o : p.options) {
        if (o.id == 'h')
            return write_out(ctx, "Usage: envsubst [OPTION] [SHELL-FORMAT]\n\n"
                                  "Substitutes the values of environment variables.\n")
                       ? 0
                       : 1;
        if (o.id == 'V') return write_out(ctx, "envsubst (GNU gettext-runtime) 0.21\n") ? 0 : 1;
        if (o.id == 'v') list = true;
    }
    if (!p.ok()) return usage_error(ctx, p.error, 1);
    if (p.operands.size() > 1) {
        ctx.error("too many arguments");
        return 1;
    }
    if (list) {
        if (p.operands.empty()) {
            ctx.error("missing arguments");
            return 1;
        }
        std::string out;
        references(p.operands[0], [&](std::string_view name, size_t, size_t) {
            out.append(name);
            out += '\n';
        });
        return write_out(ctx, out) ? 0 : 1;
    }
    std::vector<std::string> allowed;
    const bool restrict = !p.operands.empty();
    if (restrict)
        references(p.operands[0], [&](std::string_view name, size_t, size_t) { allowed.emplace_back(name); });
    text::Input in;
    in.open_stdin(ctx);
    text::LineReader reader(in);
    text::Output out(ctx);
    std::string_view line;
    bool terminated = false;
    while (reader.next(line, terminated)) {
        if (ctx.cancelled()) return 130;
        std::string result;
        size_t last = 0;
        references(line, [&](std::string_view name, size_t b, size_t e) {
            if (restrict) {
                bool ok = false;
                for (const auto& a : allowed) ok = ok || a == name;
                if (!ok) return;
            }
            result.append(line.substr(last, b - last));
            if (const std::string* v = ctx.env.get(name)) result += *v;
            last = e;
        });
        result.append(line.substr(last));
        out.put(result);
        if (terminated) out.put('\n');
    }
    return out.status(0);
}

}  // namespace bashkit::utils::systemutil
