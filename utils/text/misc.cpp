// split, yes, shuf and fmt.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <random>
#include <unordered_map>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {


// ---------------------------------------------------------------------------------------------------------
// split

int cmd_split(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'a', 0, "suffix-length", ArgKind::required}, {'b', 0, "bytes", ArgKind::required},
        {'C', 0, "line-bytes", ArgKind::required}, {'d', 0, "numeric-suffixes", ArgKind::optional},
        {'x', 0, "hex-suffixes", ArgKind::optional}, {'e', 0, "elide-empty-files"},
        {'l', 0, "lines", ArgKind::required}, {'n', 0, "number", ArgKind::required},
        {300, 0, "additional-suffix", ArgKind::required}, {301, 0, "verbose"}, {'t', 0, "separator", ArgKind::required},
    };
    // split -N is -l N.
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a == "--") break;
        if (a.size() > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9') ctx.argv[i] = "-l" + a.substr(1);
    }
    std::vector<ParsedOption> opts;
    std::vector<std::string> args;
    if (!parse_getopt(ctx, "a:b:C:d::x::el:n:t:", kLong, opts, args)) return 1;
    char mode = 'l';
    uint64_t count = 1000, suffix_len = 2, start = 0;
    bool numeric = false, hex = false, elide = false, verbose = false, explicit_len = false;
    std::string add_suffix;
    char sep = '\n';
    for (auto& o : opts) {
        switch (o.id) {
            case 'a':
                if (!parse_uint(o.value, suffix_len)) {
                    ctx.error("invalid suffix length: " + quote(o.value));
                    return 1;
                }
                explicit_len = true;
                break;
            case 'b':
            case 'C':
            case 'l':
            case 'n': {
                mode = static_cast<char>(o.id);
                SizeParse r = parse_size_checked(o.value, count, o.id != 'l');
                const char* what = o.id == 'l' ? "number of lines" : o.id == 'n' ? "number of chunks" : "number of bytes";
                if (r == SizeParse::invalid) {
                    ctx.error(std::string("invalid ") + what + ": " + quote(o.value));
                    return 1;
                }
                if (count == 0) {
                    ctx.error(std::string("invalid ") + what + ": " + quote(o.value) + ": Numerical result out of range");
                    return 1;
                }
                break;
            }
            case 'd':
            case 'x':
                numeric = true;
                hex = o.id == 'x';
                if (o.has_value && !parse_uint(o.value, start)) {
                    ctx.error("invalid start value for numerical suffix: " + quote(o.value));
                    return 1;
                }
                break;
            case 'e': elide = true; break;
            case 't':
                if (o.value.size() != 1) {
                    ctx.error("multi-character separator " + quote(o.value));
                    return 1;
                }
                sep = o.value[0];
                break;
            case 300:
                if (o.value.find('/') != std::string::npos) {
                    ctx.error("invalid suffix " + quote(o.value) + ", contains directory separator");
                    return 1;
                }
                add_suffix = o.value;
                break;
            case 301: verbose = true; break;
            case kOptHelp: return print_help(ctx, "[OPTION]... [FILE [PREFIX]]\nOutput pieces of FILE to PREFIXaa, PREFIXab, ...; default\nsize is 1000 lines, and default PREFIX is 'x'.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (args.size() > 2) {
        usage_error(ctx, "extra operand " + quote(args[2]));
        return 1;
    }
    std::string input = args.empty() ? "-" : args[0];
    std::string prefix = args.size() > 1 ? args[1] : "x";
    Input in;
    if (auto e = in.open_input(ctx, input); e != vfs::Errc::ok) {
        ctx.error("cannot open " + quote(input) + " for reading: " + errstr(e));
        return 1;
    }
    uint64_t nchunks = 0;
    if (mode == 'n') {
        int64_t size = in.file_size();
        if (size < 0) {
            ctx.error(quote_name(input) + ": cannot determine file size");
            return 1;
        }
        nchunks = count;
        if (!explicit_len) {
            uint64_t need = 1, cap = numeric ? (hex ? 16 : 10) : 26;
            uint64_t span = cap;
            while (span < nchunks + start) {
                span *= cap;
                ++need;
            }
            suffix_len = std::max(suffix_len, need);
        }
    }
    if (suffix_len > 64) suffix_len = 64;
    const std::string alphabet = numeric ? (hex ? "0123456789abcdef" : "0123456789") : "abcdefghijklmnopqrstuvwxyz";
    uint64_t index = start;
    auto name_for = [&](uint64_t k, std::string& out) -> bool {
        std::string s(static_cast<size_t>(suffix_len), alphabet[0]);
        uint64_t base = alphabet.size();
        for (size_t p = s.size(); p-- > 0;) {
            s[p] = alphabet[static_cast<size_t>(k % base)];
            k /= base;
        }
        if (k != 0) return false;
        out = prefix + s + add_suffix;
        return true;
    };
    OutputFile cur;
    std::string cur_name;
    auto open_next = [&]() -> bool {
        if (!name_for(index, cur_name)) {
            ctx.error("output file suffixes exhausted");
            return false;
        }
        ++index;
        if (verbose) {
            std::string m = "creating file " + quote(cur_name) + "\n";
            (void)ctx.out.write(m);
        }
        if (auto e = cur.open_output(ctx, cur_name); e != vfs::Errc::ok) {
            file_error(ctx, cur_name, e);
            return false;
        }
        return true;
    };
    auto write = [&](std::string_view d) -> bool {
        auto r = cur.stream()->write(d);
        if (r.err) {
            file_error(ctx, cur_name, vfs::from_errno(r.err));
            return false;
        }
        return true;
    };
    ChunkBuffer buf;
    if (mode == 'n') {
        uint64_t size = static_cast<uint64_t>(in.file_size());
        for (uint64_t k = 0; k < nchunks; ++k) {
            // Chunk k covers [k*size/n, (k+1)*size/n).
            auto bound = [&](uint64_t j) {
                return static_cast<uint64_t>(static_cast<unsigned __int128>(j) * size / nchunks);
            };
            uint64_t want = bound(k + 1) - bound(k);
            if (want == 0 && elide) continue;
            if (!open_next()) return 1;
            while (want > 0) {
                auto r = in.read(buf.data(), static_cast<size_t>(std::min<uint64_t>(want, buf.size())));
                if (r.err != vfs::Errc::ok) {
                    ctx.error(quote_name(input) + ": " + errstr(r.err));
                    return 1;
                }
                if (r.n == 0) break;
                if (!write(std::string_view(buf.data(), r.n))) return 1;
                want -= r.n;
            }
        }
        return 0;
    }
    uint64_t left = 0;  // lines or bytes left in the current file
    bool have_file = false;
    for (;;) {
        auto r = in.read(buf.data(), buf.size());
        if (r.err == vfs::Errc::cancelled) return 130;
        if (r.err != vfs::Errc::ok) {
            ctx.error(quote_name(input) + ": " + errstr(r.err));
            return 1;
        }
        if (r.n == 0) break;
        std::string_view d(buf.data(), r.n);
        while (!d.empty()) {
            if (!have_file || left == 0) {
                if (!open_next()) return 1;
                have_file = true;
                left = count;
            }
            size_t take;
            if (mode == 'b') {
                take = static_cast<size_t>(std::min<uint64_t>(left, d.size()));
                left -= take;
            } else if (mode == 'l') {
                size_t p = 0;
                while (left > 0 && p < d.size()) {
                    const void* hit = std::memchr(d.data() + p, sep, d.size() - p);
                    if (!hit) {
                        p = d.size();
                        break;
                    }
                    p = static_cast<size_t>(static_cast<const char*>(hit) - d.data()) + 1;
                    --left;
                }
                take = p;
            } else {
                // -C: whole lines up to count bytes; a longer line is split by bytes.
                size_t limit = static_cast<size_t>(std::min<uint64_t>(left, d.size()));
                size_t p = 0;
                for (;;) {
                    const void* hit = std::memchr(d.data() + p, sep, d.size() - p);
                    if (!hit) break;
                    size_t e = static_cast<size_t>(static_cast<const char*>(hit) - d.data()) + 1;
                    if (e > limit) break;
                    p = e;
                }
                if (p == 0) {
                    if (left == count) p = limit;  // a line longer than the limit
                    else {
                        left = 0;
                        continue;
                    }
                }
                take = p;
                left -= take;
                if (left > 0 && take < d.size()) left = 0;
            }
            if (!write(d.substr(0, take))) return 1;
            d.remove_prefix(take);
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------------------
// yes

int cmd_yes(CommandContext& ctx) {
    std::vector<ParsedOption> opts;
    std::vector<std::string> args;
    if (!parse_getopt(ctx, "", {}, opts, args)) return 1;
    for (auto& o : opts) {
        if (o.id == kOptHelp) return print_help(ctx, "[STRING]...\n  or:  yes OPTION\nRepeatedly output a line with all specified STRING(s), or 'y'.\n");
        if (o.id == kOptVersion) return version(ctx);
    }
    std::string line;
    for (size_t i = 0; i < args.size(); ++i) {
        if (i) line += ' ';
        line += args[i];
    }
    if (args.empty()) line = "y";
    line += '\n';
    std::string block;
    while (block.size() < 16 * 1024) block += line;
    for (;;) {
        if (ctx.cancelled()) return 130;
        auto r = ctx.out.write(block);
        if (r.err == EPIPE) return 141;
        if (r.err == ECANCELED) return 130;
        if (r.err) {
            ctx.error("standard output: " + errstr(vfs::from_errno(r.err)));
            return 1;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// shuf

int cmd_shuf(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'e', 0, "echo"}, {'i', 0, "input-range", ArgKind::required}, {'n', 0, "head-count", ArgKind::required},
        {'o', 0, "output", ArgKind::required}, {300, 0, "random-source", ArgKind::required}, {'r', 0, "repeat"},
        {'z', 0, "zero-terminated"}, {'s', 0, "seed", ArgKind::required},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> args;
    if (!parse_getopt(ctx, "ei:n:o:rzs:", kLong, opts, args)) return 1;
    bool echo = false, repeat = false, have_range = false, have_count = false, have_seed = false;
    uint64_t lo = 0, hi = 0, count = UINT64_MAX, seed = 0;
    std::string output, source;
    char eol = '\n';
    for (auto& o : opts) {
        switch (o.id) {
            case 'e': echo = true; break;
            case 'i': {
                if (have_range) {
                    ctx.error("multiple -i options specified");
                    return 1;
                }
                size_t dash = o.value.find('-');
                if (dash == std::string::npos || !parse_uint(o.value.substr(0, dash), lo) ||
                    !parse_uint(o.value.substr(dash + 1), hi) || hi < lo || (hi - lo) == UINT64_MAX) {
                    ctx.error("invalid input range: " + quote(o.value));
                    return 1;
                }
                have_range = true;
                break;
            }
            case 'n': {
                uint64_t n;
                if (parse_size_checked(o.value, n, false) == SizeParse::invalid) {
                    ctx.error("invalid line count: " + quote(o.value));
                    return 1;
                }
                count = have_count ? std::min(count, n) : n;
                have_count = true;
                break;
            }
            case 'o': output = o.value; break;
            case 300: source = o.value; break;
            case 'r': repeat = true; break;
            case 'z': eol = '\0'; break;
            case 's':
                if (!parse_uint(o.value, seed)) {
                    ctx.error("invalid seed: " + quote(o.value));
                    return 1;
                }
                have_seed = true;
                break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]\n  or:  shuf -e [OPTION]... [ARG]...\n  or:  shuf -i LO-HI [OPTION]...\nWrite a random permutation of the input lines to standard output.\n(bashkit: -s/--seed=N makes the order reproducible, as does --random-source=FILE.)\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (echo && have_range) {
        usage_error(ctx, "cannot combine -e and -i options");
        return 1;
    }
    if (have_range && !args.empty()) {
        usage_error(ctx, "extra operand " + quote(args[0]));
        return 1;
    }
    if (!echo && !have_range && args.size() > 1) {
        usage_error(ctx, "extra operand " + quote(args[1]));
        return 1;
    }
    if (!source.empty()) {
        if (auto e = seed_from_file(ctx, source, seed); e != vfs::Errc::ok) {
            ctx.error(quote_name(source) + ": " + errstr(e));
            return 1;
        }
    } else if (!have_seed) {
        auto now = ctx.clock.now();
        seed = static_cast<uint64_t>(now.sec) * 1000000007ull ^ static_cast<uint64_t>(now.nsec) * 0x9e3779b97f4a7c15ull ^
               reinterpret_cast<uintptr_t>(&ctx);
    }
    std::mt19937_64 rng(seed);
    auto below = [&](uint64_t n) -> uint64_t {  // uniform in [0, n)
        if (n <= 1) return 0;
        uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        uint64_t v;
        do v = rng(); while (v >= limit);
        return v % n;
    };
    std::vector<std::string> lines;
    interp::MemoryCharge held(ctx.memory);  // the lines (or indexes) being shuffled
    if (echo) {
        lines = args;
    } else if (!have_range) {
        std::string name = args.empty() ? "-" : args[0];
        Input in;
        if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
            file_error(ctx, name, e);
            return 1;
        }
        LineReader lr(in, eol);
        std::string_view l;
        while (lr.next(l)) {
            held.add(l.size() + sizeof(std::string));
            lines.emplace_back(l);
        }
        if (lr.error() == vfs::Errc::cancelled) return 130;
        if (lr.error() != vfs::Errc::ok) {
            file_error(ctx, name, lr.error());
            return 1;
        }
    }
    OutputFile outf;
    interp::ByteStream* target = nullptr;
    if (!output.empty()) {
        if (auto e = outf.open_output(ctx, output); e != vfs::Errc::ok) {
            file_error(ctx, output, e);
            return 1;
        }
        target = outf.stream();
    }
    Output out(ctx, target);
    uint64_t n = have_range ? hi - lo + 1 : lines.size();
    auto item = [&](uint64_t k) -> std::string {
        return have_range ? std::to_string(lo + k) : lines[static_cast<size_t>(k)];
    };
    if (repeat) {
        if (n == 0) {
            if (count == 0 || !have_count) {
                if (have_count) return out.status(0);
            }
            ctx.error("no lines to repeat");
            return 1;
        }
        for (uint64_t i = 0; i < count; ++i) {
            out.put(item(below(n)));
            out.put(eol);
            if ((i & 0xfff) == 0 && (ctx.cancelled() || out.failed())) break;
        }
        return out.status(ctx.cancelled() ? 130 : 0);
    }
    uint64_t k = std::min(count, n);
    if (have_range && n > (1u << 24)) {
        // A sparse partial shuffle over a huge range.
        std::unordered_map<uint64_t, uint64_t> swaps;
        auto get = [&](uint64_t i) {
            auto it = swaps.find(i);
            return it == swaps.end() ? i : it->second;
        };
        auto set = [&](uint64_t i, uint64_t v) { swaps[i] = v; };
        k = std::min<uint64_t>(k, 1u << 20);
        for (uint64_t i = 0; i < k; ++i) {
            if ((i & 0xfff) == 0) {
                if (ctx.cancelled()) return out.status(130);
                if (out.failed()) break;
                held.set(swaps.size() * 48);
            }
            uint64_t j = i + below(n - i);
            uint64_t a = get(i), b = get(j);
            set(i, b);
            set(j, a);
            out.put(std::to_string(lo + b));
            out.put(eol);
        }
        return out.status(0);
    }
    held.add(static_cast<size_t>(n) * sizeof(uint64_t));
    std::vector<uint64_t> idx(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = i;
    for (uint64_t i = 0; i < k; ++i) {
        if ((i & 0xfff) == 0 && ctx.cancelled()) return out.status(130);
        uint64_t j = i + below(n - i);
        std::swap(idx[static_cast<size_t>(i)], idx[static_cast<size_t>(j)]);
        out.put(item(idx[static_cast<size_t>(i)]));
        out.put(eol);
        if (out.failed()) break;
    }
    return out.status(0);
}

// ---------------------------------------------------------------------------------------------------------
// fmt: GNU's paragraph filler (the cost model of fmt.c: short lines, raggedness, sentence breaks).

namespace {

using Cost = long long;
constexpr Cost equiv(Cost n) { return n * n; }
constexpr Cost short_cost(Cost n) { return equiv(n * 10); }
constexpr Cost ragged_cost(Cost n) { return short_cost(n) / 2; }
constexpr Cost kLineCost = equiv(70);
constexpr Cost widow_cost(Cost n) { return equiv(200) / (n + 2); }
constexpr Cost orphan_cost(Cost n) { return equiv(150) / (n + 2); }
constexpr Cost kSentenceBonus = equiv(50);
constexpr Cost kNobreakCost = equiv(600);
constexpr Cost kParenBonus = equiv(40);
constexpr Cost kPunctBonus = equiv(40);

struct Word {
    std::string text;
    int length = 0;
    int space = 0;
    bool paren = false, period = false, punct = false, final = false;
    // Filled by the optimiser.
    size_t next_break = 0;
    int line_length = 0;
    Cost best_cost = 0;
};

struct Fmt {
    int max_width = 75, goal_width = 70;
    bool uniform = false, split_only = false, crown = false, tagged = false;
    bool tabs = false;
    Output* out = nullptr;
    int out_column = 0;

    void put_space(int space) {
        int target = out_column + space;
        if (tabs) {
            int tab_target = target / 8 * 8;
            if (out_column + 1 < tab_target)
                while (out_column < tab_target) {
                    out->put('\t');
                    out_column = (out_column / 8 + 1) * 8;
                }
        }
        while (out_column < target) {
            out->put(' ');
            ++out_column;
        }
    }

    Cost base_cost(const std::vector<Word>& w, size_t i) const {
        Cost cost = kLineCost;
        if (i > 0) {
            const Word& prev = w[i - 1];
            if (prev.period) {
                if (prev.final) cost -= kSentenceBonus;
                else cost += kNobreakCost;
            } else if (prev.punct) {
                cost -= kPunctBonus;
            } else if (i > 1 && w[i - 2].final) {
                cost += widow_cost(prev.length);
            }
        }
        if (w[i].paren) cost -= kParenBonus;
        else if (w[i].final) cost += orphan_cost(w[i].length);
        return cost;
    }

    Cost line_cost(const std::vector<Word>& w, size_t next, int len) const {
        if (next == w.size()) return 0;
        Cost n = goal_width - len;
        Cost cost = short_cost(n);
        if (w[next].next_break != w.size()) {
            n = len - w[next].line_length;
            cost += ragged_cost(n);
        }
        return cost;
    }

    void paragraph(std::vector<Word>& w, int first_indent, int other_indent) {
        size_t n = w.size();
        if (n == 0) return;
        for (size_t start = n; start-- > 0;) {
            Cost best = LLONG_MAX;
            int len = (start == 0 ? first_indent : other_indent) + w[start].length;
            size_t k = start;
            for (;;) {
                ++k;
                Cost wcost = line_cost(w, k, len) + (k == n ? 0 : w[k].best_cost);
                if (wcost < best) {
                    best = wcost;
                    w[start].next_break = k;
                    w[start].line_length = len;
                }
                if (k == n) break;
                len += w[k - 1].space + w[k].length;
                if (len >= max_width) break;
            }
            w[start].best_cost = best + base_cost(w, start);
        }
        size_t i = 0;
        bool first = true;
        while (i < n) {
            size_t end = w[i].next_break;
            out_column = 0;
            put_space(first ? first_indent : other_indent);
            for (size_t k = i; k < end; ++k) {
                out->put(w[k].text);
                out_column += w[k].length;
                if (k + 1 < end) put_space(w[k].space);
            }
            out->put('\n');
            first = false;
            i = end;
        }
    }
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

}  // namespace

int cmd_fmt(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'c', 0, "crown-margin"}, {'p', 0, "prefix", ArgKind::required}, {'s', 0, "split-only"},
        {'t', 0, "tagged-paragraph"}, {'u', 0, "uniform-spacing"}, {'w', 0, "width", ArgKind::required},
        {'g', 0, "goal", ArgKind::required},
    };
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a == "--") break;
        if (a.size() > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9') ctx.argv[i] = "-w" + a.substr(1);
    }
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "cp:stuw:g:", kLong, opts, files)) return 1;
    Fmt f;
    bool have_width = false, have_goal = false;
    uint64_t width = 75, goal = 0;
    for (auto& o : opts) {
        switch (o.id) {
            case 'c': f.crown = true; break;
            case 's': f.split_only = true; break;
            case 't': f.tagged = true; break;
            case 'u': f.uniform = true; break;
            case 'p':
                ctx.error("--prefix is not supported");
                return 1;
            case 'w':
                if (!parse_uint(o.value, width) || width > 2500) {
                    ctx.error("invalid width: " + quote(o.value));
                    return 1;
                }
                have_width = true;
                break;
            case 'g':
                if (!parse_uint(o.value, goal) || goal > 2500) {
                    ctx.error("invalid width: " + quote(o.value));
                    return 1;
                }
                have_goal = true;
                break;
            case kOptHelp: return print_help(ctx, "[-WIDTH] [OPTION]... [FILE]...\nReformat each paragraph in the FILE(s), writing to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    f.max_width = static_cast<int>(width);
    if (have_goal) {
        f.goal_width = static_cast<int>(goal);
        if (!have_width) f.max_width = static_cast<int>(goal) + 10;
        if (f.goal_width > f.max_width) {
            ctx.error("invalid width: " + quote(std::to_string(goal)));
            return 1;
        }
    } else {
        f.goal_width = static_cast<int>(width * (2 * (100 - 7) + 1) / 200);
    }
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    f.out = &out;
    int status = 0;
    for (const auto& name : files) {
        Input in;
        if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
            out.flush();
            ctx.error("cannot open " + quote(name) + " for reading: " + errstr(e));
            status = 1;
            continue;
        }
        // Lines with their indentation (in columns) and words.
        struct Line {
            int indent = 0;
            bool blank = true;
            std::string text;
        };
        LineReader lr(in);
        std::string_view raw;
        std::vector<Line> para;
        auto indent_of = [&](std::string_view s, size_t& pos) {
            int col = 0;
            pos = 0;
            while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) {
                if (s[pos] == '\t') {
                    f.tabs = true;
                    col = (col / 8 + 1) * 8;
                } else {
                    ++col;
                }
                ++pos;
            }
            return col;
        };
        auto flush_para = [&](bool at_eof) {
            if (para.empty()) return;
            std::vector<Word> words;
            for (size_t li = 0; li < para.size(); ++li) {
                std::string_view s = para[li].text;
                size_t pos;
                (void)indent_of(s, pos);
                int col = para[li].indent;
                while (pos < s.size()) {
                    Word w;
                    size_t st = pos;
                    while (pos < s.size() && !is_space(s[pos])) ++pos;
                    w.text = std::string(s.substr(st, pos - st));
                    w.length = static_cast<int>(w.text.size());
                    col += w.length;
                    char first = w.text.front(), last = w.text.back();
                    w.paren = std::strchr("(['`\"", first) != nullptr;
                    w.punct = std::ispunct(static_cast<unsigned char>(last)) != 0;
                    size_t fin = w.text.size() - 1;
                    while (fin > 0 && std::strchr(")]'\"", w.text[fin])) --fin;
                    w.period = std::strchr(".?!", w.text[fin]) != nullptr;
                    int start_col = col;
                    while (pos < s.size() && is_space(s[pos])) {
                        if (s[pos] == '\t') {
                            f.tabs = true;
                            col = (col / 8 + 1) * 8;
                        } else {
                            ++col;
                        }
                        ++pos;
                    }
                    w.space = col - start_col;
                    bool line_end = pos >= s.size();
                    bool eof_here = line_end && li + 1 == para.size() && at_eof;
                    w.final = eof_here || (w.period && (line_end || w.space > 1));
                    if (line_end || f.uniform) w.space = w.final ? 2 : 1;
                    words.push_back(std::move(w));
                }
            }
            // The last word of a paragraph ends a sentence for the cost model (GNU avoids orphaning it).
            if (!words.empty()) words.back().final = true;
            int first_indent = para[0].indent;
            int other_indent = first_indent;
            if (para.size() > 1 && (f.crown || f.tagged)) other_indent = para[1].indent;
            f.paragraph(words, first_indent, other_indent);
            para.clear();
        };
        bool have_next = lr.next(raw);
        interp::MemoryCharge para_held(ctx.memory);
        while (have_next) {
            std::string cur(raw);
            have_next = lr.next(raw);
            size_t pos;
            int ind = indent_of(cur, pos);
            bool blank = pos >= cur.size();
            if (blank) {
                flush_para(false);
                out.put('\n');
                continue;
            }
            Line l{ind, false, cur};
            if (!para.empty()) {
                bool same;
                if (f.split_only) same = false;
                else if (f.crown) same = para.size() == 1 || ind == para[1].indent;
                else if (f.tagged) same = para.size() == 1 ? ind != para[0].indent : ind == para[1].indent;
                else same = ind == para[0].indent;
                if (!same) flush_para(false);
            }
            // The paragraph being gathered is held on the session's budget (a new one releases the last).
            if (para.empty()) para_held.clear();
            para_held.add(cur.size() + sizeof(Line));
            para.push_back(std::move(l));
            if (ctx.cancelled()) return out.status(130);
        }
        flush_para(true);
        if (lr.error() != vfs::Errc::ok && lr.error() != vfs::Errc::cancelled) {
            out.flush();
            ctx.error(quote_name(name) + ": " + errstr(lr.error()));
            status = 1;
        }
    }
    return out.status(status);
}

}  // namespace bashkit::utils::text
