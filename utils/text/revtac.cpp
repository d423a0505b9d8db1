// rev (reverse each line) and tac (reverse the order of records).
#include <algorithm>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

int cmd_rev(CommandContext& ctx) {
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    static constexpr OptionSpec kLong[] = {{'0', 0, "zero"}};
    if (!parse_getopt(ctx, "0hV", kLong, opts, files)) return 1;
    char eol = '\n';
    for (auto& o : opts) {
        if (o.id == '0') eol = '\0';
        if (o.id == kOptHelp || o.id == 'h') return print_help(ctx, "[options] [file ...]\nReverse lines characterwise.\n");
        if (o.id == kOptVersion || o.id == 'V') return version(ctx);
    }
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    int status = 0;
    std::string tmp;
    for (const auto& f : files) {
        Input in;
        if (auto e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            out.flush();
            ctx.error("cannot open " + f + ": " + errstr(e));
            status = 1;
            continue;
        }
        LineReader lr(in, eol);
        std::string_view line;
        bool term;
        uint64_t n = 0;
        while (lr.next(line, term)) {
            tmp.assign(line.rbegin(), line.rend());
            out.put(tmp);
            if (term) out.put(eol);
            ++n;
            if (out.failed()) return out.status(status);
        }
        if (lr.error() == vfs::Errc::cancelled) return out.status(130);
        if (lr.error() != vfs::Errc::ok) {
            out.flush();
            ctx.error(f + ": " + std::to_string(n) + ": " + errstr(lr.error()));
            status = 1;
        }
    }
    return out.status(status);
}

int cmd_tac(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'b', 0, "before"}, {'r', 0, "regex"}, {'s', 0, "separator", ArgKind::required},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "brs:", kLong, opts, files)) return 1;
    bool before = false;
    std::string sep = "\n";
    for (auto& o : opts) {
        switch (o.id) {
            case 'b': before = true; break;
            case 'r':
                ctx.error("--regex is not supported");
                return 1;
            case 's':
                if (o.value.empty()) {
                    ctx.error("separator cannot be empty");
                    return 1;
                }
                sep = o.value;
                break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nWrite each FILE to standard output, last line first.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    int status = 0;
    for (const auto& f : files) {
        Input in;
        if (auto e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            out.flush();
            ctx.error("failed to open " + quote(f) + " for reading: " + errstr(e));
            status = 1;
            continue;
        }
        std::string data;
        auto e = read_all(ctx, in, data);
        if (e == vfs::Errc::cancelled) return out.status(130);
        if (e != vfs::Errc::ok) {
            out.flush();
            // GNU tac seeks first, so a directory fails with EINVAL.
            ctx.error(quote_name(f) + ": read error: " +
                      errstr(e == vfs::Errc::is_directory ? vfs::Errc::invalid_argument : e));
            status = 1;
            continue;
        }
        // The input and the record boundaries (positions of separator matches), held on the session's budget.
        interp::MemoryCharge held(ctx.memory);
        held.add(data.capacity());
        std::vector<size_t> hits;
        for (size_t p = data.find(sep); p != std::string::npos; p = data.find(sep, p + sep.size())) {
            if ((hits.size() & 0xffff) == 0) {
                if (ctx.cancelled()) return out.status(130);
                held.set(data.capacity() + hits.capacity() * sizeof(size_t));
            }
            hits.push_back(p);
        }
        std::string_view d = data;
        if (!before) {
            // Records end after each separator; the text after the last one is the first record printed.
            size_t end = d.size();
            size_t last_end = hits.empty() ? 0 : hits.back() + sep.size();
            if (last_end < end) out.put(d.substr(last_end));
            end = last_end;
            for (size_t k = hits.size(); k-- > 0;) {
                size_t start = k == 0 ? 0 : hits[k - 1] + sep.size();
                out.put(d.substr(start, end - start));
                end = start;
            }
        } else {
            // Records start at each separator; text before the first one is the last record printed.
            size_t end = d.size();
            for (size_t k = hits.size(); k-- > 0;) {
                out.put(d.substr(hits[k], end - hits[k]));
                end = hits[k];
            }
            out.put(d.substr(0, end));
        }
        if (out.failed()) break;
    }
    return out.status(status);
}

}  // namespace bashkit::utils::text
