// cut: select bytes, characters or fields of each line.
#include <algorithm>
#include <cstring>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

struct Range {
    uint64_t lo, hi;  // 1-based, inclusive; hi == UINT64_MAX for "N-"
};

// Parses a LIST; prints GNU's message (with the try-help line) on error.
bool parse_list(CommandContext& ctx, std::string_view list, bool fields, std::vector<Range>& out) {
    auto fail = [&](const std::string& m) {
        usage_error(ctx, m);
        return false;
    };
    const char* zero_msg = fields ? "fields are numbered from 1" : "byte/character positions are numbered from 1";
    size_t i = 0;
    for (;;) {
        size_t j = i;
        while (j < list.size() && list[j] != ',' && list[j] != ' ') ++j;  // GNU also accepts blanks
        std::string_view item = list.substr(i, j - i);
        if (item.empty()) return fail(zero_msg);
        size_t dash = item.find('-');
        auto num = [&](std::string_view s, uint64_t& v) -> bool {
            if (s.empty()) return false;
            for (char c : s)
                if (c < '0' || c > '9') return false;
            if (!parse_uint(s, v)) return false;
            return true;
        };
        auto invalid = [&]() {
            std::string m = fields ? "invalid field value " : "invalid byte/character position ";
            return fail(m + quote(item));
        };
        if (dash == std::string_view::npos) {
            uint64_t v;
            if (!num(item, v)) return invalid();
            if (v == 0) return fail(zero_msg);
            out.push_back({v, v});
        } else {
            std::string_view a = item.substr(0, dash), b = item.substr(dash + 1);
            if (b.find('-') != std::string_view::npos) {
                return fail(fields ? "invalid field range" : "invalid byte or character range");
            }
            if (a.empty() && b.empty()) return fail("invalid range with no endpoint: -");
            uint64_t lo = 1, hi = UINT64_MAX;
            if (!a.empty()) {
                if (!num(a, lo)) return fail(fields ? "invalid field range" : "invalid byte or character range");
                if (lo == 0) return fail(zero_msg);
            }
            if (!b.empty()) {
                if (!num(b, hi)) return fail(fields ? "invalid field range" : "invalid byte or character range");
                if (hi == 0) return fail(zero_msg);
            }
            if (hi < lo) return fail("invalid decreasing range");
            out.push_back({lo, hi});
        }
        if (j >= list.size()) break;
        i = j + 1;
    }
    std::sort(out.begin(), out.end(), [](const Range& x, const Range& y) { return x.lo < y.lo; });
    std::vector<Range> merged;
    for (const Range& r : out) {
        if (!merged.empty() && r.lo <= merged.back().hi + (merged.back().hi == UINT64_MAX ? 0 : 1)) {
            merged.back().hi = std::max(merged.back().hi, r.hi);
        } else {
            merged.push_back(r);
        }
    }
    out = std::move(merged);
    return true;
}

struct Selector {
    std::vector<Range> ranges;
    bool complement = false;
    // Whether position p (1-based) is selected.
    bool selected(uint64_t p, size_t& hint) const {
        while (hint < ranges.size() && ranges[hint].hi < p) ++hint;
        bool in = hint < ranges.size() && ranges[hint].lo <= p;
        return in != complement;
    }
    // Whether position p starts a new selected range (for --output-delimiter between ranges).
};

}  // namespace

int cmd_cut(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'b', 0, "bytes", ArgKind::required}, {'c', 0, "characters", ArgKind::required},
        {'d', 0, "delimiter", ArgKind::required}, {'f', 0, "fields", ArgKind::required}, {'s', 0, "only-delimited"},
        {300, 0, "complement"}, {301, 0, "output-delimiter", ArgKind::required}, {'z', 0, "zero-terminated"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "b:c:d:f:nsz", kLong, opts, files)) return 1;
    char mode = 0;
    std::string list;
    char delim = '\t';
    bool have_delim = false, only_delim = false, complement = false, have_outdelim = false;
    std::string outdelim;
    char eol = '\n';
    for (auto& o : opts) {
        switch (o.id) {
            case 'b':
            case 'c':
            case 'f':
                if (mode) {
                    usage_error(ctx, "only one list may be specified");
                    return 1;
                }
                mode = static_cast<char>(o.id == 'c' ? 'b' : o.id);
                list = o.value;
                break;
            case 'd':
                if (o.value.size() > 1) {
                    usage_error(ctx, "the delimiter must be a single character");
                    return 1;
                }
                delim = o.value.empty() ? '\0' : o.value[0];
                have_delim = true;
                break;
            case 'n': break;
            case 's': only_delim = true; break;
            case 300: complement = true; break;
            case 301:
                outdelim = o.value;
                have_outdelim = true;
                break;
            case 'z': eol = '\0'; break;
            case kOptHelp:
                return print_help(ctx, "OPTION... [FILE]...\nPrint selected parts of lines from each FILE to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (!mode) {
        usage_error(ctx, "you must specify a list of bytes, characters, or fields");
        return 1;
    }
    if (mode == 'b' && have_delim) {
        usage_error(ctx, "an input delimiter may be specified only when operating on fields");
        return 1;
    }
    if (mode == 'b' && only_delim) {
        usage_error(ctx, "suppressing non-delimited lines makes sense\n\tonly when operating on fields");
        return 1;
    }
    Selector sel;
    sel.complement = complement;
    if (!parse_list(ctx, list, mode == 'f', sel.ranges)) return 1;
    if (!have_outdelim) outdelim = std::string(1, delim);
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    std::string res;
    const int status = for_each_line(
        ctx, out, files,
        [&](std::string_view line, bool) {
            res.clear();
            if (mode == 'b') {
                size_t hint = 0;
                bool prev_sel = false;
                bool any = false;
                for (size_t i = 0; i < line.size(); ++i) {
                    bool s = sel.selected(i + 1, hint);
                    if (s) {
                        if (!prev_sel && any && have_outdelim) res += outdelim;
                        res += line[i];
                        any = true;
                    }
                    prev_sel = s;
                }
                out.put(res);
                out.put(eol);
            } else {
                if (std::memchr(line.data(), delim, line.size()) == nullptr) {
                    if (!only_delim) {
                        out.put(line);
                        out.put(eol);
                    }
                } else {
                    size_t hint = 0;
                    uint64_t field = 1;
                    size_t start = 0;
                    bool any = false;
                    for (;;) {
                        size_t e = line.find(delim, start);
                        if (e == std::string_view::npos) e = line.size();
                        if (sel.selected(field, hint)) {
                            if (any) res += outdelim;
                            res.append(line.substr(start, e - start));
                            any = true;
                        }
                        if (e >= line.size()) break;
                        start = e + 1;
                        ++field;
                    }
                    out.put(res);
                    out.put(eol);
                }
            }
        },
        eol);
    return out.status(status);
}

}  // namespace bashkit::utils::text
