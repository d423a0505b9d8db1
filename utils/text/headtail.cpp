// head and tail: the first or last lines or bytes of files, with GNU's +N/-N forms and ==> headers.
#include <deque>
#include <cstring>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

struct Count {
    uint64_t n = 10;
    bool bytes = false;
    bool sign_minus = false;  // "-N"
    bool sign_plus = false;   // "+N"
};

// Parses the argument of -n/-c. Prints GNU's message on failure.
bool parse_count(CommandContext& ctx, std::string_view arg, bool bytes, Count& c) {
    std::string_view s = arg;
    c.bytes = bytes;
    c.sign_minus = c.sign_plus = false;
    if (!s.empty() && s[0] == '-') {
        c.sign_minus = true;
        s.remove_prefix(1);
    } else if (!s.empty() && s[0] == '+') {
        c.sign_plus = true;
        s.remove_prefix(1);
    }
    std::string what = bytes ? "invalid number of bytes: " : "invalid number of lines: ";
    switch (parse_size_checked(s, c.n)) {
        case SizeParse::ok: return true;
        case SizeParse::overflow:
            ctx.error(what + quote(arg) + ": Value too large for defined data type");
            return false;
        default: ctx.error(what + quote(arg)); return false;
    }
}

void header(Output& out, bool& first, const std::string& name) {
    out.put(first ? "==> " : "\n==> ");
    out.put(name == "-" ? std::string_view("standard input") : std::string_view(name));
    out.put(" <==\n");
    first = false;
}

// Copies the rest of the input to out. Returns the read error.
vfs::Errc copy_rest(Input& in, Output& out, std::string& buf) {
    for (;;) {
        auto r = in.read(buf.data(), buf.size());
        if (r.n) out.put(std::string_view(buf.data(), r.n));
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0 || out.failed()) return vfs::Errc::ok;
    }
}

// head -n N / -c N: the first N records or bytes.
vfs::Errc head_first(Input& in, Output& out, const Count& c, char delim, std::string& buf) {
    uint64_t left = c.n;
    while (left > 0) {
        auto r = in.read(buf.data(), buf.size());
        std::string_view d(buf.data(), r.n);
        if (c.bytes) {
            size_t take = static_cast<size_t>(std::min<uint64_t>(left, d.size()));
            out.put(d.substr(0, take));
            left -= take;
        } else {
            size_t pos = 0;
            while (left > 0 && pos < d.size()) {
                const void* hit = std::memchr(d.data() + pos, delim, d.size() - pos);
                if (!hit) {
                    pos = d.size();
                    break;
                }
                pos = static_cast<size_t>(static_cast<const char*>(hit) - d.data()) + 1;
                --left;
            }
            out.put(d.substr(0, pos));
        }
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0 || out.failed()) break;
    }
    return vfs::Errc::ok;
}

// head -n -N / -c -N: all but the last N records or bytes; holds at most N records.
vfs::Errc head_all_but(Input& in, Output& out, const Count& c, char delim, std::string& buf) {
    if (c.n == 0) return copy_rest(in, out, buf);
    std::string pending;  // data not yet known to be outside the last N
    std::deque<size_t> ends;  // for lines: end offsets (after the delimiter) of complete lines in pending
    size_t base = 0;          // offset in pending of the first byte not yet written
    interp::MemoryCharge held(in.memory());  // pending and ends, on the session's budget
    for (;;) {
        held.set(pending.capacity() + ends.size() * sizeof(size_t));
        auto r = in.read(buf.data(), buf.size());
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0) break;
        std::string_view d(buf.data(), r.n);
        if (c.bytes) {
            pending.append(d);
            if (pending.size() > c.n) {
                size_t emit = pending.size() - static_cast<size_t>(c.n);
                out.put(std::string_view(pending).substr(0, emit));
                pending.erase(0, emit);
            }
        } else {
            size_t off = pending.size();
            pending.append(d);
            for (size_t p = off; p < pending.size();) {
                const void* hit = std::memchr(pending.data() + p, delim, pending.size() - p);
                if (!hit) break;
                p = static_cast<size_t>(static_cast<const char*>(hit) - pending.data()) + 1;
                ends.push_back(p);
            }
            // Every complete line beyond the last N can go out (a trailing partial line is a line too,
            // but it is always among the last N, so only complete lines are counted here).
            size_t emit_to = base;
            while (ends.size() > c.n) {
                emit_to = ends.front();
                ends.pop_front();
            }
            if (emit_to > base) {
                out.put(std::string_view(pending).substr(base, emit_to - base));
                base = emit_to;
            }
            if (base > (1u << 20) && base > pending.size() / 2) {
                pending.erase(0, base);
                for (auto& e : ends) e -= base;
                base = 0;
            }
        }
        if (out.failed()) return vfs::Errc::ok;
    }
    if (!c.bytes) {
        // A partial last line counts as one of the last N.
        bool partial = pending.size() > (ends.empty() ? base : ends.back());
        if (partial && !ends.empty() && ends.size() == c.n) {
            // The oldest complete line is not among the last N after all.
            out.put(std::string_view(pending).substr(base, ends.front() - base));
        }
    }
    return vfs::Errc::ok;
}

