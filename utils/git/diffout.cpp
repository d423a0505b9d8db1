// Dates and diffs as git prints them: unified hunks (with git's default function-context line after @@),
// the "diff --git" file headers, and line counts for --stat and commit summaries. The line matching is the
// diff family's Myers engine (utils/diff/myers.hpp).
#include <algorithm>
#include <ctime>
#include <set>
#include <unordered_map>

#include "utils/diff/myers.hpp"
#include "utils/git/core.hpp"

namespace bashkit::utils::git {

// ---------------------------------------------------------------------------------------------------------
// Dates

namespace {
const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

struct Civil {
    int64_t y;
    int mon, day, hour, min, sec, wday;
};

Civil civil(int64_t t) {
    int64_t days = t / 86400, rem = t % 86400;
    if (rem < 0) rem += 86400, --days;
    Civil c{};
    c.hour = int(rem / 3600);
    c.min = int(rem % 3600 / 60);
    c.sec = int(rem % 60);
    c.wday = int(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    c.day = int(doy - (153 * mp + 2) / 5 + 1);
    c.mon = int(mp < 10 ? mp + 3 : mp - 9);
    c.y = y + (c.mon <= 2);
    return c;
}

int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

std::string tz_text(int tz) {
    char b[32];
    int a = (tz < 0 ? -tz : tz) % 6000;
    snprintf(b, sizeof b, "%c%02d%02d", tz < 0 ? '-' : '+', a / 60, a % 60);
    return b;
}
}  // namespace

std::string format_date_default(int64_t t, int tz) {
    Civil c = civil(t + int64_t(tz) * 60);
    char b[96];
    snprintf(b, sizeof b, "%s %s %d %02d:%02d:%02d %lld %s", kDays[c.wday], kMonths[c.mon - 1], c.day, c.hour, c.min,
             c.sec, static_cast<long long>(c.y), tz_text(tz).c_str());
    return b;
}

std::string format_date_iso(int64_t t, int tz) {
    Civil c = civil(t + int64_t(tz) * 60);
    char b[96];
    snprintf(b, sizeof b, "%04lld-%02d-%02d %02d:%02d:%02d %s", static_cast<long long>(c.y), c.mon, c.day, c.hour,
             c.min, c.sec, tz_text(tz).c_str());
    return b;
}

bool parse_date(std::string_view s, int64_t& t, int& tz) {
    auto num = [&](size_t& i, size_t max_digits, int64_t& v) {
        size_t start = i;
        v = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < max_digits) v = v * 10 + (s[i++] - '0');
        return i > start;
    };
    auto parse_tz = [&](size_t& i) {
        while (i < s.size() && s[i] == ' ') ++i;
        if (i >= s.size()) return true;
        if (s[i] == 'Z') {
            tz = 0;
            ++i;
            return true;
        }
        if (s[i] != '+' && s[i] != '-') return false;
        int sign = s[i] == '-' ? -1 : 1;
        ++i;
        int64_t h = 0, m = 0;
        size_t st = i;
        if (!num(i, 2, h)) return false;
        if (i < s.size() && s[i] == ':') ++i;
        if (!num(i, 2, m) && i - st != 2) return false;
        tz = sign * int(h * 60 + m);
        return true;
    };
    size_t i = 0;
    tz = 0;
    if (!s.empty() && s[0] == '@') {
        ++i;
        int64_t v;
        if (!num(i, 18, v)) return false;
        t = v;
        return parse_tz(i) && i == s.size();
    }
    // "<seconds> <tz>" (git's internal format)
    {
        size_t j = 0;
        int64_t v;
        if (num(j, 18, v) && j < s.size() && s[j] == ' ' && j >= 9) {
            size_t k = j;
            int save = tz;
            if (parse_tz(k) && k == s.size()) {
                t = v;
                return true;
            }
            tz = save;
        }
    }
    int64_t y, mo, d, h = 0, mi = 0, se = 0;
    if (!num(i, 4, y) || i >= s.size() || s[i++] != '-' || !num(i, 2, mo) || i >= s.size() || s[i++] != '-' || !num(i, 2, d))
        return false;
    if (i < s.size() && (s[i] == 'T' || s[i] == ' ')) {
        ++i;
        if (!num(i, 2, h) || i >= s.size() || s[i++] != ':' || !num(i, 2, mi)) return false;
        if (i < s.size() && s[i] == ':') {
            ++i;
            if (!num(i, 2, se)) return false;
        }
    }
    if (!parse_tz(i) || i != s.size()) return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
    t = days_from_civil(y, int(mo), int(d)) * 86400 + h * 3600 + mi * 60 + se - int64_t(tz) * 60;
    return true;
}

// ---------------------------------------------------------------------------------------------------------
// Line diffs

bool is_binary(std::string_view data) { return data.substr(0, 8000).find('\0') != std::string_view::npos; }

namespace {
struct Lines {
    std::vector<std::string_view> lines;  // without their newline
    bool last_newline = true;
};

Lines split(std::string_view d) {
    Lines l;
    size_t i = 0;
    while (i < d.size()) {
        size_t nl = d.find('\n', i);
        if (nl == std::string_view::npos) {
            l.lines.push_back(d.substr(i));
            l.last_newline = false;
            break;
        }
        l.lines.push_back(d.substr(i, nl - i));
        i = nl + 1;
    }
    return l;
}

struct Edits {
    Lines a, b;
    diffutil::EditFlags flags;
};

Edits compute(const CommandContext& ctx, std::string_view a, std::string_view b) {
    Edits e;
    e.a = split(a);
    e.b = split(b);
    interp::MemoryCharge held(ctx.memory);
    held.add((e.a.lines.size() + e.b.lines.size()) * 48);
    std::unordered_map<std::string_view, int> ids;
    // The last line without a newline differs from the same text with one.
    std::vector<int> ia, ib;
    auto id_of = [&](std::string_view line, bool no_nl) {
        std::string_view key = line;
        int id = static_cast<int>(ids.emplace(key, int(ids.size()) * 2).first->second);
        return no_nl ? id + 1 : id;
    };
    for (size_t i = 0; i < e.a.lines.size(); ++i)
        ia.push_back(id_of(e.a.lines[i], i + 1 == e.a.lines.size() && !e.a.last_newline));
    for (size_t i = 0; i < e.b.lines.size(); ++i)
        ib.push_back(id_of(e.b.lines[i], i + 1 == e.b.lines.size() && !e.b.last_newline));
    if (!diffutil::compute_edits(ia, ib, e.flags, &ctx.cancel)) throw Cancelled{};
    return e;
}

// Change blocks: both sequences walked together.
std::vector<ChangeBlock> blocks_of(const diffutil::EditFlags& f) {
    const auto& fa = f.a;
    const auto& fb = f.b;
    long na = long(fa.size()), nb = long(fb.size());
    std::vector<ChangeBlock> blocks;
    long i = 0, j = 0;
    while (i < na || j < nb) {
        if ((i < na && fa[size_t(i)]) || (j < nb && fb[size_t(j)])) {
            ChangeBlock bl{i, i, j, j};
            while (i < na && fa[size_t(i)]) ++i;
            while (j < nb && fb[size_t(j)]) ++j;
            bl.a1 = i;
            bl.b1 = j;
            blocks.push_back(bl);
        } else {
            ++i;
            ++j;
        }
    }
    return blocks;
}

std::string func_line(const Lines& a, long before) {
    for (long i = before; i >= 0; --i) {
        std::string_view l = a.lines[size_t(i)];
        if (!l.empty() && (isalpha(static_cast<unsigned char>(l[0])) || l[0] == '_' || l[0] == '$')) {
            std::string s(l.substr(0, 80));
            while (!s.empty() && isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
            return s;
        }
    }
    return "";
}

std::string range(long start, long count) {
    // start is 0-based index of the first line
    if (count == 0) return std::to_string(start) + ",0";
    if (count == 1) return std::to_string(start + 1);
    return std::to_string(start + 1) + "," + std::to_string(count);
}
}  // namespace

std::vector<ChangeBlock> change_blocks(const CommandContext& ctx, std::span<const int> a, std::span<const int> b) {
    diffutil::EditFlags flags;
    if (!diffutil::compute_edits(a, b, flags, &ctx.cancel)) throw Cancelled{};
    return blocks_of(flags);
}

std::vector<std::string_view> changed_lines(const CommandContext& ctx, std::string_view a, std::string_view b) {
    Edits e = compute(ctx, a, b);
    std::vector<std::string_view> out;
    for (size_t i = 0; i < e.a.lines.size(); ++i)
        if (e.flags.a[i]) out.push_back(e.a.lines[i]);
    for (size_t i = 0; i < e.b.lines.size(); ++i)
        if (e.flags.b[i]) out.push_back(e.b.lines[i]);
    return out;
}

DiffStats count_changes(const CommandContext& ctx, std::string_view a, std::string_view b) {
    DiffStats s;
    if (is_binary(a) || is_binary(b)) {
        s.binary = true;
        s.size_a = a.size();
        s.size_b = b.size();
        return s;
    }
    Edits e = compute(ctx, a, b);
    for (char c : e.flags.a) s.deleted += c ? 1 : 0;
    for (char c : e.flags.b) s.added += c ? 1 : 0;
    return s;
}

std::string unified_hunks(const CommandContext& ctx, std::string_view a, std::string_view b, int context,
                          DiffStats* stats) {
    Edits e = compute(ctx, a, b);
    long na = long(e.a.lines.size()), nb = long(e.b.lines.size());
    using Block = ChangeBlock;
    std::vector<Block> blocks = blocks_of(e.flags);
    std::string out;
    if (stats) {
        for (auto& bl : blocks) {
            stats->deleted += int(bl.a1 - bl.a0);
            stats->added += int(bl.b1 - bl.b0);
        }
    }
    size_t k = 0;
    while (k < blocks.size()) {
        check_cancel(ctx);
        size_t last = k;
        while (last + 1 < blocks.size() && blocks[last + 1].a0 - blocks[last].a1 <= 2L * context) ++last;
        long a_start = std::max(0L, blocks[k].a0 - context);
        long b_start = std::max(0L, blocks[k].b0 - context);
        long a_end = std::min(na, blocks[last].a1 + context);
        long b_end = std::min(nb, blocks[last].b1 + context);
        out += "@@ -" + range(a_start, a_end - a_start) + " +" + range(b_start, b_end - b_start) + " @@";
        std::string fl = func_line(e.a, a_start - 1);
        if (!fl.empty()) out += " " + fl;
        out += "\n";
        auto emit = [&](char tag, const Lines& l, long idx) {
            out += tag;
            out.append(l.lines[size_t(idx)]);
            out += '\n';
            if (idx + 1 == long(l.lines.size()) && !l.last_newline) out += "\\ No newline at end of file\n";
        };
        long ia = a_start, ib = b_start;
        for (size_t q = k; q <= last; ++q) {
            const Block& bl = blocks[q];
            while (ia < bl.a0) emit(' ', e.a, ia++), ++ib;
            for (long x = bl.a0; x < bl.a1; ++x) emit('-', e.a, x);
            for (long x = bl.b0; x < bl.b1; ++x) emit('+', e.b, x);
            ia = bl.a1;
            ib = bl.b1;
        }
        while (ia < a_end) emit(' ', e.a, ia++), ++ib;
        k = last + 1;
    }
    return out;
}

std::map<std::string, std::string> exact_renames(const FlatTree& before, const FlatTree& after) {
    std::map<std::string, std::vector<std::string>> sources;  // oid -> deleted paths, in path order
    for (auto& [p, v] : before)
        if (!after.count(p) && v.first != 0160000) sources[v.second].push_back(p);
    std::map<std::string, std::string> out;
    if (sources.empty()) return out;
    std::set<std::string> used;
    auto base = [](const std::string& p) { return p.substr(p.rfind('/') + 1); };
    for (auto& [p, v] : after) {
        if (before.count(p)) continue;
        auto it = sources.find(v.second);
        if (it == sources.end()) continue;
        std::string pick;
        for (auto& src : it->second)
            if (!used.count(src) && base(src) == base(p)) {
                pick = src;
                break;
            }
        if (pick.empty())
            for (auto& src : it->second)
                if (!used.count(src)) {
                    pick = src;
                    break;
                }
        if (pick.empty()) continue;
        used.insert(pick);
        out[p] = pick;
    }
    return out;
}

namespace {

// git's diffcore-delta: the bytes of a blob by chunk (a line, or 64 bytes), keyed by the chunk's hash
// modulo a prime (as git keys them, so the same chunks count as equal); a CR before LF in text is not
// counted.
std::map<uint32_t, uint64_t> chunk_counts(std::string_view d) {
    constexpr uint32_t kHashBase = 107927;
    std::map<uint32_t, uint64_t> counts;
    const bool text = !is_binary(d);
    uint32_t accum1 = 0, accum2 = 0, n = 0;
    for (size_t i = 0; i < d.size(); ++i) {
        const uint32_t c = static_cast<unsigned char>(d[i]);
        if (text && c == '\r' && i + 1 < d.size() && d[i + 1] == '\n') continue;
        const uint32_t old1 = accum1;
        accum1 = (accum1 << 7) ^ (accum2 >> 25);
        accum2 = (accum2 << 7) ^ (old1 >> 25);
        accum1 += c;
        if (++n < 64 && c != '\n') continue;
        counts[(accum1 + accum2 * 0x9f) % kHashBase] += n;
        n = 0;
        accum1 = accum2 = 0;
    }
    if (n > 0) counts[(accum1 + accum2 * 0x9f) % kHashBase] += n;
    return counts;
}

}  // namespace

std::map<std::string, Rename> find_renames(const CommandContext& ctx, const FlatTree& before, const FlatTree& after,
                                           const std::function<std::string(const std::string&)>& read_blob) {
    std::map<std::string, Rename> out;
    for (auto& [to, from] : exact_renames(before, after)) out[to] = Rename{from, 100};
    std::set<std::string> used;
    for (auto& [to, r] : out) used.insert(r.from);
    std::vector<std::string> srcs, dsts;
    for (auto& [p, v] : before)
        if (!after.count(p) && !used.count(p) && (v.first & 0170000) == 0100000) srcs.push_back(p);
    for (auto& [p, v] : after)
        if (!before.count(p) && !out.count(p) && (v.first & 0170000) == 0100000) dsts.push_back(p);
    if (srcs.empty() || dsts.empty()) return out;
    constexpr uint64_t kMaxScore = 60000, kMinScore = 30000;
    struct Blob {
        std::string data;
        std::map<uint32_t, uint64_t> counts;
    };
    auto load = [&](const std::string& oid) {
        Blob b;
        b.data = read_blob(oid);
        b.counts = chunk_counts(b.data);
        return b;
    };
    std::vector<Blob> sb, db;
    for (auto& p : srcs) sb.push_back(load(before.at(p).second));
    for (auto& p : dsts) db.push_back(load(after.at(p).second));
    struct Candidate {
        uint64_t score;
        bool same_name;
        size_t dst, src;
    };
    auto base = [](const std::string& p) { return p.substr(p.rfind('/') + 1); };
    std::vector<Candidate> cands;
    for (size_t d = 0; d < dsts.size(); ++d)
        for (size_t s = 0; s < srcs.size(); ++s) {
            check_cancel(ctx);
            const uint64_t ssz = sb[s].data.size(), dsz = db[d].data.size();
            const uint64_t max_size = std::max(ssz, dsz), delta = max_size - std::min(ssz, dsz);
            if (max_size * (kMaxScore - kMinScore) < delta * kMaxScore || dsz == 0) continue;
            uint64_t copied = 0;
            for (auto& [h, n] : db[d].counts)
                if (auto it = sb[s].counts.find(h); it != sb[s].counts.end()) copied += std::min(n, it->second);
            const uint64_t score = copied * kMaxScore / max_size;
            if (score >= kMinScore) cands.push_back({score, base(srcs[s]) == base(dsts[d]), d, s});
        }
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) {
        return x.score != y.score ? x.score > y.score : x.same_name > y.same_name;
    });
    std::set<size_t> dst_done, src_done;
    for (auto& c : cands) {
        if (dst_done.count(c.dst) || src_done.count(c.src)) continue;
        dst_done.insert(c.dst);
        src_done.insert(c.src);
        out[dsts[c.dst]] = Rename{srcs[c.src], int(c.score * 100 / kMaxScore)};
    }
    return out;
}

