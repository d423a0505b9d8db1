// zip and unzip: Info-ZIP's common options over libarchive's zip reader and writer. unzip reads the archive
// into memory (bounded by ArchiveLimits::max_archive_bytes) so the central directory can be used, and
// extracts through the Extractor (confined to the target directory, bounded in bytes and members).
#include <zlib.h>
#include <fnmatch.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "utils/archive/common.hpp"
#include "utils/archive/tools.hpp"

namespace bashkit::utils::archive {

namespace {

// Info-ZIP's percent(): the saving, rounded.
int percent(uint64_t n, uint64_t m) {
    while (n > 0xffffff) {
        n = (n + 0x80) >> 8;
        m = (m + 0x80) >> 8;
    }
    return n > m ? static_cast<int>((1 + (200 * (n - m) / n)) / 2) : 0;
}

// The deflated size of data (what zip reports and uses to choose store or deflate), in chunks so that the
// cancel token is polled: data.size() + 1 (never chosen) when cancelled.
uint64_t deflated_size(std::string_view data, int level, const CommandContext& ctx) {
    z_stream zs{};
    if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return data.size() + 1;
    std::string out(64 * 1024, '\0');
    constexpr size_t kChunk = 1u << 20;
    size_t pos = 0;
    int rc = Z_OK;
    do {
        if (ctx.cancelled()) {
            deflateEnd(&zs);
            return data.size() + 1;
        }
        const size_t n = std::min(kChunk, data.size() - pos);
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + pos));
        zs.avail_in = static_cast<uInt>(n);
        pos += n;
        const int flush = pos == data.size() ? Z_FINISH : Z_NO_FLUSH;
        do {
            zs.next_out = reinterpret_cast<Bytef*>(out.data());
            zs.avail_out = static_cast<uInt>(out.size());
            rc = deflate(&zs, flush);
        } while (zs.avail_out == 0 && rc != Z_STREAM_ERROR);
    } while (pos < data.size() && rc != Z_STREAM_ERROR);
    uint64_t total = zs.total_out;
    deflateEnd(&zs);
    return total;
}

// One member of the central directory.
struct CdEntry {
    std::string name;
    int method = 0;
    uint64_t csize = 0, usize = 0;
};

// The central directory of an in-memory zip (empty when it cannot be found).
std::vector<CdEntry> central_directory(std::string_view z, bool& found) {
    std::vector<CdEntry> v;
    found = false;
    auto u16 = [&](size_t i) -> uint32_t { return static_cast<unsigned char>(z[i]) | (static_cast<unsigned char>(z[i + 1]) << 8); };
    auto u32 = [&](size_t i) -> uint64_t { return u16(i) | (uint64_t{u16(i + 2)} << 16); };
    if (z.size() < 22) return v;
    size_t lo = z.size() > 65557 ? z.size() - 65557 : 0;
    size_t eocd = std::string_view::npos;
    for (size_t i = z.size() - 22 + 1; i-- > lo;) {
        if (z.compare(i, 4, "PK\x05\x06") == 0) {
            eocd = i;
            break;
        }
    }
    if (eocd == std::string_view::npos) return v;
    found = true;
    const uint64_t count = u16(eocd + 10);
    size_t p = u32(eocd + 16);
    for (uint64_t k = 0; k < count && p + 46 <= z.size() && z.compare(p, 4, "PK\x01\x02") == 0; ++k) {
        CdEntry e;
        e.method = static_cast<int>(u16(p + 10));
        e.csize = u32(p + 20);
        e.usize = u32(p + 24);
        const size_t nlen = u16(p + 28), xlen = u16(p + 30), clen = u16(p + 32);
        if (p + 46 + nlen > z.size()) break;
        e.name = std::string(z.substr(p + 46, nlen));
        v.push_back(std::move(e));
        p += 46 + nlen + xlen + clen;
    }
    return v;
}

// ------------------------------------------------------------------------------------------------- zip

struct Member {
    std::string name;
    bool dir = false;
    uint32_t perm = 0644;
    int64_t mtime = 0;
    std::string data;
    bool keep_existing = false;  // from the old archive, untouched
};

