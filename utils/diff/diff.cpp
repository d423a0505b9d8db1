// diff (GNU diffutils 3.8 under LC_ALL=C): normal, unified (-u/-U), context (-c/-C), side-by-side (-y/-W)
// and brief (-q) output; -r, -N, -w, -b, -B, -i, -a, -s, --label; exit 0 (same), 1 (different), 2 (trouble).
#include <algorithm>
#include <unordered_map>

#include "utils/diff/myers.hpp"
#include "utils/diff/tools.hpp"
#include "utils/system/timeutil.hpp"

namespace bashkit::utils::diffutil {

namespace {

enum class Format : uint8_t { normal, unified, context, side_by_side, ed };

struct Options {
    Format format = Format::normal;
    int64_t context = 3;
    bool brief = false;
    bool recursive = false;
    bool new_file = false;
    bool all_space = false;    // -w
    bool trailing_space = false;  // -Z
    bool space_change = false; // -b
    bool blank_lines = false;  // -B
    bool ignore_case = false;  // -i
    bool text = false;         // -a
    bool report_same = false;  // -s
    int64_t width = 130;       // -W
    bool suppress_common = false;  // --suppress-common-lines
    bool left_column = false;      // --left-column
    std::vector<std::string> labels;
    std::string switches;      // the options as written, for "diff -ru a/x b/x" headers
};

// One side of a comparison.
struct Side {
    std::string name;      // as shown in messages and headers
    std::string path;      // absolute path in the FileSystem; empty for stdin
    bool is_stdin = false;
    bool absent = false;   // -N: a file missing on this side reads as empty
    vfs::Stat st{};
    std::string data;
    std::vector<std::string_view> lines;
    bool incomplete = false;  // the last line has no newline
};

// A change: count_a lines deleted at line a (0-based) and count_b inserted at line b.
struct Change {
    int64_t a = 0, count_a = 0, b = 0, count_b = 0;
    bool ignorable = false;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The comparison key of a line under -i/-w/-b.
std::string line_key(std::string_view line, const Options& o) {
    std::string k;
    k.reserve(line.size());
    if (o.all_space) {
        for (char c : line)
            if (!is_space(c)) k.push_back(c);
    } else if (o.space_change) {
        bool pending = false;
        for (char c : line) {
            if (is_space(c)) {
                pending = true;
                continue;
            }
            if (pending && !k.empty()) k.push_back(' ');
            else if (pending && k.empty()) k.push_back(' ');
            pending = false;
            k.push_back(c);
        }
    } else {
        k.assign(line);
        if (o.trailing_space)
            while (!k.empty() && is_space(k.back())) k.pop_back();
    }
    if (o.ignore_case)
        for (char& c : k)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return k;
}

void split_lines(Side& s) {
    s.lines.clear();
    std::string_view d = s.data;
    size_t pos = 0;
    while (pos < d.size()) {
        size_t nl = d.find('\n', pos);
        if (nl == std::string_view::npos) {
            s.lines.push_back(d.substr(pos));
            s.incomplete = true;
            break;
        }
        s.lines.push_back(d.substr(pos, nl - pos));
        pos = nl + 1;
    }
}

class Differ {
public:
    Differ(CommandContext& ctx, Options& o) : ctx_(ctx), o_(o), out_(ctx) {}

    // Top level: two operands.
    int compare_operands(const std::string& n0, const std::string& n1) {
        Side a, b;
        a.name = n0;
        b.name = n1;
        int st = stat_side(a, !o_.new_file);
        int st2 = stat_side(b, !o_.new_file);
        if (o_.new_file && (st == 2) != (st2 == 2)) {
            // -N: a missing operand reads as an empty file.
            Side& m = st == 2 ? a : b;
            m.absent = true;
            m.st = {};
            st = st2 = 0;
        } else if (o_.new_file && (st == 2 || st2 == 2)) {
            if (st == 2) stat_side(a, true);
            if (st2 == 2) stat_side(b, true);
        }
        if (st == 2 || st2 == 2) return 2;
        const bool dir_a = !a.is_stdin && !a.absent && a.st.is_directory();
        const bool dir_b = !b.is_stdin && !b.absent && b.st.is_directory();
        if (dir_a && dir_b) return compare_dirs(a.name, a.path, b.name, b.path);
        if (dir_a != dir_b) {
            // A file against a directory: the file of the same base name in the directory.
            Side& d = dir_a ? a : b;
            Side& f = dir_a ? b : a;
            if (f.is_stdin) {
                out_.flush();
                ctx_.error("cannot compare '-' to a directory");
                return 2;
            }
            std::string base = vfs::path_basename(f.name);
            d.name = vfs::join_path(d.name, base);
            d.path = vfs::join_path(d.path, base);
            if (stat_side(d, true) == 2) return 2;
        }
        return compare_files(a, b, false);
    }

