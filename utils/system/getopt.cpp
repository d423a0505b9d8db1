// getopt (util-linux): parses a script's parameters the way glibc's getopt_long does and prints them in a
// canonical, shell-quoted form for `eval set -- "$(getopt ...)"`.
#include <string>
#include <vector>

#include "utils/system/tools.hpp"

namespace bashkit::utils::systemutil {

namespace {

struct LongDef {
    std::string name;
    int arg = 0;  // 0 none, 1 required, 2 optional
};

struct Getopt {
    CommandContext& ctx;
    std::string name = "getopt";
    std::string shortopts;
    std::vector<LongDef> longs;
    bool quiet = false, quiet_output = false, unquoted = false, alternative = false;
    bool errors = false;
    std::string out;

    void error(const std::string& msg) {
        errors = true;
        if (!quiet) (void)ctx.err.write(name + ": " + msg + "\n");
    }
    std::string q(const std::string& s) const {
        if (unquoted) return s;
        std::string o = "'";
        for (char c : s) {
            if (c == '\'')
                o += "'\\''";
            else
                o += c;
        }
        return o + "'";
    }
    // The argument kind of short option c, or -1 when c is no option.
    int short_kind(char c) const {
        if (c == ':' ) return -1;
        const size_t p = shortopts.find(c);
        if (p == std::string::npos) return -1;
        if (p + 1 < shortopts.size() && shortopts[p + 1] == ':')
            return (p + 2 < shortopts.size() && shortopts[p + 2] == ':') ? 2 : 1;
        return 0;
    }
};

void add_longs(std::vector<LongDef>& longs, std::string_view spec) {
    std::string cur;
    auto flush = [&]() {
        if (cur.empty()) return;
        LongDef d;
        size_t colons = 0;
        while (!cur.empty() && cur.back() == ':') {
            cur.pop_back();
            ++colons;
        }
        d.name = cur;
        d.arg = colons >= 2 ? 2 : static_cast<int>(colons);
        longs.push_back(d);
        cur.clear();
    };
    for (char c : spec) {
        if (c == ',' || c == ' ' || c == '\t' || c == '\n')
            flush();
        else
            cur += c;
    }
    flush();
}

// Matches a long option name (exact, or an unambiguous prefix). -1 unknown, -2 ambiguous (message in amb).
int match_long(const Getopt& g, std::string_view nm, std::string& amb) {
    int found = -1;
    std::vector<int> cands;
    for (size_t i = 0; i < g.longs.size(); ++i) {
        if (g.longs[i].name == nm) return static_cast<int>(i);
        if (g.longs[i].name.compare(0, nm.size(), nm) == 0) cands.push_back(static_cast<int>(i));
    }
    if (cands.size() == 1) return cands[0];
    if (cands.empty()) return found;
    // Candidates that all mean the same (same name twice) are not ambiguous.
    bool same = true;
    for (int c : cands) same = same && g.longs[c].name == g.longs[cands[0]].name && g.longs[c].arg == g.longs[cands[0]].arg;
    if (same) return cands[0];
    amb = "possibilities:";
    for (int c : cands) amb += " '--" + g.longs[c].name + "'";
    return -2;
}

}  // namespace

int cmd_getopt(CommandContext& ctx) {
    const auto& argv = ctx.argv;
    Getopt g{ctx};
    std::vector<std::string> params;
    bool have_opts = false;
    size_t i = 1;
    auto usage = [&](const std::string& msg) {
        if (!msg.empty()) (void)ctx.err.write("getopt: " + msg + "\n");
        (void)ctx.err.write("Try 'getopt --help' for more information.\n");
        return 2;
    };
    if (argv.size() > 1 && !argv[1].empty() && argv[1][0] != '-') {
        // Old form: getopt OPTSTRING PARAMETERS (unquoted output).
        g.shortopts = argv[1];
        g.unquoted = true;
        have_opts = true;
        params.assign(argv.begin() + 2, argv.end());
    } else {
        // getopt's own options (util-linux parses them with "+ao:l:n:qQs:TuhV").
        for (; i < argv.size(); ++i) {
            const std::string& a = argv[i];
            if (a == "--") {
                ++i;
                break;
            }
            if (a.size() < 2 || a[0] != '-') break;
            auto value = [&](const std::string& opt, size_t attached_at, std::string& v) -> bool {
                if (attached_at < a.size()) {
                    v = a.substr(attached_at);
                    return true;
                }
                if (i + 1 >= argv.size()) {
                    usage("option requires an argument -- '" + opt + "'");
                    return false;
                }
                v = argv[++i];
                return true;
            };
            if (a[1] == '-') {
                std::string nm = a.substr(2), v;
                const size_t eq = nm.find('=');
                const bool has_eq = eq != std::string::npos;
                if (has_eq) {
                    v = nm.substr(eq + 1);
                    nm.resize(eq);
                }
                static const char* kOwn[] = {"options", "longoptions", "name", "quiet", "quiet-output", "unquoted",
                                             "alternative", "shell", "test", "help", "version"};
                std::string hit;
                int nhits = 0;
                for (const char* o : kOwn) {
                    if (nm == o) {
                        hit = o;
                        nhits = 1;
                        break;
                    }
                    if (std::string_view(o).substr(0, nm.size()) == nm) {
                        hit = o;
                        ++nhits;
                    }
                }
                if (nhits != 1) return usage("unrecognized option '" + a + "'");
                auto need = [&]() -> bool {
                    if (has_eq) return true;
                    if (i + 1 >= argv.size()) {
                        usage("option '--" + hit + "' requires an argument");
                        return false;
                    }
                    v = argv[++i];
                    return true;
                };
                if (hit == "options") {
                    if (!need()) return 2;
                    g.shortopts = v;
                    have_opts = true;
                } else if (hit == "longoptions") {
                    if (!need()) return 2;
                    add_longs(g.longs, v);
                } else if (hit == "name") {
                    if (!need()) return 2;
                    g.name = v;
                } else if (hit == "shell") {
                    if (!need()) return 2;
                    if (v != "sh" && v != "bash" && v != "csh" && v != "tcsh") {
                        (void)ctx.err.write("getopt: unknown shell after -s or --shell argument\n");
                        return usage("");
                    }
                } else if (hit == "quiet") g.quiet = true;
                else if (hit == "quiet-output") g.quiet_output = true;
                else if (hit == "unquoted") g.unquoted = true;
                else if (hit == "alternative") g.alternative = true;
                else if (hit == "test") return 4;
                else if (hit == "help") {
                    return write_out(ctx, "\nUsage:\n getopt <optstring> <parameters>\n"
                                          " getopt [options] [--] <optstring> <parameters>\n"
                                          " getopt [options] -o|--options <optstring> [options] [--] <parameters>\n\n"
                                          "Parse command options.\n")
                               ? 0
                               : 1;
                } else if (hit == "version") {
                    return write_out(ctx, "getopt from util-linux 2.38.1\n") ? 0 : 1;
                }
                continue;
            }
            for (size_t k = 1; k < a.size(); ++k) {
                const char c = a[k];
                std::string v;
                switch (c) {
                    case 'o':
                        if (!value("o", k + 1, v)) return 2;
                        g.shortopts = v;
                        have_opts = true;
                        k = a.size();
                        break;
                    case 'l':
                        if (!value("l", k + 1, v)) return 2;
                        add_longs(g.longs, v);
                        k = a.size();
                        break;
                    case 'n':
                        if (!value("n", k + 1, v)) return 2;
                        g.name = v;
                        k = a.size();
                        break;
                    case 's':
                        if (!value("s", k + 1, v)) return 2;
                        if (v != "sh" && v != "bash" && v != "csh" && v != "tcsh") {
                            (void)ctx.err.write("getopt: unknown shell after -s or --shell argument\n");
                            return usage("");
                        }
                        k = a.size();
                        break;
                    case 'q': g.quiet = true; break;
                    case 'Q': g.quiet_output = true; break;
                    case 'u': g.unquoted = true; break;
                    case 'a': g.alternative = true; break;
                    case 'T': return 4;
                    case 'h':
                        return write_out(ctx, "\nUsage:\n getopt <optstring> <parameters>\n"
                                              " getopt [options] [--] <optstring> <parameters>\n"
                                              " getopt [options] -o|--options <optstring> [options] [--] <parameters>\n\n"
                                              "Parse command options.\n")
                                   ? 0
                                   : 1;
                    case 'V': return write_out(ctx, "getopt from util-linux 2.38.1\n") ? 0 : 1;
                    default: return usage(std::string("invalid option -- '") + c + "'");
                }
            }
        }
        if (!have_opts) {
            if (i >= argv.size()) return usage("missing optstring argument");
            g.shortopts = argv[i++];
        }
        params.assign(argv.begin() + static_cast<long>(i), argv.end());
    }
    // Ordering: '+' (or POSIXLY_CORRECT) stops at the first non-option; '-' is taken as plain permutation here.
    bool require_order = ctx.env.get("POSIXLY_CORRECT") != nullptr;
    if (!g.shortopts.empty() && (g.shortopts[0] == '+' || g.shortopts[0] == '-')) {
        require_order = g.shortopts[0] == '+';
        g.shortopts.erase(0, 1);
    }
    if (!g.shortopts.empty() && g.shortopts[0] == ':') {
        g.quiet = true;
        g.shortopts.erase(0, 1);
    }
    std::vector<std::string> operands;
    std::string opts_out;
    for (size_t k = 0; k < params.size(); ++k) {
        if (ctx.cancelled()) return 130;
        const std::string& a = params[k];
        if (a == "--") {
            operands.insert(operands.end(), params.begin() + static_cast<long>(k) + 1, params.end());
            break;
        }
        if (a.size() < 2 || a[0] != '-') {
            if (require_order) {
                operands.insert(operands.end(), params.begin() + static_cast<long>(k), params.end());
                break;
            }
            operands.push_back(a);
            continue;
        }
        const bool dashdash = a[1] == '-';
        if (dashdash || (g.alternative && !g.longs.empty())) {
            std::string body = a.substr(dashdash ? 2 : 1), val;
            const size_t eq = body.find('=');
            const bool has_eq = eq != std::string::npos;
            std::string nm = has_eq ? body.substr(0, eq) : body;
            if (has_eq) val = body.substr(eq + 1);
            std::string amb;
            const int li = match_long(g, nm, amb);
            // -x under --alternative: a long option when one matches, else a cluster of short options.
            if (!dashdash && (li == -1 || (li >= 0 && nm.size() == 1 && g.short_kind(nm[0]) >= 0 &&
                                           g.longs[li].name != nm))) {
                // fall through to short parsing
            } else {
                const std::string spelled = dashdash ? "--" : "-";
                if (li == -2) {
                    g.error("option '" + spelled + nm + "' is ambiguous; " + amb);
                    continue;
                }
                if (li == -1) {
                    g.error("unrecognized option '" + a + "'");
                    continue;
                }
                const LongDef& d = g.longs[li];
                if (d.arg == 0 && has_eq) {
                    g.error("option '" + spelled + d.name + "' doesn't allow an argument");
                    continue;
                }
                if (d.arg == 1 && !has_eq) {
                    if (k + 1 >= params.size()) {
                        g.error("option '" + spelled + d.name + "' requires an argument");
                        continue;
                    }
                    val = params[++k];
                }
                opts_out += " --" + d.name;
                if (d.arg != 0) opts_out += " " + g.q(val);
                continue;
            }
        }
        for (size_t c = 1; c < a.size(); ++c) {
            const char ch = a[c];
            const int kind = g.short_kind(ch);
            if (kind < 0) {
                g.error(std::string("invalid option -- '") + ch + "'");
                continue;
            }
            opts_out += std::string(" -") + ch;
            if (kind == 0) continue;
            std::string val;
            if (c + 1 < a.size()) {
                val = a.substr(c + 1);
            } else if (kind == 1) {
                if (k + 1 >= params.size()) {
                    opts_out.resize(opts_out.size() - 3);
                    g.error(std::string("option requires an argument -- '") + ch + "'");
                    break;
                }
                val = params[++k];
            }
            opts_out += " " + g.q(val);
            break;
        }
    }
    if (g.quiet_output) return g.errors ? 1 : 0;
    std::string out = opts_out + " --";
    for (const auto& o : operands) out += " " + g.q(o);
    out += "\n";
    if (!write_out(ctx, out)) return 1;
    return g.errors ? 1 : 0;
}

}  // namespace bashkit::utils::systemutil
