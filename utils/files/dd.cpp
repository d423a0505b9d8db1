// dd (GNU coreutils): copies blocks between a file (or stdin, or a device: /dev/zero, /dev/urandom) and a file
// (or stdout), with if= of= bs= ibs= obs= count= skip= seek= conv= iflag= oflag= status=. The transfer
// statistics go to stderr as GNU prints them (the elapsed time is the session clock's).
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"
#include "utils/text/util.hpp"
#include "interp/governor.hpp"

namespace bashkit::utils::files {

namespace {

// N[c|w|b|kB|K|MB|M|GB|G|...] with 'x' products (2x512).
bool dd_number(std::string_view s, uint64_t& out) {
    uint64_t total = 1;
    size_t start = 0;
    for (;;) {
        const size_t x = s.find('x', start);
        std::string_view part = s.substr(start, x == std::string_view::npos ? std::string_view::npos : x - start);
        if (part.empty()) return false;
        size_t i = 0;
        uint64_t v = 0;
        while (i < part.size() && std::isdigit(static_cast<unsigned char>(part[i]))) {
            if (v > UINT64_MAX / 10) return false;
            v = v * 10 + static_cast<uint64_t>(part[i++] - '0');
        }
        if (i == 0) return false;
        std::string_view suf = part.substr(i);
        uint64_t m = 1;
        if (suf.empty()) m = 1;
        else if (suf == "c") m = 1;
        else if (suf == "w") m = 2;
        else if (suf == "b") m = 512;
        else {
            static constexpr std::string_view kLetters = "KMGTPE";
            const size_t k = kLetters.find(static_cast<char>(std::toupper(static_cast<unsigned char>(suf[0]))));
            if (k == std::string_view::npos || (suf[0] == 'k' && suf.size() == 1)) return false;
            uint64_t base = 1024;
            if (suf.size() == 2 && suf[1] == 'B') base = 1000;
            else if (suf.size() == 3 && suf.substr(1) == "iB") base = 1024;
            else if (suf.size() != 1) return false;
            for (size_t e = 0; e <= k; ++e) m *= base;
        }
        if (v != 0 && m > UINT64_MAX / v) return false;
        v *= m;
        if (v != 0 && total > UINT64_MAX / v) return false;
        total *= v;
        if (x == std::string_view::npos) break;
        start = x + 1;
    }
    out = total;
    return true;
}

std::string human(double bytes, bool si) {
    const double base = si ? 1000 : 1024;
    static const char* si_units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    static const char* iec_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= base && u < 5) {
        bytes /= base;
        ++u;
    }
    char buf[32];
    if (bytes < 10) std::snprintf(buf, sizeof buf, "%.1f %s", bytes, si ? si_units[u] : iec_units[u]);
    else std::snprintf(buf, sizeof buf, "%.0f %s", bytes, si ? si_units[u] : iec_units[u]);
    return buf;
}

int dd_main(CommandContext& ctx) {
    std::string in_name, out_name;
    uint64_t ibs = 512, obs = 512, count = UINT64_MAX, skip = 0, seek = 0;
    bool bs_set = false, notrunc = false, ucase = false, lcase = false, sync = false, excl = false,
         nocreat = false, skip_bytes = false, count_bytes = false, seek_bytes = false, append = false;
    std::string status_level;
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a == "--help") return write_out(ctx, "Usage: dd [OPERAND]...\n  or:  dd OPTION\nCopy a file, converting and formatting according to the operands.\n") ? 0 : 1;
        if (a == "--version") return write_out(ctx, "dd (GNU coreutils) 9.1\n") ? 0 : 1;
        const size_t eq = a.find('=');
        if (eq == std::string::npos) return usage_error(ctx, "unrecognized operand " + quote(a));
        const std::string key = a.substr(0, eq), val = a.substr(eq + 1);
        auto num = [&](uint64_t& dst, bool positive) {
            if (!dd_number(val, dst) || (positive && dst == 0)) {
                ctx.error("invalid number: " + quote(val));
                return false;
            }
            return true;
        };
        auto flags = [&](bool input) {
            size_t p = 0;
            while (p <= val.size()) {
                size_t c = val.find(',', p);
                const std::string f = val.substr(p, c == std::string::npos ? std::string::npos : c - p);
                if (key == "conv") {
                    if (f == "notrunc") notrunc = true;
                    else if (f == "ucase") ucase = true;
                    else if (f == "lcase") lcase = true;
                    else if (f == "sync") sync = true;
                    else if (f == "excl") excl = true;
                    else if (f == "nocreat") nocreat = true;
                    else if (f == "noerror" || f == "fsync" || f == "fdatasync" || f == "sparse") {
                    } else {
                        usage_error(ctx, "invalid conversion: " + quote(f));
                        return false;
                    }
                } else {
                    if (f == "skip_bytes" && input) skip_bytes = true;
                    else if (f == "count_bytes" && input) count_bytes = true;
                    else if (f == "seek_bytes" && !input) seek_bytes = true;
                    else if (f == "append" && !input) append = true;
                    else if (f == "fullblock" || f == "direct" || f == "dsync" || f == "sync" || f == "nonblock" ||
                             f == "noatime" || f == "nocache" || f == "noctty" || f == "nofollow" || f == "binary" ||
                             f == "text") {
                    } else {
                        usage_error(ctx, std::string("invalid ") + (input ? "input" : "output") + " flag: " + quote(f));
                        return false;
                    }
                }
                if (c == std::string::npos) break;
                p = c + 1;
            }
            return true;
        };
        if (key == "if") in_name = val;
        else if (key == "of") out_name = val;
        else if (key == "bs") {
            if (!num(ibs, true)) return 1;
            obs = ibs;
            bs_set = true;
        } else if (key == "ibs") {
            if (!num(ibs, true)) return 1;
        } else if (key == "obs") {
            if (!num(obs, true)) return 1;
        } else if (key == "count") {
            if (!num(count, false)) return 1;
        } else if (key == "skip" || key == "iseek") {
            if (!num(skip, false)) return 1;
        } else if (key == "seek" || key == "oseek") {
            if (!num(seek, false)) return 1;
        } else if (key == "conv") {
            if (!flags(true)) return 1;
        } else if (key == "iflag") {
            if (!flags(true)) return 1;
        } else if (key == "oflag") {
            if (!flags(false)) return 1;
        } else if (key == "status") {
            if (val != "none" && val != "noxfer" && val != "progress") {
                return usage_error(ctx, "invalid status level: " + quote(val));
            }
            status_level = val;
        } else {
            return usage_error(ctx, "unrecognized operand " + quote(a));
        }
    }
    if (ucase && lcase) {
        ctx.error("cannot combine lcase and ucase");
        return 1;
    }
    if (bs_set) obs = ibs;
    const vfs::TimeSpec t0 = ctx.clock.now();
    text::Input in;
    const std::string in_display = in_name.empty() ? "standard input" : in_name;
    if (in_name.empty()) {
        in.open_stdin(ctx);
    } else if (auto e = in.open_input(ctx, in_name); e != vfs::Errc::ok) {
        ctx.error("failed to open " + quote(in_name) + ": " + std::string(errstr(e)));
        return 1;
    }
    std::unique_ptr<vfs::FileHandle> out_file;
    text::OutputFile out_dev;
    interp::ByteStream* out_stream = &ctx.out;
    const uint64_t seek_off = seek_bytes ? seek : seek * obs;
    if (!out_name.empty()) {
        const std::string path = ctx.resolve(out_name);
        std::unique_ptr<interp::ByteStream> owned;
        if (text::device_stream(ctx, path, owned)) {
            if (out_dev.open_output(ctx, out_name) != vfs::Errc::ok) return 1;
            out_stream = out_dev.stream();
        } else {
            vfs::OpenFlags f = vfs::OpenFlags::write;
            if (!nocreat) f = f | vfs::OpenFlags::create;
            if (excl) f = f | vfs::OpenFlags::exclusive;
            if (append) f = f | vfs::OpenFlags::append;
            auto h = ctx.fs.open(path, f, 0666 & ~ctx.umask);
            if (!h.ok()) {
                ctx.error("failed to open " + quote(out_name) + ": " + std::string(errstr(h.error())));
                return 1;
            }
            out_file = std::move(h).value();
            if (!notrunc && !append) {
                auto st = out_file->stat();
                if (st.ok() && st->is_regular()) (void)out_file->truncate(seek_off);
            }
            (void)out_file->seek(static_cast<int64_t>(seek_off), vfs::Whence::set);
            out_stream = nullptr;
        }
    }
    interp::MemoryCharge held(ctx.memory);
    held.add(ibs + obs);
    std::string block(ibs, '\0');
    std::string pending;
    uint64_t in_full = 0, in_part = 0, out_full = 0, out_part = 0, bytes_out = 0;
    int status = 0;
    bool write_failed = false;
    auto write_chunk = [&](std::string_view data) {
        if (write_failed) return;
        if (out_file) {
            auto w = out_file->write(data);
            if (!w.ok()) {
                ctx.error("error writing " + quote(out_name) + ": " + std::string(errstr(w.error())));
                write_failed = true;
                status = 1;
                return;
            }
        } else {
            auto w = out_stream->write(data);
            if (w.err) {
                write_failed = true;
                status = w.err == EPIPE ? 141 : 1;
                if (w.err != EPIPE) ctx.error("error writing " + quote(out_name.empty() ? "standard output" : out_name));
                return;
            }
        }
        bytes_out += data.size();
        if (data.size() == obs) ++out_full;
        else ++out_part;
    };
    // Reads up to n bytes (several reads for a stream, like a pipe's short reads are one record each in GNU:
    // here one read call gives one record).
    auto read_block = [&](char* buf, uint64_t n, bool& err) -> uint64_t {
        auto r = in.read(buf, n);
        if (r.err != vfs::Errc::ok) {
            ctx.error("error reading " + quote(in_display) + ": " + std::string(errstr(r.err)));
            err = true;
            return 0;
        }
        return r.n;
    };
    // skip=
    uint64_t to_skip = skip_bytes ? skip : skip * ibs;
    bool err = false;
    while (to_skip > 0 && !err) {
        if (ctx.cancelled()) return 130;
        const uint64_t n = read_block(block.data(), std::min<uint64_t>(to_skip, ibs), err);
        if (n == 0) {
            if (!err) ctx.error(quote(in_display) + ": cannot skip to specified offset");
            break;
        }
        to_skip -= n;
    }
    uint64_t remaining = count_bytes ? count : UINT64_MAX;
    uint64_t blocks = 0;
    while (!err && !write_failed && (count_bytes ? remaining > 0 : blocks < count)) {
        if (ctx.cancelled()) return 130;
        const uint64_t want = count_bytes ? std::min<uint64_t>(remaining, ibs) : ibs;
        uint64_t n = read_block(block.data(), want, err);
        if (err) {
            status = 1;
            break;
        }
        if (n == 0) break;
        ++blocks;
        if (n == ibs) ++in_full;
        else ++in_part;
        if (count_bytes) remaining -= n;
        if (sync && n < ibs) {
            std::fill(block.begin() + static_cast<long>(n), block.end(), '\0');
            n = ibs;
        }
        if (ucase || lcase)
            for (uint64_t k = 0; k < n; ++k)
                block[k] = static_cast<char>(ucase ? std::toupper(static_cast<unsigned char>(block[k]))
                                                   : std::tolower(static_cast<unsigned char>(block[k])));
        if (ibs == obs && pending.empty()) {
            write_chunk(std::string_view(block.data(), n));
            continue;
        }
        pending.append(block.data(), n);
        while (pending.size() >= obs && !write_failed) {
            write_chunk(std::string_view(pending.data(), obs));
            pending.erase(0, obs);
        }
    }
    if (!pending.empty() && !write_failed) write_chunk(pending);
    if (status_level != "none" && status != 141) {
        std::string s = std::to_string(in_full) + "+" + std::to_string(in_part) + " records in\n" +
                        std::to_string(out_full) + "+" + std::to_string(out_part) + " records out\n";
        if (status_level != "noxfer") {
            const vfs::TimeSpec t1 = ctx.clock.now();
            double secs = static_cast<double>(t1.sec - t0.sec) + static_cast<double>(t1.nsec - t0.nsec) / 1e9;
            if (secs <= 0) secs = 1e-6;
            char buf[160];
            const std::string rate = human(static_cast<double>(bytes_out) / secs, true);
            if (bytes_out < 1000)
                std::snprintf(buf, sizeof buf, "%" PRIu64 " byte%s copied, %g s, %s/s\n", bytes_out,
                              bytes_out == 1 ? "" : "s", secs, rate.c_str());
            else
                std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes (%s, %s) copied, %g s, %s/s\n", bytes_out,
                              human(static_cast<double>(bytes_out), true).c_str(),
                              human(static_cast<double>(bytes_out), false).c_str(), secs, rate.c_str());
            s += buf;
        }
        (void)ctx.err.write(s);
    }
    return status;
}

}  // namespace

void register_dd(interp::CommandRegistry& r) {
    r.add("dd", "dd [if=FILE] [of=FILE] [bs=N] [ibs=N] [obs=N] [count=N] [skip=N] [seek=N] [conv=notrunc,ucase,lcase,sync,excl,nocreat] [iflag=skip_bytes,count_bytes] [oflag=seek_bytes,append] [status=none|noxfer|progress] : copy and convert blocks", dd_main);
}

}  // namespace bashkit::utils::files