    int finish(int status) { return out_.status(status); }

private:
    // Fills s.path and s.st. Returns 2 (message printed) when the file is missing and that is an error.
    int stat_side(Side& s, bool report) {
        if (s.name == "-") {
            s.is_stdin = true;
            s.st = {};
            s.st.mtime = ctx_.clock.now();
            return 0;
        }
        s.path = ctx_.resolve(s.name);
        auto r = ctx_.fs.stat(s.path);
        if (!r) {
            std::string_view p = s.path;
            if (p.starts_with("/dev/")) {  // devices of the interpreter (/dev/null...) have no stat
                s.st = {};
                s.st.type = vfs::FileType::char_device;
                return 0;
            }
            if (report) {
                out_.flush();
                text::file_error(ctx_, s.name, r.error());
            }
            return 2;
        }
        s.st = r.value();
        return 0;
    }

    bool load(Side& s) {
        s.data.clear();
        if (s.absent) return true;
        text::Input in;
        vfs::Errc e = s.is_stdin ? (in.open_stdin(ctx_), vfs::Errc::ok) : in.open_input(ctx_, s.path);
        if (e == vfs::Errc::ok) e = text::read_all(ctx_, in, s.data);
        if (e != vfs::Errc::ok) {
            out_.flush();
            text::file_error(ctx_, s.name, e);
            return false;
        }
        return true;
    }

    static bool looks_binary(const std::string& d) {
        return std::string_view(d).substr(0, 32768).find('\0') != std::string_view::npos;
    }

    std::string header_line(const Side& a, const Side& b) {
        return "diff" + o_.switches + " " + a.name + " " + b.name + "\n";
    }

    // Compares two files (in_dir: reached through a directory, so a header line names them).
    int compare_files(Side& a, Side& b, bool in_dir) {
        // Both inputs, their lines and classes, held on the session's memory budget while compared.
        interp::MemoryCharge held(ctx_.memory);
        if (!load(a)) return 2;
        held.add(a.data.capacity());
        if (!load(b)) return 2;
        held.add(b.data.capacity());
        if (ctx_.cancelled()) return 130;
        if (!o_.text && (looks_binary(a.data) || looks_binary(b.data))) {
            if (a.data == b.data) return same(a, b);
            out_.put((o_.brief ? "Files " : "Binary files ") + a.name + " and " + b.name + " differ\n");
            return 1;
        }
        if (a.data == b.data && o_.format != Format::side_by_side) return same(a, b);
        split_lines(a);
        split_lines(b);
        held.add((a.lines.size() + b.lines.size()) * (sizeof(a.lines[0]) + sizeof(int) + 8));
        // Equivalence classes of lines.
        std::unordered_map<std::string, int> classes;
        std::vector<int> ia, ib;
        auto classify = [&](const Side& s, std::vector<int>& ids) {
            ids.reserve(s.lines.size());
            for (size_t i = 0; i < s.lines.size(); ++i) {
                if ((i & 0xffff) == 0xffff && ctx_.cancelled()) return;
                std::string k = line_key(s.lines[i], o_);
                // The last line without its newline differs from the same text with one.
                if (s.incomplete && i + 1 == s.lines.size() && !o_.all_space && !o_.space_change && !o_.trailing_space)
                    k.push_back('\n');
                const size_t ksize = k.size();
                auto [it, fresh] = classes.emplace(std::move(k), static_cast<int>(classes.size()));
                if (fresh) held.add(ksize + 64);
                ids.push_back(it->second);
            }
        };
        classify(a, ia);
        classify(b, ib);
        if (ctx_.cancelled()) return 130;
        // The common prefix and suffix (exact text) are settled first and never take part in the search
        // or in the sliding of change boundaries, as in GNU diff.
        size_t pre = 0, suf = 0;
        const size_t na = ia.size(), nb = ib.size();
        auto same_line = [&](size_t i, size_t j) {
            return a.lines[i] == b.lines[j] &&
                   (a.incomplete && i + 1 == na) == (b.incomplete && j + 1 == nb);
        };
        while (pre < na && pre < nb && same_line(pre, pre)) ++pre;
        while (suf < na - pre && suf < nb - pre && same_line(na - 1 - suf, nb - 1 - suf)) ++suf;
        if (o_.format == Format::unified || o_.format == Format::context) {
            // Formats with context keep that many lines of the prefix and suffix in play (GNU's horizon).
            const size_t keep = static_cast<size_t>(o_.context);
            pre -= std::min(pre, keep);
            suf -= std::min(suf, keep);
        }
        EditFlags mid;
        if (!compute_edits(std::span<const int>(ia).subspan(pre, na - pre - suf),
                           std::span<const int>(ib).subspan(pre, nb - pre - suf), mid, &ctx_.cancel))
            return 130;
        EditFlags flags;
        flags.a.assign(na, 0);
        flags.b.assign(nb, 0);
        std::copy(mid.a.begin(), mid.a.end(), flags.a.begin() + static_cast<std::ptrdiff_t>(pre));
        std::copy(mid.b.begin(), mid.b.end(), flags.b.begin() + static_cast<std::ptrdiff_t>(pre));
        std::vector<Change> changes;
        size_t i = 0, j = 0;
        while (i < ia.size() || j < ib.size()) {
            if ((i < ia.size() && flags.a[i]) || (j < ib.size() && flags.b[j])) {
                Change c{static_cast<int64_t>(i), 0, static_cast<int64_t>(j), 0, false};
                while (i < ia.size() && flags.a[i]) ++i, ++c.count_a;
                while (j < ib.size() && flags.b[j]) ++j, ++c.count_b;
                if (o_.blank_lines) {
                    bool blank = true;
                    for (int64_t k = 0; k < c.count_a && blank; ++k) blank = a.lines[c.a + k].empty();
                    for (int64_t k = 0; k < c.count_b && blank; ++k) blank = b.lines[c.b + k].empty();
                    c.ignorable = blank;
                }
                changes.push_back(c);
            } else {
                ++i;
                ++j;
            }
        }
        bool real = false;
        for (const auto& c : changes) real |= !c.ignorable;
        if (!real && o_.format != Format::side_by_side) return same(a, b);
        if (o_.brief && real) {
            out_.put("Files " + a.name + " and " + b.name + " differ\n");
            return 1;
        }
        if (o_.brief) return same(a, b);
        if (in_dir && real) out_.put(header_line(a, b));
        switch (o_.format) {
        case Format::normal: print_normal(a, b, changes); break;
        case Format::unified: print_unified(a, b, changes); break;
        case Format::context: print_context(a, b, changes); break;
        case Format::side_by_side: print_side_by_side(a, b, changes); break;
        case Format::ed: print_ed(b, changes); break;
        }
        if (!real) return same(a, b);
        return 1;
    }