struct Zipper {
    Zipper(CommandContext& c, const ArchiveLimits& l) : ctx(c), limits(l) {}
    CommandContext& ctx;
    const ArchiveLimits& limits;
    bool recursive = false, quiet = false, junk = false, no_dirs = false, symlinks = false;
    int level = 6;
    std::vector<Member> members;
    std::map<std::string, size_t> index;
    bool missing = false;
    uint64_t bytes = 0;
    bool too_big = false;
    std::vector<std::string> pending;  // "  adding: ..." lines, printed after the names are all checked

    // The members' contents, held on the session's memory budget until the archive is written.
    interp::MemoryCharge held{ctx.memory};

    void put(Member m, bool from_old) {
        held.add(m.data.size() + m.name.size() + sizeof(Member));
        auto it = index.find(m.name);
        if (!from_old && !quiet) {
            const bool updating = it != index.end();
            std::string how = "stored 0%";
            if (!m.dir && !m.data.empty() && level > 0) {
                uint64_t c = deflated_size(m.data, level, ctx);
                if (c < m.data.size()) how = fmt::format("deflated {}%", percent(m.data.size(), c));
            }
            pending.push_back(fmt::format("{}: {} ({})\n", updating ? "updating" : "  adding", m.name, how));
        }
        if (it != index.end()) {
            members[it->second] = std::move(m);
        } else {
            index[m.name] = members.size();
            members.push_back(std::move(m));
        }
    }

    void add(const std::string& path, const std::string& name) {
        if (ctx.cancelled() || too_big) return;
        auto st = symlinks ? ctx.fs.lstat(path) : ctx.fs.stat(path);
        if (!st) {
            if (!quiet) ctx.out.write(fmt::format("\tzip warning: name not matched: {}\n", name));
            missing = true;
            return;
        }
        Member m;
        m.perm = st->mode & 07777;
        m.mtime = st->mtime.sec;
        std::string n = name;
        while (n.starts_with("./")) n.erase(0, 2);
        while (n.starts_with('/')) n.erase(0, 1);
        if (junk) n = vfs::path_basename(n);
        if (st->is_directory()) {
            if (!junk && !no_dirs && !n.empty() && n != ".") {
                m.name = n.ends_with('/') ? n : n + "/";
                m.dir = true;
                put(std::move(m), false);
            }
            if (!recursive) return;
            auto ents = ctx.fs.readdir(path);
            if (!ents) return;
            std::vector<std::string> names;
            for (auto& d : *ents) names.push_back(d.name);
            std::sort(names.begin(), names.end());
            std::string prefix = name.ends_with('/') ? name : name + "/";
            if (name == ".") prefix.clear();
            for (const auto& c : names) add(vfs::join_path(path, c), prefix + c);
            return;
        }
        m.name = n;
        if (st->is_symlink()) {
            auto t = ctx.fs.readlink(path);
            m.data = t ? *t : "";
            m.perm |= 0120000;
        } else {
            auto data = ctx.fs.read_file(path, limits.max_archive_bytes);
            if (!data) {
                ctx.out.write(fmt::format("\tzip warning: could not open for reading: {}\n", name));
                missing = true;
                return;
            }
            bytes += data->size();
            if (bytes > limits.max_archive_bytes) {
                ctx.err.write(fmt::format("zip error: archive would exceed the limit of {} bytes\n",
                                          limits.max_archive_bytes));
                too_big = true;
                return;
            }
            m.data = std::move(*data);
        }
        put(std::move(m), false);
    }
};

// Reads a whole file of the FileSystem, bounded; prints nothing.
vfs::Errc read_whole(CommandContext& ctx, const std::string& path, uint64_t max, std::string& out) {
    auto d = ctx.fs.read_file(path, max);
    if (!d) return d.error();
    out = std::move(*d);
    return vfs::Errc::ok;
}

// Opens an in-memory zip for reading.
bool open_zip(struct archive* a, const std::string& data) {
    la().archive_read_support_format_zip_seekable(a);
    la().archive_read_support_filter_none(a);
    return la().archive_read_open_memory(a, data.data(), data.size()) == ARCHIVE_OK;
}

}  // namespace

