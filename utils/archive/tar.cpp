// tar: create (c), extract (x) and list (t) archives through libarchive, with GNU tar's options, messages
// and `tv` listing. Archives are written in the GNU format; gzip/bzip2/xz/zstd filters through libarchive.
#include <fnmatch.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "utils/archive/common.hpp"
#include "utils/archive/tools.hpp"
#include "utils/system/tools.hpp"

namespace bashkit::utils::archive {

namespace {

using text::Output;

enum class Mode { none, create, extract, list };

struct Operand {
    bool is_dir = false;   // a -C DIR between operands
    std::string text;
};

struct TarOptions {
    Mode mode = Mode::none;
    std::string file = "-";
    int verbose = 0;
    char filter = 0;  // 'z' 'j' 'J' 'Z'(zstd) 'a'(auto)
    std::string directory;           // -C before anything (extract/list)
    int strip = 0;
    std::vector<std::string> excludes;
    // For each exclude, how many file operands came before it: in create mode GNU tar's --exclude is
    // positional (it applies to the operands after it), and one after the last operand has no effect.
    std::vector<size_t> exclude_after;
    size_t active_excludes = SIZE_MAX;  // create: the excludes in force for the operand being added
    bool to_stdout = false, keep_old = false, touch = false, preserve = false, numeric = false;
    std::optional<std::string> owner, group;
    std::optional<int64_t> mtime;
    std::vector<Operand> operands;
};

constexpr const char* kTry = "Try 'tar --help' or 'tar --usage' for more information.\n";

struct LongSpec {
    std::string_view name;
    int id;
    bool arg;
};
enum : int {
    kStrip = 1000, kExclude, kOwner, kGroup, kMtime, kNumeric, kSort, kIgnored, kZstd, kHelp, kVersion,
    kIgnoredArg, kTotals,
};
constexpr LongSpec kLong[] = {
    {"create", 'c', false},       {"extract", 'x', false},       {"get", 'x', false},
    {"list", 't', false},         {"file", 'f', true},           {"verbose", 'v', false},
    {"gzip", 'z', false},         {"gunzip", 'z', false},        {"ungzip", 'z', false},
    {"bzip2", 'j', false},        {"xz", 'J', false},            {"zstd", kZstd, false},
    {"auto-compress", 'a', false}, {"directory", 'C', true},     {"strip-components", kStrip, true},
    {"exclude", kExclude, true},  {"to-stdout", 'O', false},     {"keep-old-files", 'k', false},
    {"touch", 'm', false},        {"preserve-permissions", 'p', false}, {"same-permissions", 'p', false},
    {"owner", kOwner, true},      {"group", kGroup, true},       {"mtime", kMtime, true},
    {"numeric-owner", kNumeric, false}, {"sort", kSort, true},   {"no-same-owner", kIgnored, false},
    {"same-owner", kIgnored, false}, {"overwrite", kIgnored, false}, {"format", kIgnoredArg, true},
    {"help", kHelp, false},       {"version", kVersion, false},  {"totals", kIgnored, false},
    {"no-recursion", kIgnored, false},
};
constexpr std::string_view kShortWithArg = "fCb";
constexpr std::string_view kShortFlags = "cxtvzjJaOkmpfCb";

int usage(CommandContext& ctx, std::string_view msg, int status = 2) {
    if (!msg.empty()) ctx.err.write(fmt::format("tar: {}\n", msg));
    ctx.err.write(kTry);
    return status;
}
// GNU tar exits 64 (EX_USAGE) when getopt rejects an option.
int bad_option(CommandContext& ctx, std::string_view msg) { return usage(ctx, msg, 64); }

// Applies one option; returns an error message or empty.
std::string apply(TarOptions& o, int id, const std::string& val, CommandContext& ctx) {
    auto set_mode = [&](Mode m) -> std::string {
        if (o.mode != Mode::none && o.mode != m) return "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option";
        o.mode = m;
        return {};
    };
    switch (id) {
        case 'c': return set_mode(Mode::create);
        case 'x': return set_mode(Mode::extract);
        case 't': return set_mode(Mode::list);
        case 'f': o.file = val; break;
        case 'v': ++o.verbose; break;
        case 'z': case 'j': case 'J': case 'a': o.filter = static_cast<char>(id); break;
        case kZstd: o.filter = 'Z'; break;
        case 'C': o.operands.push_back({true, val}); break;
        case kStrip: {
            uint64_t n;
            if (!text::parse_uint(val, n) || n > 10000) return fmt::format("{}: Invalid number of elements", val);
            o.strip = static_cast<int>(n);
            break;
        }
        case kExclude: {
            size_t files = 0;
            for (const auto& op : o.operands) files += op.is_dir ? 0 : 1;
            o.excludes.push_back(val);
            o.exclude_after.push_back(files);
            break;
        }
        case 'O': o.to_stdout = true; break;
        case 'k': o.keep_old = true; break;
        case 'm': o.touch = true; break;
        case 'p': o.preserve = true; break;
        case kOwner: o.owner = val; break;
        case kGroup: o.group = val; break;
        case kNumeric: o.numeric = true; break;
        case kMtime: {
            int64_t sec = 0, nsec = 0;
            auto now = ctx.clock.now();
            auto tz = systemutil::TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
            if (!systemutil::parse_date(val, now.sec, now.nsec, tz, &ctx.fs, sec, nsec))
                return fmt::format("Substituting -9223372036854775807 for unknown date format '{}'", val);
            o.mtime = sec;
            break;
        }
        case kSort:
            if (val != "name" && val != "none" && val != "inode")
                return fmt::format("invalid argument '{}' for '--sort'", val);
            break;
        case 'b': case kIgnored: case kIgnoredArg: break;
        default: break;
    }
    return {};
}

// Parses tar's three option styles: old (first word `cvf ARCHIVE`), short (-cvf ARCHIVE) and long.
// Returns -1 when parsed, else the exit status (help, version, error).
// Parses dash and long options (and operands) of words[i..]; -1 when all went well, else the status.
int parse_words(CommandContext& ctx, TarOptions& o, const std::vector<std::string>& argv, size_t i) {
    bool only_operands = false;
    for (; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (only_operands || a == "-" || a.empty() || a[0] != '-') {
            o.operands.push_back({false, a});
            continue;
        }
        if (a == "--") {
            only_operands = true;
            continue;
        }
        if (a.starts_with("--")) {
            std::string name = a.substr(2), val;
            bool has_val = false;
            if (auto eq = name.find('='); eq != std::string::npos) {
                val = name.substr(eq + 1);
                name.resize(eq);
                has_val = true;
            }
            const LongSpec* found = nullptr;
            int matches = 0;
            for (const auto& s : kLong) {
                if (s.name == name) {
                    found = &s;
                    matches = 1;
                    break;
                }
                if (s.name.starts_with(name)) {
                    if (!found || found->id != s.id) ++matches;
                    found = &s;
                }
            }
            if (!found) return bad_option(ctx, fmt::format("unrecognized option '{}'", a));
            if (matches > 1) return bad_option(ctx, fmt::format("option '{}' is ambiguous", a));
            if (found->id == kHelp) {
                ctx.out.write("Usage: tar [OPTION...] [FILE]...\nGNU 'tar' saves many files together into a single "
                              "tape or disk archive, and can\nrestore individual files from the archive.\n");
                return 0;
            }
            if (found->id == kVersion) {
                ctx.out.write("tar (bashkit) 1.0\n");
                return 0;
            }
            if (found->arg && !has_val) {
                if (i + 1 >= argv.size())
                    return bad_option(ctx, fmt::format("option '--{}' requires an argument", found->name));
                val = argv[++i];
            } else if (!found->arg && has_val) {
                return bad_option(ctx, fmt::format("option '--{}' doesn't allow an argument", found->name));
            }
            auto e = apply(o, found->id, val, ctx);
            if (!e.empty()) return usage(ctx, e);
            continue;
        }
        for (size_t k = 1; k < a.size(); ++k) {
            char c = a[k];
            if (kShortFlags.find(c) == std::string_view::npos) return bad_option(ctx, fmt::format("invalid option -- '{}'", c));
            std::string val;
            if (kShortWithArg.find(c) != std::string_view::npos) {
                if (k + 1 < a.size()) {
                    val = a.substr(k + 1);
                } else if (i + 1 < argv.size()) {
                    val = argv[++i];
                } else {
                    return bad_option(ctx, fmt::format("option requires an argument -- '{}'", c));
                }
                k = a.size();
            }
            auto e = apply(o, c, val, ctx);
            if (!e.empty()) return usage(ctx, e);
        }
    }
    return -1;
}

int parse(CommandContext& ctx, TarOptions& o) {
    // TAR_OPTIONS holds options that apply before the command line's.
    if (const std::string* env = ctx.env.get("TAR_OPTIONS")) {
        std::vector<std::string> words;
        size_t p = 0;
        while (p < env->size()) {
            size_t q = env->find_first_of(" \t\n", p);
            if (q == std::string::npos) q = env->size();
            if (q > p) words.push_back(env->substr(p, q - p));
            p = q + 1;
        }
        if (int st = parse_words(ctx, o, words, 0); st >= 0) return st;
    }
    const auto& argv = ctx.argv;
    size_t i = 1;
    std::vector<std::string> pending;  // old style: letters whose arguments come from the next words
    if (argv.size() > 1 && !argv[1].empty() && argv[1][0] != '-') {
        const std::string& letters = argv[1];
        i = 2;
        for (char c : letters) {
            if (kShortFlags.find(c) == std::string_view::npos) {
                return bad_option(ctx, fmt::format("invalid option -- '{}'", c));
            }
            std::string val;
            if (kShortWithArg.find(c) != std::string_view::npos) {
                if (i >= argv.size()) return usage(ctx, fmt::format("Old option '{}' requires an argument.", c));
                val = argv[i++];
            }
            auto e = apply(o, c, val, ctx);
            if (!e.empty()) return usage(ctx, e);
        }
    }
    if (int st = parse_words(ctx, o, argv, i); st >= 0) return st;
    if (o.mode == Mode::none)
        return usage(ctx, "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options");
    return -1;
}

// The prefix GNU tar's safer_name_suffix removes from a member name: through the last ".." component,
// then any slashes (so a plain absolute name gives its leading slashes).
std::string unsafe_prefix(std::string_view n) {
    size_t prefix = 0;
    for (size_t p = 0; p < n.size();) {
        if (n[p] == '.' && p + 1 < n.size() && n[p + 1] == '.' && (p + 2 == n.size() || n[p + 2] == '/'))
            prefix = p + 2;
        while (p < n.size()) {
            if (n[p++] == '/') break;
        }
    }
    while (prefix < n.size() && n[prefix] == '/') ++prefix;
    return std::string(n.substr(0, prefix));
}

bool excluded(const TarOptions& o, std::string_view name) {
    if (o.excludes.empty()) return false;
    std::string n(name);
    while (n.size() > 1 && n.back() == '/') n.pop_back();
    const size_t count = std::min(o.active_excludes, o.excludes.size());
    for (size_t k = 0; k < count; ++k) {
        const std::string& pat = o.excludes[k];
        // Unanchored, like GNU's default: the pattern may match any trailing run of components.
        size_t pos = 0;
        for (;;) {
            if (fnmatch(pat.c_str(), n.c_str() + pos, 0) == 0) return true;
            // Also a leading run of components (a pattern naming a directory excludes what is below it).
            pos = n.find('/', pos);
            if (pos == std::string::npos) break;
            ++pos;
        }
        for (size_t cut = n.find('/'); cut != std::string::npos; cut = n.find('/', cut + 1))
            if (fnmatch(pat.c_str(), n.substr(0, cut).c_str(), 0) == 0) return true;
    }
    return false;
}

char filter_for_name(std::string_view name) {
    auto ends = [&](std::string_view s) { return name.ends_with(s); };
    if (ends(".tgz") || ends(".taz") || ends(".gz")) return 'z';
    if (ends(".tbz") || ends(".tbz2") || ends(".tb2") || ends(".bz2")) return 'j';
    if (ends(".txz") || ends(".xz")) return 'J';
    if (ends(".tzst") || ends(".zst")) return 'Z';
    return 0;
}

// ---------------------------------------------------------------------------------------------- listing

struct Lister {
    CommandContext& ctx;
    const TarOptions& o;
    size_t ugswidth = 18;  // GNU's 19 counts the slash between owner and group

