// diff3 (GNU diffutils 3.8 under LC_ALL=C): compare MINE, OLDER and YOURS.
//
// Like GNU diff3, two 2-way comparisons (OLDER against MINE, OLDER against YOURS, by the same engine and
// the same canonical choice of script as diff) are merged into blocks: changes of either comparison whose
// OLDER ranges overlap or touch belong to one block. A block changed in one comparison only is "====1"
// (MINE differs) or "====3" (YOURS differs); changed in both, it is "====2" when MINE and YOURS agree there
// (OLDER is the odd one) and "====" otherwise (a conflict).
//
// Outputs: the default listing; ed scripts that bring YOURS' changes into MINE (-e all of them, -3 the
// unconflicting ones, -x the conflicts; -E and -A bracket conflicts, -A shows OLDER's text and the
// ====2 blocks too; -i appends w and q); -m the merged file itself (-A unless another of them is given).
// Exit 0, 1 when a conflict was bracketed, 2 on trouble.
#include <algorithm>
#include <unordered_map>

#include "utils/diff/myers.hpp"
#include "utils/diff/tools.hpp"

namespace bashkit::utils::diffutil {

namespace {

struct File {
    std::string name;   // as given (messages)
    std::string label;  // -L or the name
    std::string data;
    std::vector<std::string_view> lines;  // each without its newline
    bool incomplete = false;              // the last line has no newline
};

void split(File& f) {
    std::string_view d = f.data;
    size_t pos = 0;
    while (pos < d.size()) {
        size_t nl = d.find('\n', pos);
        if (nl == std::string_view::npos) {
            f.lines.push_back(d.substr(pos));
            f.incomplete = true;
            break;
        }
        f.lines.push_back(d.substr(pos, nl - pos));
        pos = nl + 1;
    }
}

// One change of a 2-way comparison, 1-based inclusive ranges (hi = lo - 1 when empty): lines lo1..hi1 of
// the other file stand where lines lo0..hi0 of the common file are.
struct Hunk {
    int64_t lo0, hi0, lo1, hi1;
};

// The changes of `diff other common`, as diff finds them. Lines are compared with their newline (a last line
// without one differs from the same text with one). The common prefix and suffix are settled first except
// for a horizon of 100 lines the boundaries may slide into (what GNU diff3 asks of diff). False when cancelled.
bool changes(CommandContext& ctx, const File& a, const File& b, std::vector<Hunk>& out,
             interp::MemoryCharge& held) {
    std::unordered_map<std::string_view, int> classes;
    std::vector<std::string> incomplete_keys;  // the "no newline" variants of last lines
    incomplete_keys.reserve(2);
    std::vector<int> ia, ib;
    auto classify = [&](const File& f, std::vector<int>& ids) {
        ids.reserve(f.lines.size());
        for (size_t i = 0; i < f.lines.size(); ++i) {
            if ((i & 0xffff) == 0xffff && ctx.cancelled()) return;
            std::string_view k = f.lines[i];
            if (f.incomplete && i + 1 == f.lines.size()) {
                incomplete_keys.push_back(std::string(k) + '\0' + "incomplete");
                k = incomplete_keys.back();
            }
            auto [it, fresh] = classes.emplace(k, static_cast<int>(classes.size()));
            if (fresh) held.add(64);
            ids.push_back(it->second);
        }
    };
    held.add((a.lines.size() + b.lines.size()) * (sizeof(int) + 2));
    classify(a, ia);
    classify(b, ib);
    if (ctx.cancelled()) return false;
    const size_t na = ia.size(), nb = ib.size();
    size_t pre = 0, suf = 0;
    while (pre < na && pre < nb && ia[pre] == ib[pre]) ++pre;
    while (suf < na - pre && suf < nb - pre && ia[na - 1 - suf] == ib[nb - 1 - suf]) ++suf;
    constexpr size_t kHorizon = 100;
    pre -= std::min(pre, kHorizon);
    suf -= std::min(suf, kHorizon);
    EditFlags mid;
    if (!compute_edits(std::span<const int>(ia).subspan(pre, na - pre - suf),
                       std::span<const int>(ib).subspan(pre, nb - pre - suf), mid, &ctx.cancel))
        return false;
    std::vector<char> fa(na, 0), fb(nb, 0);
    std::copy(mid.a.begin(), mid.a.end(), fa.begin() + static_cast<std::ptrdiff_t>(pre));
    std::copy(mid.b.begin(), mid.b.end(), fb.begin() + static_cast<std::ptrdiff_t>(pre));
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        if ((i < na && fa[i]) || (j < nb && fb[j])) {
            Hunk h{static_cast<int64_t>(j) + 1, static_cast<int64_t>(j), static_cast<int64_t>(i) + 1,
                   static_cast<int64_t>(i)};
            while (i < na && fa[i]) ++i, ++h.hi1;
            while (j < nb && fb[j]) ++j, ++h.hi0;
            out.push_back(h);
        } else {
            ++i;
            ++j;
        }
    }
    held.add(out.size() * sizeof(Hunk));
    return true;
}

struct Block {
    int odd = -1;          // the file that differs from the two others (0 MINE, 1 OLDER, 2 YOURS); -1: all differ
    int64_t lo[3], hi[3];  // per file (1-based, hi = lo - 1 when empty)
};

bool same_lines(const File& x, int64_t xlo, int64_t xhi, const File& y, int64_t ylo, int64_t yhi) {
    if (xhi - xlo != yhi - ylo) return false;
    for (int64_t k = 0; k <= xhi - xlo; ++k) {
        const size_t m = static_cast<size_t>(xlo + k - 1), n = static_cast<size_t>(ylo + k - 1);
        if (x.lines[m] != y.lines[n] ||
            (x.incomplete && m + 1 == x.lines.size()) != (y.incomplete && n + 1 == y.lines.size()))
            return false;
    }
    return true;
}

// Merges the changes of files[0] and files[1] against files[2] (the common file) into blocks: changes whose
// ranges in the common file overlap or touch are one block.
std::vector<Block> make_blocks(const File (&f)[3], const int (&files)[3], const std::vector<Hunk>& t0,
                               const std::vector<Hunk>& t1, const interp::CancelToken& cancel) {
    std::vector<Block> blocks;
    const std::vector<Hunk>* threads[2] = {&t0, &t1};
    const int common = files[2];
    size_t next[2] = {0, 0};
    int64_t delta[2] = {0, 0};  // other-file line minus common line after the last hunk used
    while (next[0] < t0.size() || next[1] < t1.size()) {
        if (cancel.cancelled()) return blocks;
        int base;
        if (next[0] >= t0.size()) base = 1;
        else if (next[1] >= t1.size()) base = 0;
        else base = t1[next[1]].lo0 < t0[next[0]].lo0 ? 1 : 0;
        const size_t first[2] = {next[0], next[1]};
        const int64_t lowc = (*threads[base])[next[base]].lo0;
        int64_t high = (*threads[base])[next[base]].hi0;
        ++next[base];
        for (bool grew = true; grew;) {
            grew = false;
            for (int t = 0; t < 2; ++t) {
                while (next[t] < threads[t]->size() && (*threads[t])[next[t]].lo0 <= high + 1) {
                    high = std::max(high, (*threads[t])[next[t]].hi0);
                    ++next[t];
                    grew = true;
                }
            }
        }
        Block b;
        b.lo[common] = lowc;
        b.hi[common] = high;
        bool used[2];
        for (int t = 0; t < 2; ++t) {
            const int file = files[t];
            used[t] = next[t] > first[t];
            if (used[t]) {
                const Hunk& h0 = (*threads[t])[first[t]];
                const Hunk& h1 = (*threads[t])[next[t] - 1];
                b.lo[file] = h0.lo1 - h0.lo0 + lowc;
                b.hi[file] = h1.hi1 - h1.hi0 + high;
                delta[t] = h1.hi1 - h1.hi0;
            } else {
                b.lo[file] = lowc + delta[t];
                b.hi[file] = high + delta[t];
            }
        }
        if (used[0] && used[1])
            b.odd = same_lines(f[files[0]], b.lo[files[0]], b.hi[files[0]], f[files[1]], b.lo[files[1]],
                               b.hi[files[1]])
                        ? common
                        : -1;
        else
            b.odd = used[0] ? files[0] : files[1];
        blocks.push_back(b);
    }
    return blocks;
}

std::string range(int64_t lo, int64_t hi, char op) {
    if (hi < lo) return std::to_string(lo - 1) + "a";
    if (hi == lo) return std::to_string(lo) + op;
    return std::to_string(lo) + "," + std::to_string(hi) + op;
}

struct Mode {
    bool ed = false;       // an ed script (-e -E -x -X -3 -A)
    bool merge = false;    // -m
    bool show_2nd = false; // -A
    bool flagging = false; // bracket conflicts
    bool overlap_only = false;
    bool simple_only = false;
    bool wq = false;       // -i
    bool tab = false;      // -T
};

class Writer {
public:
    Writer(CommandContext& ctx, const File (&f)[3], const Mode& m) : f_(f), m_(m), out_(ctx) {}