int cmd_zip(CommandContext& ctx, const ArchiveLimits& limits) {
    if (!need_libarchive(ctx, "zip")) return 2;
    Zipper z(ctx, limits);
    std::vector<std::string> operands;
    bool only_operands = false;
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (only_operands || a.size() < 2 || a[0] != '-') {
            operands.push_back(a);
            continue;
        }
        if (a == "--") {
            only_operands = true;
            continue;
        }
        if (a == "--recurse-paths") { z.recursive = true; continue; }
        if (a == "--quiet") { z.quiet = true; continue; }
        if (a == "--junk-paths") { z.junk = true; continue; }
        if (a == "--symlinks") { z.symlinks = true; continue; }
        if (a == "--help" || a == "-h") {
            ctx.out.write("Usage: zip [-rqjyD0-9] zipfile file ...\n");
            return 0;
        }
        for (size_t k = 1; k < a.size(); ++k) {
            char c = a[k];
            switch (c) {
                case 'r': z.recursive = true; break;
                case 'q': z.quiet = true; break;
                case 'j': z.junk = true; break;
                case 'D': z.no_dirs = true; break;
                case 'y': z.symlinks = true; break;
                case 'X': break;
                default:
                    if (c >= '0' && c <= '9') {
                        z.level = c - '0';
                        break;
                    }
                    ctx.out.write(fmt::format("\nzip error: Invalid command arguments (short option '{}' not supported)\n", c));
                    return 16;
            }
        }
    }
    if (operands.empty()) {
        ctx.out.write("\nzip error: Invalid command arguments (nothing to select from)\n");
        return 16;
    }
    std::string zipname = operands[0];
    if (zipname != "-" && vfs::path_basename(zipname).find('.') == std::string::npos) zipname += ".zip";
    operands.erase(operands.begin());
    const std::string zpath = ctx.resolve(zipname);
    // An existing archive is updated: its members are kept, those named again are replaced.
    if (zipname != "-" && ctx.fs.exists(zpath)) {
        std::string old;
        if (auto e = read_whole(ctx, zpath, limits.max_archive_bytes, old); e != vfs::Errc::ok) {
            ctx.out.write(fmt::format("\nzip error: could not open input archive: {}\n", zipname));
            return e == vfs::Errc::file_too_large ? 4 : 2;
        }
        ReadArchive r;
        if (!open_zip(r.a, old)) {
            ctx.out.write(fmt::format("\nzip error: Zip file structure invalid ({})\n", zipname));
            return 3;
        }
        struct archive_entry* e;
        uint64_t total = 0;
        while (la().archive_read_next_header(r.a, &e) == ARCHIVE_OK) {
            Member m;
            m.name = la().archive_entry_pathname(e) ? la().archive_entry_pathname(e) : "";
            m.dir = la().archive_entry_filetype(e) == AE_IFDIR;
            m.perm = la().archive_entry_perm(e) | (la().archive_entry_filetype(e) == AE_IFLNK ? 0120000 : 0);
            m.mtime = la().archive_entry_mtime(e);
            if (la().archive_entry_filetype(e) == AE_IFLNK && la().archive_entry_symlink(e)) m.data = la().archive_entry_symlink(e);
            char buf[65536];
            for (la_ssize_t n; (n = la().archive_read_data(r.a, buf, sizeof buf)) > 0;) {
                total += static_cast<uint64_t>(n);
                if (total > limits.max_expanded_bytes) {
                    ctx.err.write(fmt::format("zip error: archive expands beyond the limit of {} bytes\n",
                                              limits.max_expanded_bytes));
                    return 4;
                }
                m.data.append(buf, static_cast<size_t>(n));
            }
            z.put(std::move(m), true);
        }
    }
    const size_t before = z.members.size();
    for (const auto& op : operands) z.add(ctx.resolve(op), op);
    if (z.too_big) return 4;
    for (const auto& line : z.pending) ctx.out.write(line);
    if (z.members.size() == before && (operands.empty() || z.missing)) {
        bool changed = false;
        (void)changed;
        ctx.out.write(fmt::format("\nzip error: Nothing to do! ({})\n", zipname));
        return 12;
    }
    // The sink and the file outlive the archive: freeing an archive that was not closed (an early return)
    // flushes it through the sink.
    OutputSink sink;
    sink.ctx = &ctx;
    std::unique_ptr<vfs::FileHandle> fh;
    WriteArchive w;
    la().archive_write_set_format_zip(w.a);
    la().archive_write_set_bytes_in_last_block(w.a, 1);  // a zip ends with its directory, unpadded
    std::string tmp;
    if (zipname == "-") {
        sink.stream = &ctx.out;
    } else {
        tmp = vfs::join_path(vfs::path_dirname(zpath), "." + vfs::path_basename(zpath) + ".bkzip");
        (void)ctx.fs.unlink(tmp);
        auto h = ctx.fs.open(tmp, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::exclusive, 0644);
        if (!h) {
            ctx.out.write(fmt::format("\nzip error: Could not create output file ({})\n", zipname));
            return 15;
        }
        fh = std::move(*h);
        sink.file = fh.get();
    }
    bool ok = open_write(w.a, sink) == ARCHIVE_OK;
    for (auto& m : z.members) {
        if (!ok) break;
        if (ctx.cancelled()) {
            ok = false;
            break;
        }
        struct archive_entry* e = la().archive_entry_new();
        la().archive_entry_copy_pathname(e, m.name.c_str());
        la().archive_entry_set_mtime(e, m.mtime, 0);
        if (m.dir) {
            la().archive_entry_set_filetype(e, AE_IFDIR);
            la().archive_entry_set_perm(e, m.perm & 07777);
            la().archive_entry_set_size(e, 0);
        } else if ((m.perm & 0170000) == 0120000) {
            la().archive_entry_set_filetype(e, AE_IFLNK);
            la().archive_entry_set_perm(e, 0777);
            la().archive_entry_copy_symlink(e, m.data.c_str());
            m.data.clear();
        } else {
            la().archive_entry_set_filetype(e, AE_IFREG);
            la().archive_entry_set_perm(e, m.perm & 07777);
            la().archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size()));
        }
        const bool deflate = !m.dir && !m.data.empty() && z.level > 0 && deflated_size(m.data, z.level, ctx) < m.data.size();
        if (deflate) {
            la().archive_write_zip_set_compression_deflate(w.a);
        } else {
            la().archive_write_zip_set_compression_store(w.a);
        }
        ok = la().archive_write_header(w.a, e) >= ARCHIVE_WARN;
        la().archive_entry_free(e);
        if (ok && !m.data.empty()) ok = la().archive_write_data(w.a, m.data.data(), m.data.size()) >= 0;
    }
    if (ok) ok = la().archive_write_close(w.a) == ARCHIVE_OK;
    fh.reset();
    if (!ok) {
        if (!tmp.empty()) (void)ctx.fs.unlink(tmp);
        if (sink.err == EPIPE) return 141;
        ctx.out.write(fmt::format("\nzip error: Output file write failure ({})\n", zipname));
        return 14;
    }
    if (!tmp.empty()) {
        auto st = ctx.fs.rename(tmp, zpath);
        if (!st) {
            (void)ctx.fs.unlink(tmp);
            ctx.out.write(fmt::format("\nzip error: Could not create output file ({})\n", zipname));
            return 15;
        }
    }
    return 0;
}

