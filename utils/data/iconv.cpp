// iconv (glibc 2.36's iconv program) over glibc's iconv(3) converters: -f -t (with //TRANSLIT and //IGNORE),
// -c, -s, -o, several files. The input is converted in chunks (a character cut at a chunk's end waits for
// the next), so memory stays bounded whatever the input's size; cancel is polled per chunk. -l is not
// offered: glibc's list comes from the host's gconv-modules files.
#include <iconv.h>

#include <cerrno>

#include "utils/data/tools.hpp"

namespace bashkit::utils::data {

namespace {

enum : int { kIconvVerbose = kOptFirstLongOnly, kIconvUsage };

struct IconvCloser {
    iconv_t cd;
    ~IconvCloser() { iconv_close(cd); }
};

int argp_error(CommandContext& ctx, std::string_view msg) {
    ctx.error(msg);
    (void)ctx.err.write("Try `iconv --help' or `iconv --usage' for more information.\n");
    return 64;
}

// Converts one input; false after an error (message printed).
bool convert(CommandContext& ctx, iconv_t cd, text::Input& in, bool omit, text::Output& out,
             bool& omitted) {
    std::string inbuf;
    std::string chunk(64 * 1024, '\0');
    std::string outbuf(256 * 1024, '\0');
    uint64_t consumed_before = 0;  // bytes of this input dropped from inbuf so far
    bool eof = false;
    while (!eof) {
        if (ctx.cancelled()) return false;
        text::ReadResult r = in.read(chunk.data(), chunk.size());
        if (r.err != vfs::Errc::ok) {
            if (r.err != vfs::Errc::cancelled) text::file_error(ctx, in.name(), r.err);
            return false;
        }
        eof = r.n == 0;
        inbuf.append(chunk.data(), r.n);
        char* src = inbuf.data();
        size_t left = inbuf.size();
        while (left > 0) {
            if (ctx.cancelled()) return false;
            char* dst = outbuf.data();
            size_t room = outbuf.size();
            size_t rc = iconv(cd, &src, &left, &dst, &room);
            out.put(std::string_view(outbuf.data(), outbuf.size() - room));
            if (rc != static_cast<size_t>(-1)) continue;
            if (errno == E2BIG) continue;
            if (errno == EILSEQ) {
                if (omit) {
                    omitted = true;
                    ++src;
                    --left;
                    continue;
                }
                out.flush();
                uint64_t pos = consumed_before + static_cast<uint64_t>(src - inbuf.data());
                ctx.error("illegal input sequence at position " + std::to_string(pos));
                return false;
            }
            if (errno == EINVAL) break;  // an incomplete character: wait for more input
            out.flush();
            ctx.error("internal error (illegal descriptor)");
            return false;
        }
        size_t used = static_cast<size_t>(src - inbuf.data());
        consumed_before += used;
        inbuf.erase(0, used);
    }
    // Flush a shift state.
    char* dst = outbuf.data();
    size_t room = outbuf.size();
    iconv(cd, nullptr, nullptr, &dst, &room);
    out.put(std::string_view(outbuf.data(), outbuf.size() - room));
    if (!inbuf.empty()) {
        out.flush();
        ctx.error("incomplete character or shift sequence at end of buffer");
        return false;
    }
    return true;
}

}  // namespace

int cmd_iconv(CommandContext& ctx) {
    constexpr OptionSpec kSpecs[] = {
        {'f', 'f', "from-code", ArgKind::required},
        {'t', 't', "to-code", ArgKind::required},
        {'c', 'c', {}},
        {'s', 's', "silent"},
        {'o', 'o', "output", ArgKind::required},
        {'l', 'l', "list"},
        {kIconvVerbose, 0, "verbose"},
        {kIconvUsage, 0, "usage"},
        {kOptHelp, '?', "help"},
        {kOptVersion, 'V', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, kSpecs);
    std::string from = "ANSI_X3.4-1968", to = "ANSI_X3.4-1968", output;
    bool omit = false, have_output = false;
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'f': from = o.value; break;
            case 't': to = o.value; break;
            case 'c': omit = true; break;
            case 's': break;  // glibc's -s silences warnings only; the errors are still printed
            case 'o': output = o.value; have_output = true; break;
            case 'l':
                ctx.error("--list is not supported (glibc's list comes from the host's gconv modules)");
                return 1;
            case kIconvVerbose: break;
            case kIconvUsage:
                return write_out(ctx,
                                 "Usage: iconv [-cls?V] [-f NAME] [-t NAME] [-o FILE] [--from-code=NAME]\n"
                                 "            [--to-code=NAME] [--list] [--output=FILE] [--silent] [--verbose]\n"
                                 "            [--help] [--usage] [--version] [FILE...]\n")
                           ? 0
                           : 1;
            case kOptHelp:
                return write_out(ctx,
                                 "Usage: iconv [OPTION...] [FILE...]\n"
                                 "Convert encoding of given files from one encoding to another.\n"
                                 "\n"
                                 " Input/Output format specification:\n"
                                 "  -f, --from-code=NAME       encoding of original text\n"
                                 "  -t, --to-code=NAME         encoding for output\n"
                                 "\n"
                                 " Output control:\n"
                                 "  -c                         omit invalid characters from output\n"
                                 "  -o, --output=FILE          output file\n"
                                 "  -s, --silent               suppress warnings\n"
                                 "      --verbose              print progress information\n"
                                 "\n"
                                 "  -?, --help                 Give this help list\n"
                                 "      --usage                Give a short usage message\n"
                                 "  -V, --version              Print program version\n")
                           ? 0
                           : 1;
            case kOptVersion: return write_out(ctx, "iconv (Debian GLIBC 2.36) 2.36\n") ? 0 : 1;
            default: break;
        }
    }
    if (!p.ok()) return argp_error(ctx, p.error);
    // "//IGNORE" on the target is what -c asks glibc for; we skip bytes ourselves, so both work.
    iconv_t cd = iconv_open(to.c_str(), from.c_str());
    if (cd == reinterpret_cast<iconv_t>(-1)) {
        ctx.error("failed to start conversion processing");
        return 1;
    }
    IconvCloser closer{cd};
    text::OutputFile file;
    interp::ByteStream* target = nullptr;
    if (have_output) {
        if (vfs::Errc e = file.open_output(ctx, output); e != vfs::Errc::ok) {
            ctx.error("cannot open output file: " + std::string(text::errstr(e)));
            return 1;
        }
        target = file.stream();
    }
    text::Output out(ctx, target);
    std::vector<std::string> files = p.operands;
    if (files.empty()) files.emplace_back("-");
    bool omitted = false;
    int status = 0;
    for (const std::string& f : files) {
        if (ctx.cancelled()) return out.status(130);
        text::Input in;
        if (vfs::Errc e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            out.flush();
            ctx.error("cannot open input file `" + f + "': " + std::string(text::errstr(e)));
            status = 1;
            continue;
        }
        if (!convert(ctx, cd, in, omit, out, omitted)) return out.status(ctx.cancelled() ? 130 : 1);
    }
    return out.status(status);
}

}  // namespace bashkit::utils::data
