// bzip2, bunzip2, bzcat, xz, unxz, xzcat through libarchive's bzip2 and xz filters over its raw format (the
// same libbz2 and liblzma settings as the real tools, so the bytes match). Files are compressed to NAME.bz2 /
// NAME.xz and the original removed (unless -k), or decompressed back; without files stdin goes to stdout.
// Decompression is bounded by ArchiveLimits::max_expanded_bytes.
#include <archive.h>
#include <archive_entry.h>

#include <string>
#include <vector>

#include "utils/archive/common.hpp"
#include "utils/archive/tools.hpp"
#include "utils/common/args.hpp"

#define BASHKIT_LIBARCHIVE_RAW_FUNCTIONS(X) \
    X(archive_write_set_format_raw) X(archive_read_support_format_raw) X(archive_write_set_filter_option) \
    X(archive_read_support_filter_bzip2) X(archive_read_support_filter_xz)

namespace bashkit::utils::archive {

namespace {

struct RawApi {
    BASHKIT_LIBARCHIVE_RAW_FUNCTIONS(BASHKIT_API_MEMBER)
};
BASHKIT_DEFINE_API(RawApi, raw_api, BASHKIT_SONAME_LIBARCHIVE, BASHKIT_LIBARCHIVE_RAW_FUNCTIONS)

struct Tool {
    bool xz = false;
    std::string prog;
    bool decompress = false, to_stdout = false, keep = false, force = false, test = false, quiet = false;
    int level = -1;
    int status = 0;
};

std::string_view suffix(const Tool& t) { return t.xz ? ".xz" : ".bz2"; }

// Streams `in` through the filter into `sink`; false with *why set on error.
bool compress_stream(CommandContext& ctx, const Tool& t, text::Input& in, OutputSink& sink, std::string& why) {
    WriteArchive w;
    const auto& l = la();
    const RawApi* raw = raw_api(nullptr);
    if (t.xz) l.archive_write_add_filter_xz(w.a);
    else l.archive_write_add_filter_bzip2(w.a);
    raw->archive_write_set_format_raw(w.a);
    const int level = t.level >= 0 ? t.level : (t.xz ? 6 : 9);
    raw->archive_write_set_filter_option(w.a, nullptr, "compression-level", std::to_string(level).c_str());
    l.archive_write_set_bytes_in_last_block(w.a, 1);
    if (open_write(w.a, sink) != ARCHIVE_OK) {
        why = l.archive_error_string(w.a) ? l.archive_error_string(w.a) : "cannot write";
        return false;
    }
    struct archive_entry* e = l.archive_entry_new();
    l.archive_entry_set_filetype(e, AE_IFREG);
    l.archive_entry_copy_pathname(e, "data");
    const int hr = l.archive_write_header(w.a, e);
    l.archive_entry_free(e);
    if (hr != ARCHIVE_OK) {
        why = l.archive_error_string(w.a) ? l.archive_error_string(w.a) : "cannot write";
        return false;
    }
    std::vector<char> buf(64 * 1024);
    for (;;) {
        if (ctx.cancelled()) {
            why = "Operation canceled";
            return false;
        }
        auto r = in.read(buf.data(), buf.size());
        if (r.err != vfs::Errc::ok) {
            why = std::string(vfs::error_message(r.err));
            return false;
        }
        if (r.n == 0) break;
        if (l.archive_write_data(w.a, buf.data(), r.n) < 0) {
            why = l.archive_error_string(w.a) ? l.archive_error_string(w.a) : "write error";
            return false;
        }
    }
    if (l.archive_write_close(w.a) != ARCHIVE_OK) {
        why = l.archive_error_string(w.a) ? l.archive_error_string(w.a) : "write error";
        return false;
    }
    return true;
}

enum class Dec { ok, not_compressed, corrupt, too_big, io };

Dec decompress_stream(CommandContext& ctx, const Tool& t, const ArchiveLimits& limits, InputSource& src,
                      interp::ByteStream* out, vfs::FileHandle* file, std::string& why) {
    ReadArchive r;
    const auto& l = la();
    const RawApi* raw = raw_api(nullptr);
    if (t.xz) raw->archive_read_support_filter_xz(r.a);
    else raw->archive_read_support_filter_bzip2(r.a);
    l.archive_read_support_filter_none(r.a);
    raw->archive_read_support_format_raw(r.a);
    if (open_read(r.a, src) != ARCHIVE_OK) {
        if (src.err != vfs::Errc::ok) {
            why = std::string(vfs::error_message(src.err));
            return Dec::io;
        }
        return Dec::not_compressed;
    }
    struct archive_entry* e = nullptr;
    if (l.archive_read_next_header(r.a, &e) != ARCHIVE_OK) return Dec::not_compressed;
    if (l.archive_filter_code(r.a, 0) == ARCHIVE_FILTER_NONE) return Dec::not_compressed;
    std::vector<char> buf(64 * 1024);
    uint64_t total = 0;
    for (;;) {
        if (ctx.cancelled()) {
            why = "Operation canceled";
            return Dec::io;
        }
        const la_ssize_t n = l.archive_read_data(r.a, buf.data(), buf.size());
        if (n < 0) {
            why = l.archive_error_string(r.a) ? l.archive_error_string(r.a) : "corrupt";
            return Dec::corrupt;
        }
        if (n == 0) break;
        total += static_cast<uint64_t>(n);
        if (total > limits.max_expanded_bytes) return Dec::too_big;
        if (t.test) continue;
        const std::string_view chunk(buf.data(), static_cast<size_t>(n));
        if (file) {
            auto w = file->write(chunk);
            if (!w.ok()) {
                why = std::string(vfs::error_message(w.error()));
                return Dec::io;
            }
        } else if (out) {
            auto w = out->write(chunk);
            if (w.err) {
                why = "write error";
                return Dec::io;
            }
        }
    }
    return Dec::ok;
}

void report(Tool& t, CommandContext& ctx, const std::string& msg, int st) {
    if (!t.quiet || st > 1) (void)ctx.err.write(t.prog + ": " + msg + "\n");
    if (t.status < st) t.status = st;
}

void not_compressed(Tool& t, CommandContext& ctx, const std::string& name) {
    if (t.xz)
        report(t, ctx, name + ": File format not recognized", 1);
    else
        report(t, ctx, name + " is not a bzip2 file.", 2);
}

void one_file(Tool& t, CommandContext& ctx, const ArchiveLimits& limits, const std::string& name) {
    const std::string path = ctx.resolve(name);
    auto st = ctx.fs.stat(path);
    if (!st.ok()) {
        if (t.xz) report(t, ctx, name + ": " + std::string(vfs::error_message(st.error())), 1);
        else report(t, ctx, "Can't open input file " + name + ": " + std::string(vfs::error_message(st.error())) + ".", 1);
        return;
    }
    if (st->is_directory()) {
        if (t.xz) report(t, ctx, name + ": Is a directory, skipping", 2);
        else report(t, ctx, "Input file " + name + " is a directory.", 1);
        return;
    }
    std::string out_name;
    if (!t.to_stdout && !t.test) {
        if (t.decompress) {
            const std::string_view sfx = suffix(t);
            auto ends = [&](std::string_view s) { return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
            if (ends(sfx)) out_name = name.substr(0, name.size() - sfx.size());
            else if (!t.xz && ends(".bz")) out_name = name.substr(0, name.size() - 3);
            else if (!t.xz && (ends(".tbz2") || ends(".tbz"))) out_name = name.substr(0, name.rfind('.')) + ".tar";
            else if (t.xz && ends(".txz")) out_name = name.substr(0, name.size() - 4) + ".tar";
            else if (!t.xz) {
                out_name = name + ".out";
                report(t, ctx, "Can't guess original name for " + name + " -- using " + out_name, 0);
            } else {
                // xz reads it anyway to say what it is.
                InputSource probe;
                probe.ctx = &ctx;
                if (probe.in.open_input(ctx, name) == vfs::Errc::ok) {
                    std::string why;
                    Tool tt = t;
                    tt.test = true;
                    if (decompress_stream(ctx, tt, limits, probe, nullptr, nullptr, why) == Dec::not_compressed) {
                        not_compressed(t, ctx, name);
                        return;
                    }
                }
                report(t, ctx, name + ": Filename has an unknown suffix, skipping", 2);
                return;
            }
        } else {
            const std::string_view sfx = suffix(t);
            if (name.size() > sfx.size() && name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0) {
                if (t.xz) report(t, ctx, name + ": File already has `" + std::string(sfx) + "' suffix, skipping", 2);
                else report(t, ctx, "Input file " + name + " already has " + std::string(sfx) + " suffix.", 1);
                return;
            }
            out_name = name + std::string(sfx);
        }
        const std::string out_path = ctx.resolve(out_name);
        if (ctx.fs.lstat(out_path).ok()) {
            if (!t.force) {
                if (t.xz) report(t, ctx, out_name + ": File exists", 1);
                else report(t, ctx, "Output file " + out_name + " already exists.", 1);
                return;
            }
            (void)ctx.fs.unlink(out_path);
        }
    }
    std::unique_ptr<vfs::FileHandle> out_file;
    std::string out_path;
    if (!out_name.empty()) {
        out_path = ctx.resolve(out_name);
        auto h = ctx.fs.open(out_path, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::truncate,
                             st->mode & 0777);
        if (!h.ok()) {
            if (t.xz) report(t, ctx, out_name + ": " + std::string(vfs::error_message(h.error())), 1);
            else report(t, ctx, "Can't create output file " + out_name + ": " + std::string(vfs::error_message(h.error())) + ".", 1);
            return;
        }
        out_file = std::move(h).value();
    }
    bool ok = true;
    std::string why;
    if (t.decompress || t.test) {
        InputSource src;
        src.ctx = &ctx;
        if (auto e = src.in.open_input(ctx, name); e != vfs::Errc::ok) {
            report(t, ctx, name + ": " + std::string(vfs::error_message(e)), 1);
            return;
        }
        const Dec d = decompress_stream(ctx, t, limits, src, out_file ? nullptr : &ctx.out, out_file.get(), why);
        if (d != Dec::ok) {
            ok = false;
            if (d == Dec::not_compressed) not_compressed(t, ctx, name);
            else if (d == Dec::too_big) report(t, ctx, name + ": output is larger than the sandbox allows", 1);
            else if (t.xz) report(t, ctx, name + ": " + (d == Dec::corrupt ? "Compressed data is corrupt" : why), 1);
            else report(t, ctx, name + ": " + (d == Dec::corrupt ? "data integrity (CRC) error in data" : why), 2);
        }
    } else {
        text::Input in;
        if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
            report(t, ctx, name + ": " + std::string(vfs::error_message(e)), 1);
            return;
        }
        OutputSink sink;
        sink.ctx = &ctx;
        if (out_file) sink.file = out_file.get();
        else sink.stream = &ctx.out;
        if (!compress_stream(ctx, t, in, sink, why)) {
            ok = false;
            report(t, ctx, name + ": " + why, 1);
        }
    }
    out_file.reset();
    if (!ok) {
        if (!out_path.empty()) (void)ctx.fs.unlink(out_path);
        return;
    }
    if (!out_path.empty() && !t.keep) (void)ctx.fs.unlink(path);
}

}  // namespace

int cmd_compress_filter(CommandContext& ctx, const ArchiveLimits& limits) {
    if (!need_libarchive(ctx, ctx.argv[0])) return 1;
    std::string why;
    if (!raw_api(&why)) {
        (void)ctx.err.write(ctx.argv[0] + ": libarchive cannot be loaded: " + why + "\n");
        return 1;
    }
    Tool t;
    t.prog = ctx.argv[0];
    const std::string base = vfs::path_basename(t.prog);
    t.xz = base.find("xz") != std::string::npos;
    if (base == "bunzip2" || base == "unxz") t.decompress = true;
    if (base == "bzcat" || base == "xzcat") t.decompress = t.to_stdout = true;
    t.prog = std::string(base);
    static constexpr OptionSpec specs[] = {
        {'d', 'd', "decompress"}, {'z', 'z', "compress"}, {'k', 'k', "keep"}, {'f', 'f', "force"},
        {'c', 'c', "stdout"}, {'t', 't', "test"}, {'q', 'q', "quiet"}, {'v', 'v', "verbose"},
        {'s', 's', "small"}, {'e', 'e', "extreme"}, {'T', 'T', "threads", ArgKind::required},
        {'0', '0'}, {'1', '1', "fast"}, {'2', '2'}, {'3', '3'}, {'4', '4'}, {'5', '5'}, {'6', '6'}, {'7', '7'},
        {'8', '8'}, {'9', '9', "best"}, {kOptHelp, 'h', "help"}, {kOptVersion, 'V', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, specs);
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'd': t.decompress = true; break;
            case 'z': t.decompress = false; break;
            case 'k': t.keep = true; break;
            case 'f': t.force = true; break;
            case 'c': t.to_stdout = true; break;
            case 't': t.test = true; break;
            case 'q': t.quiet = true; break;
            case kOptHelp:
                return write_out(ctx, "usage: " + t.prog + " [flags and input files in any order]\n") ? 0 : 1;
            case kOptVersion:
                return write_out(ctx, t.xz ? "xz (XZ Utils) 5.4.1\nliblzma 5.4.1\n" : "bzip2, a block-sorting file compressor.  Version 1.0.8, 13-Jul-2019.\n") ? 0 : 1;
            default:
                if (o.id >= '0' && o.id <= '9') t.level = o.id - '0';
        }
    }
    if (!t.xz && t.level == 0) return usage_error(ctx, "invalid option -- '0'");
    if (!p.ok()) {
        (void)ctx.err.write(t.prog + ": " + p.error + "\n");
        return 1;
    }
    if (p.operands.empty() || (p.operands.size() == 1 && p.operands[0] == "-")) {
        if (!t.decompress && !t.test) {
            text::Input in;
            in.open_stdin(ctx);
            OutputSink sink;
            sink.ctx = &ctx;
            sink.stream = &ctx.out;
            std::string why;
            if (!compress_stream(ctx, t, in, sink, why)) {
                report(t, ctx, "(stdin): " + why, 1);
            }
            return t.status;
        }
        InputSource src;
        src.ctx = &ctx;
        src.in.open_stdin(ctx);
        std::string why;
        const Dec d = decompress_stream(ctx, t, limits, src, &ctx.out, nullptr, why);
        const std::string nm = t.xz ? "(stdin)" : "(stdin)";
        if (d == Dec::not_compressed) not_compressed(t, ctx, nm);
        else if (d == Dec::too_big) report(t, ctx, nm + ": output is larger than the sandbox allows", 1);
        else if (d != Dec::ok) report(t, ctx, nm + ": " + (t.xz ? "Compressed data is corrupt" : "data integrity (CRC) error in data"), t.xz ? 1 : 2);
        return t.status;
    }
    for (const auto& f : p.operands) {
        if (ctx.cancelled()) return 130;
        one_file(t, ctx, limits, f);
    }
    return t.status;
}

}  // namespace bashkit::utils::archive
