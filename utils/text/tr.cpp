// tr: translate, delete or squeeze bytes (C locale), with GNU's set syntax.
#include <array>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

struct Set {
    std::vector<unsigned char> chars;
    // Positions (in chars) where a [:upper:] or [:lower:] class starts: {pos, 'u' or 'l'}.
    std::vector<std::pair<size_t, char>> case_classes;
    bool has_fill = false;      // [c*] in set 2
    size_t fill_pos = 0;
    unsigned char fill_char = 0;
    bool has_other_class = false;
};

bool in_class(std::string_view cls, int c) {
    bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z', dig = c >= '0' && c <= '9';
    if (cls == "alpha") return upper || lower;
    if (cls == "upper") return upper;
    if (cls == "lower") return lower;
    if (cls == "digit") return dig;
    if (cls == "alnum") return upper || lower || dig;
    if (cls == "xdigit") return dig || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (cls == "space") return c == ' ' || (c >= 9 && c <= 13);
    if (cls == "blank") return c == ' ' || c == '\t';
    if (cls == "cntrl") return c < 32 || c == 127;
    if (cls == "print") return c >= 32 && c < 127;
    if (cls == "graph") return c > 32 && c < 127;
    if (cls == "punct") return c > 32 && c < 127 && !(upper || lower || dig);
    return false;
}

bool valid_class(std::string_view cls) {
    static constexpr std::string_view kClasses[] = {"alpha", "upper", "lower", "digit", "alnum",  "xdigit",
                                                   "space", "blank", "cntrl", "print", "graph", "punct"};
    for (auto c : kClasses)
        if (c == cls) return true;
    return false;
}

// One parsed unit of the string: a literal byte with whether it came from an escape.
struct Unit {
    unsigned char c;
    bool escaped;
};

std::vector<Unit> unescape(CommandContext& ctx, std::string_view s) {
    std::vector<Unit> u;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c != '\\') {
            u.push_back({static_cast<unsigned char>(c), false});
            continue;
        }
        if (i + 1 >= s.size()) {
            ctx.error("warning: an unescaped backslash at end of string is not portable");
            u.push_back({'\\', true});
            continue;
        }
        char n = s[++i];
        switch (n) {
            case 'a': u.push_back({'\a', true}); break;
            case 'b': u.push_back({'\b', true}); break;
            case 'f': u.push_back({'\f', true}); break;
            case 'n': u.push_back({'\n', true}); break;
            case 'r': u.push_back({'\r', true}); break;
            case 't': u.push_back({'\t', true}); break;
            case 'v': u.push_back({'\v', true}); break;
            default:
                if (n >= '0' && n <= '7') {
                    int v = n - '0';
                    int k = 1;
                    while (k < 3 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7') {
                        int nv = v * 8 + (s[i + 1] - '0');
                        if (nv > 255) break;
                        v = nv;
                        ++i;
                        ++k;
                    }
                    u.push_back({static_cast<unsigned char>(v), true});
                } else {
                    u.push_back({static_cast<unsigned char>(n), true});
                }
        }
    }
    return u;
}

