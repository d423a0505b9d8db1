// cat: concatenate files, with GNU's numbering, squeezing and visible-character options.
#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

struct CatState {
    bool number = false, nonblank = false, squeeze = false, ends = false, tabs = false, nonprint = false;
    int newlines = 0;  // GNU's counter: >= 0 at a line start, counting blank lines seen in a row
    uint64_t lineno = 0;
};

void put_number(Output& out, CatState& s) {
    char b[32];
    int n = std::snprintf(b, sizeof b, "%6llu\t", static_cast<unsigned long long>(++s.lineno));
    out.put(std::string_view(b, static_cast<size_t>(n)));
}

void cat_chunk(Output& out, CatState& s, std::string_view data) {
    for (char ch : data) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '\n') {
            if (++s.newlines > 0) {
                if (s.newlines >= 2) {
                    s.newlines = 2;
                    if (s.squeeze) continue;
                }
                if (s.number && !s.nonblank) put_number(out, s);
            }
            if (s.ends) out.put('$');
            out.put('\n');
            continue;
        }
        if (s.newlines >= 0 && s.number) put_number(out, s);
        s.newlines = -1;
        if (s.nonprint) {
            if (c >= 128) {
                out.put("M-");
                c -= 128;
            }
            if (c < 32) {
                if (c == '\t' && !s.tabs) {
                    out.put('\t');
                } else {
                    out.put('^');
                    out.put(static_cast<char>(c + 64));
                }
            } else if (c == 127) {
                out.put("^?");
            } else {
                out.put(static_cast<char>(c));
            }
        } else if (c == '\t' && s.tabs) {
            out.put("^I");
        } else {
            out.put(ch);
        }
    }
}

}  // namespace

int cmd_cat(CommandContext& ctx) {
    // In GNU's order, which shows in the "ambiguous option" message.
    static constexpr OptionSpec kLong[] = {
        {'b', 0, "number-nonblank"}, {'n', 0, "number"}, {'s', 0, "squeeze-blank"}, {'v', 0, "show-nonprinting"},
        {'E', 0, "show-ends"}, {'T', 0, "show-tabs"}, {'A', 0, "show-all"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "benstuvAET", kLong, opts, files)) return 1;
    CatState s;
    for (auto& o : opts) {
        switch (o.id) {
            case 'A': s.nonprint = s.ends = s.tabs = true; break;
            case 'b': s.number = s.nonblank = true; break;
            case 'e': s.nonprint = s.ends = true; break;
            case 'E': s.ends = true; break;
            case 'n': s.number = true; break;
            case 's': s.squeeze = true; break;
            case 't': s.nonprint = s.tabs = true; break;
            case 'T': s.tabs = true; break;
            case 'u': break;
            case 'v': s.nonprint = true; break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nConcatenate FILE(s) to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    bool plain = !(s.number || s.squeeze || s.ends || s.tabs || s.nonprint);
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    ChunkBuffer buf;
    const int status = for_each_input(ctx, out, files, [&](Input& in, const std::string&) {
        for (;;) {
            auto r = in.read(buf.data(), buf.size());
            if (r.n) {
                std::string_view chunk(buf.data(), r.n);
                if (plain) {
                    out.put(chunk);
                } else {
                    cat_chunk(out, s, chunk);
                }
                out.flush();
                if (out.failed()) return vfs::Errc::ok;
            }
            if (r.err != vfs::Errc::ok || r.n == 0) return r.err;
        }
    });
    return out.status(status);
}

}  // namespace bashkit::utils::text