std::string pprint_rename(const std::string& a, const std::string& b) {
    // diff.c pprint_rename: a common directory prefix and suffix are written once around {a => b}.
    size_t la = a.size(), lb = b.size();
    size_t pfx = 0;
    for (size_t i = 0; i < la && i < lb && a[i] == b[i]; ++i)
        if (a[i] == '/') pfx = i + 1;
    size_t sfx = 0;
    {
        long ia = long(la), ib = long(lb);  // start at the terminating NULs, as git does
        while (ia >= long(pfx) && ib >= long(pfx)) {
            char ca = ia == long(la) ? '\0' : a[size_t(ia)], cb = ib == long(lb) ? '\0' : b[size_t(ib)];
            if (ca != cb) break;
            if (ca == '/') sfx = la - size_t(ia);
            --ia;
            --ib;
        }
    }
    long amid = long(la) - long(pfx) - long(sfx), bmid = long(lb) - long(pfx) - long(sfx);
    if (amid < 0) amid = 0;
    if (bmid < 0) bmid = 0;
    if (pfx + sfx == 0) return a + " => " + b;
    return a.substr(0, pfx) + "{" + a.substr(pfx, size_t(amid)) + " => " + b.substr(pfx, size_t(bmid)) + "}" +
           a.substr(la - sfx);
}

