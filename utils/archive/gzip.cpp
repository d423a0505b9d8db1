// gzip, gunzip, zcat through zlib, with GNU gzip's options and messages. Compressed files carry the
// original name and mtime (unless -n); decompression handles concatenated members and is bounded by
// ArchiveLimits::max_expanded_bytes. A file result is written under a temporary name and renamed into
// place when complete, so a failure never leaves a partial file.
#include <zlib.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "utils/archive/common.hpp"
#include "utils/archive/tools.hpp"
#include "utils/common/args.hpp"
#include "utils/system/tools.hpp"

namespace bashkit::utils::archive {

namespace {

struct GzOptions {
    bool decompress = false, to_stdout = false, force = false, keep = false, list = false, test = false;
    bool quiet = false, verbose = false, no_name = false, name = false, recursive = false;
    int level = 6;
    std::string suffix = ".gz";
};

struct Gz {
    CommandContext& ctx;
    const ArchiveLimits& limits;
    GzOptions o;
    std::string prog = "gzip";
    int status = 0;
    bool listed_header = false;
    uint64_t total_in = 0, total_out = 0;
    int listed = 0;
    // The last compression or decompression, for -v: compressed bytes, uncompressed bytes, and the gzip
    // header and trailer bytes among the compressed ones (GNU's header_bytes).
    uint64_t v_packed_ = 0, v_plain_ = 0, v_hdr_ = 0;

    // GNU gzip starts the messages about bad compressed data on a new line.
    void err(std::string_view msg, bool newline_first = false) {
        ctx.err.write(fmt::format("{}{}: {}\n", newline_first ? "\n" : "", prog, msg));
    }
    void warn(int st) {
        if (status < st) status = st;
    }

    // --------------------------------------------------------------------------------- compress