    int same(const Side& a, const Side& b) {
        if (o_.report_same) out_.put("Files " + a.name + " and " + b.name + " are identical\n");
        return 0;
    }

    void put_line(const Side& s, int64_t i, std::string_view prefix) {
        out_.put(prefix);
        out_.put(s.lines[static_cast<size_t>(i)]);
        out_.put('\n');
        if (s.incomplete && static_cast<size_t>(i) + 1 == s.lines.size()) out_.put("\\ No newline at end of file\n");
    }

    static std::string normal_range(int64_t start, int64_t count) {
        if (count == 0) return std::to_string(start);
        if (count == 1) return std::to_string(start + 1);
        return std::to_string(start + 1) + "," + std::to_string(start + count);
    }

    void print_normal(const Side& a, const Side& b, const std::vector<Change>& changes) {
        for (const auto& c : changes) {
            if (c.ignorable) continue;
            char op = c.count_a == 0 ? 'a' : c.count_b == 0 ? 'd' : 'c';
            out_.put(normal_range(c.a, c.count_a) + op + normal_range(c.b, c.count_b) + "\n");
            for (int64_t k = 0; k < c.count_a; ++k) put_line(a, c.a + k, "< ");
            if (op == 'c') out_.put("---\n");
            for (int64_t k = 0; k < c.count_b; ++k) put_line(b, c.b + k, "> ");
        }
    }

    // -e: an ed script, last change first; a new line that is a lone "." is written as ".." and fixed by s/.//.
    void print_ed(const Side& b, const std::vector<Change>& changes) {
        for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
            const Change& c = *it;
            if (c.ignorable) continue;
            char op = c.count_a == 0 ? 'a' : c.count_b == 0 ? 'd' : 'c';
            out_.put(normal_range(c.a, c.count_a) + op + "\n");
            if (op == 'd') continue;
            bool insert_mode = true;
            for (int64_t k = 0; k < c.count_b; ++k) {
                if (!insert_mode) {
                    out_.put("a\n");
                    insert_mode = true;
                }
                const std::string_view line = b.lines[static_cast<size_t>(c.b + k)];
                if (line == ".") {
                    out_.put("..\n.\ns/.//\n");
                    insert_mode = false;
                } else {
                    out_.put(line);
                    out_.put('\n');
                }
            }
            if (insert_mode) out_.put(".\n");
        }
    }

    // Groups of changes printed as one hunk: changes separated by at most 2*context unchanged lines.
    std::vector<std::pair<size_t, size_t>> hunks(const std::vector<Change>& changes) const {
        std::vector<std::pair<size_t, size_t>> r;
        size_t k = 0;
        while (k < changes.size()) {
            size_t e = k + 1;
            // An ignorable (-B) change joins only when closer than the context; others within 2*context.
            while (e < changes.size() &&
                   changes[e].a - (changes[e - 1].a + changes[e - 1].count_a) <
                       (changes[e].ignorable ? o_.context : 2 * o_.context + 1))
                ++e;
            bool real = false;
            for (size_t t = k; t < e; ++t) real |= !changes[t].ignorable;
            if (real) r.emplace_back(k, e);
            k = e;
        }
        return r;
    }

