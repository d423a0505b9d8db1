// link, unlink, sync and truncate (GNU coreutils): the small file commands built on one FileSystem call each.
#include <cerrno>
#include <cstdint>
#include <limits>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

constexpr OptionSpec kHelpOnly[] = {{kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};

// --help / --version / bad options of a command with no options of its own; false when the command is done.
bool common_options(CommandContext& ctx, const ParsedArgs& p, std::string_view help, int& status) {
    for (const auto& o : p.options) {
        if (o.id == kOptHelp) {
            status = print_help(ctx, help);
            return false;
        }
        if (o.id == kOptVersion) {
            status = write_out(ctx, ctx.argv[0] + " (GNU coreutils) 9.1\n") ? 0 : 1;
            return false;
        }
    }
    if (!p.ok()) {
        status = usage_error(ctx, p.error);
        return false;
    }
    return true;
}

int link_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kHelpOnly);
    int status = 0;
    if (!common_options(ctx, p, "Usage: link FILE1 FILE2\n  or:  link OPTION\nCall the link function to create a link named FILE2 to an existing FILE1.\n", status))
        return status;
    const auto& ops = p.operands;
    if (ops.empty()) return usage_error(ctx, "missing operand");
    if (ops.size() == 1) return usage_error(ctx, "missing operand after " + quote(ops[0]));
    if (ops.size() > 2) return usage_error(ctx, "extra operand " + quote(ops[2]));
    auto st = ctx.fs.link(ctx.resolve(ops[0]), ctx.resolve(ops[1]));
    if (!st.ok()) {
        ctx.error("cannot create link " + quote(ops[1]) + " to " + quote(ops[0]) + ": " +
                  std::string(errstr(st.error())));
        return 1;
    }
    return 0;
}

int unlink_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kHelpOnly);
    int status = 0;
    if (!common_options(ctx, p, "Usage: unlink FILE\n  or:  unlink OPTION\nCall the unlink function to remove the specified FILE.\n", status))
        return status;
    const auto& ops = p.operands;
    if (ops.empty()) return usage_error(ctx, "missing operand");
    if (ops.size() > 1) return usage_error(ctx, "extra operand " + quote(ops[1]));
    auto st = ctx.fs.unlink(ctx.resolve(ops[0]));
    if (!st.ok()) {
        ctx.error("cannot unlink " + quote(ops[0]) + ": " + std::string(errstr(st.error())));
        return 1;
    }
    return 0;
}

constexpr OptionSpec kSyncSpecs[] = {
    {'d', 'd', "data"}, {'f', 'f', "file-system"}, {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};

// The tree has no cache to flush: sync only checks that the named files can be opened.
int sync_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kSyncSpecs);
    int status = 0;
    if (!common_options(ctx, p, "Usage: sync [OPTION] [FILE]...\nSynchronize cached writes to persistent storage\n", status))
        return status;
    if (p.has('d') && p.has('f')) return usage_error(ctx, "cannot specify both --data and --file-system", 1);
    if (p.has('d') && p.operands.empty()) {
        ctx.error("--data needs at least one argument");
        return 1;
    }
    for (const auto& f : p.operands) {
        if (ctx.cancelled()) return 1;
        auto st = ctx.fs.stat(ctx.resolve(f));
        if (!st.ok()) {
            ctx.error("error opening " + quote(f) + ": " + std::string(errstr(st.error())));
            status = 1;
        }
    }
    return status;
}

constexpr OptionSpec kTruncSpecs[] = {
    {'c', 'c', "no-create"},
    {'o', 'o', "io-blocks"},
    {'r', 'r', "reference", ArgKind::required},
    {'s', 's', "size", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kTruncHelp =
    "Usage: truncate OPTION... FILE...\n"
    "Shrink or extend the size of each FILE to the specified size\n"
    "\n"
    "  -c, --no-create        do not create any files\n"
    "  -o, --io-blocks        treat SIZE as number of IO blocks instead of bytes\n"
    "  -r, --reference=RFILE  base size on RFILE\n"
    "  -s, --size=SIZE        set or adjust the file size by SIZE bytes\n"
    "      --help        display this help and exit\n"
    "\n"
    "SIZE may also be prefixed by one of the following modifying characters:\n"
    "'+' extend by, '-' reduce by, '<' at most, '>' at least,\n"
    "'/' round down to multiple of, '%' round up to multiple of.\n";

enum class Rel : char { set = 0, extend = '+', reduce = '-', at_most = '<', at_least = '>', down = '/', up = '%' };

// GNU's xstrtoimax with the size suffixes (K = KiB, KB = 1000, ... as truncate takes them).
bool parse_trunc_size(std::string_view s, int64_t& out) {
    size_t i = 0;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    uint64_t v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        if (v > (std::numeric_limits<uint64_t>::max() - 9) / 10) return false;
        v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
    }
    std::string_view suf = s.substr(i);
    uint64_t mult = 1;
    if (!suf.empty()) {
        static constexpr std::string_view kLetters = "KMGTPEZY";
        uint64_t base = 1024;
        const size_t k = kLetters.find(static_cast<char>(std::toupper(static_cast<unsigned char>(suf[0]))));
        if (k != std::string_view::npos) {
            if (suf.size() == 2 && suf[1] == 'B') base = 1000;
            else if (suf.size() == 3 && suf[1] == 'i' && suf[2] == 'B') base = 1024;
            else if (suf.size() != 1) return false;
            if (suf[0] == 'k' && suf.size() == 1) return false;
            for (size_t e = 0; e <= k; ++e) {
                if (mult > std::numeric_limits<uint64_t>::max() / base) return false;
                mult *= base;
            }
        } else {
            return false;
        }
    }
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / mult) return false;
    out = static_cast<int64_t>(v * mult) * (neg ? -1 : 1);
    return true;
}