// The offset where the last n records start, in data (a trailing partial record counts).
size_t last_records_start(std::string_view data, uint64_t n, char delim) {
    if (n == 0) return data.size();
    size_t end = data.size();
    if (end > 0 && data[end - 1] == delim) --end;
    while (end > 0) {
        const void* hit = memrchr(data.data(), delim, end);
        if (!hit) return 0;
        size_t p = static_cast<size_t>(static_cast<const char*>(hit) - data.data());
        if (--n == 0) return p + 1;
        end = p;
    }
    return 0;
}

// tail from the end over a stream: keeps chunks holding at least the last N records or bytes.
vfs::Errc tail_stream(Input& in, Output& out, const Count& c, char delim, std::string& buf) {
    std::deque<std::string> chunks;
    std::deque<uint64_t> counts;  // delimiters (or bytes) per chunk
    uint64_t total = 0;
    size_t bytes = 0;  // held in chunks
    interp::MemoryCharge held(in.memory());  // the chunks kept, then their concatenation
    for (;;) {
        held.set(bytes + chunks.size() * (sizeof(std::string) + 16));
        auto r = in.read(buf.data(), buf.size());
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0) break;
        std::string_view d(buf.data(), r.n);
        uint64_t k = c.bytes ? d.size() : static_cast<uint64_t>(std::count(d.begin(), d.end(), delim));
        if (!chunks.empty() && chunks.back().size() < 64 * 1024) {
            chunks.back().append(d);
            counts.back() += k;
        } else {
            chunks.emplace_back(d);
            counts.push_back(k);
        }
        bytes += d.size();
        total += k;
        // Drop the front chunk while the rest still hold more than N (one spare for a partial last line).
        while (chunks.size() > 1 && total - counts.front() > c.n) {
            total -= counts.front();
            bytes -= chunks.front().size();
            chunks.pop_front();
            counts.pop_front();
        }
    }
    std::string all;
    held.add(bytes);
    all.reserve(bytes);
    for (auto& ch : chunks) all += ch;
    size_t start;
    if (c.bytes) start = all.size() > c.n ? all.size() - static_cast<size_t>(c.n) : 0;
    else start = last_records_start(all, c.n, delim);
    out.put(std::string_view(all).substr(start));
    return vfs::Errc::ok;
}

// tail from the end over a regular file: reads backwards from the end.
vfs::Errc tail_file(Input& in, Output& out, const Count& c, char delim, std::string& buf, uint64_t size) {
    vfs::FileHandle* h = in.handle();
    uint64_t start = 0;
    if (c.bytes) {
        start = size > c.n ? size - c.n : 0;
    } else if (c.n == 0) {
        start = size;
    } else {
        uint64_t pos = size;
        uint64_t need = c.n;
        bool first = true;
        bool found = false;
        while (pos > 0 && !found) {
            size_t len = static_cast<size_t>(std::min<uint64_t>(pos, buf.size()));
            pos -= len;
            auto r = h->pread(buf.data(), len, pos);
            if (!r) return r.error();
            if (*r != len) return vfs::Errc::io_error;
            size_t end = len;
            if (first) {
                first = false;
                if (end > 0 && buf[end - 1] == delim) --end;
            }
            while (end > 0) {
                const void* hit = memrchr(buf.data(), delim, end);
                if (!hit) break;
                size_t p = static_cast<size_t>(static_cast<const char*>(hit) - buf.data());
                if (--need == 0) {
                    start = pos + p + 1;
                    found = true;
                    break;
                }
                end = p;
            }
        }
    }
    auto s = h->seek(static_cast<int64_t>(start), vfs::Whence::set);
    if (!s) return s.error();
    return copy_rest(in, out, buf);
}