    std::string file_time(const Side& s, bool context_style) {
        vfs::TimeSpec t = s.absent ? vfs::TimeSpec{} : s.st.mtime;
        auto tz = systemutil::TimeZone::from_tz(ctx_.env.get("TZ"), &ctx_.fs);
        auto lt = tz.local(t.sec, t.nsec);
        return systemutil::format_time(context_style ? "%a %b %e %T %Y" : "%Y-%m-%d %H:%M:%S.%N %z", lt);
    }

    std::string file_label(const Side& s, int which, bool context_style) {
        if (static_cast<size_t>(which) < o_.labels.size()) return o_.labels[static_cast<size_t>(which)];
        return s.name + "\t" + file_time(s, context_style);
    }

    static std::string unified_range(int64_t start, int64_t count) {
        if (count == 1) return std::to_string(start + 1);
        if (count == 0) return std::to_string(start) + ",0";
        return std::to_string(start + 1) + "," + std::to_string(count);
    }

    static std::string context_range(int64_t start, int64_t count) {
        if (count == 0) return std::to_string(start);
        if (count == 1) return std::to_string(start + 1);
        return std::to_string(start + 1) + "," + std::to_string(start + count);
    }

    // The extent of a hunk with its context.
    void hunk_extent(const Side& a, const Side& b, const std::vector<Change>& ch, size_t k, size_t e, int64_t& a0,
                     int64_t& a1, int64_t& b0, int64_t& b1) const {
        const Change& f = ch[k];
        const Change& l = ch[e - 1];
        int64_t before = std::min<int64_t>(o_.context, f.a);
        before = std::min<int64_t>(before, f.b);
        int64_t na = static_cast<int64_t>(a.lines.size()), nb = static_cast<int64_t>(b.lines.size());
        int64_t after = std::min<int64_t>(o_.context, na - (l.a + l.count_a));
        after = std::min<int64_t>(after, nb - (l.b + l.count_b));
        a0 = f.a - before;
        b0 = f.b - before;
        a1 = l.a + l.count_a + after;
        b1 = l.b + l.count_b + after;
    }

    void print_unified(const Side& a, const Side& b, const std::vector<Change>& ch) {
        out_.put("--- " + file_label(a, 0, false) + "\n");
        out_.put("+++ " + file_label(b, 1, false) + "\n");
        for (auto [k, e] : hunks(ch)) {
            int64_t a0, a1, b0, b1;
            hunk_extent(a, b, ch, k, e, a0, a1, b0, b1);
            out_.put("@@ -" + unified_range(a0, a1 - a0) + " +" + unified_range(b0, b1 - b0) + " @@\n");
            int64_t i = a0;
            for (size_t t = k; t < e; ++t) {
                const Change& c = ch[t];
                for (; i < c.a; ++i) put_line(a, i, " ");
                for (int64_t d = 0; d < c.count_a; ++d) put_line(a, c.a + d, "-");
                for (int64_t d = 0; d < c.count_b; ++d) put_line(b, c.b + d, "+");
                i = c.a + c.count_a;
            }
            for (; i < a1; ++i) put_line(a, i, " ");
        }
    }

    void print_context(const Side& a, const Side& b, const std::vector<Change>& ch) {
        out_.put("*** " + file_label(a, 0, true) + "\n");
        out_.put("--- " + file_label(b, 1, true) + "\n");
        for (auto hunk : hunks(ch)) {
            const size_t k = hunk.first, e = hunk.second;  // named, so the lambda below can capture them
            int64_t a0, a1, b0, b1;
            hunk_extent(a, b, ch, k, e, a0, a1, b0, b1);
            out_.put("***************\n");
            out_.put("*** " + context_range(a0, a1 - a0) + " ****\n");
            // One side of the hunk: its lines from..to, changed ones marked "! " (changed on both sides) or
            // `only` (removed or added); printed only when the side has a change at all.
            auto side = [&](const Side& f, int64_t from, int64_t to, int64_t Change::*at, int64_t Change::*count,
                            int64_t Change::*other, const char* only) {
                bool any = false;
                for (size_t t = k; t < e; ++t) any |= ch[t].*count > 0;
                if (!any) return;
                int64_t i = from;
                for (size_t t = k; t < e; ++t) {
                    const Change& c = ch[t];
                    for (; i < c.*at; ++i) put_line(f, i, "  ");
                    for (int64_t d = 0; d < c.*count; ++d) put_line(f, c.*at + d, c.*other ? "! " : only);
                    i = c.*at + c.*count;
                }
                for (; i < to; ++i) put_line(f, i, "  ");
            };
            side(a, a0, a1, &Change::a, &Change::count_a, &Change::count_b, "- ");
            out_.put("--- " + context_range(b0, b1 - b0) + " ----\n");
            side(b, b0, b1, &Change::b, &Change::count_b, &Change::count_a, "+ ");
        }
    }