int truncate_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kTruncSpecs);
    int status = 0;
    if (!common_options(ctx, p, kTruncHelp, status)) return status;
    bool no_create = p.has('c'), io_blocks = p.has('o');
    const ParsedOption* ref = p.last('r');
    const ParsedOption* size_opt = p.last('s');
    Rel rel = Rel::set;
    int64_t size = 0;
    if (size_opt) {
        std::string_view s = size_opt->value;
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s[0]))) s.remove_prefix(1);
        if (!s.empty() && std::string_view("+-<>/%").find(s[0]) != std::string_view::npos) {
            rel = static_cast<Rel>(s[0]);
            s.remove_prefix(1);
            while (!s.empty() && std::isspace(static_cast<unsigned char>(s[0]))) s.remove_prefix(1);
            // "-" and "+" belong to the number for xstrtoimax; a second sign is invalid
            if (!s.empty() && (s[0] == '+' || s[0] == '-') && rel != Rel::set) {
                ctx.error("Invalid number: " + quote(size_opt->value));
                return 1;
            }
        }
        if (!parse_trunc_size(s, size)) {
            ctx.error("Invalid number: " + quote(size_opt->value));
            return 1;
        }
        if (rel == Rel::reduce) size = -size;
        if ((rel == Rel::down || rel == Rel::up) && size == 0) {
            ctx.error("division by zero");
            return 1;
        }
    }
    if (!size_opt && !ref) return usage_error(ctx, "you must specify either '--size' or '--reference'");
    if (size_opt && ref && rel == Rel::set) return usage_error(ctx, "you must specify a relative '--size' with '--reference'");
    if (io_blocks && !size_opt) return usage_error(ctx, "'--io-blocks' was specified but '--size' was not");
    if (p.operands.empty()) return usage_error(ctx, "missing file operand");
    int64_t ref_size = -1;
    if (ref) {
        auto st = ctx.fs.stat(ctx.resolve(ref->value));
        if (!st.ok()) {
            ctx.error("cannot stat " + quote(ref->value) + ": " + std::string(errstr(st.error())));
            return 1;
        }
        ref_size = static_cast<int64_t>(st->size);
    }
    for (const auto& name : p.operands) {
        if (ctx.cancelled()) return 1;
        const std::string path = ctx.resolve(name);
        auto st = ctx.fs.stat(path);
        if (!st.ok() && no_create) continue;
        if (st.ok() && st->is_directory()) {
            ctx.error("cannot open " + quote(name) + " for writing: Is a directory");
            status = 1;
            continue;
        }
        vfs::OpenFlags of = vfs::OpenFlags::write;
        if (!no_create) of = of | vfs::OpenFlags::create;
        auto h = ctx.fs.open(path, of, 0666 & ~ctx.umask);
        if (!h.ok()) {
            ctx.error("cannot open " + quote(name) + " for writing: " + std::string(errstr(h.error())));
            status = 1;
            continue;
        }
        int64_t blk = io_blocks ? static_cast<int64_t>(st.ok() ? st->blksize : 4096) : 1;
        int64_t n = size * blk;
        int64_t cur = ref_size >= 0 ? ref_size : (st.ok() ? static_cast<int64_t>(st->size) : 0);
        int64_t target = n;
        switch (rel) {
            case Rel::set: target = size_opt ? n : ref_size; break;
            case Rel::extend:
            case Rel::reduce: target = cur + n; break;
            case Rel::at_most: target = std::min(cur, n); break;
            case Rel::at_least: target = std::max(cur, n); break;
            case Rel::down: target = cur / n * n; break;
            case Rel::up: target = (cur + n - 1) / n * n; break;
        }
        if (target < 0) target = 0;
        auto t = (*h)->truncate(static_cast<uint64_t>(target));
        if (!t.ok()) {
            ctx.error("failed to truncate " + quote(name) + " at " + std::to_string(target) + " bytes: " +
                      std::string(errstr(t.error())));
            status = 1;
        }
    }
    return status;
}

}  // namespace

void register_links_sizes(interp::CommandRegistry& r) {
    r.add("link", "link FILE1 FILE2 : make a hard link FILE2 to FILE1", link_main);
    r.add("unlink", "unlink FILE : remove one file (never a directory)", unlink_main);
    r.add("sync", "sync [-d|-f] [FILE]... : flush writes (a no-op on the virtual tree; checks the files exist)", sync_main);
    r.add("truncate", "truncate [-co] -s [+-<>/%]SIZE | -r RFILE FILE... : shrink or extend files to a size", truncate_main);
}

}  // namespace bashkit::utils::files
