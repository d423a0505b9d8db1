// paste: merge lines of files side by side (or serially with -s).
#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

// GNU paste's delimiter list: escapes \n \t \\ \0 (no delimiter) \b \f \r \v; other \c is c.
bool parse_delims(CommandContext& ctx, std::string_view s, std::vector<std::string>& out) {
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            out.emplace_back(1, s[i]);
            continue;
        }
        if (i + 1 >= s.size()) {
            ctx.error("delimiter list ends with an unescaped backslash: " + std::string(s));
            return false;
        }
        char c = s[++i];
        switch (c) {
            case '0': out.emplace_back(); break;
            case 'b': out.emplace_back(1, '\b'); break;
            case 'f': out.emplace_back(1, '\f'); break;
            case 'n': out.emplace_back(1, '\n'); break;
            case 'r': out.emplace_back(1, '\r'); break;
            case 't': out.emplace_back(1, '\t'); break;
            case 'v': out.emplace_back(1, '\v'); break;
            default: out.emplace_back(1, c); break;
        }
    }
    if (out.empty()) out.emplace_back();
    return true;
}

}  // namespace

int cmd_paste(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'d', 0, "delimiters", ArgKind::required}, {'s', 0, "serial"}, {'z', 0, "zero-terminated"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "d:sz", kLong, opts, files)) return 1;
    std::string dspec = "\t";
    bool serial = false;
    char eol = '\n';
    for (auto& o : opts) {
        switch (o.id) {
            case 'd': dspec = o.value; break;
            case 's': serial = true; break;
            case 'z': eol = '\0'; break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nWrite lines consisting of the sequentially corresponding lines from\neach FILE, separated by TABs, to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    std::vector<std::string> delims;
    if (!parse_delims(ctx, dspec, delims)) return 1;
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    if (serial) {
        const int status = for_each_input(ctx, out, files, [&](Input& in, const std::string&) {
            LineReader lr(in, eol);
            std::string_view line;
            size_t k = 0;
            for (bool first = true; lr.next(line); first = false) {
                if (!first) {
                    out.put(delims[k]);
                    k = (k + 1) % delims.size();
                }
                out.put(line);
                if (out.failed()) return vfs::Errc::ok;
            }
            out.put(eol);
            return lr.error();
        });
        return out.status(status);
    }
    // Parallel: every file is opened first (GNU stops at the first that cannot be).
    std::vector<std::unique_ptr<Input>> inputs;
    std::unique_ptr<Input> stdin_input;
    std::unique_ptr<LineReader> stdin_reader;
    std::vector<LineReader*> readers;
    std::vector<std::unique_ptr<LineReader>> owned;
    for (const auto& f : files) {
        if (f == "-") {
            if (!stdin_reader) {
                stdin_input = std::make_unique<Input>();
                stdin_input->open_stdin(ctx);
                stdin_reader = std::make_unique<LineReader>(*stdin_input, eol);
            }
            readers.push_back(stdin_reader.get());
            continue;
        }
        auto in = std::make_unique<Input>();
        if (auto e = in->open_input(ctx, f); e != vfs::Errc::ok) {
            file_error(ctx, f, e);
            return 1;
        }
        owned.push_back(std::make_unique<LineReader>(*in, eol));
        readers.push_back(owned.back().get());
        inputs.push_back(std::move(in));
    }
    std::vector<bool> done(readers.size(), false);
    size_t active = readers.size();
    std::string line_out;
    int status = 0;
    while (active > 0) {
        line_out.clear();
        bool got_any = false;
        for (size_t i = 0; i < readers.size(); ++i) {
            std::string_view line;
            if (!done[i]) {
                if (readers[i]->next(line)) {
                    got_any = true;
                    line_out.append(line);
                } else {
                    if (readers[i]->error() != vfs::Errc::ok && readers[i]->error() != vfs::Errc::cancelled) {
                        out.flush();
                        file_error(ctx, files[i], readers[i]->error());
                        status = 1;
                    }
                    // Every occurrence of "-" ends together.
                    for (size_t j = 0; j < readers.size(); ++j)
                        if (readers[j] == readers[i] && !done[j]) {
                            done[j] = true;
                            --active;
                        }
                }
            }
            if (i + 1 < readers.size()) line_out += delims[i % delims.size()];
        }
        if (ctx.cancelled()) return out.status(130);
        if (!got_any) break;
        out.put(line_out);
        out.put(eol);
        if (out.failed()) break;
    }
    return out.status(status);
}

}  // namespace bashkit::utils::text