    void listing(const std::vector<Block>& blocks, const interp::CancelToken& cancel) {
        for (const Block& b : blocks) {
            if (cancel.cancelled() || out_.failed()) return;
            const int odd = b.odd;
            int dontprint = 3;
            if (odd < 0) out_.put("====\n");
            if (odd >= 0) {
                out_.put("====" + std::to_string(odd + 1) + "\n");
                dontprint = odd == 0 ? 1 : 0;
            }
            // When MINE and YOURS agree (====2), YOURS is listed before OLDER.
            const int order[3] = {0, odd == 1 ? 2 : 1, odd == 1 ? 1 : 2};
            for (int file : order) {
                out_.put(std::to_string(file + 1) + ":" + range(b.lo[file], b.hi[file], 'c') + "\n");
                if (file == dontprint) continue;
                for (int64_t k = b.lo[file]; k <= b.hi[file]; ++k) {
                    const size_t i = static_cast<size_t>(k - 1);
                    out_.put(m_.tab ? "\t" : "  ");
                    out_.put(f_[file].lines[i]);
                    out_.put('\n');
                    if (f_[file].incomplete && i + 1 == f_[file].lines.size())
                        out_.put("\\ No newline at end of file\n");
                }
            }
        }
    }

    // Whether the block takes part in -e/-m output, and whether it is shown as a conflict.
    bool wanted(const Block& b, bool& conflict) const {
        switch (b.odd) {
        case 0: return false;  // MINE's own change
        case 1:                // MINE and YOURS made the same change
            conflict = true;
            return m_.show_2nd;
        case 2:
            conflict = false;
            return !m_.overlap_only;
        default:
            conflict = m_.flagging;
            return !m_.simple_only;
        }
    }

