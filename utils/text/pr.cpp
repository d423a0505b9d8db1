// pr (GNU coreutils 9.1 under LC_ALL=C): paginate files for printing.
//
// A page is a 5-line header (two blank lines, "DATE  TITLE  Page N" laid out across the page width, two
// blank lines), the body, and a 5-line trailer of blank lines (or a form feed with -F); -t, -T or a page
// length of 10 lines or less print the body alone. The date is the file's modification time from the
// FileSystem (the clock's now for stdin and -m), in the zone of TZ, formatted by -D (default
// "%Y-%m-%d %H:%M"). Multi-column output (-COLUMN down the page, with -a across, -m one file per column)
// lays columns out at fixed positions and writes the white space between them with tabs where a tab stop
// is reached, as GNU pr does; columns are truncated to their width unless -s (without -w) or -J says
// otherwise; the last page of a down-the-page layout is balanced. With -n the number field of a column is 8
// wide when its separator is a tab (white space to the next multiple of 8 from the column's start); with
// -m it comes once, before all the columns, which share the rest of the width.
//
// Not implemented: -c, -v (control characters shown), -e and -i (tab expansion of the input and
// compression of the output beyond the column padding), -r; they are refused as invalid options.
#include <algorithm>

#include "utils/system/timeutil.hpp"
#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

struct PrOptions {
    int64_t page_length = 66;
    int64_t width = 72;
    bool width_given = false;
    int64_t columns = 1;
    int64_t offset = 0;
    int64_t first_page = 1, last_page = INT64_MAX;
    int64_t start_number = 1;
    bool omit = false;        // -t
    bool no_paginate = false; // -T
    bool double_space = false;
    bool merge = false;
    bool across = false;
    bool formfeed = false;    // -F / -f
    bool number = false;
    char number_sep = '\t';
    int64_t number_digits = 5;
    bool truncate_all = false;  // -W
    bool join = false;          // -J
    bool header_given = false;
    std::string header;
    std::string date_format = "%Y-%m-%d %H:%M";
    bool sep_given = false;      // -s (turns off truncation and alignment unless -w is given)
    bool sep_char_given = false;
    bool sep_string = false;     // -S
    std::string sep = " ";
};

// One item of an input: a line, or a page break (a form feed).
struct Item {
    std::string_view text;
    bool page_break = false;
};

// The lines and form feeds of data. The vector (24 bytes a line, 12 times an input of short lines) is charged
// to `held` as it grows; a cancel ends it early (the caller checks the token).
std::vector<Item> items_of(std::string_view data, const CommandContext& ctx, interp::MemoryCharge& held) {
    std::vector<Item> out;
    size_t pos = 0;
    while (pos < data.size()) {
        if (out.size() + 2 > out.capacity()) {
            if (ctx.cancelled()) break;
            size_t cap = std::max<size_t>(1024, out.capacity() * 2);
            held.add((cap - out.capacity()) * sizeof(Item));
            out.reserve(cap);
        }
        size_t end = data.find_first_of("\n\f", pos);
        if (end == std::string_view::npos) {
            out.push_back({data.substr(pos), false});
            break;
        }
        if (data[end] == '\n') {
            out.push_back({data.substr(pos, end - pos), false});
        } else {
            if (end > pos) out.push_back({data.substr(pos, end - pos), false});
            out.push_back({{}, true});
            if (end + 1 < data.size() && data[end + 1] == '\n' && end == pos) {
                // "\f\n": the form feed alone on its line
            }
        }
        pos = end + 1;
    }
    return out;
}

class Printer {
public:
    Printer(CommandContext& ctx, const PrOptions& o, Output& out) : ctx_(ctx), o_(o), out_(out) {
        omit_ = o.omit || o.no_paginate || o.page_length <= 10;
        body_ = omit_ ? o.page_length : o.page_length - 10;
        if (body_ <= 0) body_ = 1;
        columns_ = o.merge ? 0 : o.columns;
        truncate_ = !o.join && (o.truncate_all || ((o.columns > 1 || o.merge) && (!o.sep_given || o.width_given)));
    }