    // Compresses `in` to `out`; false on error (message printed).
    bool compress(text::Input& in, interp::ByteStream* out_stream, vfs::FileHandle* out_file,
                  const std::string& name, const std::string& base, int64_t mtime) {
        z_stream zs{};
        if (deflateInit2(&zs, o.level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            err("out of memory");
            return false;
        }
        gz_header hdr{};
        std::string hname = base;
        hdr.os = 3;
        if (!o.no_name) {
            hdr.time = static_cast<uLong>(mtime > 0 ? mtime : 0);
            if (!hname.empty()) hdr.name = reinterpret_cast<Bytef*>(hname.data());
        }
        deflateSetHeader(&zs, &hdr);
        std::string ibuf(64 * 1024, '\0'), obuf(64 * 1024, '\0');
        bool ok = true;
        auto emit = [&](size_t n) -> bool {
            std::string_view bytes(obuf.data(), n);
            if (out_file) {
                auto r = out_file->write(bytes);
                if (!r) {
                    err(fmt::format("{}: {}", name, vfs::error_message(r.error())));
                    return false;
                }
            } else {
                auto r = out_stream->write(bytes);
                if (!r.ok()) {
                    if (r.err == EPIPE) status = 141;
                    else err("stdout: write error");
                    return false;
                }
            }
            return true;
        };
        for (bool eof = false; ok && !eof;) {
            if (ctx.cancelled()) {
                err("Operation canceled");
                ok = false;
                break;
            }
            auto r = in.read(ibuf.data(), ibuf.size());
            if (r.err != vfs::Errc::ok) {
                err(fmt::format("{}: {}", name, vfs::error_message(r.err)));
                ok = false;
                break;
            }
            eof = r.n == 0;
            zs.next_in = reinterpret_cast<Bytef*>(ibuf.data());
            zs.avail_in = static_cast<uInt>(r.n);
            do {
                zs.next_out = reinterpret_cast<Bytef*>(obuf.data());
                zs.avail_out = static_cast<uInt>(obuf.size());
                deflate(&zs, eof ? Z_FINISH : Z_NO_FLUSH);
                size_t have = obuf.size() - zs.avail_out;
                if (have && !emit(have)) {
                    ok = false;
                    break;
                }
            } while (zs.avail_out == 0);
        }
        v_plain_ = zs.total_in;
        v_packed_ = zs.total_out;
        v_hdr_ = 10 + (hdr.name ? hname.size() + 1 : 0) + 8;
        deflateEnd(&zs);
        return ok;
    }

    // The size of the gzip member header at p[0..n) (10 when it cannot be read whole).
    static size_t header_size(const char* p, size_t n) {
        auto u8 = [&](size_t i) { return static_cast<unsigned char>(p[i]); };
        if (n < 10) return 10;
        size_t h = 10;
        const int flags = u8(3);
        if (flags & 4) {
            if (n < 12) return 10;
            h += 2 + (u8(10) | (u8(11) << 8));
        }
        for (int bit : {8, 16}) {
            if (!(flags & bit)) continue;
            const void* z = h < n ? std::memchr(p + h, 0, n - h) : nullptr;
            if (!z) return 10;
            h = static_cast<size_t>(static_cast<const char*>(z) - p) + 1;
        }
        if (flags & 2) h += 2;
        return h;
    }

    // ------------------------------------------------------------------------------- decompress

    enum class Inflate { ok, not_gzip, corrupt, crc, truncated, limit, io, cancelled, trailing };

    // Decompresses every member of `in`; the output goes to out_stream or out_file.
    Inflate decompress(text::Input& in, interp::ByteStream* out_stream, vfs::FileHandle* out_file,
                       std::string* msg) {
        z_stream zs{};
        if (inflateInit2(&zs, 15 + 16) != Z_OK) return Inflate::io;
        v_packed_ = v_plain_ = 0;
        v_hdr_ = 18;
        std::string ibuf(64 * 1024, '\0'), obuf(64 * 1024, '\0');
        uint64_t produced = 0;
        bool in_member = false, any_member = false, eof = false, any_input = false;
        Inflate result = Inflate::ok;
        size_t avail = 0;
        const char* next = nullptr;
        auto fill = [&]() -> bool {
            auto r = in.read(ibuf.data(), ibuf.size());
            if (r.err != vfs::Errc::ok) {
                *msg = std::string(vfs::error_message(r.err));
                return false;
            }
            eof = r.n == 0;
            avail = r.n;
            next = ibuf.data();
            return true;
        };
        for (;;) {
            if (ctx.cancelled()) {
                result = Inflate::cancelled;
                break;
            }
            if (avail == 0 && !eof && !fill()) {
                result = Inflate::io;
                break;
            }
            if (!in_member) {
                if (avail == 0 && eof) {
                    if (!any_member && !(o.force && out_stream))  // -f to stdout: empty input copies as empty
                        result = any_input ? Inflate::not_gzip : Inflate::truncated;
                    break;
                }
                any_input = true;
                // A new member must start with the magic bytes; anything else after a member is trailing
                // garbage (zeros are allowed silently, as GNU gzip does for tape padding).
                if (static_cast<unsigned char>(next[0]) != 0x1f ||
                    (avail > 1 && static_cast<unsigned char>(next[1]) != 0x8b)) {
                    if (!any_member) {
                        // -f to stdout copies what is not gzip data unchanged (GNU's cat mode).
                        if (o.force && out_stream) {
                            for (;;) {
                                if (avail) {
                                    auto r = out_stream->write(std::string_view(next, avail));
                                    if (!r.ok()) {
                                        if (r.err == EPIPE) status = 141;
                                        result = Inflate::io;
                                        break;
                                    }
                                    produced += avail;
                                }
                                avail = 0;
                                if (eof || !fill() || avail == 0) break;
                            }
                            break;
                        }
                        result = Inflate::not_gzip;
                        break;
                    }
                    bool zeros = true;
                    for (;;) {
                        for (size_t i = 0; i < avail; ++i) zeros = zeros && next[i] == 0;
                        avail = 0;
                        if (eof || !fill() || avail == 0) break;
                    }
                    if (!zeros) result = Inflate::trailing;
                    break;
                }
                inflateReset(&zs);
                in_member = true;
                any_member = true;
                v_hdr_ = header_size(next, avail) + 8;
            }
            zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(next));
            zs.avail_in = static_cast<uInt>(avail);
            zs.next_out = reinterpret_cast<Bytef*>(obuf.data());
            zs.avail_out = static_cast<uInt>(obuf.size());
            int rc = inflate(&zs, Z_NO_FLUSH);
            size_t consumed = avail - zs.avail_in;
            v_packed_ += consumed;
            next += consumed;
            avail -= consumed;
            size_t have = obuf.size() - zs.avail_out;
            if (have) {
                if (produced + have > limits.max_expanded_bytes) {
                    result = Inflate::limit;
                    break;
                }
                produced += have;
                std::string_view bytes(obuf.data(), have);
                if (out_file) {
                    auto r = out_file->write(bytes);
                    if (!r) {
                        *msg = std::string(vfs::error_message(r.error()));
                        result = Inflate::io;
                        break;
                    }
                } else if (out_stream) {
                    auto r = out_stream->write(bytes);
                    if (!r.ok()) {
                        if (r.err == EPIPE) status = 141;
                        *msg = "write error";
                        result = Inflate::io;
                        break;
                    }
                }
            }
            if (rc == Z_STREAM_END) {
                in_member = false;
                continue;
            }
            if (rc == Z_DATA_ERROR) {
                result = (zs.msg && std::strstr(zs.msg, "check")) ? Inflate::crc : Inflate::corrupt;
                if (any_member && produced == 0 && zs.total_out == 0 && zs.msg &&
                    std::strstr(zs.msg, "header"))
                    result = Inflate::not_gzip;
                break;
            }
            if (rc != Z_OK && rc != Z_BUF_ERROR) {
                result = Inflate::corrupt;
                break;
            }
            if (avail == 0 && eof && in_member && have == 0) {
                result = Inflate::truncated;
                break;
            }
        }
        v_plain_ = produced;
        inflateEnd(&zs);
        return result;
    }