    // Lines lo..hi of file as they are (merge output).
    void raw(int file, int64_t lo, int64_t hi) {
        for (int64_t k = lo; k <= hi; ++k) {
            const size_t i = static_cast<size_t>(k - 1);
            out_.put(f_[file].lines[i]);
            if (!(f_[file].incomplete && i + 1 == f_[file].lines.size())) out_.put('\n');
        }
    }

    bool merged(const std::vector<Block>& blocks, const interp::CancelToken& cancel) {
        bool conflicts = false;
        int64_t pos = 1;
        for (const Block& b : blocks) {
            if (cancel.cancelled() || out_.failed()) return conflicts;
            bool conflict = false;
            if (!wanted(b, conflict)) continue;
            raw(0, pos, b.lo[0] - 1);
            if (conflict) {
                conflicts = true;
                const bool all = b.odd < 0;
                out_.put("<<<<<<< " + f_[all ? 0 : 1].label + "\n");
                raw(all ? 0 : 1, b.lo[all ? 0 : 1], b.hi[all ? 0 : 1]);
                if (all && m_.show_2nd) {
                    out_.put("||||||| " + f_[1].label + "\n");
                    raw(1, b.lo[1], b.hi[1]);
                }
                out_.put("=======\n");
                raw(2, b.lo[2], b.hi[2]);
                out_.put(">>>>>>> " + f_[2].label + "\n");
            } else {
                raw(2, b.lo[2], b.hi[2]);
            }
            pos = b.hi[0] + 1;
        }
        raw(0, pos, static_cast<int64_t>(f_[0].lines.size()));
        return conflicts;
    }

    // Lines of an ed insertion: a line starting with '.' gets another one (removed by an s command after).
    bool dotted(int file, int64_t lo, int64_t hi) {
        bool dot = false;
        for (int64_t k = lo; k <= hi; ++k) {
            std::string_view line = f_[file].lines[static_cast<size_t>(k - 1)];
            if (!line.empty() && line[0] == '.') {
                out_.put('.');
                dot = true;
            }
            out_.put(line);
            out_.put('\n');
        }
        return dot;
    }
    void undot(bool dot, int64_t start, int64_t n) {
        if (!dot) return;
        if (n == 1) out_.put(std::to_string(start) + "s/^\\.//\n");
        else out_.put(std::to_string(start) + "," + std::to_string(start + n - 1) + "s/^\\.//\n");
    }

