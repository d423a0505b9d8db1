// du and df. du visits directory entries in name order; df reports one virtual filesystem (the sandbox
// has no real devices): the tree's FsLimits (max_total_bytes, max_nodes) and their usage when it has them
// (FileSystem::space()), else a fixed size of 16 GiB and 1,048,576 inodes with the used figures counted from
// the tree.
#include <algorithm>
#include <cctype>
#include <set>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"
#include "interp/pattern.hpp"

namespace bashkit::utils::files {

namespace {

enum : int { kOptApparent = kOptFirstLongOnly, kOptMaxDepth, kOptSi, kOptExclude, kOptTotal, kOptOutput };

constexpr OptionSpec kDuSpecs[] = {
    {'a', 'a', "all"},
    {kOptApparent, 0, "apparent-size"},
    {'B', 'B', "block-size", ArgKind::required},
    {'b', 'b', "bytes"},
    {'c', 'c', "total"},
    {'d', 'd', "max-depth", ArgKind::required},
    {'h', 'h', "human-readable"},
    {kOptSi, 0, "si"},
    {'k', 'k'},
    {'m', 'm'},
    {'L', 'L', "dereference"},
    {'P', 'P', "no-dereference"},
    {'H', 'H'},
    {'s', 's', "summarize"},
    {'x', 'x', "one-file-system"},
    {'0', '0', "null"},
    {kOptExclude, 0, "exclude", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kDuHelp =
    "Usage: du [OPTION]... [FILE]...\n"
    "Summarize device usage of the set of FILEs, recursively for directories.\n"
    "\n"
    "  -0, --null            end each output line with NUL, not newline\n"
    "  -a, --all             write counts for all files, not just directories\n"
    "      --apparent-size   print apparent sizes rather than device usage\n"
    "  -B, --block-size=SIZE  scale sizes by SIZE before printing them\n"
    "  -b, --bytes           equivalent to '--apparent-size --block-size=1'\n"
    "  -c, --total           produce a grand total\n"
    "  -d, --max-depth=N     print the total for a directory only if it is N or fewer levels below the\n"
    "                          command line argument;  --max-depth=0 is the same as --summarize\n"
    "  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)\n"
    "      --si              like -h, but use powers of 1000 not 1024\n"
    "  -k                    like --block-size=1K\n"
    "  -L, --dereference     dereference all symbolic links\n"
    "  -m                    like --block-size=1M\n"
    "  -s, --summarize       display only a total for each argument\n"
    "      --exclude=PATTERN exclude files that match PATTERN\n"
    "      --help            display this help and exit\n";

struct DuOpts {
    bool all = false, apparent = false, human = false, si = false, deref = false, deref_args = false;
    bool total = false, null = false;
    uint64_t block = 1024;
    std::string block_suffix;  // -BK prints "12K"
    int max_depth = -1;
    std::vector<std::string> excludes;
};

class Du {
public:
    Du(CommandContext& ctx, DuOpts o) : ctx_(ctx), o_(std::move(o)), out_(ctx) {}
    // Returns the size counted for path (bytes when apparent, else 512-byte blocks * 512).
    uint64_t walk(const std::string& shown, const std::string& abs, int depth, bool& ok);
    std::string fmt(uint64_t bytes) const {
        if (o_.human || o_.si) return bytes == 0 ? std::string("0") : human_size(bytes, o_.si);
        return std::to_string((bytes + o_.block - 1) / o_.block) + o_.block_suffix;
    }
    void line(uint64_t bytes, const std::string& name) {
        out_.put(fmt(bytes));
        out_.put('\t');
        out_.put(name);
        out_.put(o_.null ? '\0' : '\n');
    }
    void flush() { out_.flush(); }
    // Flushes; the status to exit with (141 after a closed pipe).
    int finish() { return out_.status(status); }
    int status = 0;

private:
    bool excluded(const std::string& shown) const;

    CommandContext& ctx_;
    DuOpts o_;
    Output out_;
    std::set<std::pair<uint64_t, uint64_t>> seen_;
};

bool Du::excluded(const std::string& shown) const {
    std::string base = vfs::path_basename(shown);
    for (const auto& p : o_.excludes)
        if (interp::pattern_match(p, base) || interp::pattern_match(p, shown)) return true;
    return false;
}

uint64_t Du::walk(const std::string& shown, const std::string& abs, int depth, bool& ok) {
    if (ctx_.cancelled() || out_.failed()) return 0;
    bool follow = o_.deref || (o_.deref_args && depth == 0);
    auto st = follow ? ctx_.fs.stat(abs) : ctx_.fs.lstat(abs);
    if (!st) {
        out_.flush();
        ctx_.error("cannot access " + quote(shown) + ": " + std::string(errstr(st.error())));
        status = 1;
        ok = false;
        return 0;
    }
    if (depth > 0 && excluded(shown)) return 0;
    if (st->is_directory() || st->nlink > 1) {
        if (!seen_.insert({st->dev, st->ino}).second) {
            ok = false;
            return 0;
        }
    }
    uint64_t size = o_.apparent ? st->size : st->blocks * 512;
    if (!st->is_directory()) {
        if ((o_.all || depth == 0) && (o_.max_depth < 0 || depth <= o_.max_depth)) line(size, shown);
        return size;
    }
    if (depth < 4096) {
        auto ents = ctx_.fs.readdir(abs);
        if (!ents) {
            out_.flush();
            ctx_.error("cannot read directory " + quote(shown) + ": " + std::string(errstr(ents.error())));
            status = 1;
        } else {
            std::vector<std::string> names;
            for (auto& e : *ents) names.push_back(std::move(e.name));
            std::sort(names.begin(), names.end());
            for (const auto& n : names) {
                bool child_ok = true;
                size += walk(join(shown, n), join(abs, n), depth + 1, child_ok);
                if (ctx_.cancelled() || out_.failed()) break;
            }
        }
    }
    if (o_.max_depth < 0 || depth <= o_.max_depth) line(size, shown);
    return size;
}

bool parse_block_size(std::string_view v, uint64_t& out) {
    if (v.empty()) return false;
    size_t i = 0;
    uint64_t n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) && n < (1ull << 40)) n = n * 10 + static_cast<uint64_t>(v[i++] - '0');
    if (i == 0) n = 1;
    std::string_view unit = v.substr(i);
    uint64_t mult = 1;
    if (!unit.empty()) {
        char u = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
        int power = std::string_view("KMGTPE").find(u) == std::string_view::npos
                        ? -1
                        : static_cast<int>(std::string_view("KMGTPE").find(u)) + 1;
        if (power < 0) return false;
        uint64_t base = 1024;
        std::string_view rest = unit.substr(1);
        if (rest == "B") base = 1000;
        else if (rest == "iB" || rest.empty()) base = 1024;
        else return false;
        for (int k = 0; k < power; ++k) mult *= base;
    }
    out = n * mult;
    return out > 0;
}

int du_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kDuSpecs);
    DuOpts o;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'a': o.all = true; break;
            case kOptApparent: o.apparent = true; break;
            case 'b': o.apparent = true; o.block = 1; o.human = o.si = false; break;
            case 'c': o.total = true; break;
            case 'd': {
                const std::string& v = opt.value;
                bool num = !v.empty() && v.size() < 10 &&
                           std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
                if (!num) {
                    ctx.error("invalid maximum depth " + quote(v));
                    return usage_error(ctx, "");
                }
                o.max_depth = std::stoi(v);
                break;
            }
            case 'h': o.human = true; o.si = false; break;
            case kOptSi: o.si = true; o.human = false; break;
            case 'k': o.block = 1024; o.block_suffix.clear(); o.human = o.si = false; break;
            case 'm': o.block = 1024 * 1024; o.block_suffix.clear(); o.human = o.si = false; break;
            case 'B':
                if (!parse_block_size(opt.value, o.block)) {
                    ctx.error("invalid --block-size argument " + quote(opt.value));
                    return 1;
                }
                o.block_suffix = opt.value.substr(opt.value.find_first_not_of("0123456789") == std::string::npos
                                                      ? opt.value.size()
                                                      : opt.value.find_first_not_of("0123456789"));
                o.human = o.si = false;
                break;
            case 'L': o.deref = true; break;
            case 'P': o.deref = false; break;
            case 'H': o.deref_args = true; break;
            case 's': o.max_depth = 0; break;
            case 'x': break;
            case '0': o.null = true; break;
            case kOptExclude: o.excludes.push_back(opt.value); break;
            case kOptHelp: return print_help(ctx, kDuHelp);
            case kOptVersion: return print_help(ctx, "du (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    std::vector<std::string> ops = p.operands;
    if (ops.empty()) ops.push_back(".");
    Du du(ctx, o);
    uint64_t total = 0;
    for (const auto& op : ops) {
        bool ok = true;
        total += du.walk(op, ctx.resolve(op), 0, ok);
        if (ctx.cancelled()) break;
    }
    if (o.total) du.line(total, "total");
    return du.finish();
}

// ------------------------------------------------------------------------------------------- df

constexpr uint64_t kDfTotalBytes = 16ull << 30;
constexpr uint64_t kDfTotalInodes = 1u << 20;

constexpr OptionSpec kDfSpecs[] = {
    {'a', 'a', "all"},
    {'h', 'h', "human-readable"},
    {'H', 'H', "si"},
    {'i', 'i', "inodes"},
    {'k', 'k'},
    {'l', 'l', "local"},
    {'P', 'P', "portability"},
    {'T', 'T', "print-type"},
    {'t', 't', "type", ArgKind::required},
    {'x', 'x', "exclude-type", ArgKind::required},
    {'B', 'B', "block-size", ArgKind::required},
    {kOptTotal, 0, "total"},
    {kOptOutput, 0, "output", ArgKind::optional},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int df_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kDfSpecs);
    bool human = false, si = false, inodes = false, posix = false, type = false, total = false;
    uint64_t block = 1024;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'h': human = true; si = false; break;
            case 'H': si = true; human = false; break;
            case 'i': inodes = true; break;
            case 'k': block = 1024; human = si = false; break;
            case 'P': posix = true; break;
            case 'T': type = true; break;
            case 'B':
                if (!parse_block_size(opt.value, block)) {
                    ctx.error("invalid --block-size argument " + quote(opt.value));
                    return 1;
                }
                human = si = false;
                break;
            case kOptTotal: total = true; break;
            case kOptHelp:
                return print_help(ctx,
                                  "Usage: df [OPTION]... [FILE]...\n"
                                  "Show information about the file system on which each FILE resides,\n"
                                  "or all file systems by default.\n"
                                  "\n"
                                  "  -h, --human-readable  print sizes in powers of 1024 (e.g., 1023M)\n"
                                  "  -H, --si              print sizes in powers of 1000 (e.g., 1.1G)\n"
                                  "  -i, --inodes          list inode information instead of block usage\n"
                                  "  -k                    like --block-size=1K\n"
                                  "  -P, --portability     use the POSIX output format\n"
                                  "  -T, --print-type      print file system type\n"
                                  "      --total           produce a grand total\n"
                                  "      --help            display this help and exit\n"
                                  "\n"
                                  "The sandbox has one virtual file system; its size is nominal.\n");
            case kOptVersion: return print_help(ctx, "df (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    int status = 0;
    size_t rows = 1;
    if (!p.operands.empty()) {
        rows = 0;
        for (const auto& op : p.operands) {
            if (!ctx.fs.exists(ctx.resolve(op))) {
                auto e = ctx.fs.stat(ctx.resolve(op)).error();
                ctx.error(quotef(op) + ": " + std::string(errstr(e)));
                status = 1;
                continue;
            }
            ++rows;
        }
        if (rows == 0) return 1;
    }
    // A tree under FsLimits reports its limits and what is counted against them (in a host folder: what the
    // session wrote); otherwise the tree is counted (bounded) against the fixed figures.
    uint64_t total_bytes = kDfTotalBytes, total_inodes = kDfTotalInodes;
    uint64_t used_bytes = 0, used_inodes = 0;
    std::optional<vfs::FsSpace> space = ctx.fs.space();
    if (space) {
        used_bytes = space->used_bytes;
        used_inodes = space->used_nodes + 1;  // the root, which the limit does not count
        if (space->total_bytes) total_bytes = space->total_bytes;
        if (space->total_nodes) total_inodes = space->total_nodes + 1;
    }
    std::vector<std::string> stack{"/"};
    while (!space && !stack.empty() && used_inodes < 10'000'000) {
        if (ctx.cancelled()) return 130;
        std::string d = std::move(stack.back());
        stack.pop_back();
        auto st = ctx.fs.lstat(d);
        if (!st) continue;
        ++used_inodes;
        used_bytes += st->blocks * 512;
        if (!st->is_directory()) continue;
        auto ents = ctx.fs.readdir(d);
        if (!ents) continue;
        for (auto& e : *ents) stack.push_back(join(d, e.name));
    }
    used_bytes = std::min(used_bytes, total_bytes);
    used_inodes = std::min(used_inodes, total_inodes);
    struct Row {
        std::vector<std::string> cells;
    };
    std::vector<std::string> header;
    std::vector<bool> right;
    auto size_str = [&](uint64_t bytes) {
        if (human || si) return human_size(bytes, si);
        return std::to_string((bytes + block - 1) / block);
    };
    auto pct = [](uint64_t used, uint64_t avail) {
        if (used + avail == 0) return std::string("-");
        uint64_t v = (used * 100 + (used + avail) - 1) / (used + avail);
        return std::to_string(v) + "%";
    };
    std::vector<std::string> row;
    header.push_back("Filesystem");
    right.push_back(false);
    row.push_back("bashkit");
    if (type) {
        header.push_back("Type");
        right.push_back(false);
        row.push_back("memfs");
    }
    if (inodes) {
        header.insert(header.end(), {"Inodes", "IUsed", "IFree", "IUse%"});
        right.insert(right.end(), {true, true, true, true});
        row.push_back(std::to_string(total_inodes));
        row.push_back(std::to_string(used_inodes));
        row.push_back(std::to_string(total_inodes - used_inodes));
        row.push_back(pct(used_inodes, total_inodes - used_inodes));
    } else {
        std::string size_header;
        if (human || si) size_header = "Size";
        else if (posix) size_header = std::to_string(block) + "-blocks";
        else if (block % (1024 * 1024) == 0) size_header = std::to_string(block / (1024 * 1024)) + "M-blocks";
        else if (block % 1024 == 0) size_header = std::to_string(block / 1024) + "K-blocks";
        else size_header = std::to_string(block) + "B-blocks";
        header.insert(header.end(), {size_header, "Used", (human || si) ? "Avail" : "Available",
                                     posix ? "Capacity" : "Use%"});
        right.insert(right.end(), {true, true, true, true});
        row.push_back(size_str(total_bytes));
        row.push_back(size_str(used_bytes));
        row.push_back(size_str(total_bytes - used_bytes));
        row.push_back(pct(used_bytes, total_bytes - used_bytes));
    }
    header.push_back("Mounted on");
    right.push_back(false);
    row.push_back("/");
    std::vector<std::vector<std::string>> table{header};
    for (size_t i = 0; i < rows; ++i) table.push_back(row);
    if (total) {
        std::vector<std::string> t = row;
        t[0] = "total";
        t.back() = "-";
        table.push_back(t);
    }
    std::vector<size_t> width(header.size(), 0);
    width[0] = 14;
    for (size_t c = 1; c + 1 < header.size(); ++c) width[c] = (header[c] == "Type" || header[c] == "Use%") ? 4 : 5;
    for (const auto& r : table)
        for (size_t c = 0; c + 1 < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::string out;
    for (const auto& r : table) {
        std::string line;
        for (size_t c = 0; c < r.size(); ++c) {
            if (c) line.push_back(' ');
            if (c + 1 == r.size()) {
                line += r[c];
            } else if (right[c]) {
                line += std::string(width[c] - r[c].size(), ' ') + r[c];
            } else {
                line += r[c] + std::string(width[c] - r[c].size(), ' ');
            }
        }
        out += line + "\n";
    }
    (void)ctx.out.write(out);
    return status;
}

}  // namespace

void register_du_df(interp::CommandRegistry& r) {
    r.add("du", "du [-ahcs] [-d N] [FILE]...: estimate file space usage", du_main);
    r.add("df", "df [-hiPT] [FILE]...: report file system space usage (virtual)", df_main);
}

}  // namespace bashkit::utils::files