    // --- side by side ----------------------------------------------------------------------------------

    // Pads from column `from` to column `to` with tabs then spaces.
    void pad(int64_t from, int64_t to) {
        while ((from / 8 + 1) * 8 <= to) {
            out_.put('\t');
            from = (from / 8 + 1) * 8;
        }
        while (from < to) {
            out_.put(' ');
            ++from;
        }
    }

    // Prints up to `limit` columns of text starting at column `col`; returns the column reached.
    int64_t half_line(std::string_view text, int64_t col, int64_t limit) {
        int64_t start = col;
        for (char c : text) {
            if (c == '\t') {
                int64_t next = ((col - start) / 8 + 1) * 8 + start;
                if (next - start > limit) break;
                out_.put(c);
                col = next;
            } else {
                if (col - start + 1 > limit) break;
                out_.put(c);
                ++col;
            }
        }
        return col;
    }

    void sbs_line(const std::string_view* left, const std::string_view* right, char sep, bool newline = true) {
        int64_t w = o_.width;
        int64_t off = (w + 8 + 3) / 16 * 8;
        int64_t half = std::max<int64_t>(0, std::min(off - 3, w - off));
        int64_t col2 = half ? off : w;
        int64_t col = 0;
        if (left) col = half_line(*left, 0, half);
        if (sep != ' ') {
            pad(col, (half + col2 - 1) / 2);
            out_.put(sep);
            col = (half + col2 - 1) / 2 + 1;
        }
        if (right && !right->empty()) {
            pad(col, col2);
            half_line(*right, col2, half);
        }
        if (newline) out_.put('\n');
    }

    void print_side_by_side(const Side& a, const Side& b, const std::vector<Change>& ch) {
        int64_t i = 0, j = 0;
        const int64_t na = static_cast<int64_t>(a.lines.size()), nb = static_cast<int64_t>(b.lines.size());
        // A line printed from an incomplete last line ends without a newline (the right side decides).
        auto nl = [&](int64_t li, int64_t ri) {
            if (ri >= 0) return !(b.incomplete && ri + 1 == nb);
            return !(a.incomplete && li + 1 == na);
        };
        auto common_until = [&](int64_t ai) {
            for (; i < ai; ++i, ++j) {
                if (o_.suppress_common) continue;
                if (o_.left_column)
                    sbs_line(&a.lines[static_cast<size_t>(i)], nullptr, '(', nl(i, j));
                else
                    sbs_line(&a.lines[static_cast<size_t>(i)], &b.lines[static_cast<size_t>(j)], ' ', nl(i, j));
            }
        };
        for (const auto& c : ch) {
            common_until(c.a);
            int64_t both = std::min(c.count_a, c.count_b);
            for (int64_t d = 0; d < both; ++d)
            {
                // A pair where only one side lacks its final newline: '\\' (left) or '/' (right).
                const bool li = a.incomplete && c.a + d + 1 == na, ri = b.incomplete && c.b + d + 1 == nb;
                char sep = c.ignorable ? ' ' : '|';
                if (li != ri) sep = li ? '\\' : '/';
                sbs_line(&a.lines[static_cast<size_t>(c.a + d)], &b.lines[static_cast<size_t>(c.b + d)], sep,
                         li != ri || nl(c.a + d, c.b + d));
            }
            for (int64_t d = both; d < c.count_a; ++d)
                sbs_line(&a.lines[static_cast<size_t>(c.a + d)], nullptr, '<', nl(c.a + d, -1));
            for (int64_t d = both; d < c.count_b; ++d)
                sbs_line(nullptr, &b.lines[static_cast<size_t>(c.b + d)], '>', nl(-1, c.b + d));
            i = c.a + c.count_a;
            j = c.b + c.count_b;
        }
        common_until(static_cast<int64_t>(a.lines.size()));
    }

    // --- directories -----------------------------------------------------------------------------------

