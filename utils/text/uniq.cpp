// uniq: collapse adjacent equal lines, with GNU's field/char skipping and counting options.
#include <cstring>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

std::string_view compared_part(std::string_view l, uint64_t fields, uint64_t chars, uint64_t width, bool has_width) {
    size_t i = 0;
    for (uint64_t f = 0; f < fields && i < l.size(); ++f) {
        while (i < l.size() && blank(l[i])) ++i;
        while (i < l.size() && !blank(l[i])) ++i;
    }
    i = static_cast<size_t>(std::min<uint64_t>(l.size(), i + std::min<uint64_t>(chars, l.size())));
    std::string_view r = l.substr(i);
    if (has_width && r.size() > width) r = r.substr(0, static_cast<size_t>(width));
    return r;
}

bool equal(std::string_view a, std::string_view b, bool icase) {
    if (a.size() != b.size()) return false;
    if (!icase) return a == b;
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 32);
        if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 32);
        if (x != y) return false;
    }
    return true;
}

}  // namespace

int cmd_uniq(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'c', 0, "count"}, {'d', 0, "repeated"}, {'D', 0, "all-repeated", ArgKind::optional},
        {300, 0, "group", ArgKind::optional}, {'i', 0, "ignore-case"}, {'f', 0, "skip-fields", ArgKind::required},
        {'s', 0, "skip-chars", ArgKind::required}, {'w', 0, "check-chars", ArgKind::required}, {'u', 0, "unique"},
        {'z', 0, "zero-terminated"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> operands;
    if (!parse_getopt(ctx, "cdDf:is:uw:z", kLong, opts, operands)) return 1;
    bool count = false, only_dup = false, only_uniq = false, icase = false, has_width = false;
    int all_rep = -1;  // -1 off; 0 none, 1 prepend, 2 separate
    int group = -1;    // -1 off; 0 separate, 1 prepend, 2 append, 3 both
    uint64_t fields = 0, chars = 0, width = 0;
    char delim = '\n';
    auto pick = [&](const std::string& v, std::initializer_list<std::string_view> names, const char* opt,
                    int& out) {
        int i = 0, hit = -1, nh = 0;
        for (auto n : names) {
            if (n == v) {
                hit = i;
                nh = 1;
                break;
            }
            if (!v.empty() && n.substr(0, v.size()) == v) {
                hit = i;
                ++nh;
            }
            ++i;
        }
        if (nh != 1) {
            ctx.error(std::string(nh ? "ambiguous" : "invalid") + " argument " + quote(v) + " for '" + opt + "'");
            std::string m = "Valid arguments are:\n";
            for (auto n : names) m += "  - '" + std::string(n) + "'\n";
            (void)ctx.err.write(m);
            try_help(ctx);
            return false;
        }
        out = hit;
        return true;
    };
    auto num = [&](const std::string& v, const char* what, uint64_t& out) {
        if (parse_size_checked(v, out, false) == SizeParse::invalid) {
            ctx.error(quote_name(v) + ": invalid number of " + what);
            return false;
        }
        return true;
    };
    for (auto& o : opts) {
        switch (o.id) {
            case 'c': count = true; break;
            case 'd': only_dup = true; break;
            case 'D':
                if (!o.has_value) all_rep = 0;
                else if (!pick(o.value, {"none", "prepend", "separate"}, "--all-repeated", all_rep)) return 1;
                break;
            case 300:
                if (!o.has_value) group = 0;
                else if (!pick(o.value, {"separate", "prepend", "append", "both"}, "--group", group)) return 1;
                break;
            case 'i': icase = true; break;
            case 'f': if (!num(o.value, "fields to skip", fields)) return 1; break;
            case 's': if (!num(o.value, "bytes to skip", chars)) return 1; break;
            case 'w':
                if (!num(o.value, "bytes to compare", width)) return 1;
                has_width = true;
                break;
            case 'u': only_uniq = true; break;
            case 'z': delim = '\0'; break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [INPUT [OUTPUT]]\nFilter adjacent matching lines from INPUT (or standard input),\nwriting to OUTPUT (or standard output).\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (operands.size() > 2) {
        usage_error(ctx, "extra operand " + quote(operands[2]));
        return 1;
    }
    if (group >= 0 && (count || only_dup || only_uniq || all_rep >= 0)) {
        usage_error(ctx, "--group is mutually exclusive with -c/-d/-D/-u");
        return 1;
    }
    if (count && all_rep >= 0) {
        usage_error(ctx, "printing all duplicated lines and repeat counts is meaningless");
        return 1;
    }
    std::string in_name = operands.empty() ? "-" : operands[0];
    Input in;
    if (auto e = in.open_input(ctx, in_name); e != vfs::Errc::ok) {
        file_error(ctx, in_name, e);
        return 1;
    }
    OutputFile outf;
    interp::ByteStream* target = nullptr;
    if (operands.size() == 2 && operands[1] != "-") {
        if (auto e = outf.open_output(ctx, operands[1]); e != vfs::Errc::ok) {
            file_error(ctx, operands[1], e);
            return 1;
        }
        target = outf.stream();
    }
    Output out(ctx, target);
    LineReader lr(in, delim);
    std::string prev;
    bool have_prev = false;
    uint64_t run = 0;
    bool first_group = true;   // for --all-repeated/--group separators
    bool any_output = false;
    auto key = [&](std::string_view l) { return compared_part(l, fields, chars, width, has_width); };
    auto emit_line = [&](std::string_view l) {
        out.put(l);
        out.put(delim);
    };
    // Flushes the group that ended (prev, seen run times) in the non -D/--group modes.
    auto finish_run = [&]() {
        if (!have_prev) return;
        bool dup = run > 1;
        if ((only_dup && !dup) || (only_uniq && dup)) return;
        if (count) {
            char b[32];
            int n = std::snprintf(b, sizeof b, "%7llu ", static_cast<unsigned long long>(run));
            out.put(std::string_view(b, static_cast<size_t>(n)));
        }
        emit_line(prev);
    };
    std::string_view line;
    bool list_mode = all_rep >= 0 || group >= 0;
    std::vector<std::string> pending;  // -D: lines of the current group
    while (lr.next(line)) {
        if (ctx.cancelled()) return out.status(130);
        bool same = have_prev && equal(key(prev), key(line), icase);
        if (list_mode) {
            if (group >= 0) {
                bool new_group = !same;
                if (new_group) {
                    if ((group == 1 || group == 3) || (!first_group && (group == 0 || group == 2))) {
                        if (!first_group || group == 1 || group == 3) out.put(delim);
                    }
                    first_group = false;
                }
                emit_line(line);
                any_output = true;
            } else {
                if (same) {
                    if (run == 1) {
                        // The group becomes a repeated group: its first line goes out now.
                        if (all_rep == 1 || (all_rep == 2 && !first_group)) out.put(delim);
                        first_group = false;
                        emit_line(prev);
                    }
                    emit_line(line);
                }
            }
            if (same) ++run;
            else run = 1;
            prev.assign(line);
            have_prev = true;
            if (out.failed()) break;
            continue;
        }
        if (same) {
            ++run;
            continue;
        }
        finish_run();
        prev.assign(line);
        have_prev = true;
        run = 1;
        if (out.failed()) break;
    }
    if (!list_mode) finish_run();
    else if (group == 2 || group == 3) {
        if (any_output) out.put(delim);
    }
    if (lr.error() != vfs::Errc::ok && lr.error() != vfs::Errc::cancelled) {
        out.flush();
        ctx.error("error reading " + quote(in_name));
        return out.status(1);
    }
    return out.status(0);
}

}  // namespace bashkit::utils::text