    // Prints one file (or the merged files) as pages.
    void run(const std::vector<std::vector<Item>>& inputs, const std::string& title, const std::string& date) {
        title_ = title;
        date_ = date;
        line_no_ = o_.start_number;
        page_ = 1;
        if (o_.merge) return run_merged(inputs);
        const std::vector<Item>& items = inputs[0];
        size_t i = 0;
        const int64_t per_row = o_.double_space ? 2 : 1;
        const int64_t rows = std::max<int64_t>(1, body_ / per_row);
        while (i < items.size()) {
            if (ctx_.cancelled() || out_.failed()) return;
            // The lines of this page: up to rows * columns, ending early at a form feed.
            std::vector<std::pair<std::string_view, int64_t>> lines;  // text, line number
            const int64_t capacity = (o_.no_paginate ? INT64_MAX : rows * columns_);
            bool broke = false;
            while (i < items.size() && static_cast<int64_t>(lines.size()) < capacity) {
                if (items[i].page_break) {
                    ++i;
                    broke = true;
                    break;
                }
                lines.push_back({items[i].text, line_no_++});
                ++i;
            }
            if (!broke && i < items.size() && items[i].page_break && static_cast<int64_t>(lines.size()) == capacity)
                ++i;  // a form feed right after a full page ends that page only
            print_page(lines, rows, broke && omit_);
            ++page_;
        }
    }

private:
    void run_merged(const std::vector<std::vector<Item>>& inputs) {
        std::vector<size_t> pos(inputs.size(), 0);
        const int64_t per_row = o_.double_space ? 2 : 1;
        const int64_t rows = std::max<int64_t>(1, body_ / per_row);
        auto left = [&] {
            for (size_t f = 0; f < inputs.size(); ++f)
                if (pos[f] < inputs[f].size()) return true;
            return false;
        };
        while (left()) {
            if (ctx_.cancelled() || out_.failed()) return;
            std::vector<std::vector<std::string_view>> grid;  // rows of one field per file
            std::vector<int64_t> numbers;
            while (left() && (o_.no_paginate || static_cast<int64_t>(grid.size()) < rows)) {
                std::vector<std::string_view> row(inputs.size());
                for (size_t f = 0; f < inputs.size(); ++f) {
                    while (pos[f] < inputs[f].size() && inputs[f][pos[f]].page_break) ++pos[f];
                    if (pos[f] < inputs[f].size()) row[f] = inputs[f][pos[f]++].text;
                }
                grid.push_back(std::move(row));
                numbers.push_back(line_no_++);
            }
            if (visible()) {
                header();
                for (size_t r = 0; r < grid.size(); ++r) {
                    std::string line(static_cast<size_t>(o_.offset), ' ');
                    Line l(line);
                    l.pos = o_.offset;
                    // -n: the number field comes first and the columns share the rest of the width.
                    const int64_t lead = o_.number ? number_width() : 0;
                    const int64_t colw = column_width(static_cast<int64_t>(inputs.size()), lead);
                    for (size_t f = 0; f < grid[r].size(); ++f) {
                        const int64_t start = o_.offset + lead + static_cast<int64_t>(f) * (colw + sep_len());
                        if (f > 0) separate(l, start);
                        field(l, grid[r][f], f == 0 ? numbers[r] : -1, start, f == 0 ? colw + lead : colw, f == 0);
                    }
                    body_line(line);
                }
                trailer(static_cast<int64_t>(grid.size()) * (o_.double_space ? 2 : 1));
            }
            ++page_;
        }
    }

    bool visible() const { return page_ >= o_.first_page && page_ <= o_.last_page; }

public:
    int64_t pages() const { return page_ - 1; }

private:

    int64_t sep_len() const { return static_cast<int64_t>(o_.sep.size()); }

    int64_t column_width(int64_t n, int64_t lead = 0) const {
        if (n <= 1) return o_.width - lead;
        return std::max<int64_t>(1, (o_.width - lead - (n - 1) * sep_len()) / n);
    }

