// ls: the non-terminal layout (one entry per line, as GNU ls writes into a pipe), long format, sorting,
// recursion, classification.
#include <algorithm>
#include <functional>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

enum : int {
    kOptGroupDirsFirst = kOptFirstLongOnly,
    kOptColor,
    kOptFullTime,
    kOptSi,
    kOptShowControl,
    kOptSort,
};

constexpr OptionSpec kLsSpecs[] = {
    {'1', '1'},
    {'a', 'a', "all"},
    {'A', 'A', "almost-all"},
    {'l', 'l'},
    {'h', 'h', "human-readable"},
    {'R', 'R', "recursive"},
    {'t', 't'},
    {'S', 'S'},
    {'r', 'r', "reverse"},
    {'d', 'd', "directory"},
    {'F', 'F', "classify"},
    {'p', 'p'},
    {'U', 'U'},
    {'f', 'f'},
    {'n', 'n', "numeric-uid-gid"},
    {'g', 'g'},
    {'o', 'o'},
    {'i', 'i', "inode"},
    {'s', 's', "size"},
    {kOptSi, 0, "si"},
    {kOptShowControl, 0, "show-control-chars"},
    {kOptSort, 0, "sort", ArgKind::required},
    {'L', 'L', "dereference"},
    {kOptGroupDirsFirst, 0, "group-directories-first"},
    {kOptColor, 0, "color", ArgKind::optional},
    {kOptFullTime, 0, "full-time"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kLsHelp =
    "Usage: ls [OPTION]... [FILE]...\n"
    "List information about the FILEs (the current directory by default).\n"
    "Sort entries alphabetically if none of -tSU is specified.\n"
    "\n"
    "  -a, --all                  do not ignore entries starting with .\n"
    "  -A, --almost-all           do not list implied . and ..\n"
    "  -d, --directory            list directories themselves, not their contents\n"
    "  -F, --classify             append indicator (one of */=>@|) to entries\n"
    "  -g                         like -l, but do not list owner\n"
    "  -h, --human-readable       with -l and -s, print sizes like 1K 234M 2G etc.\n"
    "  -i, --inode                print the index number of each file\n"
    "  -l                         use a long listing format\n"
    "  -L, --dereference          show information for the file a symbolic link references\n"
    "  -n, --numeric-uid-gid      like -l, but list numeric user and group IDs\n"
    "  -o                         like -l, but do not list group information\n"
    "  -p                         append / indicator to directories\n"
    "  -r, --reverse              reverse order while sorting\n"
    "  -R, --recursive            list subdirectories recursively\n"
    "  -s, --size                 print the allocated size of each file, in blocks\n"
    "  -S                         sort by file size, largest first\n"
    "  -t                         sort by time, newest first\n"
    "  -U                         do not sort; list entries in directory order\n"
    "  -1                         list one file per line\n"
    "      --full-time            like -l --time-style=full-iso\n"
    "      --group-directories-first  group directories before files\n"
    "      --help                 display this help and exit\n";

enum class Sort { Name, Time, Size, None };
enum class Indicator { None, Slash, Classify };

struct Options {
    bool all = false, almost = false, longfmt = false, human = false, si = false, recursive = false;
    bool reverse = false, directory = false, numeric = false, no_owner = false, no_group = false;
    bool inode = false, size_blocks = false, deref = false, dirs_first = false, full_time = false;
    Sort sort = Sort::Name;
    Indicator ind = Indicator::None;
};

struct Entry {
    std::string name;  // as displayed
    std::string path;  // for the filesystem
    vfs::Stat st{};
    bool have_stat = false;
    std::string target;       // symlink target (long format)
    bool target_ok = false;   // the target exists
    vfs::Stat target_st{};
};

class Lister {
public:
    Lister(CommandContext& ctx, Options o) : ctx_(ctx), o_(o), out_(ctx) { now_ = ctx.clock.now(); }

    int run(std::vector<std::string> operands);

private:
    bool load(Entry& e, bool command_line);
    void sort_entries(std::vector<Entry>& v) const;
    void print_block(std::vector<Entry>& v, bool with_total);
    std::string indicator(const Entry& e) const;
    void list_dir(const std::string& shown, const std::string& path, bool header, bool& first_block);
    std::string blocks_str(const vfs::Stat& st) const;

    CommandContext& ctx_;
    Options o_;
    Output out_;
    vfs::TimeSpec now_;
    int status_ = 0;
    int depth_ = 0;
};

uint64_t kib_blocks(const vfs::Stat& st) { return (st.blocks + 1) / 2; }

std::string Lister::blocks_str(const vfs::Stat& st) const {
    if (o_.human || o_.si) {
        uint64_t bytes = st.blocks * 512;
        return bytes == 0 ? std::string("0") : human_size(bytes, o_.si);
    }
    return std::to_string(kib_blocks(st));
}

bool Lister::load(Entry& e, bool command_line) {
    bool follow = o_.deref;
    if (command_line && !o_.longfmt && !o_.directory && o_.ind != Indicator::Classify) follow = true;
    auto st = ctx_.fs.lstat(e.path);
    if (!st) return false;
    e.st = *st;
    e.have_stat = true;
    if (e.st.is_symlink()) {
        auto t = ctx_.fs.stat(e.path);
        if (t) {
            e.target_ok = true;
            e.target_st = *t;
        }
        if (follow && t && (o_.deref || t->is_directory())) {
            e.st = *t;
        } else if (o_.longfmt) {
            auto l = ctx_.fs.readlink(e.path);
            if (l) e.target = *l;
        }
    }
    return true;
}

void Lister::sort_entries(std::vector<Entry>& v) const {
    if (o_.sort == Sort::None) {
        if (o_.reverse) std::reverse(v.begin(), v.end());
        return;
    }
    auto name_less = [](const Entry& a, const Entry& b) { return a.name < b.name; };
    std::function<bool(const Entry&, const Entry&)> cmp;
    if (o_.sort == Sort::Time) {
        cmp = [&](const Entry& a, const Entry& b) {
            if (a.st.mtime != b.st.mtime) return a.st.mtime > b.st.mtime;
            return name_less(a, b);
        };
    } else if (o_.sort == Sort::Size) {
        cmp = [&](const Entry& a, const Entry& b) {
            if (a.st.size != b.st.size) return a.st.size > b.st.size;
            return name_less(a, b);
        };
    } else {
        cmp = name_less;
    }
    auto full = [&](const Entry& a, const Entry& b) { return o_.reverse ? cmp(b, a) : cmp(a, b); };
    if (o_.dirs_first) {
        std::stable_sort(v.begin(), v.end(), [&](const Entry& a, const Entry& b) {
            bool da = a.st.is_directory() || (a.st.is_symlink() && a.target_ok && a.target_st.is_directory());
            bool db = b.st.is_directory() || (b.st.is_symlink() && b.target_ok && b.target_st.is_directory());
            if (da != db) return da;
            return full(a, b);
        });
    } else {
        std::stable_sort(v.begin(), v.end(), full);
    }
}

std::string Lister::indicator(const Entry& e) const {
    if (o_.ind == Indicator::None) return {};
    const vfs::Stat& st = e.st;
    if (st.is_directory()) return "/";
    if (o_.ind == Indicator::Slash) return {};
    switch (st.type) {
        case vfs::FileType::symlink: return o_.longfmt ? "" : "@";
        case vfs::FileType::fifo: return "|";
        case vfs::FileType::socket: return "=";
        case vfs::FileType::regular: return (st.mode & 0111) ? "*" : "";
        default: return {};
    }
}

void Lister::print_block(std::vector<Entry>& v, bool with_total) {
    if (o_.longfmt || o_.size_blocks) {
        if (with_total) {
            uint64_t total = 0;
            for (const auto& e : v) total += e.st.blocks;
            out_.put("total ");
            if (o_.human || o_.si)
                out_.put(total == 0 ? std::string("0") : human_size(total * 512, o_.si));
            else
                out_.put(std::to_string((total + 1) / 2));
            out_.put('\n');
        }
    }
    size_t w_ino = 0, w_blocks = 0, w_links = 0, w_owner = 0, w_group = 0, w_size = 0;
    std::vector<std::string> owners(v.size()), groups(v.size()), sizes(v.size()), blocks(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        const auto& st = v[i].st;
        if (o_.inode) w_ino = std::max(w_ino, std::to_string(st.ino).size());
        if (o_.size_blocks) {
            blocks[i] = blocks_str(st);
            w_blocks = std::max(w_blocks, blocks[i].size());
        }
        if (!o_.longfmt) continue;
        w_links = std::max(w_links, std::to_string(st.nlink).size());
        owners[i] = o_.numeric ? std::to_string(st.uid) : user_name(ctx_, st.uid);
        groups[i] = o_.numeric ? std::to_string(st.gid) : group_name(ctx_, st.gid);
        w_owner = std::max(w_owner, owners[i].size());
        w_group = std::max(w_group, groups[i].size());
        sizes[i] = (o_.human || o_.si) ? human_size(st.size, o_.si) : std::to_string(st.size);
        w_size = std::max(w_size, sizes[i].size());
    }
    auto rpad = [](const std::string& s, size_t w) { return std::string(w > s.size() ? w - s.size() : 0, ' ') + s; };
    auto lpad = [](const std::string& s, size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); };
    const int64_t six_months = (365 * 86400 + 86400 / 4) / 2;
    for (size_t i = 0; i < v.size(); ++i) {
        const Entry& e = v[i];
        std::string line;
        if (o_.inode) {
            line += rpad(std::to_string(e.st.ino), w_ino);
            line += ' ';
        }
        if (o_.size_blocks) {
            line += rpad(blocks[i], w_blocks);
            line += ' ';
        }
        if (o_.longfmt) {
            line += mode_string(e.st);
            line += ' ';
            line += rpad(std::to_string(e.st.nlink), w_links);
            line += ' ';
            if (!o_.no_owner) line += lpad(owners[i], w_owner) + ' ';
            if (!o_.no_group) line += lpad(groups[i], w_group) + ' ';
            line += rpad(sizes[i], w_size);
            line += ' ';
            int64_t t = e.st.mtime.sec;
            if (o_.full_time) {
                line += stat_time(e.st.mtime);
            } else if (t > now_.sec - six_months && t <= now_.sec + 60 * 60) {
                line += format_time("%b %e %H:%M", t);
            } else {
                line += format_time("%b %e  %Y", t);
            }
            line += ' ';
        }
        line += e.name;
        if (o_.longfmt && e.st.is_symlink()) {
            line += " -> ";
            line += e.target;
            if (o_.ind == Indicator::Classify && e.target_ok) {
                Entry tgt;
                tgt.st = e.target_st;
                line += indicator(tgt);
            }
        } else {
            line += indicator(e);
        }
        line += '\n';
        out_.put(line);
    }
}

void Lister::list_dir(const std::string& shown, const std::string& path, bool header, bool& first_block) {
    if (ctx_.cancelled() || out_.failed()) return;
    auto ents = ctx_.fs.readdir(path);
    if (!first_block) out_.put('\n');
    first_block = false;
    if (!ents) {
        out_.flush();
        ctx_.error("cannot open directory " + quote(shown) + ": " + std::string(errstr(ents.error())));
        status_ = std::max(status_, depth_ == 0 ? 2 : 1);
        return;
    }
    if (header) out_.put(shown + ":\n");
    std::vector<Entry> v;
    if (o_.all) {
        for (const char* dot : {".", ".."}) {
            Entry e;
            e.name = dot;
            e.path = join(path, dot);
            if (load(e, false)) v.push_back(std::move(e));
        }
    }
    for (auto& d : *ents) {
        if (!o_.all && !o_.almost && !d.name.empty() && d.name[0] == '.') continue;
        Entry e;
        e.name = d.name;
        e.path = join(path, d.name);
        if (!load(e, false)) {
            out_.flush();
            ctx_.error("cannot access " + quote(join(shown, d.name)) + ": No such file or directory");
            status_ = std::max(status_, 1);
            continue;
        }
        v.push_back(std::move(e));
    }
    sort_entries(v);
    print_block(v, true);
    if (!o_.recursive) return;
    if (depth_ >= 4096) return;
    ++depth_;
    for (const auto& e : v) {
        if (is_dot_or_dotdot(e.name) || !e.st.is_directory()) continue;
        list_dir(join(shown, e.name), e.path, true, first_block);
        if (ctx_.cancelled() || out_.failed()) break;
    }
    --depth_;
}

int Lister::run(std::vector<std::string> operands) {
    bool implicit = operands.empty();
    if (implicit) operands.push_back(".");
    std::vector<Entry> files, dirs;
    for (const auto& op : operands) {
        Entry e;
        e.name = op;
        e.path = ctx_.resolve(op);
        if (!load(e, true)) {
            auto err = ctx_.fs.lstat(e.path).error();
            ctx_.error("cannot access " + quote(op) + ": " + std::string(errstr(err)));
            status_ = 2;
            continue;
        }
        if (!o_.directory && e.st.is_directory())
            dirs.push_back(std::move(e));
        else
            files.push_back(std::move(e));
    }
    sort_entries(files);
    {
        // Directories are listed in the sort order too, but never before the files.
        Options keep = o_;
        o_.dirs_first = false;
        sort_entries(dirs);
        o_ = keep;
    }
    bool first_block = true;
    if (!files.empty()) {
        print_block(files, false);
        first_block = false;
    }
    bool headers = o_.recursive || operands.size() > 1;
    for (const auto& d : dirs) {
        list_dir(d.name, d.path, headers, first_block);
        if (ctx_.cancelled() || out_.failed()) break;
    }
    return out_.status(status_);
}

int ls_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kLsSpecs);
    Options o;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case '1': break;
            case 'a': o.all = true; o.almost = false; break;
            case 'A': o.almost = true; o.all = false; break;
            case 'l': o.longfmt = true; break;
            case 'h': o.human = true; break;
            case kOptSi: o.si = true; break;
            case 'R': o.recursive = true; break;
            case 't': o.sort = Sort::Time; break;
            case 'S': o.sort = Sort::Size; break;
            case 'U': o.sort = Sort::None; break;
            case 'f': o.sort = Sort::None; o.all = true; break;
            case 'r': o.reverse = true; break;
            case 'd': o.directory = true; break;
            case 'F': o.ind = Indicator::Classify; break;
            case 'p': o.ind = Indicator::Slash; break;
            case 'n': o.longfmt = true; o.numeric = true; break;
            case 'g': o.longfmt = true; o.no_owner = true; break;
            case 'o': o.longfmt = true; o.no_group = true; break;
            case 'i': o.inode = true; break;
            case 's': o.size_blocks = true; break;
            case 'L': o.deref = true; break;
            case kOptFullTime: o.longfmt = true; o.full_time = true; break;
            case kOptGroupDirsFirst: o.dirs_first = true; break;
            case kOptColor: case kOptShowControl: break;
            case kOptSort:
                if (opt.value == "none") o.sort = Sort::None;
                else if (opt.value == "size") o.sort = Sort::Size;
                else if (opt.value == "time") o.sort = Sort::Time;
                else if (opt.value == "name") o.sort = Sort::Name;
                else {
                    ctx.error("invalid argument " + quote(opt.value) + " for '--sort'");
                    ctx.error("Valid arguments are:\n  - 'none'\n  - 'time'\n  - 'size'\n  - 'extension'\n  - 'version'\n  - 'width'");
                    return usage_error(ctx, "", 2);
                }
                break;
            case kOptHelp: return print_help(ctx, kLsHelp);
            case kOptVersion: return print_help(ctx, "ls (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error, 2);
    if (o.directory) o.recursive = false;
    Lister lister(ctx, o);
    return lister.run(std::move(p.operands));
}

}  // namespace

void register_ls(interp::CommandRegistry& r) {
    r.add("ls", "ls [-1aAlhRtSrdF] [FILE]...: list directory contents", ls_main);
}

}  // namespace bashkit::utils::files
