// sort: GNU sort's keys, orderings and last-resort whole-line comparison, in the C locale.
#include <algorithm>
#include <cstring>

#include "utils/text/compare.hpp"
#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

constexpr size_t kEnd = SIZE_MAX;

struct Key {
    size_t sword = 0, schar = 0;     // 0-based start field and char
    size_t eword = kEnd, echar = 0;  // end field (0-based) and char (1-based, 0 = end of field)
    bool skip_start_blanks = false, skip_end_blanks = false;
    bool dictionary = false, nonprinting = false, fold = false;
    bool numeric = false, general = false, human = false, month = false, version = false, random = false;
    bool reverse = false;

    bool has_ordering() const {
        return skip_start_blanks || skip_end_blanks || dictionary || nonprinting || fold || numeric || general ||
               human || month || version || random || reverse;
    }
    std::string letters() const {
        std::string s;
        if (skip_start_blanks || skip_end_blanks) s += 'b';
        if (dictionary) s += 'd';
        if (fold) s += 'f';
        if (general) s += 'g';
        if (human) s += 'h';
        if (nonprinting) s += 'i';
        if (month) s += 'M';
        if (numeric) s += 'n';
        if (random) s += 'R';
        if (reverse) s += 'r';
        if (version) s += 'V';
        return s;
    }
};

struct Config {
    std::vector<Key> keys;
    int tab = -1;  // -1: blank-separated fields
    bool reverse = false, stable = false, unique = false;
    uint64_t seed = 0;
};

bool is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

// Applies ordering letters; returns the first character that is not one.
size_t set_ordering(std::string_view s, size_t i, Key& k, bool at_end) {
    for (; i < s.size(); ++i) {
        switch (s[i]) {
            case 'b':
                if (at_end) k.skip_end_blanks = true;
                else k.skip_start_blanks = true;
                break;
            case 'd': k.dictionary = true; break;
            case 'f': k.fold = true; break;
            case 'g': k.general = true; break;
            case 'h': k.human = true; break;
            case 'i': if (!k.dictionary) k.nonprinting = true; break;
            case 'M': k.month = true; break;
            case 'n': k.numeric = true; break;
            case 'R': k.random = true; break;
            case 'r': k.reverse = true; break;
            case 'V': k.version = true; break;
            default: return i;
        }
    }
    return i;
}

bool incompatible(CommandContext& ctx, const Key& k) {
    int n = k.numeric + k.general + k.human + k.month + (k.version || k.random || k.dictionary || k.nonprinting);
    if (n > 1) {
        std::string l = k.letters();
        // GNU names the conflicting options only (without b, f, r).
        std::string shown;
        for (char c : l)
            if (c != 'b' && c != 'f' && c != 'r') shown += c;
        ctx.error("options '-" + shown + "' are incompatible");
        return true;
    }
    return false;
}

// Parses a -k KEYDEF. Prints the message on error.
bool parse_key(CommandContext& ctx, const std::string& spec, Key& k) {
    auto bad = [&](const char* why) {
        ctx.error(std::string(why) + ": invalid field specification " + quote(spec));
        return false;
    };
    std::string_view s = spec;
    size_t i = 0;
    auto number = [&](size_t& out, const char* why) -> bool {
        size_t st = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == st) {
            ctx.error(std::string(why) + " of " + quote(spec.substr(st)));
            return false;
        }
        uint64_t v;
        (void)parse_uint(s.substr(st, i - st), v);
        out = v > SIZE_MAX - 1 ? SIZE_MAX - 1 : static_cast<size_t>(v);
        return true;
    };
    size_t f;
    if (!number(f, "invalid number at field start: invalid count at start")) return false;
    if (f == 0) return bad("field number is zero");
    k.sword = f - 1;
    if (i < s.size() && s[i] == '.') {
        ++i;
        size_t c;
        if (!number(c, "invalid number after '.': invalid count at start")) return false;
        if (c == 0) return bad("character offset is zero");
        k.schar = c - 1;
    }
    i = set_ordering(s, i, k, false);
    if (i < s.size() && s[i] == ',') {
        ++i;
        size_t e;
        if (!number(e, "invalid number after ',': invalid count at start")) return false;
        if (e == 0) return bad("field number is zero");
        k.eword = e - 1;
        if (i < s.size() && s[i] == '.') {
            ++i;
            size_t c;
            if (!number(c, "invalid number after '.': invalid count at start")) return false;
            k.echar = c;
        }
        i = set_ordering(s, i, k, true);
    }
    if (i < s.size()) return bad("stray character in field spec");
    return true;
}

struct Sorter {
    const Config& cfg;

