// Layout tools: fold, expand, unexpand, column.
#include <algorithm>
#include <cstring>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

// Tab stops for expand/unexpand: a list (-t 4 or -t 2,6,10).
struct TabStops {
    std::vector<uint64_t> stops;  // one entry: every N columns
    uint64_t next(uint64_t col) const {
        if (stops.size() == 1) return col + stops[0] - col % stops[0];
        for (uint64_t s : stops)
            if (s > col) return s;
        return col + 1;  // past the last stop: one column
    }
    bool beyond_last(uint64_t col) const { return stops.size() > 1 && col >= stops.back(); }
};

bool parse_tabs(CommandContext& ctx, const std::string& spec, TabStops& t) {
    std::vector<uint64_t> v;
    size_t i = 0;
    while (i <= spec.size()) {
        size_t j = i;
        while (j < spec.size() && spec[j] != ',' && spec[j] != ' ') ++j;
        std::string item = spec.substr(i, j - i);
        if (!item.empty()) {
            uint64_t n;
            if (!parse_uint(item, n)) {
                ctx.error("tab size contains invalid character(s): " + quote(item));
                return false;
            }
            if (n == 0) {
                ctx.error("tab size cannot be 0");
                return false;
            }
            if (!v.empty() && n <= v.back()) {
                ctx.error("tab sizes must be ascending");
                return false;
            }
            v.push_back(n);
        }
        i = j + 1;
    }
    if (v.empty()) {
        ctx.error("tab size cannot be 0");
        return false;
    }
    t.stops.insert(t.stops.end(), v.begin(), v.end());
    return true;
}

// -t LIST and the obsolete -N forms.
bool tab_options(CommandContext& ctx, std::vector<ParsedOption>& opts, TabStops& t) {
    for (auto& o : opts) {
        if (o.id == 't' && !parse_tabs(ctx, o.value, t)) return false;
    }
    if (t.stops.empty()) t.stops.push_back(8);
    std::sort(t.stops.begin(), t.stops.end());
    return true;
}

// expand/unexpand accept -4 and -2,6 as -t.
void obsolete_tabs(CommandContext& ctx) {
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a == "--") break;
        if (a.size() > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9') ctx.argv[i] = "-t" + a.substr(1);
    }
}

}  // namespace