    // The width of -n's field in columns: the digits and the separator (a tab reaches the next multiple
    // of 8).
    int64_t number_width() const {
        return o_.number_sep == '\t' ? (o_.number_digits / 8 + 1) * 8 : o_.number_digits + 1;
    }

    // An output line under construction: its text and the column reached (from the offset).
    struct Line {
        explicit Line(std::string& s) : text(s) {}
        std::string& text;
        int64_t pos = 0;
    };

    // White space from l.pos to goal: tabs while one fits and more than one space is needed, then spaces.
    static void white(Line& l, int64_t goal) {
        while (goal - l.pos > 1) {
            const int64_t next = (l.pos / 8 + 1) * 8;
            if (next > goal) break;
            l.text += '\t';
            l.pos = next;
        }
        while (l.pos < goal) {
            l.text += ' ';
            ++l.pos;
        }
    }

    // Between columns: padding to the column's start (a space separator is part of the padding), or the
    // separator alone with -s/-S.
    // Between columns. Fixed columns (truncated ones): padding to the end of the previous column, then the
    // separator; a separator of spaces is part of the padding (one run of white space). Otherwise the
    // separator alone.
    void separate(Line& l, int64_t start) {
        if (truncate_) {
            if (o_.sep.find_first_not_of(' ') == std::string::npos) {
                white(l, start);
                return;
            }
            white(l, start - sep_len());
        }
        l.text += o_.sep;
        l.pos += sep_len();
    }

    // One field: the line number (when numbering and number >= 0) and the text, truncated to width.
    void field(Line& l, std::string_view text, int64_t number, int64_t start, int64_t width, bool /*first_col*/) {
        int64_t used = 0;
        const int64_t field_start = l.pos;
        if (o_.number && number >= 0) {
            std::string digits = std::to_string(number);
            if (static_cast<int64_t>(digits.size()) > o_.number_digits)
                digits = digits.substr(digits.size() - static_cast<size_t>(o_.number_digits));
            const int64_t lead = o_.number_digits - static_cast<int64_t>(digits.size());
            if (multi()) white(l, l.pos + lead);
            else l.text.append(static_cast<size_t>(lead), ' '), l.pos += lead;
            l.text += digits;
            l.pos += static_cast<int64_t>(digits.size());
            used = o_.number_digits;
            if (o_.number_sep == '\t' && multi()) {
                // Columns: white space to the end of the field (a tab where one reaches a tab stop).
                white(l, field_start + number_width());
                used = number_width();
            } else if (o_.number_sep == '\t') {
                l.text += '\t';
                l.pos = (l.pos / 8 + 1) * 8;
                used = used + 1;
            } else {
                l.text += o_.number_sep;
                ++l.pos;
                ++used;
            }
        }
        (void)start;
        if (truncate_) {
            const int64_t room = std::max<int64_t>(0, width - used);
            if (static_cast<int64_t>(text.size()) > room) text = text.substr(0, static_cast<size_t>(room));
        }
        l.text += text;
        l.pos += static_cast<int64_t>(text.size());
    }

    bool multi() const { return o_.merge || o_.columns > 1; }

    void header() {
        if (omit_) return;
        std::string page = "Page " + std::to_string(page_);
        const int64_t blanks =
            o_.width - static_cast<int64_t>(date_.size() + title_.size() + page.size());
        int64_t lhs = blanks / 2, rhs = blanks - lhs;
        if (blanks < 2) lhs = rhs = 1;
        const std::string off(static_cast<size_t>(o_.offset), ' ');
        out_.put(off + "\n\n" + off + date_ + std::string(static_cast<size_t>(lhs), ' ') + title_ +
                 std::string(static_cast<size_t>(rhs), ' ') + page + "\n\n\n");
    }

    void body_line(const std::string& line, bool blank_after = true) {
        out_.put(line);
        out_.put('\n');
        if (o_.double_space && blank_after) out_.put('\n');
    }

    void trailer(int64_t used) {
        if (omit_) return;
        if (o_.formfeed) {
            out_.put('\f');
            return;
        }
        for (int64_t k = used; k < body_ + 5; ++k) out_.put('\n');
    }