    std::string_view key_text(std::string_view line, const Key& k) const {
        const char* base = line.data();
        size_t lim = line.size();
        size_t p = 0;
        size_t sw = k.sword;
        if (cfg.tab >= 0) {
            char t = static_cast<char>(cfg.tab);
            while (p < lim && sw--) {
                while (p < lim && base[p] != t) ++p;
                if (p < lim) ++p;
            }
        } else {
            while (p < lim && sw--) {
                while (p < lim && is_blank(static_cast<unsigned char>(base[p]))) ++p;
                while (p < lim && !is_blank(static_cast<unsigned char>(base[p]))) ++p;
            }
        }
        if (k.skip_start_blanks)
            while (p < lim && is_blank(static_cast<unsigned char>(base[p]))) ++p;
        p = std::min(lim, p + std::min(k.schar, lim));
        size_t e = lim;
        if (k.eword != kEnd) {
            e = 0;
            size_t ew = k.eword;
            if (k.echar == 0) ++ew;
            if (cfg.tab >= 0) {
                char t = static_cast<char>(cfg.tab);
                while (e < lim && ew--) {
                    while (e < lim && base[e] != t) ++e;
                    if (e < lim && (ew || k.echar)) ++e;
                }
            } else {
                while (e < lim && ew--) {
                    while (e < lim && is_blank(static_cast<unsigned char>(base[e]))) ++e;
                    while (e < lim && !is_blank(static_cast<unsigned char>(base[e]))) ++e;
                }
            }
            if (k.echar != 0) {
                if (k.skip_end_blanks)
                    while (e < lim && is_blank(static_cast<unsigned char>(base[e]))) ++e;
                e = std::min(lim, e + std::min(k.echar, lim));
            }
        }
        if (e < p) e = p;
        return line.substr(p, e - p);
    }

    uint64_t hash(std::string_view s) const {
        uint64_t h = 1469598103934665603ull ^ cfg.seed;
        for (char c : s) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ull;
        }
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        return h;
    }

    static int bytes_compare(std::string_view a, std::string_view b) {
        size_t n = std::min(a.size(), b.size());
        int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return (a.size() > b.size()) - (a.size() < b.size());
    }

    static int filtered_compare(std::string_view a, std::string_view b, const Key& k) {
        auto ignored = [&](unsigned char c) {
            if (k.dictionary) return !(is_blank(c) || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'));
            if (k.nonprinting) return !(c >= 0x20 && c < 0x7f);
            return false;
        };
        auto tr = [&](unsigned char c) -> int {
            if (k.fold && c >= 'a' && c <= 'z') return c - 32;
            return c;
        };
        size_t i = 0, j = 0;
        for (;;) {
            while (i < a.size() && ignored(static_cast<unsigned char>(a[i]))) ++i;
            while (j < b.size() && ignored(static_cast<unsigned char>(b[j]))) ++j;
            if (i >= a.size() || j >= b.size()) break;
            int d = tr(static_cast<unsigned char>(a[i])) - tr(static_cast<unsigned char>(b[j]));
            if (d) return d < 0 ? -1 : 1;
            ++i;
            ++j;
        }
        return (i < a.size()) - (j < b.size());
    }

    int one_key(const Key& k, std::string_view a, std::string_view b) const {
        int d;
        if (k.numeric) d = numeric_compare(a, b);
        else if (k.human) d = human_compare(a, b);
        else if (k.general) d = general_numeric_compare(a, b);
        else if (k.month) d = month_compare(a, b);
        else if (k.version) d = version_compare(a, b);
        else if (k.random) {
            uint64_t ha = hash(a), hb = hash(b);
            d = ha < hb ? -1 : ha > hb ? 1 : bytes_compare(a, b);
        } else if (k.dictionary || k.nonprinting || k.fold) d = filtered_compare(a, b, k);
        else d = bytes_compare(a, b);
        return k.reverse ? -d : d;
    }

    // Keys from index `from` on.
    int key_compare(std::string_view la, std::string_view lb, size_t from = 0) const {
        for (size_t i = from; i < cfg.keys.size(); ++i) {
            const Key& k = cfg.keys[i];
            std::string_view a = key_text(la, k), b = key_text(lb, k);
            if (int d = one_key(k, a, b)) return d;
        }
        return 0;
    }

    int compare(std::string_view a, std::string_view b) const {
        if (!cfg.keys.empty()) {
            int d = key_compare(a, b);
            if (d || cfg.unique || cfg.stable) return d;
        }
        int d = bytes_compare(a, b);
        return cfg.reverse ? -d : d;
    }

    // A line with its first key located (and parsed, for -n) once, before sorting.
    // For -n, a key that is an integer of at most 18 digits (the common case) is kept as its value, so
    // comparing two of them is one integer comparison; other keys are compared from their text. The record
    // stays small (48 bytes) because the sort moves records, not pointers.
    struct Rec {
        std::string_view line;
        std::string_view key;
        int64_t ival = 0;
        bool fast = false;
    };
    Rec make_rec(std::string_view line) const {
        Rec r{line, line};
        if (!cfg.keys.empty()) {
            r.key = key_text(line, cfg.keys[0]);
            if (cfg.keys[0].numeric) {
                const NumericKey n = parse_numeric_key(r.key);
                if (n.frac.empty() && n.whole.size() <= 18) {
                    int64_t v = 0;
                    for (char c : n.whole) v = v * 10 + (c - '0');
                    r.ival = n.neg ? -v : v;
                    r.fast = true;
                }
            }
        }
        return r;
    }
    int compare(const Rec& a, const Rec& b) const {
        if (!cfg.keys.empty()) {
            const Key& k = cfg.keys[0];
            int d;
            if (k.numeric) {
                d = a.fast && b.fast ? (a.ival > b.ival) - (a.ival < b.ival) : numeric_compare(a.key, b.key);
                if (k.reverse) d = -d;
            } else {
                d = one_key(k, a.key, b.key);
            }
            if (!d) d = key_compare(a.line, b.line, 1);
            if (d || cfg.unique || cfg.stable) return d;
        }
        int d = bytes_compare(a.line, b.line);
        return cfg.reverse ? -d : d;
    }
};

}  // namespace

