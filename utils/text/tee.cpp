// tee: copy standard input to standard output and to files.
#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

int cmd_tee(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'a', 0, "append"}, {'i', 0, "ignore-interrupts"}, {300, 0, "output-error", ArgKind::optional},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "aip", kLong, opts, files)) return 1;
    bool append = false, keep_going_on_pipe = false;
    for (auto& o : opts) {
        switch (o.id) {
            case 'a': append = true; break;
            case 'i': break;
            case 'p': keep_going_on_pipe = true; break;
            case 300: keep_going_on_pipe = true; break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nCopy standard input to each FILE, and also to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    int status = 0;
    struct Sink {
        std::string name;
        std::unique_ptr<OutputFile> h;
    };
    std::vector<Sink> sinks;
    for (const auto& f : files) {
        if (f == "-") {
            sinks.push_back({f, nullptr});  // GNU tee writes "-" to stdout again
            continue;
        }
        auto h = std::make_unique<OutputFile>();
        if (auto e = h->open_output(ctx, f, append); e != vfs::Errc::ok) {
            file_error(ctx, f, e);
            status = 1;
            continue;
        }
        sinks.push_back({f, std::move(h)});
    }
    Input in;
    in.open_stdin(ctx);
    ChunkBuffer buf;
    bool stdout_ok = true;
    int stdout_status = 0;
    for (;;) {
        auto r = in.read(buf.data(), buf.size());
        if (r.err == vfs::Errc::cancelled) return 130;
        if (r.err != vfs::Errc::ok) {
            ctx.error("read error: " + errstr(r.err));
            return 1;
        }
        if (r.n == 0) break;
        std::string_view d(buf.data(), r.n);
        auto write_stdout = [&]() {
            if (!stdout_ok) return;
            auto w = ctx.out.write(d);
            if (w.err) {
                stdout_ok = false;
                if (w.err == EPIPE) {
                    stdout_status = keep_going_on_pipe ? 0 : 141;
                } else {
                    ctx.error("standard output: " + errstr(vfs::from_errno(w.err)));
                    stdout_status = 1;
                }
            }
        };
        write_stdout();
        if (stdout_status == 141) return 141;
        for (auto& s : sinks) {
            if (!s.h) {
                write_stdout();
                continue;
            }
            auto w = s.h->stream()->write(d);
            if (w.err) {
                file_error(ctx, s.name, vfs::from_errno(w.err));
                status = 1;
                s.h.reset();
                s.name.clear();
            }
        }
        // Dropped sinks are removed so they are not written again.
        std::erase_if(sinks, [](const Sink& s) { return !s.h && s.name.empty(); });
        if (!stdout_ok && sinks.empty()) break;
    }
    return status ? status : stdout_status;
}

}  // namespace bashkit::utils::text