    std::string line(struct archive_entry* e) {
        const char* hl = la().archive_entry_hardlink(e);
        const char* sl = la().archive_entry_symlink(e);
        std::string user, group;
        const char* un = la().archive_entry_uname(e);
        const char* gn = la().archive_entry_gname(e);
        user = (!o.numeric && un && *un) ? un : std::to_string(la().archive_entry_uid(e));
        group = (!o.numeric && gn && *gn) ? gn : std::to_string(la().archive_entry_gid(e));
        std::string size;
        auto type = la().archive_entry_filetype(e);
        if (type == AE_IFCHR || type == AE_IFBLK)
            size = fmt::format("{},{}", la().archive_entry_rdevmajor(e), la().archive_entry_rdevminor(e));
        else
            size = std::to_string(hl ? 0 : la().archive_entry_size(e));
        const size_t pad = user.size() + 1 + group.size() + size.size();
        if (pad > ugswidth) ugswidth = pad;
        std::string s = fmt::format("{} {}/{} {:>{}} {} {}", mode_string(la().archive_entry_mode(e), hl != nullptr),
                                    user, group, size, ugswidth - pad + size.size(),
                                    format_time(ctx, la().archive_entry_mtime(e)), la().archive_entry_pathname(e));
        if (hl) s += fmt::format(" link to {}", hl);
        else if (sl && type == AE_IFLNK) s += fmt::format(" -> {}", sl);
        return s;
    }
};

// --------------------------------------------------------------------------------------------- creating

struct Creator {
    CommandContext& ctx;
    const TarOptions& o;
    struct archive* a;
    interp::ByteStream& vout;  // where -v names go
    Lister lister;
    std::map<std::pair<uint64_t, uint64_t>, std::string> links;  // (dev, ino) -> first name
    std::optional<std::pair<uint64_t, uint64_t>> self;            // the archive file itself
    bool warned_slash = false;
    bool failed = false;
    bool fatal = false;
    std::string buf = std::string(64 * 1024, '\0');