int cmd_sort(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'b', 0, "ignore-leading-blanks"}, {300, 0, "check", ArgKind::optional}, {'d', 0, "dictionary-order"},
        {'f', 0, "ignore-case"}, {'g', 0, "general-numeric-sort"}, {'h', 0, "human-numeric-sort"},
        {'i', 0, "ignore-nonprinting"}, {'k', 0, "key", ArgKind::required}, {'m', 0, "merge"}, {'M', 0, "month-sort"},
        {'n', 0, "numeric-sort"}, {'o', 0, "output", ArgKind::required}, {'R', 0, "random-sort"},
        {301, 0, "random-source", ArgKind::required}, {'r', 0, "reverse"}, {302, 0, "sort", ArgKind::required},
        {'s', 0, "stable"}, {'S', 0, "buffer-size", ArgKind::required}, {'t', 0, "field-separator", ArgKind::required},
        {'T', 0, "temporary-directory", ArgKind::required}, {'u', 0, "unique"}, {'V', 0, "version-sort"},
        {'z', 0, "zero-terminated"}, {303, 0, "parallel", ArgKind::required}, {304, 0, "batch-size", ArgKind::required},
        {305, 0, "compress-program", ArgKind::required}, {306, 0, "debug"}, {307, 0, "files0-from", ArgKind::required},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    auto usage_fail = [&]() { return 2; };
    if (!parse_getopt(ctx, "bcCdfghik:mMno:rRsS:t:T:uVz", kLong, opts, files)) return usage_fail();
    Config cfg;
    Key global;
    int check = 0;  // 1 -c, 2 -C
    std::string output;
    bool have_output = false;
    char delim = '\n';
    std::string random_source;
    for (auto& o : opts) {
        switch (o.id) {
            case 'b': global.skip_start_blanks = global.skip_end_blanks = true; break;
            case 'd': global.dictionary = true; global.nonprinting = false; break;
            case 'f': global.fold = true; break;
            case 'g': global.general = true; break;
            case 'h': global.human = true; break;
            case 'i': if (!global.dictionary) global.nonprinting = true; break;
            case 'M': global.month = true; break;
            case 'n': global.numeric = true; break;
            case 'R': global.random = true; break;
            case 'r': global.reverse = true; break;
            case 'V': global.version = true; break;
            case 'c': check = 1; break;
            case 'C': check = 2; break;
            case 300:
                if (!o.has_value || o.value == "diagnose-first") check = 1;
                else if (o.value == "quiet" || o.value == "silent") check = 2;
                else {
                    ctx.error("invalid argument " + quote(o.value) + " for '--check'");
                    (void)ctx.err.write("Valid arguments are:\n  - 'quiet', 'silent'\n  - 'diagnose-first'\n");
                    try_help(ctx);
                    return 2;
                }
                break;
            case 'k': {
                Key k;
                if (!parse_key(ctx, o.value, k)) return 2;
                cfg.keys.push_back(k);
                break;
            }
            case 'm': break;
            case 'o':
                if (have_output && output != o.value) {
                    ctx.error("multiple output files specified");
                    return 2;
                }
                output = o.value;
                have_output = true;
                break;
            case 's': cfg.stable = true; break;
            case 't': {
                if (o.value.empty()) {
                    ctx.error("empty tab");
                    return 2;
                }
                int t = static_cast<unsigned char>(o.value[0]);
                if (o.value.size() > 1) {
                    if (o.value == "\\0") t = 0;
                    else {
                        ctx.error("multi-character tab " + quote(o.value));
                        return 2;
                    }
                }
                if (cfg.tab >= 0 && cfg.tab != t) {
                    ctx.error("incompatible tabs");
                    return 2;
                }
                cfg.tab = t;
                break;
            }
            case 'u': cfg.unique = true; break;
            case 'z': delim = '\0'; break;
            case 'S': case 'T': case 303: case 304: case 305: case 306: break;
            case 301: random_source = o.value; break;
            case 302: {
                static constexpr std::pair<std::string_view, char> kSorts[] = {
                    {"general-numeric", 'g'}, {"human-numeric", 'h'}, {"month", 'M'},
                    {"numeric", 'n'},         {"random", 'R'},        {"version", 'V'}};
                char hit = 0;
                int nhits = 0;
                for (auto& [name, c] : kSorts) {
                    if (name == o.value) {
                        hit = c;
                        nhits = 1;
                        break;
                    }
                    if (!o.value.empty() && name.substr(0, o.value.size()) == o.value) {
                        hit = c;
                        ++nhits;
                    }
                }
                if (nhits != 1) {
                    ctx.error(std::string(nhits ? "ambiguous" : "invalid") + " argument " + quote(o.value) +
                              " for '--sort'");
                    (void)ctx.err.write(
                        "Valid arguments are:\n  - 'general-numeric'\n  - 'human-numeric'\n  - 'month'\n"
                        "  - 'numeric'\n  - 'random'\n  - 'version'\n");
                    try_help(ctx);
                    return 2;
                }
                std::string letter(1, hit);
                (void)set_ordering(letter, 0, global, false);
                break;
            }
            case 307:
                ctx.error("--files0-from is not supported");
                return 2;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nWrite sorted concatenation of all FILE(s) to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    cfg.reverse = global.reverse;
    for (Key& k : cfg.keys) {
        if (!k.has_ordering()) {
            bool se = k.skip_end_blanks;
            Key g = global;
            g.sword = k.sword;
            g.schar = k.schar;
            g.eword = k.eword;
            g.echar = k.echar;
            (void)se;
            k = g;
        }
        if (incompatible(ctx, k)) return 2;
    }
    if (cfg.keys.empty() && global.has_ordering()) {
        Key g = global;
        cfg.keys.push_back(g);
    }
    if (incompatible(ctx, global)) return 2;
    if (!random_source.empty()) {
        if (auto e = seed_from_file(ctx, random_source, cfg.seed); e != vfs::Errc::ok) {
            ctx.error(quote_name(random_source) + ": " + errstr(e));
            return 2;
        }
    } else {
        cfg.seed = static_cast<uint64_t>(ctx.clock.now().nsec) * 0x9e3779b97f4a7c15ull ^
                   static_cast<uint64_t>(ctx.clock.now().sec);
    }
    if (files.empty()) files.push_back("-");
    Sorter sorter{cfg};

    if (check) {
        if (files.size() > 1) {
            ctx.error("extra operand " + quote(files[1]) + " not allowed with -" + (check == 1 ? "c" : "C"));
            return 2;
        }
        Input in;
        if (auto e = in.open_input(ctx, files[0]); e != vfs::Errc::ok) {
            ctx.error("cannot read: " + quote_name(files[0]) + ": " + errstr(e));
            return 2;
        }
        LineReader lr(in, delim);
        std::string prev;
        bool have_prev = false;
        std::string_view line;
        uint64_t n = 0;
        while (lr.next(line)) {
            ++n;
            if (have_prev) {
                int d = sorter.compare(prev, line);
                if (d > 0 || (cfg.unique && d == 0)) {
                    if (check == 1) {
                        std::string m = std::string(prog(ctx)) + ": " + (files[0] == "-" ? "-" : files[0]) + ":" +
                                        std::to_string(n) + ": disorder: ";
                        m.append(line);
                        m += '\n';
                        (void)ctx.err.write(m);
                    }
                    return 1;
                }
            }
            prev.assign(line);
            have_prev = true;
        }
        if (lr.error() != vfs::Errc::ok) {
            ctx.error("read failed: " + quote_name(files[0]) + ": " + errstr(lr.error()));
            return 2;
        }
        return 0;
    }

    std::string data;
    // The input and the views or records over it, held on the session's memory budget while sorting.
    interp::MemoryCharge held(ctx.memory);
    for (const auto& f : files) {
        Input in;
        if (auto e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            ctx.error("cannot read: " + quote_name(f) + ": " + errstr(e));
            return 2;
        }
        size_t start = data.size();
        auto e = read_all(ctx, in, data);
        if (e == vfs::Errc::cancelled) return 130;
        if (e != vfs::Errc::ok) {
            ctx.error("read failed: " + quote_name(f) + ": " + errstr(e));
            return 2;
        }
        // Every file's last line ends, even without a delimiter.
        if (data.size() > start && data.back() != delim) data.push_back(delim);
        held.set(data.capacity());
    }
    // std::sort cannot be stopped from outside: the comparisons poll the cancel token and throw this.
    struct Cancelled {};
    uint32_t ticks = 0;
    auto poll = [&] {
        if ((++ticks & 0xffff) == 0 && ctx.cancelled()) throw Cancelled{};
    };
    // Calls f(line) for every line of data, in order.
    auto each_line = [&](auto&& f) {
        for (size_t p = 0; p < data.size();) {
            poll();
            const void* hit = std::memchr(data.data() + p, delim, data.size() - p);
            const size_t e = hit ? static_cast<size_t>(static_cast<const char*>(hit) - data.data()) : data.size();
            f(std::string_view(data.data() + p, e - p));
            p = e + 1;
        }
    };
    // Only what the sort needs is built: views of the lines, or records when there are keys (no second
    // copy of either for the output, which is written from them).
    std::vector<std::string_view> lines;
    std::vector<Sorter::Rec> recs;
    // Every line ends with delim (see above): sized once, not regrown (and recopied) while filling.
    const auto count = static_cast<size_t>(std::count(data.begin(), data.end(), delim));
    try {
        if (cfg.keys.empty()) {
            // Whole-line byte order: equal lines are identical, so an unstable sort gives the same output.
            held.add(count * sizeof(std::string_view));
            lines.reserve(count);
            each_line([&](std::string_view l) { lines.push_back(l); });
            if (cfg.reverse)
                std::sort(lines.begin(), lines.end(), [&](std::string_view a, std::string_view b) {
                    poll();
                    return Sorter::bytes_compare(b, a) < 0;
                });
            else
                std::sort(lines.begin(), lines.end(), [&](std::string_view a, std::string_view b) {
                    poll();
                    return Sorter::bytes_compare(a, b) < 0;
                });
        } else {
            // A stable sort takes a buffer as big as the records.
            held.add(count * sizeof(Sorter::Rec) * (cfg.stable || cfg.unique ? 2 : 1));
            recs.reserve(count);
            each_line([&](std::string_view l) { recs.push_back(sorter.make_rec(l)); });
            if (ctx.cancelled()) return 130;
            // Without -s or -u, records that compare equal are identical lines (the last-resort comparison is
            // the whole line), so their order cannot show: the faster unstable sort gives the same output.
            auto less = [&](const Sorter::Rec& a, const Sorter::Rec& b) {
                poll();
                return sorter.compare(a, b) < 0;
            };
            if (cfg.stable || cfg.unique)
                std::stable_sort(recs.begin(), recs.end(), less);
            else
                std::sort(recs.begin(), recs.end(), less);
        }
    } catch (const Cancelled&) {
        return 130;
    }
    if (ctx.cancelled()) return 130;

    OutputFile file_out;
    interp::ByteStream* target = nullptr;
    if (have_output && output != "-") {
        if (auto e = file_out.open_output(ctx, output); e != vfs::Errc::ok) {
            ctx.error("open failed: " + quote_name(output) + ": " + errstr(e));
            return 2;
        }
        target = file_out.stream();
    }
    Output out(ctx, target);
    const std::string_view* prev = nullptr;
    auto emit = [&](const std::string_view& l) {
        if (cfg.unique && prev) {
            int d = cfg.keys.empty() ? Sorter::bytes_compare(*prev, l) : sorter.key_compare(*prev, l);
            if (d == 0) return true;
        }
        out.put(l);
        out.put(delim);
        prev = &l;
        return !out.failed();
    };
    if (cfg.keys.empty()) {
        for (const auto& l : lines)
            if (!emit(l)) break;
    } else {
        for (const auto& r : recs)
            if (!emit(r.line)) break;
    }
    int st = out.finish();
    if (st && target) {
        return 2;
    }
    return st;
}

}  // namespace bashkit::utils::text