// Expands a set string. Prints the error and returns false on a bad construct.
bool expand(CommandContext& ctx, std::string_view text, bool second, Set& set) {
    std::vector<Unit> u = unescape(ctx, text);
    auto lit = [&](size_t i, char c) { return i < u.size() && !u[i].escaped && u[i].c == static_cast<unsigned char>(c); };
    size_t i = 0;
    while (i < u.size()) {
        // [:class:] / [=c=] / [c*n]
        if (lit(i, '[') && i + 1 < u.size()) {
            if (lit(i + 1, ':') || lit(i + 1, '=')) {
                char kind = static_cast<char>(u[i + 1].c);
                size_t j = i + 2;
                while (j + 1 < u.size() && !(lit(j, kind) && lit(j + 1, ']'))) ++j;
                if (j + 1 < u.size()) {
                    std::string name;
                    for (size_t k = i + 2; k < j; ++k) name += static_cast<char>(u[k].c);
                    if (kind == ':') {
                        if (!valid_class(name)) {
                            ctx.error("invalid character class " + quote(name));
                            return false;
                        }
                        if (name == "upper" || name == "lower") set.case_classes.emplace_back(set.chars.size(), name[0]);
                        else set.has_other_class = true;
                        for (int c = 0; c < 256; ++c)
                            if (in_class(name, c)) set.chars.push_back(static_cast<unsigned char>(c));
                    } else {
                        if (name.size() != 1) {
                            ctx.error(name.empty() ? std::string("missing equivalence class character '[==]'")
                                                   : "" + quote(name) + ": equivalence class operand must be a single character");
                            return false;
                        }
                        set.chars.push_back(static_cast<unsigned char>(name[0]));
                    }
                    i = j + 2;
                    continue;
                }
            } else if (lit(i + 2, '*')) {
                // [c*n] or [c*]
                size_t j = i + 3;
                std::string digits;
                while (j < u.size() && !lit(j, ']')) digits += static_cast<char>(u[j++].c);
                if (j < u.size()) {
                    unsigned char c = u[i + 1].c;
                    if (!second) {
                        ctx.error("the [c*] repeat construct may not appear in string1");
                        return false;
                    }
                    uint64_t n = 0;
                    bool ok = true;
                    if (!digits.empty()) {
                        bool octal = digits[0] == '0';
                        for (char d : digits) {
                            int v = d - '0';
                            if (v < 0 || v > (octal ? 7 : 9)) ok = false;
                            else if (n < (1ull << 40)) n = n * (octal ? 8 : 10) + static_cast<uint64_t>(v);
                        }
                    }
                    if (!ok) {
                        std::string rep;
                        for (size_t k = i + 3; k < j; ++k) rep += static_cast<char>(u[k].c);
                        ctx.error("invalid repeat count " + quote(rep) + " in [c*n] construct");
                        return false;
                    }
                    if (n == 0) {
                        if (set.has_fill) {
                            ctx.error("only one [c*] repeat construct may appear in string2");
                            return false;
                        }
                        set.has_fill = true;
                        set.fill_pos = set.chars.size();
                        set.fill_char = c;
                    } else {
                        if (n > (1u << 20)) n = 1u << 20;
                        set.chars.insert(set.chars.end(), static_cast<size_t>(n), c);
                    }
                    i = j + 1;
                    continue;
                }
            }
        }
        // a-b range
        if (i + 2 < u.size() && lit(i + 1, '-')) {
            unsigned char a = u[i].c, b = u[i + 2].c;
            if (b < a) {
                std::string r;
                r += static_cast<char>(a);
                r += '-';
                r += static_cast<char>(b);
                ctx.error("range-endpoints of " + quote(r) + " are in reverse collating sequence order");
                return false;
            }
            for (int c = a; c <= b; ++c) set.chars.push_back(static_cast<unsigned char>(c));
            i += 3;
            continue;
        }
        set.chars.push_back(u[i].c);
        ++i;
    }
    return true;
}

}  // namespace

