// factor, sum and tsort (GNU coreutils).
//
// factor handles numbers below 2^128 (Miller-Rabin and Pollard's rho on 128-bit integers); GNU factor goes on
// with GMP, bashkit says the number is too large. tsort is Kahn's algorithm in GNU's order: the items without
// predecessors in sorted order first, then each item's successors latest-first; a loop is reported (its
// members on stderr) and broken, and the sort goes on.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "utils/data/tools.hpp"
#include "interp/governor.hpp"

namespace bashkit::utils::data {

namespace {

using u128 = unsigned __int128;

bool help_or_version(CommandContext& ctx, const ParsedArgs& p, std::string_view help, int& status) {
    for (const auto& o : p.options) {
        if (o.id == kOptHelp) {
            status = write_out(ctx, help) ? 0 : 1;
            return true;
        }
        if (o.id == kOptVersion) {
            status = write_out(ctx, ctx.argv[0] + " (GNU coreutils) 9.1\n") ? 0 : 1;
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------------
// factor

u128 mulmod(u128 a, u128 b, u128 m) {
    if ((a >> 64) == 0 && (b >> 64) == 0 && (m >> 64) == 0) return (a * b) % m;
    u128 r = 0;
    a %= m;
    while (b) {
        if (b & 1) {
            r = (r >= m - a) ? r - (m - a) : r + a;
        }
        a = (a >= m - a) ? a - (m - a) : a + a;
        b >>= 1;
    }
    return r;
}

u128 powmod(u128 b, u128 e, u128 m) {
    u128 r = 1;
    b %= m;
    while (e) {
        if (e & 1) r = mulmod(r, b, m);
        b = mulmod(b, b, m);
        e >>= 1;
    }
    return r;
}

bool is_prime(u128 n) {
    if (n < 2) return false;
    for (unsigned p : {2u, 3u, 5u, 7u, 11u, 13u, 17u, 19u, 23u, 29u, 31u, 37u, 41u, 43u, 47u})
        if (n % p == 0) return n == p;
    u128 d = n - 1;
    int s = 0;
    while ((d & 1) == 0) {
        d >>= 1;
        ++s;
    }
    for (unsigned a : {2u, 3u, 5u, 7u, 11u, 13u, 17u, 19u, 23u, 29u, 31u, 37u, 41u, 43u, 47u}) {
        u128 x = powmod(a, d, n);
        if (x == 1 || x == n - 1) continue;
        bool comp = true;
        for (int r = 1; r < s; ++r) {
            x = mulmod(x, x, n);
            if (x == n - 1) {
                comp = false;
                break;
            }
        }
        if (comp) return false;
    }
    return true;
}

u128 gcd(u128 a, u128 b) {
    while (b) {
        u128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// A non-trivial factor of the odd composite n (Brent's variant of Pollard's rho); 0 when cancelled.
u128 rho(u128 n, const CommandContext& ctx) {
    for (u128 c = 1;; ++c) {
        u128 y = 2, x = 2, g = 1, q = 1, ys = 2;
        size_t m = 128, r = 1;
        auto f = [&](u128 v) { return (mulmod(v, v, n) + c) % n; };
        do {
            x = y;
            for (size_t i = 0; i < r; ++i) y = f(y);
            size_t k = 0;
            do {
                if (ctx.cancelled()) return 0;
                ys = y;
                for (size_t i = 0; i < std::min(m, r - k); ++i) {
                    y = f(y);
                    q = mulmod(q, x > y ? x - y : y - x, n);
                }
                g = gcd(q, n);
                k += m;
            } while (k < r && g == 1);
            r *= 2;
        } while (g == 1);
        if (g == n) {
            do {
                ys = f(ys);
                g = gcd(x > ys ? x - ys : ys - x, n);
            } while (g == 1);
        }
        if (g != n) return g;
    }
}

bool factorize(u128 n, std::vector<u128>& out, const CommandContext& ctx) {
    if (n < 2) return true;  // 0 and 1 have no prime factors
    for (unsigned p : {2u, 3u, 5u, 7u, 11u, 13u, 17u, 19u, 23u, 29u, 31u, 37u}) {
        while (n % p == 0) {
            out.push_back(p);
            n /= p;
        }
    }
    for (u128 p = 41; p < 10000 && p * p <= n; p += 2) {
        while (n % p == 0) {
            out.push_back(p);
            n /= p;
        }
    }
    std::vector<u128> todo;
    if (n > 1) todo.push_back(n);
    while (!todo.empty()) {
        if (ctx.cancelled()) return false;
        u128 v = todo.back();
        todo.pop_back();
        if (is_prime(v)) {
            out.push_back(v);
            continue;
        }
        u128 d = rho(v, ctx);
        if (d == 0) return false;
        todo.push_back(d);
        todo.push_back(v / d);
    }
    std::sort(out.begin(), out.end());
    return true;
}

std::string to_string(u128 v) {
    if (v == 0) return "0";
    std::string s;
    while (v) {
        s += static_cast<char>('0' + static_cast<int>(v % 10));
        v /= 10;
    }
    std::reverse(s.begin(), s.end());
    return s;
}

// 0 ok, 1 invalid, 2 too large.
int parse_u128(std::string_view s, u128& out) {
    while (!s.empty() && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n')) s.remove_prefix(1);
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    if (s.empty()) return 1;
    u128 v = 0;
    const u128 max = ~static_cast<u128>(0);
    for (char c : s) {
        if (c < '0' || c > '9') return 1;
        const unsigned d = static_cast<unsigned>(c - '0');
        if (v > (max - d) / 10) {
            for (char r : s)
                if (r < '0' || r > '9') return 1;
            return 2;
        }
        v = v * 10 + d;
    }
    out = v;
    return 0;
}

}  // namespace

int cmd_factor(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {{kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    int status = 0;
    if (help_or_version(ctx, p, "Usage: factor [OPTION] [NUMBER]...\nPrint the prime factors of each specified integer NUMBER.  If none\nare specified on the command line, read them from standard input.\n", status))
        return status;
    if (!p.ok()) return usage_error(ctx, p.error);
    const bool exponents = false;  // factor -h is coreutils 9.2's
    text::Output out(ctx);
    auto one = [&](std::string_view word) {
        u128 n = 0;
        const int pr = parse_u128(word, n);
        if (pr != 0) {
            ctx.error(text::quote(word) + (pr == 2 ? " is too large" : " is not a valid positive integer"));
            status = 1;
            return;
        }
        std::vector<u128> f;
        if (!factorize(n, f, ctx)) {
            status = 130;
            return;
        }
        std::string line = to_string(n) + ":";
        for (size_t i = 0; i < f.size(); ++i) {
            size_t j = i;
            while (exponents && j + 1 < f.size() && f[j + 1] == f[i]) ++j;
            line += " " + to_string(f[i]);
            if (j > i) line += "^" + std::to_string(j - i + 1);
            i = j;
        }
        out.put(line + "\n");
    };
    if (!p.operands.empty()) {
        for (const auto& w : p.operands) {
            if (ctx.cancelled()) return 130;
            if (out.failed()) break;  // a closed pipe: stop (141 below)
            one(w);
        }
        return out.status(status);
    }
    text::Input in;
    in.open_stdin(ctx);
    text::LineReader reader(in);
    std::string_view line;
    while (reader.next(line)) {
        if (ctx.cancelled()) return 130;
        if (out.failed()) break;  // a closed pipe: stop reading (141 below), so the writer before us gets 141 too
        size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            size_t e = i;
            while (e < line.size() && !std::isspace(static_cast<unsigned char>(line[e]))) ++e;
            if (e > i) one(line.substr(i, e - i));
            i = e;
        }
    }
    return out.status(status);
}

// ---------------------------------------------------------------------------------------------------------
// sum

int cmd_sum(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'r', 'r'}, {'s', 's', "sysv"}, {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    int status = 0;
    if (help_or_version(ctx, p, "Usage: sum [OPTION]... [FILE]...\nPrint or check BSD (16-bit) checksums.\n", status))
        return status;
    if (!p.ok()) return usage_error(ctx, p.error);
    bool sysv = false;
    for (const auto& o : p.options) {
        if (o.id == 's') sysv = true;
        if (o.id == 'r') sysv = false;
    }
    std::vector<std::string> files = p.operands;
    const bool named = !files.empty();
    if (files.empty()) files.emplace_back("-");
    text::Output out(ctx);
    std::vector<char> buf(64 * 1024);
    for (const auto& f : files) {
        text::Input in;
        if (auto e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            text::file_error(ctx, f, e);
            status = 1;
            continue;
        }
        uint32_t bsd = 0;
        uint64_t sys = 0, total = 0;
        bool failed = false;
        for (;;) {
            if (ctx.cancelled()) return 130;
            auto r = in.read(buf.data(), buf.size());
            if (r.err != vfs::Errc::ok) {
                text::file_error(ctx, f, r.err);
                failed = true;
                break;
            }
            if (r.n == 0) break;
            total += r.n;
            for (size_t i = 0; i < r.n; ++i) {
                const unsigned char c = static_cast<unsigned char>(buf[i]);
                bsd = ((bsd >> 1) + ((bsd & 1) << 15) + c) & 0xffff;
                sys += c;
            }
        }
        if (failed) {
            status = 1;
            continue;
        }
        char line[128];
        if (sysv) {
            uint32_t s = static_cast<uint32_t>((sys & 0xffffffff));
            uint32_t r = (s & 0xffff) + (s >> 16);
            r = (r & 0xffff) + (r >> 16);
            std::snprintf(line, sizeof line, "%u %llu", r, static_cast<unsigned long long>((total + 511) / 512));
        } else {
            std::snprintf(line, sizeof line, "%05u %5llu", bsd, static_cast<unsigned long long>((total + 1023) / 1024));
        }
        out.put(line);
        if (named) {
            out.put(' ');
            out.put(f);
        }
        out.put('\n');
    }
    return out.status(status);
}

// ---------------------------------------------------------------------------------------------------------
// tsort

int cmd_tsort(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {{kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    int status = 0;
    if (help_or_version(ctx, p, "Usage: tsort [OPTION] [FILE]\nWrite totally ordered list consistent with the partial ordering in FILE.\n", status))
        return status;
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.size() > 1) return usage_error(ctx, "extra operand " + text::quote(p.operands[1]));
    const std::string name = p.operands.empty() ? "-" : p.operands[0];
    text::Input in;
    if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
        text::file_error(ctx, name, e);
        return 1;
    }
    struct Item {
        size_t count = 0;               // predecessors not yet output
        std::vector<size_t> succ;       // latest first when walked backwards
        std::vector<size_t> pred;
        bool done = false;
    };
    std::map<std::string, size_t> index;  // sorted: GNU walks its search tree in order
    std::vector<Item> items;
    std::vector<std::string> names;
    interp::MemoryCharge held(ctx.memory);
    auto id = [&](std::string_view w) {
        auto it = index.find(std::string(w));
        if (it != index.end()) return it->second;
        held.add(w.size() + 96);
        index.emplace(std::string(w), items.size());
        names.emplace_back(w);
        items.emplace_back();
        return items.size() - 1;
    };
    text::LineReader reader(in);
    std::string_view line;
    std::string pending;
    bool have_pending = false;
    size_t tokens = 0;
    while (reader.next(line)) {
        if (ctx.cancelled()) return 130;
        size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            size_t e = i;
            while (e < line.size() && !std::isspace(static_cast<unsigned char>(line[e]))) ++e;
            if (e > i) {
                ++tokens;
                const std::string_view w = line.substr(i, e - i);
                if (!have_pending) {
                    pending.assign(w);
                    have_pending = true;
                } else {
                    const size_t a = id(pending), b = id(w);
                    if (a != b) {
                        items[a].succ.push_back(b);
                        items[b].pred.push_back(a);
                        ++items[b].count;
                    }
                    have_pending = false;
                }
            }
            i = e;
        }
    }
    if (reader.error() != vfs::Errc::ok) {
        text::file_error(ctx, name, reader.error());
        return 1;
    }
    if (tokens % 2) {
        ctx.error(name + ": input contains an odd number of tokens");
        return 1;
    }
    text::Output out(ctx);
    std::vector<size_t> order;  // ids in sorted-name order
    for (const auto& [n, i] : index) order.push_back(i);
    std::vector<size_t> queue;
    size_t head = 0, left = items.size();
    for (size_t i : order)
        if (items[i].count == 0) queue.push_back(i);
    while (left > 0) {
        while (head < queue.size()) {
            if (ctx.cancelled()) return 130;
            const size_t v = queue[head++];
            items[v].done = true;
            --left;
            out.put(names[v]);
            out.put('\n');
            auto& s = items[v].succ;
            for (auto it = s.rbegin(); it != s.rend(); ++it)
                if (--items[*it].count == 0) queue.push_back(*it);
        }
        if (left == 0) break;
        // A loop: from the first item still waiting, walk back through waiting predecessors until one repeats;
        // the loop is printed in successor order from that item, and its last edge back to it is dropped.
        status = 1;
        size_t start = SIZE_MAX;
        for (size_t i : order)
            if (!items[i].done) {
                start = i;
                break;
            }
        std::vector<size_t> path;
        std::vector<int> pos(items.size(), -1);
        size_t v = start;
        while (pos[v] < 0) {
            if (ctx.cancelled()) return 130;
            pos[v] = static_cast<int>(path.size());
            path.push_back(v);
            size_t prev = SIZE_MAX;
            for (size_t q : items[v].pred)
                if (!items[q].done) {
                    prev = q;
                    break;
                }
            v = prev;
        }
        (void)out.flush();
        ctx.error(name + ": input contains a loop:");
        const size_t from = static_cast<size_t>(pos[v]);
        ctx.error(names[path[from]]);
        for (size_t k = path.size() - 1; k > from; --k) ctx.error(names[path[k]]);
        const size_t first = path[from], last = path[from + 1 < path.size() ? from + 1 : from];
        auto& s = items[last].succ;
        for (auto it = s.begin(); it != s.end(); ++it)
            if (*it == first) {
                s.erase(it);
                break;
            }
        auto& pr = items[first].pred;
        for (auto it = pr.begin(); it != pr.end(); ++it)
            if (*it == last) {
                pr.erase(it);
                break;
            }
        if (--items[first].count == 0) queue.push_back(first);
    }
    return out.status(status);
}

}  // namespace bashkit::utils::data