    void print_page(const std::vector<std::pair<std::string_view, int64_t>>& lines, int64_t rows, bool formfeed) {
        if (!visible()) return;
        header();
        int64_t used = 0;
        const int64_t n = static_cast<int64_t>(lines.size());
        if (columns_ <= 1) {
            for (const auto& [text, num] : lines) {
                std::string line(static_cast<size_t>(o_.offset), ' ');
                Line l(line);
                l.pos = o_.offset;
                field(l, text, num, 0, o_.width, true);
                body_line(line);
                used += o_.double_space ? 2 : 1;
            }
        } else {
            // Which line goes in row r, column c.
            const int64_t cols = columns_;
            std::vector<int64_t> col_start(static_cast<size_t>(cols) + 1, 0), col_len(static_cast<size_t>(cols), 0);
            int64_t nrows;
            if (o_.across) {
                nrows = (n + cols - 1) / cols;
            } else if (n >= rows * cols) {
                nrows = rows;
                for (int64_t c = 0; c < cols; ++c) col_len[static_cast<size_t>(c)] = rows;
            } else {
                nrows = (n + cols - 1) / cols;
                const int64_t full = n % cols == 0 ? cols : n % cols;
                for (int64_t c = 0; c < cols; ++c) col_len[static_cast<size_t>(c)] = c < full ? nrows : nrows - 1;
                if (nrows == 0) nrows = 0;
            }
            if (!o_.across)
                for (int64_t c = 0; c < cols; ++c)
                    col_start[static_cast<size_t>(c) + 1] = col_start[static_cast<size_t>(c)] + col_len[static_cast<size_t>(c)];
            const int64_t colw = column_width(cols);
            for (int64_t r = 0; r < nrows; ++r) {
                std::string line(static_cast<size_t>(o_.offset), ' ');
                Line l(line);
                l.pos = o_.offset;
                for (int64_t c = 0; c < cols; ++c) {
                    int64_t idx;
                    if (o_.across) {
                        idx = r * cols + c;
                        if (idx >= n) break;
                    } else {
                        if (r >= col_len[static_cast<size_t>(c)]) break;
                        idx = col_start[static_cast<size_t>(c)] + r;
                    }
                    const int64_t start = o_.offset + c * (colw + sep_len());
                    if (c > 0) separate(l, start);
                    field(l, lines[static_cast<size_t>(idx)].first, lines[static_cast<size_t>(idx)].second, start, colw,
                          c == 0);
                }
                // Without headers, GNU leaves out the blank line after the last row of columns.
                body_line(line, !(omit_ && r + 1 == nrows));
                used += o_.double_space ? 2 : 1;
            }
        }
        if (formfeed) out_.put('\f');
        trailer(used);
    }

    CommandContext& ctx_;
    const PrOptions& o_;
    Output& out_;
    bool omit_ = false;
    bool truncate_ = false;
    int64_t body_ = 56;
    int64_t columns_ = 1;
    int64_t page_ = 1;
    int64_t line_no_ = 1;
    std::string title_, date_;
};

bool parse_num(std::string_view s, int64_t& v) {
    if (s.empty() || s.size() > 18) return false;
    v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    return true;
}

}  // namespace