int cmd_tr(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'c', 0, "complement"}, {'d', 0, "delete"}, {'s', 0, "squeeze-repeats"}, {'t', 0, "truncate-set1"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> args;
    if (!parse_getopt(ctx, "cCdst", kLong, opts, args)) return 1;
    bool comp = false, del = false, squeeze = false, trunc = false;
    for (auto& o : opts) {
        switch (o.id) {
            case 'c': case 'C': comp = true; break;
            case 'd': del = true; break;
            case 's': squeeze = true; break;
            case 't': trunc = true; break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... STRING1 [STRING2]\nTranslate, squeeze, and/or delete characters from standard input,\nwriting to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    bool translating = !del && args.size() == 2;
    size_t need_min = (del && squeeze) || (!del && !squeeze) ? 2 : 1;
    size_t need_max = (del && !squeeze) ? 1 : 2;
    if (args.empty()) {
        usage_error(ctx, "missing operand");
        return 1;
    }
    if (args.size() < need_min) {
        ctx.error("missing operand after " + quote(args.back()));
        (void)ctx.err.write(del ? "Two strings must be given when both deleting and squeezing repeats.\n"
                                : "Two strings must be given when translating.\n");
        try_help(ctx);
        return 1;
    }
    if (args.size() > need_max) {
        ctx.error("extra operand " + quote(args[need_max]));
        if (need_max == 1) (void)ctx.err.write("Only one string may be given when deleting without squeezing repeats.\n");
        try_help(ctx);
        return 1;
    }
    Set s1, s2;
    if (!expand(ctx, args[0], false, s1)) return 1;
    if (args.size() == 2 && !expand(ctx, args[1], true, s2)) return 1;
    std::array<bool, 256> in1{};
    for (unsigned char c : s1.chars) in1[c] = true;
    if (comp) {
        s1.chars.clear();
        for (int c = 0; c < 256; ++c)
            if (!in1[c]) s1.chars.push_back(static_cast<unsigned char>(c));
        in1 = {};
        for (unsigned char c : s1.chars) in1[c] = true;
    }
    std::array<unsigned char, 256> map{};
    for (int c = 0; c < 256; ++c) map[c] = static_cast<unsigned char>(c);
    if (translating) {
        if (s2.has_other_class) {
            ctx.error("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'");
            return 1;
        }
        // [:upper:]/[:lower:] in set 2 must face the opposite class in set 1.
        for (auto& [pos, kind] : s2.case_classes) {
            bool ok = false;
            for (const auto& c1 : s1.case_classes)
                if (c1.first == pos) ok = true;
            if (!ok || comp) {
                ctx.error("misaligned [:upper:] and/or [:lower:] construct");
                return 1;
            }
        }
        if (s2.has_fill) {
            size_t fill = s1.chars.size() > s2.chars.size() ? s1.chars.size() - s2.chars.size() : 0;
            s2.chars.insert(s2.chars.begin() + static_cast<std::ptrdiff_t>(s2.fill_pos), fill, s2.fill_char);
        }
        if (trunc && s1.chars.size() > s2.chars.size()) s1.chars.resize(s2.chars.size());
        if (s2.chars.empty() && !s1.chars.empty()) {
            ctx.error("when not truncating set1, string2 must be non-empty");
            return 1;
        }
        if (comp && s1.chars.size() > s2.chars.size() && !s2.has_fill) {
            // GNU: a complemented set1 needs string2 to cover it only by extension (allowed).
        }
        for (size_t i = 0; i < s1.chars.size(); ++i) {
            unsigned char to = i < s2.chars.size() ? s2.chars[i] : s2.chars.back();
            map[s1.chars[i]] = to;
        }
    }
    std::array<bool, 256> sq{};
    if (squeeze) {
        const Set& src = args.size() == 2 ? s2 : s1;
        for (unsigned char c : src.chars) sq[c] = true;
        if (args.size() == 2 && s2.has_fill) sq[s2.fill_char] = true;
    }
    Input in;
    in.open_stdin(ctx);
    Output out(ctx);
    ChunkBuffer buf;
    int last = -1;
    for (;;) {
        auto r = in.read(buf.data(), buf.size());
        if (r.err == vfs::Errc::cancelled) return out.status(130);
        if (r.err != vfs::Errc::ok) {
            out.flush();
            ctx.error("read error: " + errstr(r.err));
            return out.status(1);
        }
        if (r.n == 0) break;
        if (!del && !squeeze) {
            // Plain translation: map the chunk in place.
            for (size_t i = 0; i < r.n; ++i) buf[i] = static_cast<char>(map[static_cast<unsigned char>(buf[i])]);
            out.put(std::string_view(buf.data(), r.n));
            out.flush();
            if (out.failed()) break;
            continue;
        }
        std::string& ob = out.buffer();
        for (size_t i = 0; i < r.n; ++i) {
            auto c = static_cast<unsigned char>(buf[i]);
            if (del && in1[c]) continue;
            unsigned char o = map[c];
            if (squeeze && sq[o] && last == o) continue;
            ob.push_back(static_cast<char>(o));
            last = o;
        }
        out.flush();
        if (out.failed()) break;
    }
    return out.status(0);
}

}  // namespace bashkit::utils::text