std::string format_patch(const CommandContext& ctx, const FilePair& p, int context) {
    if (p.mode_a == p.mode_b && p.oid_a == p.oid_b && !p.oid_a.empty() && p.oid_a != kNullOid) return "";
    std::string a = quote_path("a/" + (p.from.empty() ? p.path : p.from)), b = quote_path("b/" + p.path);
    std::string out = "diff --git " + a + " " + b + "\n";
    if (p.mode_a == 0) out += "new file mode " + mode_string(p.mode_b) + "\n";
    else if (p.mode_b == 0) out += "deleted file mode " + mode_string(p.mode_a) + "\n";
    else if (p.mode_a != p.mode_b) out += "old mode " + mode_string(p.mode_a) + "\nnew mode " + mode_string(p.mode_b) + "\n";
    if (!p.from.empty())
        out += "similarity index " + std::to_string(p.similarity) + "%\nrename from " + quote_path(p.from) + "\nrename to " +
               quote_path(p.path) + "\n";
    std::string oa = p.mode_a ? p.oid_a : kNullOid, ob = p.mode_b ? p.oid_b : kNullOid;
    if (oa == ob) return out;  // mode change only
    out += "index " + oa.substr(0, 7) + ".." + ob.substr(0, 7);
    if (p.mode_a == p.mode_b) out += " " + mode_string(p.mode_a);
    out += "\n";
    if (is_binary(p.data_a) || is_binary(p.data_b)) {
        out += "Binary files " + (p.mode_a ? a : std::string("/dev/null")) + " and " + (p.mode_b ? b : std::string("/dev/null")) +
               " differ\n";
        return out;
    }
    std::string hunks = unified_hunks(ctx, p.data_a, p.data_b, context, nullptr);
    if (hunks.empty()) return out;
    out += "--- " + (p.mode_a ? a : std::string("/dev/null")) + "\n";
    out += "+++ " + (p.mode_b ? b : std::string("/dev/null")) + "\n";
    out += hunks;
    return out;
}

}  // namespace bashkit::utils::git