int cmd_pr(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'a', 0, "across"}, {'d', 0, "double-space"}, {'D', 0, "date-format", ArgKind::required},
        {'F', 0, "form-feed"}, {'h', 0, "header", ArgKind::required}, {'J', 0, "join-lines"},
        {'l', 0, "length", ArgKind::required}, {'m', 0, "merge"}, {'n', 0, "number-lines", ArgKind::optional},
        {'N', 0, "first-line-number", ArgKind::required}, {'o', 0, "indent", ArgKind::required},
        {'s', 0, "separator", ArgKind::optional}, {'S', 0, "sep-string", ArgKind::optional},
        {'t', 0, "omit-header"}, {'T', 0, "omit-pagination"}, {'w', 0, "width", ArgKind::required},
        {'W', 0, "page-width", ArgKind::required}, {1000, 0, "pages", ArgKind::required},
        {1001, 0, "columns", ArgKind::required},
    };
    // +FIRST[:LAST] anywhere before "--".
    PrOptions o;
    std::vector<std::string> argv{ctx.argv[0]};
    // +FIRST[:LAST]: 1 when it is a page range, 0 when GNU pr takes it for a file name (a zero or reversed
    // range), -1 after an error message.
    auto page_range = [&](std::string_view spec, const std::string& what) {
        const size_t colon = spec.find(':');
        int64_t a = 0, b = INT64_MAX;
        if (!parse_num(spec.substr(0, colon), a) ||
            (colon != std::string_view::npos && !parse_num(spec.substr(colon + 1), b))) {
            ctx.error("invalid " + what + " argument '" + std::string(spec) + "'");
            return -1;
        }
        if (a == 0 || b < a) return 0;
        o.first_page = a;
        o.last_page = b;
        return 1;
    };
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a == "--") {
            argv.insert(argv.end(), ctx.argv.begin() + static_cast<std::ptrdiff_t>(i), ctx.argv.end());
            break;
        }
        if (a.size() > 1 && a[0] == '+') {
            const int r = page_range(std::string_view(a).substr(1), "+");
            if (r < 0) return 1;
            if (r > 0) continue;
        }
        argv.push_back(a);
    }
    ctx.argv.swap(argv);
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    ParseConfig cfg;
    cfg.digit_option = 1001;
    const bool parsed = parse_getopt(ctx, "aD:dFfh:Jl:mn::N:o:s::S::tTw:W:", kLong, opts, files, cfg);
    ctx.argv.swap(argv);
    if (!parsed) return 1;
    for (const auto& op : opts) {
        switch (op.id) {
        case 'a': o.across = true; break;
        case 'd': o.double_space = true; break;
        case 'D': o.date_format = op.value; break;
        case 'F':
        case 'f': o.formfeed = true; break;
        case 'h':
            o.header = op.value;
            o.header_given = true;
            break;
        case 'J': o.join = true; break;
        case 'l':
            if (!parse_num(op.value, o.page_length) || o.page_length == 0) {
                ctx.error("'-l PAGE_LENGTH' invalid number of lines: " + quote(op.value) +
                          (o.page_length == 0 && !op.value.empty() && parse_num(op.value, o.page_length)
                               ? ": Numerical result out of range"
                               : ""));
                return 1;
            }
            break;
        case 'm': o.merge = true; break;
        case 'n': {
            o.number = true;
            std::string_view v = op.value;
            if (!v.empty() && !(v[0] >= '0' && v[0] <= '9')) {
                o.number_sep = v[0];
                v.remove_prefix(1);
            }
            if (!v.empty() && (!parse_num(v, o.number_digits) || o.number_digits == 0)) {
                usage_error(ctx, "'-n' extra characters or invalid number in the argument: " + quote(v));
                return 1;
            }
            break;
        }
        case 'N':
            if (!parse_num(op.value, o.start_number)) {
                ctx.error("'-N NUMBER' invalid starting line number: " + quote(op.value));
                return 1;
            }
            break;
        case 'o':
            if (!parse_num(op.value, o.offset)) {
                ctx.error("'-o MARGIN' invalid line offset: " + quote(op.value));
                return 1;
            }
            break;
        case 's':
            o.sep_given = true;
            o.sep = op.has_value ? op.value.substr(0, 1) : "\t";
            o.sep_char_given = op.has_value;
            break;
        case 'S':
            o.sep_string = true;
            o.sep = op.has_value ? op.value : " ";
            break;
        case 't': o.omit = true; break;
        case 'T': o.no_paginate = o.omit = true; break;
        case 'w':
        case 'W':
            if (!parse_num(op.value, o.width) || o.width == 0) {
                ctx.error(std::string(op.id == 'w' ? "'-w PAGE_WIDTH'" : "'-W PAGE_WIDTH'") +
                          " invalid number of characters: " + quote(op.value) +
                          (o.width == 0 && parse_num(op.value, o.width) ? ": Numerical result out of range" : ""));
                return 1;
            }
            o.width_given = true;
            if (op.id == 'W') o.truncate_all = true;
            break;
        case 1000:
            if (const int r = page_range(op.value, "--pages"); r <= 0) {
                if (r == 0) ctx.error("invalid --pages argument '" + op.value + "'");
                return 1;
            }
            break;
        case 1001:
            if (!parse_num(op.value, o.columns) || o.columns == 0) {
                ctx.error("invalid number of columns: " + quote(op.value) +
                          (o.columns == 0 && parse_num(op.value, o.columns) ? ": Numerical result out of range" : ""));
                return 1;
            }
            break;
        case kOptHelp:
            return print_help(ctx, "[OPTION]... [FILE]...\nPaginate or columnate FILE(s) for printing.\n");
        case kOptVersion: return version(ctx);
        default: break;
        }
    }
    if (o.merge && o.columns > 1) {
        ctx.error("cannot specify number of columns when printing in parallel");
        return 1;
    }
    if (o.merge && o.across) {
        ctx.error("cannot specify both printing across and printing in parallel");
        return 1;
    }
    if (files.empty()) files.push_back("-");
    if (o.sep_given && !o.sep_char_given && o.width_given) o.sep.clear();  // -s with -w: no separator
    if (o.join && !o.sep_given && !o.sep_string) o.sep = "\t";  // -J: columns joined by a tab by default

    const auto tz = systemutil::TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
    auto date_of = [&](const vfs::TimeSpec& t) {
        return systemutil::format_time(o.date_format, tz.local(t.sec, t.nsec));
    };
    Output out(ctx);
    Printer printer(ctx, o, out);
    interp::MemoryCharge held(ctx.memory);
    int status = 0;
    auto load = [&](const std::string& name, std::string& data, vfs::TimeSpec& mtime) -> bool {
        Input in;
        if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
            out.flush();
            file_error(ctx, name, e);
            status = 1;
            return false;
        }
        mtime = ctx.clock.now();
        if (name != "-") {
            if (auto st = ctx.fs.stat(ctx.resolve(name))) mtime = st->mtime;
        }
        if (auto e = read_all(ctx, in, data); e != vfs::Errc::ok) {
            if (e == vfs::Errc::cancelled) return false;
            out.flush();
            file_error(ctx, name, e);
            status = 1;
            return false;
        }
        held.add(data.size());
        return true;
    };
    if (o.merge) {
        std::vector<std::string> datas(files.size());
        std::vector<std::vector<Item>> inputs;
        for (size_t k = 0; k < files.size(); ++k) {
            vfs::TimeSpec t;
            if (!load(files[k], datas[k], t)) {
                if (ctx.cancelled()) return out.status(130);
                continue;
            }
            inputs.push_back(items_of(datas[k], ctx, held));
            if (ctx.cancelled()) return out.status(130);
        }
        if (!inputs.empty()) printer.run(inputs, o.header_given ? o.header : "", date_of(ctx.clock.now()));
    } else {
        for (const std::string& name : files) {
            if (ctx.cancelled()) return out.status(130);
            std::string data;
            vfs::TimeSpec t;
            if (!load(name, data, t)) {
                if (ctx.cancelled()) return out.status(130);
                continue;
            }
            interp::MemoryCharge items_held(ctx.memory);
            std::vector<std::vector<Item>> inputs{items_of(data, ctx, items_held)};
            if (ctx.cancelled()) return out.status(130);
            printer.run(inputs, o.header_given ? o.header : (name == "-" ? "" : name), date_of(t));
            if (out.failed()) break;
            if (o.first_page > printer.pages() && printer.pages() > 0) {
                out.flush();
                ctx.error("starting page number " + std::to_string(o.first_page) + " exceeds page count " +
                          std::to_string(printer.pages()));
            }
        }
    }
    if (ctx.cancelled()) return out.status(130);
    return out.status(status);
}

}  // namespace bashkit::utils::text