    int compare_dirs(const std::string& n0, const std::string& p0, const std::string& n1, const std::string& p1) {
        auto list = [&](const std::string& path, const std::string& name, std::vector<std::string>& names) {
            auto r = ctx_.fs.readdir(path);
            if (!r) {
                out_.flush();
                text::file_error(ctx_, name, r.error());
                return false;
            }
            for (auto& e : r.value()) names.push_back(e.name);
            std::sort(names.begin(), names.end());
            return true;
        };
        std::vector<std::string> l0, l1;
        if (!list(p0, n0, l0) || !list(p1, n1, l1)) return 2;
        std::vector<std::string> all;
        std::set_union(l0.begin(), l0.end(), l1.begin(), l1.end(), std::back_inserter(all));
        int status = 0;
        for (const auto& name : all) {
            if (ctx_.cancelled()) return 130;
            const bool in0 = std::binary_search(l0.begin(), l0.end(), name);
            const bool in1 = std::binary_search(l1.begin(), l1.end(), name);
            Side a, b;
            a.name = vfs::join_path(n0, name);
            b.name = vfs::join_path(n1, name);
            a.path = vfs::join_path(p0, name);
            b.path = vfs::join_path(p1, name);
            int r = 0;
            if (!in0 || !in1) {
                Side& have = in0 ? a : b;
                Side& miss = in0 ? b : a;
                auto st = ctx_.fs.stat(have.path);
                if (!st) {
                    out_.flush();
                    text::file_error(ctx_, have.name, st.error());
                    status = 2;
                    continue;
                }
                have.st = st.value();
                if (o_.new_file && !(have.st.is_directory() && !o_.recursive)) {
                    if (have.st.is_directory()) {
                        r = compare_dir_vs_absent(a, b, in0);
                    } else {
                        miss.absent = true;
                        r = compare_files(a, b, true);
                    }
                } else {
                    out_.put("Only in " + (in0 ? n0 : n1) + ": " + name + "\n");
                    r = 1;
                }
            } else {
                auto s0 = ctx_.fs.stat(a.path);
                auto s1 = ctx_.fs.stat(b.path);
                if (!s0 || !s1) {
                    out_.flush();
                    if (!s0) text::file_error(ctx_, a.name, s0.error());
                    if (!s1) text::file_error(ctx_, b.name, s1.error());
                    status = 2;
                    continue;
                }
                a.st = s0.value();
                b.st = s1.value();
                const bool d0 = a.st.is_directory(), d1 = b.st.is_directory();
                if (d0 && d1) {
                    if (o_.recursive) r = compare_dirs(a.name, a.path, b.name, b.path);
                    else {
                        out_.put("Common subdirectories: " + a.name + " and " + b.name + "\n");
                        r = 0;
                    }
                } else if (d0 != d1) {
                    out_.put("File " + a.name + " is a " + std::string(vfs::file_type_name(a.st.type)) +
                             " while file " + b.name + " is a " + std::string(vfs::file_type_name(b.st.type)) + "\n");
                    r = 1;
                } else {
                    r = compare_files(a, b, true);
                }
            }
            if (r == 130) return 130;
            status = std::max(status, r);
        }
        return status;
    }

    // -N -r: a directory present on one side only compares against an empty tree.
    int compare_dir_vs_absent(Side& a, Side& b, bool present_first) {
        Side& have = present_first ? a : b;
        std::vector<std::string> names;
        auto r = ctx_.fs.readdir(have.path);
        if (!r) return 2;
        for (auto& e : r.value()) names.push_back(e.name);
        std::sort(names.begin(), names.end());
        int status = 0;
        for (const auto& name : names) {
            Side x, y;
            x.name = vfs::join_path(a.name, name);
            y.name = vfs::join_path(b.name, name);
            x.path = vfs::join_path(a.path, name);
            y.path = vfs::join_path(b.path, name);
            Side& h = present_first ? x : y;
            Side& m = present_first ? y : x;
            auto st = ctx_.fs.stat(h.path);
            if (!st) continue;
            h.st = st.value();
            m.absent = true;
            int s = h.st.is_directory() ? compare_dir_vs_absent(x, y, present_first) : compare_files(x, y, true);
            status = std::max(status, s);
        }
        return status;
    }

