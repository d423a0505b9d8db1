// wc: line, word, byte and line-length counts, aligned the way GNU wc aligns them.
#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

struct Counts {
    uint64_t lines = 0, words = 0, bytes = 0, maxlen = 0;
};

struct Counter {
    Counts c;
    bool in_word = false;
    uint64_t linepos = 0;
    void feed(std::string_view d, bool need_words) {
        c.bytes += d.size();
        if (!need_words) {
            for (char ch : d) c.lines += ch == '\n';
            return;
        }
        for (char ch : d) {
            auto u = static_cast<unsigned char>(ch);
            switch (u) {
                case '\n':
                    ++c.lines;
                    [[fallthrough]];
                case '\r':
                case '\f':
                    if (linepos > c.maxlen) c.maxlen = linepos;
                    linepos = 0;
                    in_word = false;
                    break;
                case '\t':
                    linepos += 8 - (linepos % 8);
                    in_word = false;
                    break;
                case ' ':
                    ++linepos;
                    in_word = false;
                    break;
                case '\v': in_word = false; break;
                default:
                    if (u >= 0x20 && u < 0x7f) ++linepos;
                    if (!in_word) {
                        in_word = true;
                        ++c.words;
                    }
            }
        }
    }
    void end() {
        if (linepos > c.maxlen) c.maxlen = linepos;
    }
};

}  // namespace

int cmd_wc(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'c', 0, "bytes"}, {'m', 0, "chars"}, {'l', 0, "lines"}, {'w', 0, "words"}, {'L', 0, "max-line-length"},
        {301, 0, "files0-from", ArgKind::required},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "clLmw", kLong, opts, files)) return 1;
    bool pl = false, pw = false, pc = false, pm = false, pL = false;
    for (auto& o : opts) {
        switch (o.id) {
            case 'c': pc = true; break;
            case 'm': pm = true; break;
            case 'l': pl = true; break;
            case 'w': pw = true; break;
            case 'L': pL = true; break;
            case 301:
                ctx.error("--files0-from is not supported");
                return 1;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nPrint newline, word, and byte counts for each FILE.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (!(pl || pw || pc || pm || pL)) pl = pw = pc = true;
    bool need_words = pw || pL;
    bool no_operands = files.empty();
    if (no_operands) files.push_back("-");
    int nprint = pl + pw + pc + pm + pL;

    // Width: from the total size of the regular files (GNU's compute_number_width).
    struct FileInfo {
        bool failed = false;
        bool regular = false;
        uint64_t size = 0;
    };
    std::vector<FileInfo> info(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        if (files[i] == "-") {
            // stdin redirected from a regular file counts as that file, as GNU's fstat sees it (a file's
            // stream describes itself by its absolute path; pipes and devices are not in the tree).
            std::string what = ctx.in.describe();
            if (!what.empty() && what.front() == '/') {
                auto st = ctx.fs.stat(what);
                if (st && st->is_regular()) {
                    info[i].regular = true;
                    info[i].size = st->size;
                }
            }
            continue;
        }
        auto st = ctx.fs.stat(ctx.resolve(files[i]));
        if (!st) {
            info[i].failed = true;
            continue;
        }
        info[i].regular = st->is_regular();
        info[i].size = st->size;
    }
    int width = 1;
    if (files.size() == 1 && nprint == 1) info[0].failed = true;
    if (!info[0].failed) {
        int minw = 1;
        uint64_t total = 0;
        for (auto& fi : info) {
            if (fi.failed) continue;
            if (fi.regular) total += fi.size;
            else minw = 7;
        }
        for (; total >= 10; total /= 10) ++width;
        if (width < minw) width = minw;
    }

    Output out(ctx);
    auto print = [&](const Counts& c, const std::string* name) {
        std::string line;
        char b[32];
        auto add = [&](uint64_t v) {
            int n = std::snprintf(b, sizeof b, "%*llu", width, static_cast<unsigned long long>(v));
            if (!line.empty()) line += ' ';
            line.append(b, static_cast<size_t>(n));
        };
        if (pl) add(c.lines);
        if (pw) add(c.words);
        if (pm) add(c.bytes);
        if (pc) add(c.bytes);
        if (pL) add(c.maxlen);
        if (name) {
            line += ' ';
            line += *name;
        }
        line += '\n';
        out.put(line);
    };
    Counts total;
    int read_status = 0;
    ChunkBuffer buf;
    const int status = for_each_input(ctx, out, files, [&](Input& in, const std::string& f) {
        Counter k;
        for (;;) {
            auto r = in.read(buf.data(), buf.size());
            k.feed(std::string_view(buf.data(), r.n), need_words);
            if (r.err == vfs::Errc::cancelled) return r.err;
            if (r.err != vfs::Errc::ok) {
                // Reported before the counts read so far, as GNU wc does.
                out.flush();
                report_read_error(ctx, f, r.err);
                read_status = 1;
                break;
            }
            if (r.n == 0) break;
        }
        k.end();
        total.lines += k.c.lines;
        total.words += k.c.words;
        total.bytes += k.c.bytes;
        total.maxlen = std::max(total.maxlen, k.c.maxlen);
        print(k.c, no_operands ? nullptr : &f);
        out.flush();
        return vfs::Errc::ok;
    });
    if (status == 130) return out.status(130);
    static const std::string kTotal = "total";
    if (files.size() > 1) print(total, &kTotal);
    return out.status(status | read_status);
}

}  // namespace bashkit::utils::text
