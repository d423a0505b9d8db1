// more and less without a terminal: like the real ones when stdout is not a terminal, they copy their input
// (more puts a ":::" banner before each named file). Paging options are accepted and ignored.
#include <string>
#include <vector>

#include "utils/text/tools.hpp"
#include "utils/common/args.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::text {

namespace {

// Copies one input to out; false on a read error.
bool copy_input(CommandContext& ctx, Input& in, Output& out) {
    std::vector<char> buf(64 * 1024);
    for (;;) {
        if (ctx.cancelled()) return false;
        ReadResult r = in.read(buf.data(), buf.size());
        if (r.err != vfs::Errc::ok) return false;
        if (r.n == 0) return true;
        out.put(std::string_view(buf.data(), r.n));
    }
}

int pager(CommandContext& ctx, bool is_more) {
    std::vector<std::string> files;
    bool options_done = false;
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (!options_done && a == "--") {
            options_done = true;
            continue;
        }
        if (!options_done && a.size() > 1 && (a[0] == '-' || a[0] == '+')) {
            if (a == "--help")
                return write_out(ctx, is_more ? "\nUsage:\n more [options] <file>...\n" : "less [options] [file]...\n") ? 0 : 1;
            if (a == "--version" || a == "-V")
                return write_out(ctx, is_more ? "more from util-linux 2.38.1\n" : "less 590\n") ? 0 : 1;
            continue;
        }
        files.push_back(a);
    }
    Output out(ctx);
    if (files.empty()) {
        Input in;
        in.open_stdin(ctx);
        copy_input(ctx, in, out);
        return out.status(0);
    }
    for (const auto& f : files) {
        if (ctx.cancelled()) return 130;
        auto st = ctx.fs.stat(ctx.resolve(f));
        if (!st.ok()) {
            (void)out.flush();
            const std::string why(vfs::error_message(st.error()));
            (void)ctx.err.write(is_more ? "more: cannot open " + f + ": " + why + "\n" : f + ": " + why + "\n");
            continue;
        }
        if (st->is_directory()) {
            if (is_more) {
                out.put("\n*** " + f + ": directory ***\n\n");
            } else {
                (void)out.flush();
                (void)ctx.err.write(f + " is a directory\n");
            }
            continue;
        }
        Input in;
        if (auto e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            (void)out.flush();
            (void)ctx.err.write(is_more ? "more: cannot open " + f + ": " + std::string(vfs::error_message(e)) + "\n"
                                        : f + ": " + std::string(vfs::error_message(e)) + "\n");
            continue;
        }
        if (is_more) out.put("::::::::::::::\n" + f + "\n::::::::::::::\n");
        copy_input(ctx, in, out);
    }
    return out.status(0);
}

}  // namespace

int cmd_more(CommandContext& ctx) { return pager(ctx, true); }
int cmd_less(CommandContext& ctx) { return pager(ctx, false); }

}  // namespace bashkit::utils::text