int cmd_fold(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {{'b', 0, "bytes"}, {'s', 0, "spaces"}, {'w', 0, "width", ArgKind::required}};
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a == "--") break;
        if (a.size() > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9') ctx.argv[i] = "-w" + a.substr(1);
    }
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "bsw:", kLong, opts, files)) return 1;
    bool bytes = false, spaces = false;
    uint64_t width = 80;
    for (auto& o : opts) {
        switch (o.id) {
            case 'b': bytes = true; break;
            case 's': spaces = true; break;
            case 'w':
                if (!parse_uint(o.value, width) || width == 0) {
                    ctx.error("invalid number of columns: " + quote(o.value));
                    return 1;
                }
                break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nWrap input lines in each FILE, writing to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    auto adjust = [&](uint64_t col, char c) -> uint64_t {
        if (bytes) return col + 1;
        if (c == '\b') return col > 0 ? col - 1 : 0;
        if (c == '\r') return 0;
        if (c == '\t') return col + 8 - col % 8;
        return col + 1;
    };
    std::string buf;
    int st = for_each_line(ctx, out, files, [&](std::string_view line, bool term) {
        buf.clear();
        uint64_t col = 0;
        for (size_t k = 0; k < line.size(); ++k) {
            char c = line[k];
            for (;;) {
                col = adjust(col, c);
                if (col <= width) {
                    buf.push_back(c);
                    break;
                }
                if (spaces) {
                    size_t end = buf.size();
                    bool found = false;
                    while (end > 0) {
                        --end;
                        if (buf[end] == ' ' || buf[end] == '\t') {
                            found = true;
                            break;
                        }
                    }
                    if (found) {
                        ++end;
                        out.put(std::string_view(buf).substr(0, end));
                        out.put('\n');
                        buf.erase(0, end);
                        col = 0;
                        for (char x : buf) col = adjust(col, x);
                        continue;  // rescan c
                    }
                }
                if (buf.empty()) {
                    buf.push_back(c);
                    break;
                }
                out.put(buf);
                out.put('\n');
                buf.clear();
                col = 0;
            }
        }
        out.put(buf);
        if (term) out.put('\n');
    });
    return out.status(st);
}

int cmd_expand(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {{'i', 0, "initial"}, {'t', 0, "tabs", ArgKind::required}};
    obsolete_tabs(ctx);
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "it:", kLong, opts, files)) return 1;
    bool initial = false;
    for (auto& o : opts) {
        if (o.id == 'i') initial = true;
        if (o.id == kOptHelp) return print_help(ctx, "[OPTION]... [FILE]...\nConvert tabs in each FILE to spaces, writing to standard output.\n");
        if (o.id == kOptVersion) return version(ctx);
    }
    TabStops tabs;
    if (!tab_options(ctx, opts, tabs)) return 1;
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    std::string buf;
    int st = for_each_line(ctx, out, files, [&](std::string_view line, bool term) {
        buf.clear();
        uint64_t col = 0;
        bool leading = true;
        for (char c : line) {
            if (c == '\t' && (!initial || leading)) {
                uint64_t n = tabs.next(col);
                buf.append(static_cast<size_t>(std::min<uint64_t>(n - col, 1u << 20)), ' ');
                col = n;
                continue;
            }
            if (c == '\b') col = col > 0 ? col - 1 : 0;
            else ++col;
            if (c != ' ' && c != '\t') leading = false;
            buf.push_back(c);
        }
        out.put(buf);
        if (term) out.put('\n');
    });
    return out.status(st);
}

int cmd_unexpand(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'a', 0, "all"}, {300, 0, "first-only"}, {'t', 0, "tabs", ArgKind::required},
    };
    obsolete_tabs(ctx);
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "at:", kLong, opts, files)) return 1;
    bool all = false, first_only = false;
    for (auto& o : opts) {
        if (o.id == 'a') all = true;
        if (o.id == 't') all = true;
        if (o.id == 300) first_only = true;
        if (o.id == kOptHelp) return print_help(ctx, "[OPTION]... [FILE]...\nConvert blanks in each FILE to tabs, writing to standard output.\n");
        if (o.id == kOptVersion) return version(ctx);
    }
    if (first_only) all = false;
    TabStops tabs;
    if (!tab_options(ctx, opts, tabs)) return 1;
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    std::string buf;
    int st = for_each_line(ctx, out, files, [&](std::string_view line, bool term) {
        buf.clear();
        uint64_t col = 0;
        bool leading = true;
        size_t i = 0;
        while (i < line.size()) {
            char c = line[i];
            if ((c == ' ' || c == '\t') && (all || leading) && !tabs.beyond_last(col)) {
                // A run of blanks from col: tabs for each stop it reaches, then spaces.
                size_t j = i;
                uint64_t start = col, end = col;
                bool had_tab = false;
                while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) {
                    if (line[j] == '\t') {
                        end = tabs.next(end);
                        had_tab = true;
                    } else {
                        ++end;
                    }
                    ++j;
                }
                uint64_t pos = start;
                std::string run;
                for (;;) {
                    if (tabs.beyond_last(pos)) break;
                    uint64_t n = tabs.next(pos);
                    if (n > end) break;
                    run += '\t';
                    pos = n;
                }
                if (run.size() == 1 && end == start + 1 && !had_tab) run = " ";
                run.append(static_cast<size_t>(end - pos), ' ');
                buf += run;
                col = end;
                i = j;
                continue;
            }
            if (c == '\b') col = col > 0 ? col - 1 : 0;
            else ++col;
            leading = false;
            buf.push_back(c);
            ++i;
        }
        out.put(buf);
        if (term) out.put('\n');
    });
    return out.status(st);
}