    void err(std::string_view msg) { ctx.err.write(fmt::format("tar: {}\n", msg)); }

    void owner(struct archive_entry* e, const vfs::Stat& st) {
        uint32_t uid = st.uid, gid = st.gid;
        std::string uname = user_name(ctx, uid), gname = group_name(ctx, gid);
        auto parse_id = [&](const std::string& spec, uint32_t& id, std::string& name, bool is_user) {
            auto colon = spec.find(':');
            std::string n = spec.substr(0, colon);
            uint64_t num;
            if (colon != std::string::npos && text::parse_uint(spec.substr(colon + 1), num)) {
                id = static_cast<uint32_t>(num);
                name = n;
            } else if (text::parse_uint(n, num)) {
                id = static_cast<uint32_t>(num);
                name = is_user ? user_name(ctx, id) : group_name(ctx, id);
                if (name == std::to_string(id)) name.clear();
            } else {
                name = n;
                if (n == "root") id = 0;
            }
        };
        if (o.owner) parse_id(*o.owner, uid, uname, true);
        if (o.group) parse_id(*o.group, gid, gname, false);
        if (uname == std::to_string(uid)) uname.clear();
        if (gname == std::to_string(gid)) gname.clear();
        la().archive_entry_set_uid(e, uid);
        la().archive_entry_set_gid(e, gid);
        if (!o.numeric) {
            if (!uname.empty()) la().archive_entry_copy_uname(e, uname.c_str());
            if (!gname.empty()) la().archive_entry_copy_gname(e, gname.c_str());
        }
    }