// tail +N: skips N-1 records or bytes, then copies.
vfs::Errc tail_from(Input& in, Output& out, const Count& c, char delim, std::string& buf) {
    uint64_t skip = c.n > 0 ? c.n - 1 : 0;
    for (;;) {
        if (skip == 0) return copy_rest(in, out, buf);
        auto r = in.read(buf.data(), buf.size());
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0) return vfs::Errc::ok;
        std::string_view d(buf.data(), r.n);
        size_t pos = 0;
        if (c.bytes) {
            pos = static_cast<size_t>(std::min<uint64_t>(skip, d.size()));
            skip -= pos;
        } else {
            while (skip > 0 && pos < d.size()) {
                const void* hit = std::memchr(d.data() + pos, delim, d.size() - pos);
                if (!hit) {
                    pos = d.size();
                    break;
                }
                pos = static_cast<size_t>(static_cast<const char*>(hit) - d.data()) + 1;
                --skip;
            }
        }
        if (skip == 0) out.put(d.substr(pos));
    }
}

bool all_digits(std::string_view s) {
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

int head_tail(CommandContext& ctx, bool is_tail) {
    static constexpr OptionSpec kHead[] = {
        {'c', 0, "bytes", ArgKind::required}, {'n', 0, "lines", ArgKind::required}, {'q', 0, "quiet"},
        {'q', 0, "silent"}, {'v', 0, "verbose"}, {'z', 0, "zero-terminated"},
    };
    static constexpr OptionSpec kTail[] = {
        {'c', 0, "bytes", ArgKind::required}, {'n', 0, "lines", ArgKind::required}, {'q', 0, "quiet"},
        {'q', 0, "silent"}, {'v', 0, "verbose"}, {'z', 0, "zero-terminated"}, {'f', 0, "follow", ArgKind::optional},
        {300, 0, "retry"}, {'s', 0, "sleep-interval", ArgKind::required}, {301, 0, "pid", ArgKind::required},
        {302, 0, "max-unchanged-stats", ArgKind::required},
    };
    Count count;
    std::vector<std::string>& argv = ctx.argv;
    // Obsolete forms: head -5, head -5c; tail -5, tail +5, tail -5c, tail +5l.
    if (argv.size() >= 2 && argv[1].size() >= 2 && (argv[1][0] == '-' || (is_tail && argv[1][0] == '+'))) {
        std::string_view a = argv[1];
        bool plus = a[0] == '+';
        size_t i = 1;
        while (i < a.size() && a[i] >= '0' && a[i] <= '9') ++i;
        bool obsolete_ok = i > 1 || (plus && is_tail);
        if (is_tail && (argv.size() > 3 || (argv.size() == 3 && argv[2].size() > 1 && argv[2][0] == '-')))
            obsolete_ok = false;
        if (obsolete_ok) {
            std::string_view digits = a.substr(1, i - 1);
            std::string_view rest = a.substr(i);
            bool ok = true;
            bool bytes = false, follow = false;
            uint64_t mult = 1;
            std::vector<std::string> extra;
            if (!is_tail) {
                if (!rest.empty() && (rest[0] == 'b' || rest[0] == 'k' || rest[0] == 'm')) {
                    mult = rest[0] == 'b' ? 512 : rest[0] == 'k' ? 1024 : 1024 * 1024;
                    rest.remove_prefix(1);
                }
                for (char ch : rest) {
                    if (ch == 'c') bytes = true;
                    else if (ch == 'l') bytes = false;
                    else if (ch == 'q' || ch == 'v' || ch == 'z') extra.push_back(std::string("-") + ch);
                    else {
                        usage_error(ctx, std::string("invalid trailing option -- ") + ch);
                        return 1;
                    }
                }
            } else {
                if (!rest.empty() && (rest[0] == 'b' || rest[0] == 'c' || rest[0] == 'l')) {
                    if (rest[0] == 'b') mult = 512;
                    bytes = rest[0] != 'l';
                    rest.remove_prefix(1);
                }
                if (!rest.empty() && rest[0] == 'f') {
                    follow = true;
                    rest.remove_prefix(1);
                }
                if (!rest.empty()) ok = false;
            }
            if (ok) {
                uint64_t n = 10;
                if (!digits.empty() && !parse_uint(digits, n)) n = UINT64_MAX;
                if (n != UINT64_MAX && mult > 1) n = n > UINT64_MAX / mult ? UINT64_MAX : n * mult;
                std::string spelled = (plus ? "+" : (is_tail ? "" : "")) + std::to_string(n);
                std::vector<std::string> nv = {argv[0], bytes ? "-c" : "-n", spelled};
                for (auto& e : extra) nv.push_back(e);
                if (follow) nv.push_back("-f");
                nv.insert(nv.end(), argv.begin() + 2, argv.end());
                argv = std::move(nv);
            }
        }
    }
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, is_tail ? "c:n:fFqs:vz0123456789" : "c:n:qvz0123456789",
                      is_tail ? std::span<const OptionSpec>(kTail) : std::span<const OptionSpec>(kHead), opts, files))
        return 1;
    int verbose = 0;  // -1 quiet, 1 verbose
    bool follow = false;
    char delim = '\n';
    for (auto& o : opts) {
        switch (o.id) {
            case 'c':
            case 'n':
                if (!parse_count(ctx, o.value, o.id == 'c', count)) return 1;
                break;
            case 'q': verbose = -1; break;
            case 'v': verbose = 1; break;
            case 'z': delim = '\0'; break;
            case 'f': case 'F': follow = true; break;
            case 's': case 300: case 301: case 302: break;
            case kOptHelp:
                return print_help(ctx, is_tail ? "[OPTION]... [FILE]...\nPrint the last 10 lines of each FILE to standard output.\n"
                                               : "[OPTION]... [FILE]...\nPrint the first 10 lines of each FILE to standard output.\n");
            case kOptVersion: return version(ctx);
            default:
                if (o.id >= '0' && o.id <= '9') {
                    if (is_tail) {
                        ctx.error(std::string("option used in invalid context -- ") + static_cast<char>(o.id));
                    } else {
                        usage_error(ctx, std::string("invalid trailing option -- ") + static_cast<char>(o.id));
                    }
                    return 1;
                }
        }
    }
    (void)all_digits;
    // GNU tail reads nothing when it will print nothing: `tail -n 0 missing` succeeds without a header.
    if (is_tail && count.n == 0 && !count.sign_plus && !follow) return 0;
    if (files.empty()) files.push_back("-");
    bool headers = verbose == 1 || (verbose == 0 && files.size() > 1);
    Output out(ctx);
    std::string buf(64 * 1024, '\0');
    bool first = true;
    const InputMessages style{InputMessages::Open::cannot_open, InputMessages::Read::error_reading};
    const int status = for_each_input(
        ctx, out, files,
        [&](Input& in, const std::string& f) {
            if (headers) header(out, first, f);
            vfs::Errc e;
            if (!is_tail) {
                if (count.sign_minus) e = head_all_but(in, out, count, delim, buf);
                else e = head_first(in, out, count, delim, buf);
            } else if (count.sign_plus) {
                e = tail_from(in, out, count, delim, buf);
            } else {
                int64_t size = in.file_size();
                if (size >= 0) e = tail_file(in, out, count, delim, buf, static_cast<uint64_t>(size));
                else e = tail_stream(in, out, count, delim, buf);
            }
            if (e == vfs::Errc::ok) out.flush();
            return e;
        },
        style);
    return out.status(status);
}

}  // namespace

int cmd_head(CommandContext& ctx) { return head_tail(ctx, false); }
int cmd_tail(CommandContext& ctx) { return head_tail(ctx, true); }

}  // namespace bashkit::utils::text