    // Reports a decompression result for `name`; true when the output is good.
    bool report(Inflate r, const std::string& name, const std::string& msg) {
        switch (r) {
            case Inflate::ok: return true;
            case Inflate::trailing:
                if (!o.quiet) err(fmt::format("{}: decompression OK, trailing garbage ignored", name), true);
                warn(2);
                return true;
            case Inflate::not_gzip: err(fmt::format("{}: not in gzip format", name), true); break;
            case Inflate::corrupt: err(fmt::format("{}: invalid compressed data--format violated", name), true); break;
            case Inflate::crc: err(fmt::format("{}: invalid compressed data--crc error", name), true); break;
            case Inflate::truncated: err(fmt::format("{}: unexpected end of file", name), true); break;
            case Inflate::limit:
                err(fmt::format("{}: expands beyond the limit of {} bytes", name, limits.max_expanded_bytes));
                break;
            case Inflate::io:
                if (status != 141) err(fmt::format("{}: {}", name, msg));
                break;
            case Inflate::cancelled: err("Operation canceled"); break;
        }
        warn(1);
        return false;
    }

    // ------------------------------------------------------------------------------------- list

    void list_one(const std::string& name, const std::string& shown) {
        auto data = ctx.fs.read_file(ctx.resolve(name), limits.max_archive_bytes);
        std::string d;
        if (name == "-") {
            text::Input in;
            in.open_stdin(ctx);
            (void)text::read_all(ctx, in, d);
        } else if (!data) {
            err(fmt::format("{}: {}", name, vfs::error_message(data.error())));
            warn(1);
            return;
        } else {
            d = std::move(*data);
        }
        interp::MemoryCharge held(ctx.memory);  // gzip -l reads the stream whole
        held.add(d.size());
        auto u8 = [&](size_t i) { return static_cast<unsigned char>(d[i]); };
        if (d.size() < 18 || u8(0) != 0x1f || u8(1) != 0x8b) {
            err(fmt::format("{}: not in gzip format", name), true);
            warn(1);
            return;
        }
        size_t hdr = 10;
        const int flags = u8(3);
        if (flags & 4) hdr += 2 + (u8(10) | (u8(11) << 8));
        if (flags & 8) hdr = d.find('\0', hdr) + 1;
        if (flags & 16) hdr = d.find('\0', hdr) + 1;
        if (flags & 2) hdr += 2;
        const uint64_t csize = d.size();
        const size_t n = d.size();
        const uint64_t usize = u8(n - 4) | (u8(n - 3) << 8) | (u8(n - 2) << 16) | (uint64_t{u8(n - 1)} << 24);
        if (!listed_header) {
            if (o.verbose) ctx.out.write("method  crc     date  time  ");
            ctx.out.write("         compressed        uncompressed  ratio uncompressed_name\n");
            listed_header = true;
        }
        if (o.verbose) {
            // -lv: the method, the CRC of the trailer and the header's time (the file's when it has none).
            const uint32_t crc = u8(n - 8) | (u8(n - 7) << 8) | (u8(n - 6) << 16) | (uint32_t{u8(n - 5)} << 24);
            int64_t mtime = u8(4) | (u8(5) << 8) | (u8(6) << 16) | (int64_t{u8(7)} << 24);
            if (mtime == 0 && name != "-") {
                if (auto st = ctx.fs.stat(ctx.resolve(name))) mtime = st->mtime.sec;
            }
            auto tz = systemutil::TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
            ctx.out.write(fmt::format("{:>5} {:08x} {} ", u8(2) == 8 ? "defla" : "?",
                                      crc, systemutil::format_time("%b %e %H:%M", tz.local(mtime))));
        }
        const int64_t cdata = static_cast<int64_t>(csize) - static_cast<int64_t>(hdr) - 8;
        ctx.out.write(fmt::format("{:>19} {:>19} {} {}\n", csize, usize, ratio(usize, cdata), shown));
        total_in += csize;
        total_out += usize;
        last_hdr_ = hdr + 8;
        ++listed;
    }
    uint64_t last_hdr_ = 0;  // GNU's totals line subtracts the last member's header only