// ---------------------------------------------------------------------------------------------------------
// column (util-linux)

int cmd_column(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'t', 0, "table"}, {'s', 0, "separator", ArgKind::required}, {'o', 0, "output-separator", ArgKind::required},
        {'x', 0, "fillrows"}, {'c', 0, "output-width", ArgKind::required}, {'R', 0, "table-right", ArgKind::required},
        {'N', 0, "table-columns", ArgKind::required}, {'L', 0, "keep-empty-lines"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "ts:o:xc:R:N:Le", kLong, opts, files)) return 1;
    bool table = false, fillrows = false, keep_empty = false, have_sep = false;
    std::string seps = " \t", osep = "  ";
    uint64_t width = 80;
    if (const std::string* c = ctx.env.get("COLUMNS")) {
        uint64_t w;
        if (parse_uint(*c, w) && w > 0) width = w;
    }
    std::vector<uint64_t> right;
    std::vector<std::string> names;
    for (auto& o : opts) {
        switch (o.id) {
            case 't': table = true; break;
            case 's': seps = o.value; have_sep = true; break;
            case 'o': osep = o.value; break;
            case 'x': fillrows = true; break;
            case 'L': keep_empty = true; break;
            case 'e': break;
            case 'c':
                if (!parse_uint(o.value, width)) {
                    ctx.error("invalid columns argument: '" + o.value + "'");
                    return 1;
                }
                break;
            case 'R': {
                size_t i = 0;
                while (i <= o.value.size()) {
                    size_t j = o.value.find(',', i);
                    if (j == std::string::npos) j = o.value.size();
                    uint64_t n;
                    if (parse_uint(o.value.substr(i, j - i), n)) right.push_back(n);
                    i = j + 1;
                }
                break;
            }
            case 'N': {
                size_t i = 0;
                while (i <= o.value.size()) {
                    size_t j = o.value.find(',', i);
                    if (j == std::string::npos) j = o.value.size();
                    names.push_back(o.value.substr(i, j - i));
                    i = j + 1;
                }
                break;
            }
            case kOptHelp: return print_help(ctx, "[options] [<file>...]\nColumnate lists.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (files.empty()) files.push_back("-");
    std::vector<std::string> lines;
    // The lines, then their cells or items (about three copies), on the session's memory budget.
    interp::MemoryCharge held(ctx.memory);
    Output out(ctx);
    int status = 0;
    for (const auto& f : files) {
        Input in;
        if (auto e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            out.flush();
            file_error(ctx, f, e);
            status = 1;
            continue;
        }
        LineReader lr(in);
        std::string_view line;
        while (lr.next(line)) {
            held.add(3 * (line.size() + sizeof(std::string)));
            lines.emplace_back(line);
        }
        if (lr.error() == vfs::Errc::cancelled) return out.status(130);
        if (lr.error() != vfs::Errc::ok) {
            out.flush();
            file_error(ctx, f, lr.error());
            status = 1;
        }
    }
    if (table) {
        std::vector<std::vector<std::string>> rows;
        if (!names.empty()) rows.push_back(names);
        for (const auto& l : lines) {
            if ((rows.size() & 0xfff) == 0xfff && ctx.cancelled()) return out.status(130);
            bool blank = true;
            for (char c : l)
                if (seps.find(c) == std::string::npos) blank = false;
            if (l.empty() || (blank && !have_sep)) {
                if (keep_empty) rows.emplace_back();
                continue;
            }
            std::vector<std::string> cells;
            if (!have_sep) {
                size_t i = 0;
                while (i < l.size()) {
                    while (i < l.size() && seps.find(l[i]) != std::string::npos) ++i;
                    if (i >= l.size()) break;
                    size_t j = i;
                    while (j < l.size() && seps.find(l[j]) == std::string::npos) ++j;
                    cells.push_back(l.substr(i, j - i));
                    i = j;
                }
            } else {
                size_t i = 0;
                for (;;) {
                    size_t j = l.find_first_of(seps, i);
                    if (j == std::string::npos) {
                        cells.push_back(l.substr(i));
                        break;
                    }
                    cells.push_back(l.substr(i, j - i));
                    i = j + 1;
                }
            }
            held.add(cells.size() * sizeof(std::string));
            rows.push_back(std::move(cells));
        }
        std::vector<size_t> w;
        for (auto& r : rows)
            for (size_t c = 0; c < r.size(); ++c) {
                if (w.size() <= c) w.resize(c + 1, 0);
                w[c] = std::max(w[c], r[c].size());
            }
        size_t done = 0;
        for (auto& r : rows) {
            if ((++done & 0xff) == 0 && (ctx.cancelled() || out.failed())) break;
            // Short rows are padded to the widest one.
            if (!r.empty() && r.size() < w.size()) held.add((w.size() - r.size()) * sizeof(std::string));
            std::string line;
            // Every cell but those of the table's last column is padded and followed by the separator,
            // even at the end of a short row (util-linux does the same).
            if (!r.empty()) r.resize(w.size());
            for (size_t c = 0; c < r.size(); ++c) {
                bool is_right = std::find(right.begin(), right.end(), c + 1) != right.end();
                bool last = c + 1 == w.size();
                if (is_right) line.append(w[c] - r[c].size(), ' ');
                line += r[c];
                if (!last) {
                    if (!is_right) line.append(w[c] - r[c].size(), ' ');
                    line += osep;
                }
            }
            line += '\n';
            out.put(line);
        }
        return out.status(ctx.cancelled() ? 130 : status);
    }
    // Fill mode: entries in columns of a width rounded up to the next tab stop, padded with tabs.
    std::vector<std::string> items;
    for (auto& l : lines)
        if (!l.empty()) items.push_back(l);
    if (items.empty()) return out.status(ctx.cancelled() ? 130 : status);
    size_t maxlen = 0;
    for (auto& s : items) maxlen = std::max(maxlen, s.size());
    maxlen = (maxlen + 8) & ~static_cast<size_t>(7);
    size_t ncols = width / maxlen;
    if (ncols <= 1 || maxlen > width) {
        for (auto& s : items) {
            out.put(s);
            out.put('\n');
        }
        return out.status(ctx.cancelled() ? 130 : status);
    }
    size_t n = items.size();
    size_t nrows = (n + ncols - 1) / ncols;
    auto pad_to = [&](std::string& line, size_t pos, size_t endcol) {
        size_t chcnt = pos;
        while ((chcnt = (chcnt + 8) & ~static_cast<size_t>(7)) <= endcol) line += '\t';
        (void)chcnt;
    };
    if (fillrows) {
        for (size_t r = 0; r * ncols < n; ++r) {
            if ((r & 0xfff) == 0xfff && (ctx.cancelled() || out.failed())) break;
            std::string line;
            for (size_t c = 0; c < ncols && r * ncols + c < n; ++c) {
                const std::string& s = items[r * ncols + c];
                line += s;
                if (c + 1 < ncols && r * ncols + c + 1 < n) pad_to(line, s.size(), maxlen);
            }
            line += '\n';
            out.put(line);
        }
    } else {
        for (size_t r = 0; r < nrows; ++r) {
            if ((r & 0xfff) == 0xfff && (ctx.cancelled() || out.failed())) break;
            std::string line;
            for (size_t c = 0; c < ncols; ++c) {
                size_t idx = c * nrows + r;
                if (idx >= n) break;
                const std::string& s = items[idx];
                line += s;
                if ((c + 1) * nrows + r < n) pad_to(line, s.size(), maxlen);
            }
            line += '\n';
            out.put(line);
        }
    }
    return out.status(ctx.cancelled() ? 130 : status);
}

}  // namespace bashkit::utils::text