    bool edscript(const std::vector<Block>& blocks, const interp::CancelToken& cancel) {
        bool conflicts = false;
        for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
            if (cancel.cancelled() || out_.failed()) return conflicts;
            const Block& b = *it;
            bool conflict = false;
            if (!wanted(b, conflict)) continue;
            const int64_t n1 = b.hi[1] - b.lo[1] + 1, n2 = b.hi[2] - b.lo[2] + 1;
            if (conflict) {
                conflicts = true;
                const bool all = b.odd < 0;
                out_.put(std::to_string(b.hi[0]) + "a\n");
                bool dot = false;
                if (all) {
                    if (m_.show_2nd) {
                        out_.put("||||||| " + f_[1].label + "\n");
                        dot |= dotted(1, b.lo[1], b.hi[1]);
                    }
                    out_.put("=======\n");
                    dot |= dotted(2, b.lo[2], b.hi[2]);
                }
                out_.put(">>>>>>> " + f_[2].label + "\n.\n");
                undot(dot, b.hi[0] + 2, n1 + n2 + 1);
                out_.put(std::to_string(b.lo[0] - 1) + "a\n<<<<<<< " + f_[all ? 0 : 1].label + "\n");
                dot = false;
                if (!all) {
                    dot = dotted(1, b.lo[1], b.hi[1]);
                    out_.put("=======\n");
                }
                out_.put(".\n");
                undot(dot, b.lo[0] + 1, n1);
            } else if (n2 == 0) {
                out_.put(range(b.lo[0], b.hi[0], 'd') + "\n");
            } else {
                out_.put(range(b.lo[0], b.hi[0], 'c') + "\n");
                const bool dot = dotted(2, b.lo[2], b.hi[2]);
                out_.put(".\n");
                undot(dot, b.lo[0], n2);
            }
        }
        if (m_.wq) out_.put("w\nq\n");
        return conflicts;
    }

    int status(int own) { return out_.status(own); }

private:
    const File (&f_)[3];
    const Mode& m_;
    Output out_;
};

int usage(CommandContext& ctx, std::string_view message) {
    if (!message.empty()) ctx.error(message);
    ctx.error("Try 'diff3 --help' for more information.");
    return 2;
}

}  // namespace