    static std::string ratio(uint64_t usize, int64_t cdata) {
        double r = usize == 0 ? 0.0 : 100.0 * (static_cast<double>(usize) - static_cast<double>(cdata)) /
                                          static_cast<double>(usize);
        return fmt::format("{:5.1f}%", r);
    }

    // ------------------------------------------------------------------------------------ files

    static bool strip_suffix(const std::string& base, const std::string& suffix, std::string& out) {
        static const char* const known[] = {".gz", "-gz", ".z", "-z", "_z", ".tgz", ".taz"};
        if (!suffix.empty() && base.size() > suffix.size() && base.ends_with(suffix)) {
            out = base.substr(0, base.size() - suffix.size());
            return true;
        }
        for (const char* s : known) {
            std::string_view sv(s);
            if (base.size() > sv.size() && base.ends_with(sv)) {
                out = base.substr(0, base.size() - sv.size());
                if (sv == ".tgz" || sv == ".taz") out += ".tar";
                return true;
            }
        }
        return false;
    }

    void one(const std::string& given) {
        if (ctx.cancelled()) return;
        const bool is_stdin = given == "-";
        std::string name = given;
        // gunzip NAME finds NAME.gz (and the other known suffixes) when NAME itself is missing, as GNU does.
        if (o.decompress && !is_stdin && !ctx.fs.lexists(ctx.resolve(name))) {
            for (const std::string& suf : {o.suffix, std::string(".gz"), std::string("-gz"), std::string(".z"),
                                           std::string("-z"), std::string("_z")}) {
                if (!suf.empty() && ctx.fs.lexists(ctx.resolve(name + suf))) {
                    name += suf;
                    break;
                }
            }
        }
        if (o.list) {
            std::string shown = "stdout";
            if (!is_stdin) {
                std::string base = name;
                if (!strip_suffix(name, o.suffix, shown)) shown = name;
                (void)base;
            }
            list_one(name, shown);
            return;
        }
        text::Input in;
        vfs::Stat st{};
        const std::string path = is_stdin ? "" : ctx.resolve(name);
        // The interpreter's devices (/dev/zero, /dev/stdin, ...) are streams, not files of the FileSystem.
        const bool device = !is_stdin && path.starts_with("/dev/") && !ctx.fs.lexists(path);
        if (is_stdin) {
            in.open_stdin(ctx);
        } else if (device) {
            if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
                err(fmt::format("{}: {}", name, vfs::error_message(e)));
                warn(1);
                return;
            }
        } else {
            auto s = ctx.fs.lstat(path);
            if (!s) {
                err(fmt::format("{}: {}", name, vfs::error_message(s.error())));
                warn(1);
                return;
            }
            if (s->is_symlink() && !o.force && !o.to_stdout) {
                err(fmt::format("{}: Too many levels of symbolic links", name));
                warn(1);
                return;
            }
            auto fs2 = ctx.fs.stat(path);
            if (!fs2) {
                err(fmt::format("{}: {}", name, vfs::error_message(fs2.error())));
                warn(1);
                return;
            }
            st = *fs2;
            if (st.is_directory()) {
                if (o.recursive) {
                    auto entries = ctx.fs.readdir(path);
                    if (!entries) {
                        err(fmt::format("{}: {}", name, vfs::error_message(entries.error())));
                        warn(1);
                        return;
                    }
                    std::vector<std::string> names;
                    for (const auto& e : *entries) names.push_back(e.name);
                    std::sort(names.begin(), names.end());
                    for (const auto& n : names) one(vfs::join_path(name, n));
                    return;
                }
                if (!o.quiet) err(fmt::format("{} is a directory -- ignored", name));
                warn(2);
                return;
            }
            if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
                err(fmt::format("{}: {}", name, vfs::error_message(e)));
                warn(1);
                return;
            }
        }
        const std::string shown = is_stdin ? "stdin" : name;
        // Where the result goes.
        const bool to_stdout = o.to_stdout || is_stdin || o.test || device;
        std::string target;
        if (!to_stdout && o.decompress && !is_stdin) {
            // GNU gzip looks at the input before the output name: a file that is not gzip says so.
            char magic[2] = {0, 0};
            auto h = ctx.fs.open_read(path);
            size_t got = 0;
            if (h) {
                auto r = (*h)->read(magic, 2);
                got = r ? *r : 0;
            }
            std::string stripped;
            if (strip_suffix(name, o.suffix, stripped) &&
                (got < 2 || static_cast<unsigned char>(magic[0]) != 0x1f || static_cast<unsigned char>(magic[1]) != 0x8b)) {
                report(got == 0 ? Inflate::truncated : Inflate::not_gzip, name, "");
                return;
            }
        }
        if (!to_stdout) {
            if (o.decompress) {
                if (!strip_suffix(name, o.suffix, target)) {
                    if (o.recursive) return;  // -r passes over such files silently
                    if (!o.quiet) err(fmt::format("{}: unknown suffix -- ignored", name));
                    warn(2);
                    return;
                }
            } else {
                if (name.ends_with(o.suffix) && !o.force) {
                    if (!o.quiet && !o.recursive) err(fmt::format("{} already has {} suffix -- unchanged", name, o.suffix));
                    return;
                }
                target = name + o.suffix;
            }
            if (ctx.fs.lexists(ctx.resolve(target)) && !o.force) {
                err(fmt::format("{} already exists;\tnot overwritten", target));
                warn(2);
                return;
            }
        }
        std::unique_ptr<vfs::FileHandle> fh;
        std::string tmp;
        if (!to_stdout) {
            const std::string tpath = ctx.resolve(target);
            tmp = vfs::join_path(vfs::path_dirname(tpath), "." + vfs::path_basename(tpath) + ".bkgz");
            (void)ctx.fs.unlink(tmp);
            auto h = ctx.fs.open(tmp, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::exclusive, 0600);
            if (!h) {
                err(fmt::format("{}: {}", target, vfs::error_message(h.error())));
                warn(1);
                return;
            }
            fh = std::move(*h);
        }
        interp::NullStream null;
        interp::ByteStream* out_stream = o.test ? static_cast<interp::ByteStream*>(&null) : &ctx.out;
        bool ok;
        if (o.decompress) {
            std::string msg;
            auto r = decompress(in, to_stdout ? out_stream : nullptr, fh.get(), &msg);
            ok = report(r, shown, msg);
        } else {
            ok = compress(in, out_stream, fh.get(), shown, is_stdin ? "" : vfs::path_basename(name),
                          is_stdin ? 0 : st.mtime.sec);
            if (!ok) warn(1);
        }
        // -v: GNU's "NAME:\t RATIO -- replaced with TARGET" (" OK" when testing); for stdin only the ratio of a
        // compression.
        auto verbose_line = [&](const std::string& dest) {
            if (!o.verbose || o.quiet || !ok) return;
            const std::string r = ratio(v_plain_, static_cast<int64_t>(v_packed_) - static_cast<int64_t>(v_hdr_));
            if (is_stdin) {
                if (o.test) ctx.err.write(" OK\n");
                else if (!o.decompress) ctx.err.write(r + "\n");
                return;
            }
            if (o.test) {
                ctx.err.write(fmt::format("{}:\t OK\n", name));
                return;
            }
            ctx.err.write(fmt::format("{}:\t{} -- {} {}\n", name, r, o.keep ? "created" : "replaced with", dest));
        };
        if (to_stdout) {
            verbose_line("stdout");
            return;
        }
        fh.reset();
        if (!ok) {
            (void)ctx.fs.unlink(tmp);
            return;
        }
        (void)ctx.fs.chmod(tmp, st.mode & 07777);
        (void)ctx.fs.utimes(tmp, vfs::TimeSet::at(st.atime), vfs::TimeSet::at(st.mtime));
        auto rn = ctx.fs.rename(tmp, ctx.resolve(target));
        if (!rn) {
            (void)ctx.fs.unlink(tmp);
            err(fmt::format("{}: {}", target, vfs::error_message(rn.error())));
            warn(1);
            return;
        }
        verbose_line(target);
        if (!o.keep) (void)ctx.fs.unlink(path);
    }
};

}  // namespace