    CommandContext& ctx_;
    Options& o_;
    text::Output out_;
};

enum : int {
    kOptLabel = kOptFirstLongOnly,
    kOptNormal,
    kOptSuppressCommon,
    kOptLeftColumn,
};

constexpr OptionSpec kDiffSpecs[] = {
    {'u', 'u', "", ArgKind::none},
    {'U', 'U', "unified", ArgKind::required},
    {'c', 'c', "", ArgKind::none},
    {'C', 'C', "context", ArgKind::required},
    {'q', 'q', "brief"},
    {'r', 'r', "recursive"},
    {'N', 'N', "new-file"},
    {'y', 'y', "side-by-side"},
    {'e', 'e', "ed"},
    {'W', 'W', "width", ArgKind::required},
    {'w', 'w', "ignore-all-space"},
    {'Z', 'Z', "ignore-trailing-space"},
    {'b', 'b', "ignore-space-change"},
    {'B', 'B', "ignore-blank-lines"},
    {'i', 'i', "ignore-case"},
    {'a', 'a', "text"},
    {'s', 's', "report-identical-files"},
    {kOptLabel, 0, "label", ArgKind::required},
    {kOptNormal, 0, "normal"},
    {kOptSuppressCommon, 0, "suppress-common-lines"},
    {kOptLeftColumn, 0, "left-column"},
    // -NUM: GNU's obsolete context count (digits accumulate across options)
    {'0', '0', ""}, {'1', '1', ""}, {'2', '2', ""}, {'3', '3', ""}, {'4', '4', ""},
    {'5', '5', ""}, {'6', '6', ""}, {'7', '7', ""}, {'8', '8', ""}, {'9', '9', ""},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int diff_usage(CommandContext& ctx, std::string_view message) {
    if (!message.empty()) ctx.error(message);
    ctx.error("Try 'diff --help' for more information.");
    return 2;
}

bool parse_count(const std::string& s, int64_t& v) {
    uint64_t u = 0;
    if (!text::parse_uint(s, u) || u > (uint64_t{1} << 40)) return false;
    v = static_cast<int64_t>(u);
    return true;
}

}  // namespace

int cmd_diff(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kDiffSpecs);
    Options o;
    int style = 0;  // the output style chosen so far (an option id), for "conflicting output style options"
    auto set_style = [&](int id, Format f) {
        int key = id == 'U' ? 'u' : id == 'C' ? 'c' : id;
        if (style != 0 && style != key) return false;
        style = key;
        o.format = f;
        return true;
    };
    int64_t ocontext = -1;          // -NUM
    bool explicit_context = false;  // -U N / -C N
    int prev = 0;
    for (const auto& opt : p.options) {
        const bool digit = opt.id >= '0' && opt.id <= '9';
        if (digit) {
            const int64_t d = opt.id - '0';
            ocontext = (prev >= '0' && prev <= '9') ? std::min<int64_t>(ocontext * 10 + d, int64_t{1} << 40) : d;
        }
        prev = opt.id;
        bool ok_style = true;
        switch (opt.id) {
        case 'u': ok_style = set_style('u', Format::unified); break;
        case 'c': ok_style = set_style('c', Format::context); break;
        case 'U': ok_style = set_style('U', Format::unified); break;
        case 'C': ok_style = set_style('C', Format::context); break;
        case 'y': ok_style = set_style('y', Format::side_by_side); break;
        case kOptNormal: ok_style = set_style(kOptNormal, Format::normal); break;
        case 'e': ok_style = set_style('e', Format::ed); break;
        default: break;
        }
        if (!ok_style) return diff_usage(ctx, "conflicting output style options");
        switch (opt.id) {
        case kOptHelp:
            return text::print_help(ctx, "[OPTION]... FILES\nCompare FILES line by line.\n");
        case kOptVersion:
            (void)ctx.out.write("diff (GNU diffutils) 3.8 (bashkit)\n");
            return 0;
        case 'U':
        case 'C':
            if (!parse_count(opt.value, o.context)) {
                ctx.error("invalid context length '" + opt.value + "'");
                return diff_usage(ctx, "");
            }
            explicit_context = true;
            break;
        case kOptSuppressCommon: o.suppress_common = true; break;
        case kOptLeftColumn: o.left_column = true; break;
        case 'q': o.brief = true; break;
        case 'r': o.recursive = true; break;
        case 'N': o.new_file = true; break;
        case 'W':
            if (!parse_count(opt.value, o.width) || o.width == 0) {
                ctx.error("invalid width '" + opt.value + "'");
                return diff_usage(ctx, "");
            }
            break;
        case 'w': o.all_space = true; break;
        case 'Z': o.trailing_space = true; break;
        case 'b': o.space_change = true; break;
        case 'B': o.blank_lines = true; break;
        case 'i': o.ignore_case = true; break;
        case 'a': o.text = true; break;
        case 's': o.report_same = true; break;
        case kOptLabel: o.labels.push_back(opt.value); break;
        default: break;
        }
    }
    if (!p.ok()) return diff_usage(ctx, p.error);
    if (ocontext >= 0 && (o.format == Format::context || o.format == Format::unified) &&
        (o.context < ocontext || (ocontext < o.context && !explicit_context)))
        o.context = ocontext;
    // The switches as written, for the "diff -r a/x b/x" lines of directory comparisons.
    {
        std::vector<std::string> ops = p.operands;
        bool ended = false;
        for (size_t k = 1; k < ctx.argv.size(); ++k) {
            const std::string& w = ctx.argv[k];
            if (!ended && w == "--") {
                ended = true;
                continue;
            }
            auto it = std::find(ops.begin(), ops.end(), w);
            if (it != ops.end() && (ended || w == "-" || w.empty() || w[0] != '-')) {
                // An operand unless it is an option's argument (-U 5): those follow an option word.
                bool is_arg = false;
                if (k > 1) {
                    const std::string& prev = ctx.argv[k - 1];
                    if (!ended && (prev == "-U" || prev == "-C" || prev == "-W" || prev == "--label" ||
                                   prev == "--unified" || prev == "--context" || prev == "--width"))
                        is_arg = true;
                }
                if (!is_arg) {
                    ops.erase(it);
                    continue;
                }
            }
            o.switches += " " + w;
        }
    }
    if (p.operands.size() < 2) {
        std::string after = p.operands.empty() ? ctx.argv[0] : p.operands.back();
        return diff_usage(ctx, "missing operand after '" + after + "'");
    }
    if (p.operands.size() > 2) return diff_usage(ctx, "extra operand '" + p.operands[2] + "'");
    Differ d(ctx, o);
    int status = d.compare_operands(p.operands[0], p.operands[1]);
    return d.finish(status);
}

// sdiff without -o is diff -y with sdiff's option letters: GNU sdiff runs diff for its comparison, so a
// file error reads "diff: NAME: ..." and usage errors "sdiff: ..." then "sdiff: Try 'sdiff --help' ...".
int cmd_sdiff(CommandContext& ctx) {
    enum : int { kStripCr = kOptFirstLongOnly, kTabsize, kDiffProgram };
    static constexpr OptionSpec kSdiffSpecs[] = {
        {'o', 'o', "output", ArgKind::required},
        {'i', 'i', "ignore-case"},
        {'E', 'E', "ignore-tab-expansion"},
        {'Z', 'Z', "ignore-trailing-space"},
        {'b', 'b', "ignore-space-change"},
        {'W', 'W', "ignore-all-space"},
        {'B', 'B', "ignore-blank-lines"},
        {'I', 'I', "ignore-matching-lines", ArgKind::required},
        {kStripCr, 0, "strip-trailing-cr"},
        {'a', 'a', "text"},
        {'w', 'w', "width", ArgKind::required},
        {'l', 'l', "left-column"},
        {'s', 's', "suppress-common-lines"},
        {'t', 't', "expand-tabs"},
        {kTabsize, 0, "tabsize", ArgKind::required},
        {'d', 'd', "minimal"},
        {'H', 'H', "speed-large-files"},
        {kDiffProgram, 0, "diff-program", ArgKind::required},
        {kOptHelp, 0, "help"},
        {kOptVersion, 'v', "version"},
    };
    auto usage = [&](std::string_view message) {
        if (!message.empty()) ctx.error(message);
        ctx.error("Try 'sdiff --help' for more information.");
        return 2;
    };
    ParsedArgs p = parse_args(ctx.argv, kSdiffSpecs);
    Options o;
    o.format = Format::side_by_side;
    for (const auto& opt : p.options) {
        switch (opt.id) {
        case kOptHelp:
            return text::print_help(ctx,
                                    "[OPTION]... FILE1 FILE2\nSide-by-side merge of differences between FILE1 and "
                                    "FILE2.\n\n  -i -Z -b -W -B -a  as diff's -i -Z -b -w -B -a\n"
                                    "  -w, --width=NUM              output at most NUM (default 130) print columns\n"
                                    "  -l, --left-column            output only the left column of common lines\n"
                                    "  -s, --suppress-common-lines  do not output common lines\n"
                                    "  -o is refused: interactive merging needs a terminal.\n"
                                    "Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.\n");
        case kOptVersion: (void)ctx.out.write("sdiff (GNU diffutils) 3.8 (bashkit)\n"); return 0;
        default: break;
        }
    }
    if (!p.ok()) return usage(p.error);
    for (const auto& opt : p.options) {
        switch (opt.id) {
        case 'o':
            ctx.error("-o: interactive merging reads answers from a terminal, which the sandbox does not have");
            return 2;
        case 'E':
        case 'I':
        case 't':
        case kStripCr:
        case kTabsize:
        case kDiffProgram:
            ctx.error(opt.spelled + ": not supported (see utils/diff/README.md)");
            return 2;
        case 'i': o.ignore_case = true; break;
        case 'Z': o.trailing_space = true; break;
        case 'b': o.space_change = true; break;
        case 'W': o.all_space = true; break;
        case 'B': o.blank_lines = true; break;
        case 'a': o.text = true; break;
        case 'l': o.left_column = true; break;
        case 's': o.suppress_common = true; break;
        case 'w':
            if (!parse_count(opt.value, o.width) || o.width == 0) {
                ctx.argv[0] = "diff";  // the width is checked by the diff GNU sdiff runs
                return diff_usage(ctx, "invalid width '" + opt.value + "'");
            }
            break;
        default: break;  // -d, -H: the engine's script is already GNU's
        }
    }
    if (p.operands.size() < 2) {
        std::string after = p.operands.empty() ? ctx.argv[0] : p.operands.back();
        return usage("missing operand after '" + after + "'");
    }
    if (p.operands.size() > 2) return usage("extra operand '" + p.operands[2] + "'");
    ctx.argv[0] = "diff";  // messages about the files come from the diff GNU sdiff runs
    Differ d(ctx, o);
    int status = d.compare_operands(p.operands[0], p.operands[1]);
    status = d.finish(status);
    ctx.argv[0] = "sdiff";
    return status;
}

}  // namespace bashkit::utils::diffutil