int cmd_diff3(CommandContext& ctx) {
    enum : int { kStripCr = kOptFirstLongOnly, kDiffProgram };
    static constexpr OptionSpec kSpecs[] = {
        {'A', 'A', "show-all"},
        {'e', 'e', "ed"},
        {'E', 'E', "show-overlap"},
        {'x', 'x', "overlap-only"},
        {'X', 'X', ""},
        {'3', '3', "easy-only"},
        {'m', 'm', "merge"},
        {'i', 'i', ""},
        {'a', 'a', "text"},
        {'T', 'T', "initial-tab"},
        {'L', 'L', "label", ArgKind::required},
        {kStripCr, 0, "strip-trailing-cr"},
        {kDiffProgram, 0, "diff-program", ArgKind::required},
        {kOptHelp, 0, "help"},
        {kOptVersion, 'v', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, kSpecs);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return text::print_help(
                ctx,
                "[OPTION]... MYFILE OLDFILE YOURFILE\nCompare three files line by line.\n\n"
                "  -A, --show-all              output all changes, bracketing conflicts\n"
                "  -e, --ed                    output ed script incorporating changes\n"
                "                                from OLDFILE to YOURFILE into MYFILE\n"
                "  -E, --show-overlap          like -e, but bracket conflicts\n"
                "  -3, --easy-only             like -e, but incorporate only nonoverlapping changes\n"
                "  -x, --overlap-only          like -e, but incorporate only overlapping changes\n"
                "  -X                          like -x (as GNU diff3 3.8 behaves)\n"
                "  -i                          append 'w' and 'q' commands to ed scripts\n\n"
                "  -m, --merge                 output actual merged file, according to\n"
                "                                -A if no other options are given\n\n"
                "  -a, --text                  treat all files as text\n"
                "  -T, --initial-tab           make tabs line up by prepending a tab\n"
                "  -L, --label=LABEL           use LABEL instead of file name\n"
                "                                (can be repeated up to three times)\n\n"
                "The default output format is a somewhat human-readable representation of\n"
                "the changes.\n\n"
                "Exit status is 0 if successful, 1 if conflicts, 2 if trouble.\n");
        if (o.id == kOptVersion) {
            (void)ctx.out.write("diff3 (GNU diffutils) 3.8 (bashkit)\n");
            return 0;
        }
    }
    if (!p.ok()) return usage(ctx, p.error);
    Mode m;
    int incompat = 0;
    bool text_mode = false;
    std::vector<std::string> labels;
    for (const auto& o : p.options) {
        switch (o.id) {
        case 'A': m.show_2nd = m.flagging = true, ++incompat; break;
        case 'e': ++incompat; break;
        case 'E': m.flagging = true, ++incompat; break;
        case 'x':
        case 'X': m.overlap_only = true, ++incompat; break;
        case '3': m.simple_only = true, ++incompat; break;
        case 'm': m.merge = true; break;
        case 'i': m.wq = true; break;
        case 'a': text_mode = true; break;
        case 'T': m.tab = true; break;
        case 'L':
            if (labels.size() == 3) return usage(ctx, "too many file label options");
            labels.push_back(o.value);
            break;
        case kStripCr:
        case kDiffProgram:
            ctx.error(o.spelled + ": not supported (see utils/diff/README.md)");
            return 2;
        default: break;
        }
    }
    if (incompat > 1 || (m.merge && m.wq)) return usage(ctx, "incompatible options");
    if (m.merge && incompat == 0) m.show_2nd = m.flagging = true;
    m.ed = incompat > 0 && !m.merge;
    if (p.operands.size() < 3) {
        const std::string after = p.operands.empty() ? ctx.argv[0] : p.operands.back();
        return usage(ctx, "missing operand after '" + after + "'");
    }
    if (p.operands.size() > 3) return usage(ctx, "extra operand '" + p.operands[3] + "'");
    File f[3];
    interp::MemoryCharge held(ctx.memory);
    bool used_stdin = false;
    for (int k = 0; k < 3; ++k) {
        f[k].name = p.operands[static_cast<size_t>(k)];
        f[k].label = static_cast<size_t>(k) < labels.size() ? labels[static_cast<size_t>(k)] : f[k].name;
        Input in;
        vfs::Errc e = vfs::Errc::ok;
        if (f[k].name != "-") {
            e = in.open_input(ctx, f[k].name);
            if (e == vfs::Errc::ok) e = read_all(ctx, in, f[k].data);
        } else if (!used_stdin) {  // stdin named twice reads empty the second time
            used_stdin = true;
            in.open_stdin(ctx);
            e = read_all(ctx, in, f[k].data);
        }
        if (e == vfs::Errc::cancelled) return 130;
        if (e != vfs::Errc::ok) {
            file_error(ctx, f[k].name, e);
            return 2;
        }
        held.add(f[k].data.size());
        split(f[k]);
        held.add(f[k].lines.size() * sizeof(std::string_view));
    }
    // GNU diff3 compares MINE and OLDER with YOURS for its listing, MINE and YOURS with OLDER for -e and -m;
    // the second comparison named is made first (and reports binary files first).
    const int files[3] = {0, m.merge || m.ed ? 2 : 1, m.merge || m.ed ? 1 : 2};
    for (int t : {1, 0}) {
        const File& x = f[files[t]];
        const File& c = f[files[2]];
        auto binary = [](const std::string& d) {
            return std::string_view(d).substr(0, 32768).find('\0') != std::string_view::npos;
        };
        if (!text_mode && (binary(x.data) || binary(c.data)) && x.data != c.data) {
            ctx.error("diff failed: Binary files " + x.name + " and " + c.name + " differ");
            return 2;
        }
    }
    std::vector<Hunk> t0, t1;
    if (!changes(ctx, f[files[1]], f[files[2]], t1, held) || !changes(ctx, f[files[0]], f[files[2]], t0, held))
        return 130;
    const std::vector<Block> blocks = make_blocks(f, files, t0, t1, ctx.cancel);
    if (ctx.cancelled()) return 130;
    held.add(blocks.size() * sizeof(Block));
    Writer w(ctx, f, m);
    bool conflicts = false;
    if (m.merge) conflicts = w.merged(blocks, ctx.cancel);
    else if (m.ed) conflicts = w.edscript(blocks, ctx.cancel);
    else w.listing(blocks, ctx.cancel);
    if (ctx.cancelled()) return w.status(130);
    return w.status(conflicts ? 1 : 0);
}

}  // namespace bashkit::utils::diffutil