int cmd_gzip(CommandContext& ctx, const ArchiveLimits& limits) {
    Gz g{ctx, limits, {}};
    const std::string argv0 = vfs::path_basename(ctx.argv[0]);
    g.prog = "gzip";
    if (argv0 == "gunzip") g.o.decompress = true;
    if (argv0 == "zcat") g.o.decompress = g.o.to_stdout = true;
    constexpr OptionSpec kSpecs[] = {
        {'c', 'c', "stdout"},     {'c', 'c', "to-stdout"}, {'d', 'd', "decompress"}, {'d', 'd', "uncompress"},
        {'f', 'f', "force"},      {'k', 'k', "keep"},      {'l', 'l', "list"},       {'n', 'n', "no-name"},
        {'N', 'N', "name"},       {'q', 'q', "quiet"},     {'r', 'r', "recursive"},  {'t', 't', "test"},
        {'v', 'v', "verbose"},    {'S', 'S', "suffix", ArgKind::required},
        {'1', '1', "fast"},       {'9', '9', "best"},      {'2', '2'}, {'3', '3'}, {'4', '4'}, {'5', '5'},
        {'6', '6'},               {'7', '7'},              {'8', '8'},
        {kOptHelp, 0, "help"},    {kOptVersion, 'V', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, kSpecs);
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'c': g.o.to_stdout = true; break;
            case 'd': g.o.decompress = true; break;
            case 'f': g.o.force = true; break;
            case 'k': g.o.keep = true; break;
            case 'l': g.o.list = true; break;
            case 'n': g.o.no_name = true; break;
            case 'N': g.o.name = true; break;
            case 'q': g.o.quiet = true; break;
            case 'r': g.o.recursive = true; break;
            case 't': g.o.test = g.o.decompress = true; break;
            case 'v': g.o.verbose = true; break;
            case 'S': g.o.suffix = opt.value; break;
            case kOptHelp:
                ctx.out.write(fmt::format("Usage: {} [OPTION]... [FILE]...\nCompress or uncompress FILEs (by default, "
                                          "compress FILES in-place).\n", argv0));
                return 0;
            case kOptVersion: ctx.out.write("gzip (bashkit) 1.0\n"); return 0;
            default:
                if (opt.id >= '1' && opt.id <= '9') g.o.level = opt.id - '0';
                break;
        }
    }
    if (!p.ok()) {
        ctx.err.write(fmt::format("{}: {}\n", g.prog, p.error));
        ctx.err.write(fmt::format("Try `{} --help' for more information.\n", g.prog));
        return 1;
    }
    std::vector<std::string> files = p.operands;
    if (files.empty()) files.push_back("-");
    if (!g.o.decompress && !g.o.to_stdout && !g.o.list && files.size() == 1 && files[0] == "-") {
        // gzip < file > out: stdin to stdout.
    }
    for (const auto& f : files) {
        if (ctx.cancelled()) break;
        g.one(f);
        if (g.status == 141) return 141;
    }
    if (g.o.list && g.listed > 1) {
        const int64_t cdata = static_cast<int64_t>(g.total_in) - static_cast<int64_t>(g.last_hdr_);
        if (g.o.verbose) ctx.out.write(std::string(28, ' '));
        ctx.out.write(fmt::format("{:>19} {:>19} {} (totals)\n", g.total_in, g.total_out,
                                  Gz::ratio(g.total_out, cdata)));
    }
    return g.status;
}

}  // namespace bashkit::utils::archive