    void add(const std::string& path, const std::string& name) {
        if (fatal) return;
        if (ctx.cancelled()) {
            err("Operation canceled");
            fatal = failed = true;
            return;
        }
        if (excluded(o, name)) return;
        auto st = ctx.fs.lstat(path);
        if (!st) {
            err(fmt::format("{}: Cannot stat: {}", name, vfs::error_message(st.error())));
            failed = true;
            return;
        }
        if (self && st->dev == self->first && st->ino == self->second) {
            err(fmt::format("{}: file is the archive; not dumped", name));
            return;
        }
        struct archive_entry* e = la().archive_entry_new();
        std::string ename = name;
        if (st->is_directory() && !ename.ends_with('/')) ename += '/';
        la().archive_entry_copy_pathname(e, ename.c_str());
        la().archive_entry_set_perm(e, st->mode & 07777);
        la().archive_entry_set_mtime(e, o.mtime ? *o.mtime : st->mtime.sec, 0);
        owner(e, *st);
        std::unique_ptr<vfs::FileHandle> fh;
        bool data = false;
        if (st->is_directory()) {
            la().archive_entry_set_filetype(e, AE_IFDIR);
            la().archive_entry_set_size(e, 0);
        } else if (st->is_symlink()) {
            auto t = ctx.fs.readlink(path);
            la().archive_entry_set_filetype(e, AE_IFLNK);
            la().archive_entry_copy_symlink(e, t ? t->c_str() : "");
            la().archive_entry_set_size(e, 0);
        } else if (st->is_regular()) {
            la().archive_entry_set_filetype(e, AE_IFREG);
            auto key = std::make_pair(st->dev, st->ino);
            auto it = st->nlink > 1 ? links.find(key) : links.end();
            if (it != links.end()) {
                la().archive_entry_copy_hardlink(e, it->second.c_str());
                la().archive_entry_set_size(e, 0);
            } else {
                if (st->nlink > 1) links.emplace(key, ename);
                auto h = ctx.fs.open_read(path);
                if (!h) {
                    err(fmt::format("{}: Cannot open: {}", name, vfs::error_message(h.error())));
                    failed = true;
                    la().archive_entry_free(e);
                    return;
                }
                fh = std::move(*h);
                la().archive_entry_set_size(e, static_cast<la_int64_t>(st->size));
                data = true;
            }
        } else {
            err(fmt::format("{}: socket ignored", name));
            la().archive_entry_free(e);
            return;
        }
        if (o.verbose) vout.write((o.verbose > 1 ? lister.line(e) : ename) + "\n");
        if (la().archive_write_header(a, e) < ARCHIVE_WARN) {
            err(fmt::format("{}: {}", name, la().archive_error_string(a) ? la().archive_error_string(a) : "write error"));
            failed = fatal = true;
            la().archive_entry_free(e);
            return;
        }
        la().archive_entry_free(e);
        if (data) {
            uint64_t left = st->size;
            while (left > 0) {
                if (ctx.cancelled()) {
                    err("Operation canceled");
                    fatal = failed = true;
                    return;
                }
                auto r = fh->read(buf.data(), std::min<uint64_t>(buf.size(), left));
                if (!r || *r == 0) {
                    // Shrunk while read: pad with zeros as GNU tar does.
                    err(fmt::format("{}: File shrank by {} bytes; padding with zeros", name, left));
                    std::string zeros(std::min<uint64_t>(left, buf.size()), '\0');
                    while (left > 0) {
                        size_t n = std::min<uint64_t>(left, zeros.size());
                        if (la().archive_write_data(a, zeros.data(), n) < 0) break;
                        left -= n;
                    }
                    failed = true;
                    break;
                }
                if (la().archive_write_data(a, buf.data(), *r) < 0) {
                    err(la().archive_error_string(a) ? la().archive_error_string(a) : "write error");
                    fatal = failed = true;
                    return;
                }
                left -= *r;
            }
        }
        if (st->is_directory()) {
            auto ents = ctx.fs.readdir(path);
            if (!ents) {
                err(fmt::format("{}: Cannot open: {}", name, vfs::error_message(ents.error())));
                failed = true;
                return;
            }
            std::vector<std::string> names;
            for (auto& d : *ents) names.push_back(d.name);
            std::sort(names.begin(), names.end());
            for (const auto& n : names) add(vfs::join_path(path, n), ename + n);
        }
    }
};

int finish_status(CommandContext& ctx, bool failed) {
    if (failed) {
        ctx.err.write("tar: Exiting with failure status due to previous errors\n");
        return 2;
    }
    return 0;
}

int run_create(CommandContext& ctx, TarOptions& o) {
    bool any = false;
    for (const auto& op : o.operands) any = any || !op.is_dir;
    if (!any) {
        ctx.err.write("tar: Cowardly refusing to create an empty archive\n");
        ctx.err.write(kTry);
        return 2;
    }
    // Excludes after the last file operand: GNU tar warns, ignores them and fails at the end.
    size_t files = 0;
    for (const auto& op : o.operands) files += op.is_dir ? 0 : 1;
    bool trailing = false;
    for (size_t k = 0; k < o.excludes.size(); ++k) {
        if (o.exclude_after[k] < files) continue;
        if (!trailing)
            ctx.err.write("tar: The following options were used after any non-optional arguments in archive create "
                          "or update mode.  These options are positional and affect only arguments that follow "
                          "them.  Please, rearrange them properly.\n");
        trailing = true;
        ctx.err.write(fmt::format("tar: --exclude '{}' has no effect\n", o.excludes[k]));
    }
    // The sink and the file outlive the archive: freeing an archive that was not closed (an early return)
    // flushes it through the sink.
    OutputSink sink;
    sink.ctx = &ctx;
    std::unique_ptr<vfs::FileHandle> fh;
    WriteArchive w;
    la().archive_write_set_format_gnutar(w.a);
    char filter = o.filter == 'a' ? filter_for_name(o.file) : o.filter;
    switch (filter) {
        case 'z': la().archive_write_add_filter_gzip(w.a); break;
        case 'j': la().archive_write_add_filter_bzip2(w.a); break;
        case 'J': la().archive_write_add_filter_xz(w.a); break;
        case 'Z': la().archive_write_add_filter_zstd(w.a); break;
        default: la().archive_write_add_filter_none(w.a); break;
    }
    // Like GNU tar: the tar stream is padded to whole records, the compressed stream after it is not.
    if (filter) la().archive_write_set_bytes_in_last_block(w.a, 1);
    std::optional<std::pair<uint64_t, uint64_t>> self;
    const bool to_stdout = o.file == "-";
    if (to_stdout) {
        sink.stream = &ctx.out;
    } else {
        auto h = ctx.fs.open_write(ctx.resolve(o.file));
        if (!h) {
            ctx.err.write(fmt::format("tar: {}: Cannot open: {}\n", o.file, vfs::error_message(h.error())));
            ctx.err.write("tar: Error is not recoverable: exiting now\n");
            return 2;
        }
        fh = std::move(*h);
        sink.file = fh.get();
        if (auto st = fh->stat()) self = std::make_pair(st->dev, st->ino);
    }
    if (open_write(w.a, sink) != ARCHIVE_OK) {
        ctx.err.write(fmt::format("tar: {}\n", la().archive_error_string(w.a) ? la().archive_error_string(w.a) : "cannot write"));
        return 2;
    }
    Creator c{ctx, o, w.a, to_stdout ? ctx.err : ctx.out, Lister{ctx, o}, {}, self};
    std::string dir = ctx.cwd;
    size_t file_index = 0;
    for (const auto& op : o.operands) {
        if (op.is_dir) {
            dir = vfs::join_path(dir, op.text);
            if (!ctx.fs.is_directory(dir)) {
                ctx.err.write(fmt::format("tar: {}: Cannot open: {}\n", op.text,
                                          vfs::error_message(ctx.fs.exists(dir) ? vfs::Errc::not_directory
                                                                                : vfs::Errc::no_such_file)));
                ctx.err.write("tar: Error is not recoverable: exiting now\n");
                return 2;
            }
            continue;
        }
        std::string name = op.text;
        if (name.starts_with('/')) {
            while (name.starts_with('/')) name.erase(0, 1);
            if (!c.warned_slash) {
                ctx.err.write("tar: Removing leading `/' from member names\n");
                c.warned_slash = true;
            }
            if (name.empty()) name = ".";  // never reached for "/" in practice
        }
        while (name.size() > 1 && name.ends_with('/')) name.pop_back();
        o.active_excludes = 0;
        while (o.active_excludes < o.excludes.size() && o.exclude_after[o.active_excludes] <= file_index)
            ++o.active_excludes;
        ++file_index;
        c.add(vfs::join_path(dir, op.text), name);
        if (c.fatal) break;
    }
    if (la().archive_write_close(w.a) != ARCHIVE_OK && !c.fatal) {
        if (sink.err == EPIPE) return 141;
        ctx.err.write(fmt::format("tar: {}\n", la().archive_error_string(w.a) ? la().archive_error_string(w.a) : "write error"));
        c.failed = true;
    }
    if (sink.err == EPIPE) return 141;
    return finish_status(ctx, c.failed || trailing);
}

// ---------------------------------------------------------------------------------- extracting, listing

// Whether `name` is selected by the operands (exact, or below one); marks the operands that matched.
bool selected(const std::vector<std::string>& members, std::vector<bool>& seen, std::string_view name) {
    if (members.empty()) return true;
    std::string n(name);
    while (n.size() > 1 && n.ends_with('/')) n.pop_back();
    bool any = false;
    for (size_t i = 0; i < members.size(); ++i) {
        std::string m = members[i];
        while (m.size() > 1 && m.ends_with('/')) m.pop_back();
        if (n == m || (n.starts_with(m) && n[m.size()] == '/') ||
            (fnmatch(m.c_str(), n.c_str(), 0) == 0 && m.find_first_of("*?[") != std::string::npos)) {
            seen[i] = true;
            any = true;
        }
    }
    return any;
}

// GNU tar reads -z/-j/-J input through gzip/bzip2/xz as a child: input of another kind, empty or cut short
// fails there with the child's messages. Prints them and returns true when that is the case (`msg`: the
// libarchive error of the first read, empty when it succeeded).
bool child_failed(CommandContext& ctx, const TarOptions& o, struct archive* a, const InputSource& src,
                  const std::string& msg) {
    int want;
    switch (o.filter) {
        case 'z': want = ARCHIVE_FILTER_GZIP; break;
        case 'j': want = ARCHIVE_FILTER_BZIP2; break;
        case 'J': want = ARCHIVE_FILTER_XZ; break;
        default: return false;
    }
    if (src.err != vfs::Errc::ok || src.cancelled) return false;
    // The filter libarchive chose, or the magic number when the data was too short for it to choose.
    static constexpr std::string_view kMagic[] = {"\x1f\x8b", "BZh", std::string_view("\xfd" "7zXZ\0", 6)};
    const std::string_view magic = kMagic[o.filter == 'z' ? 0 : o.filter == 'j' ? 1 : 2];
    const bool matches = la().archive_filter_code(a, 0) == want || src.head.starts_with(magic);
    const bool cut = msg.find("runcated") != std::string::npos || msg.find("EOF") != std::string::npos ||
                     msg.find("nexpected end") != std::string::npos || msg.find("No progress") != std::string::npos ||
                     src.total == 0;
    if (matches && !cut) return false;
    const bool not_format = !matches && src.total > 0;
    switch (o.filter) {
        case 'z':
            ctx.err.write(not_format ? "\ngzip: stdin: not in gzip format\n" : "\ngzip: stdin: unexpected end of file\n");
            ctx.err.write("tar: Child returned status 1\n");
            break;
        case 'j':
            if (not_format) {
                ctx.err.write("bzip2: (stdin) is not a bzip2 file.\n");
            } else {
                ctx.err.write("\nbzip2: Compressed file ends unexpectedly;\n\tperhaps it is corrupted?  *Possible* reason "
                              "follows.\nbzip2: Inappropriate ioctl for device\n\tInput file = (stdin), output file = "
                              "(stdout)\n\nIt is possible that the compressed file(s) have become corrupted.\nYou can use "
                              "the -tvv option to test integrity of such files.\n\nYou can use the `bzip2recover' "
                              "program to attempt to recover\ndata from undamaged sections of corrupted files.\n\n");
            }
            ctx.err.write("tar: Child returned status 2\n");
            break;
        default:
            ctx.err.write(matches ? "xz: (stdin): Unexpected end of input\n" : "xz: (stdin): File format not recognized\n");
            ctx.err.write("tar: Child returned status 1\n");
            break;
    }
    ctx.err.write("tar: Error is not recoverable: exiting now\n");
    return true;
}

int run_read(CommandContext& ctx, TarOptions& o, const ArchiveLimits& limits) {
    std::vector<std::string> members;
    std::string root = ctx.cwd, shown_root;
    for (const auto& op : o.operands) {
        if (op.is_dir) {
            root = vfs::join_path(root, op.text);
            shown_root = op.text;
        }
        else {
            members.push_back(op.text);
        }
    }
    std::vector<bool> seen(members.size(), false);
    ReadArchive r;
    la().archive_read_support_filter_all(r.a);
    la().archive_read_support_format_tar(r.a);
    la().archive_read_support_format_gnutar(r.a);
    InputSource src;
    src.ctx = &ctx;
    if (o.file == "-") {
        src.in.open_stdin(ctx);
    } else if (auto e = src.in.open_input(ctx, o.file); e != vfs::Errc::ok) {
        ctx.err.write(fmt::format("tar: {}: Cannot open: {}\n", o.file, vfs::error_message(e)));
        ctx.err.write("tar: Error is not recoverable: exiting now\n");
        return 2;
    }
    Extractor x(ctx, limits, "tar", root);
    x.shown_root = shown_root;
    x.keep_old = o.keep_old;
    x.restore_mtime = !o.touch;
    x.preserve_perms = o.preserve;
    x.to_stdout = o.to_stdout;
    if (o.mode == Mode::extract && !o.to_stdout && !x.prepare()) {
        ctx.err.write("tar: Error is not recoverable: exiting now\n");
        return 2;
    }
    if (open_read(r.a, src) != ARCHIVE_OK) {
        const std::string msg = la().archive_error_string(r.a) ? la().archive_error_string(r.a) : "read error";
        if (child_failed(ctx, o, r.a, src, msg)) return 2;
        if (src.err != vfs::Errc::ok) {
            ctx.err.write(fmt::format("tar: {}: Read error: {}\n", o.file, vfs::error_message(src.err)));
        } else if (msg.find("Unrecognized archive format") != std::string::npos) {
            ctx.err.write("tar: This does not look like a tar archive\n");
            return finish_status(ctx, true);
        } else {
            ctx.err.write(fmt::format("tar: {}\n", msg));
        }
        ctx.err.write("tar: Error is not recoverable: exiting now\n");
        return 2;
    }
    Lister lister{ctx, o};
    Output out(ctx);
    bool failed = false, first = true;
    std::set<std::string> warned;  // the unsafe prefixes already reported
    struct archive_entry* e;
    for (;;) {
        if (ctx.cancelled()) {
            out.flush();
            ctx.err.write("tar: Operation canceled\n");
            return 130;
        }
        int rc = la().archive_read_next_header(r.a, &e);
        if (first) {
            const char* m = rc < ARCHIVE_WARN ? la().archive_error_string(r.a) : nullptr;
            if (child_failed(ctx, o, r.a, src, rc < ARCHIVE_WARN ? (m ? m : "read error") : "")) return 2;
        }
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            out.flush();
            std::string msg = la().archive_error_string(r.a) ? la().archive_error_string(r.a) : "read error";
            if (src.err != vfs::Errc::ok) {
                ctx.err.write(fmt::format("tar: {}: Read error: {}\n", o.file, vfs::error_message(src.err)));
            } else if (first && (la().archive_format(r.a) == 0 || msg.find("Unrecognized archive format") != std::string::npos)) {
                ctx.err.write("tar: This does not look like a tar archive\n");
                return finish_status(ctx, true);
            } else if (msg.find("runcated") != std::string::npos || msg.find("EOF") != std::string::npos) {
                ctx.err.write("tar: Unexpected EOF in archive\n");
            } else {
                ctx.err.write(fmt::format("tar: {}\n", msg));
            }
            ctx.err.write("tar: Error is not recoverable: exiting now\n");
            return 2;
        }
        if (first && o.file == "-" && o.filter == 0) {
            // GNU tar does not guess the compression of a pipe.
            const char* flag = nullptr;
            switch (la().archive_filter_code(r.a, 0)) {
                case ARCHIVE_FILTER_GZIP: flag = "-z"; break;
                case ARCHIVE_FILTER_BZIP2: flag = "-j"; break;
                case ARCHIVE_FILTER_XZ: flag = "-J"; break;
                case ARCHIVE_FILTER_ZSTD: flag = "--zstd"; break;
                default: break;
            }
            if (flag) {
                ctx.err.write(fmt::format("tar: Archive is compressed. Use {} option\n", flag));
                ctx.err.write("tar: Error is not recoverable: exiting now\n");
                return 2;
            }
        }
        first = false;
        if (!x.count_entry()) {
            out.flush();
            return finish_status(ctx, true);
        }
        const std::string raw = la().archive_entry_pathname(e) ? la().archive_entry_pathname(e) : "";
        if (!selected(members, seen, raw) || excluded(o, raw)) continue;
        // GNU tar warns once per distinct unsafe prefix (leading slashes, or up to the last ".."), in both
        // modes; a listing still shows the stored name.
        if (std::string prefix = unsafe_prefix(raw); !prefix.empty() && warned.insert(prefix).second) {
            out.flush();
            ctx.err.write(fmt::format("tar: Removing leading `{}' from member names\n", prefix));
        }
        if (o.mode == Mode::list) {
            const std::string& shown = raw;
            if (o.verbose) {
                la().archive_entry_copy_pathname(e, shown.c_str());
                out.put(lister.line(e));
            } else {
                out.put(shown);
            }
            out.put('\n');
            if (out.failed()) return out.status(0);
            continue;
        }
        SafeName sn = safe_name(raw);
        std::string name = sn.name;
        if (o.strip > 0 && !strip_components(name, o.strip)) continue;
        if (sn.has_dotdot) {
            out.flush();
            ctx.err.write(fmt::format("tar: {}: Member name contains '..'\n", raw));
            failed = true;
            continue;
        }
        if (o.verbose) {
            std::string shown = raw.substr(std::min(raw.size(), raw.find_first_not_of('/')));
            if (o.verbose > 1) {
                la().archive_entry_copy_pathname(e, shown.c_str());
                out.put(lister.line(e));
            } else {
                out.put(shown);
            }
            out.put('\n');
            out.flush();
        }
        // Hard link targets are member names too: strip them the same way.
        if (const char* hl = la().archive_entry_hardlink(e); hl && o.strip > 0) {
            std::string t = safe_name(hl).name;
            if (!strip_components(t, o.strip)) continue;
            la().archive_entry_copy_hardlink(e, t.c_str());
        }
        auto outcome = x.extract(r.a, e, name);
        if (outcome == Extractor::Outcome::fatal) {
            (void)x.finish();
            out.flush();
            if (x.read_error) {
                ctx.err.write("tar: Error is not recoverable: exiting now\n");
                return 2;
            }
            return finish_status(ctx, true);
        }
        if (outcome == Extractor::Outcome::skipped) failed = true;
    }
    if (!x.finish()) failed = true;
    out.flush();
    for (size_t i = 0; i < members.size(); ++i) {
        if (!seen[i]) {
            ctx.err.write(fmt::format("tar: {}: Not found in archive\n", members[i]));
            failed = true;
        }
    }
    return out.status(finish_status(ctx, failed));
}

}  // namespace

int cmd_tar(CommandContext& ctx, const ArchiveLimits& limits) {
    TarOptions o;
    if (int st = parse(ctx, o); st >= 0) return st;
    if (!need_libarchive(ctx, "tar")) return 2;
    if (o.mode == Mode::create) return run_create(ctx, o);
    return run_read(ctx, o, limits);
}

}  // namespace bashkit::utils::archive