// ----------------------------------------------------------------------------------------------- unzip

constexpr std::string_view kUnzipUsage =
    "UnZip (bashkit): list or extract files from a ZIP archive\n\n"
    "Usage: unzip [-lqonp] [-d exdir] file[.zip] [list] [-x xlist]\n";

int cmd_unzip(CommandContext& ctx, const ArchiveLimits& limits) {
    if (!need_libarchive(ctx, "unzip")) return 2;
    bool list = false, overwrite = false, never = false, quiet = false, pipe = false;
    std::string dir;
    std::string zipname;
    std::vector<std::string> members, excludes;
    bool in_excludes = false;
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a.size() >= 2 && a[0] == '-') {
            in_excludes = false;
            for (size_t k = 1; k < a.size(); ++k) {
                switch (a[k]) {
                    case 'l': list = true; break;
                    case 'o': overwrite = true; break;
                    case 'n': never = true; break;
                    case 'q': quiet = true; break;
                    case 'p': pipe = true; break;
                    case 'x': in_excludes = true; break;
                    case 'd':
                        if (k + 1 < a.size()) {
                            dir = a.substr(k + 1);
                        } else if (i + 1 < ctx.argv.size()) {
                            dir = ctx.argv[++i];
                        } else {
                            ctx.err.write("error:  must specify directory to which to extract with -d option\n");
                            return 10;
                        }
                        k = a.size();
                        break;
                    default:
                        // Info-ZIP prints its usage on stderr, without naming the option.
                        ctx.err.write(kUnzipUsage);
                        return 10;
                }
            }
            continue;
        }
        if (in_excludes) excludes.push_back(a);
        else if (zipname.empty()) zipname = a;
        else members.push_back(a);
    }
    if (zipname.empty()) {
        // Info-ZIP: the usage on stdout when called bare, on stderr with status 10 when options came.
        if (ctx.argv.size() > 1) {
            ctx.err.write(kUnzipUsage);
            return 10;
        }
        ctx.out.write(kUnzipUsage);
        return 0;
    }
    std::string path = ctx.resolve(zipname), shown = zipname;
    if (!ctx.fs.is_regular_file(path)) {
        for (const char* suf : {".zip", ".ZIP"}) {
            if (ctx.fs.is_regular_file(path + suf)) {
                path += suf;
                shown += suf;
                break;
            }
        }
    }
    std::string data;
    if (auto e = read_whole(ctx, path, limits.max_archive_bytes, data); e != vfs::Errc::ok) {
        if (e == vfs::Errc::file_too_large)
            ctx.err.write(fmt::format("unzip:  {} is larger than the limit of {} bytes\n", zipname,
                                      limits.max_archive_bytes));
        else
            ctx.err.write(fmt::format("unzip:  cannot find or open {0}, {0}.zip or {0}.ZIP.\n", zipname));
        return 9;
    }
    interp::MemoryCharge held(ctx.memory);  // the archive, read whole
    held.add(data.size());
    interp::ByteStream& msg = pipe ? ctx.err : ctx.out;
    if (!quiet && !pipe) msg.write(fmt::format("Archive:  {}\n", shown));
    bool found = false;
    auto cd = central_directory(data, found);
    if (!found) {
        ctx.err.write(fmt::format("  End-of-central-directory signature not found.  Either this file is not\n"
                                  "  a zipfile, or it constitutes one disk of a multi-part archive.  In the\n"
                                  "  latter case the central directory and zipfile comment will be found on\n"
                                  "  the last disk(s) of this archive.\n"
                                  "unzip:  cannot find zipfile directory in one of {0} or\n"
                                  "        {0}.zip, and cannot find {0}.ZIP, period.\n", zipname));
        return 9;
    }
    std::map<std::string, int> methods;
    for (const auto& c : cd) methods[c.name] = c.method;
    std::vector<bool> seen(members.size(), false);
    auto wanted = [&](const std::string& name) {
        for (const auto& x : excludes)
            if (fnmatch(x.c_str(), name.c_str(), 0) == 0) return false;
        if (members.empty()) return true;
        bool any = false;
        for (size_t i = 0; i < members.size(); ++i)
            if (fnmatch(members[i].c_str(), name.c_str(), 0) == 0) any = seen[i] = true;
        return any;
    };
    ReadArchive r;
    if (!open_zip(r.a, data)) {
        ctx.err.write(fmt::format("unzip:  {}: {}\n", zipname, la().archive_error_string(r.a) ? la().archive_error_string(r.a) : "bad zipfile"));
        return 9;
    }
    int status = 0;
    Extractor x(ctx, limits, "unzip", dir.empty() ? ctx.cwd : ctx.resolve(dir));
    x.to_stdout = pipe;
    if (list) {
        ctx.out.write("  Length      Date    Time    Name\n---------  ---------- -----   ----\n");
    } else if (!pipe) {
        if (!dir.empty() && !ctx.fs.exists(x.root())) (void)ctx.fs.mkdir_all(x.root());
        if (!x.prepare()) return 1;
    }
    uint64_t total = 0, count = 0;
    bool all = overwrite, none = never;
    struct archive_entry* e;
    for (;;) {
        if (ctx.cancelled()) {
            ctx.err.write("unzip: Operation canceled\n");
            return 130;
        }
        int rc = la().archive_read_next_header(r.a, &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            ctx.err.write(fmt::format("unzip:  {}: {}\n", zipname, la().archive_error_string(r.a) ? la().archive_error_string(r.a) : "bad zipfile"));
            status = 2;
            break;
        }
        if (!x.count_entry()) return 2;
        const std::string raw = la().archive_entry_pathname(e) ? la().archive_entry_pathname(e) : "";
        if (!wanted(raw)) continue;
        if (list) {
            const uint64_t size = la().archive_entry_size_is_set(e) ? static_cast<uint64_t>(la().archive_entry_size(e)) : 0;
            ctx.out.write(fmt::format("{:>9}  {}   {}\n", size, format_time(ctx, la().archive_entry_mtime(e)), raw));
            total += size;
            ++count;
            continue;
        }
        SafeName sn = safe_name(raw);
        if (sn.stripped_slash && !quiet)
            msg.write(fmt::format("warning:  stripped absolute path spec from {}\n", raw));
        if (sn.has_dotdot) {
            ctx.err.write(fmt::format("error:  {}: refusing to extract a name containing \"..\"\n", raw));
            status = std::max(status, 1);
            continue;
        }
        if (sn.name.empty()) continue;
        const bool is_dir = la().archive_entry_filetype(e) == AE_IFDIR;
        const std::string shown_name = dir.empty() ? sn.name : vfs::join_path(dir, sn.name);
        const std::string target = vfs::join_path(x.root(), sn.name);
        x.skip_existing = false;
        if (!pipe && !is_dir && ctx.fs.lexists(target)) {
            bool replace = all;
            if (!all && !none) {
                // Info-ZIP asks on stderr.
                ctx.err.write(fmt::format("replace {}? [y]es, [n]o, [A]ll, [N]one, [r]ename: ", shown_name));
                std::string answer;
                auto rr = ctx.in.read_until('\n', answer);
                if (answer.empty() || !rr.ok()) {
                    ctx.err.write(" NULL\n(EOF or read error, treating as \"[N]one\" ...)\n");
                    none = true;
                    status = std::max(status, 1);
                } else if (answer[0] == 'y') {
                    replace = true;
                } else if (answer[0] == 'A') {
                    replace = all = true;
                } else if (answer[0] == 'N') {
                    none = true;
                }
            }
            if (!replace) continue;
        }
        if (!quiet && !pipe) {
            if (is_dir) {
                msg.write(fmt::format("   creating: {}/\n", shown_name));
            } else {
                auto m = methods.find(raw);
                const bool stored = m == methods.end() || m->second == 0;
                const char* verb = la().archive_entry_filetype(e) == AE_IFLNK ? "    linking"
                                   : stored                              ? " extracting"
                                                                         : "  inflating";
                std::string line = fmt::format("{}: {:<22}  ", verb, shown_name);
                if (la().archive_entry_filetype(e) == AE_IFLNK)
                    line = fmt::format("{}: {:<22}  -> {} ", verb, shown_name,
                                       la().archive_entry_symlink(e) ? la().archive_entry_symlink(e) : "");
                msg.write(line + "\n");
            }
        }
        auto outcome = x.extract(r.a, e, sn.name);
        if (outcome == Extractor::Outcome::fatal) {
            (void)x.finish();
            return 2;
        }
        if (outcome == Extractor::Outcome::skipped) status = std::max(status, 1);
    }
    if (!x.finish()) status = std::max(status, 1);
    if (list) {
        ctx.out.write(fmt::format("---------                     -------\n{:>9}                     {} file{}\n",
                                  total, count, count == 1 ? "" : "s"));
    }
    for (size_t i = 0; i < members.size(); ++i) {
        if (!seen[i]) {
            ctx.err.write(fmt::format("caution: filename not matched:  {}\n", members[i]));
            status = std::max(status, 11);
        }
    }
    return status;
}

}  // namespace bashkit::utils::archive
