#include "builtins/text/util.hpp"

#include <cerrno>
#include <cstring>

namespace bashkit::builtins::text {

std::string_view prog(const CommandContext& ctx) {
    return ctx.argv.empty() ? std::string_view("?") : std::string_view(ctx.argv[0]);
}

void try_help(CommandContext& ctx) {
    std::string m = "Try '";
    m += prog(ctx);
    m += " --help' for more information.\n";
    (void)ctx.err.write(m);
}

void usage_error(CommandContext& ctx, std::string_view message) {
    ctx.error(message);
    try_help(ctx);
}

int print_help(CommandContext& ctx, std::string_view usage) {
    std::string s = "Usage: ";
    s += prog(ctx);
    s += ' ';
    s += usage;
    if (s.back() != '\n') s += '\n';
    (void)ctx.out.write(s);
    return 0;
}

namespace {

bool shell_safe(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::strchr("_./-+,:%@=^", c) != nullptr;
}

std::string shell_quote(std::string_view s, bool always) {
    bool plain = !s.empty();
    for (unsigned char c : s)
        if (!shell_safe(c)) plain = false;
    if (plain && !always) return std::string(s);
    std::string out = "'";
    bool in_quote = true;
    auto close = [&] {
        if (in_quote) out += '\'';
        in_quote = false;
    };
    auto reopen = [&] {
        if (!in_quote) out += '\'';
        in_quote = true;
    };
    for (unsigned char c : s) {
        if (c == '\'') {
            close();
            out += "\\'";
        } else if (c < 0x20 || c == 0x7f) {
            close();
            out += "$'";
            switch (c) {
                case '\n': out += "\\n"; break;
                case '\t': out += "\\t"; break;
                case '\r': out += "\\r"; break;
                case '\a': out += "\\a"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                case '\v': out += "\\v"; break;
                default: {
                    char b[8];
                    std::snprintf(b, sizeof b, "\\%03o", c);
                    out += b;
                }
            }
            out += '\'';
        } else {
            reopen();
            out += static_cast<char>(c);
        }
    }
    if (in_quote) out += '\'';
    else if (out.size() >= 2 && out.compare(0, 2, "''") == 0) out.erase(0, 2);
    return out;
}

}  // namespace

std::string quote(std::string_view s) { return shell_quote(s, true); }
std::string quote_name(std::string_view s) { return shell_quote(s, false); }

// ---------------------------------------------------------------------------------------------------------

bool parse_options(CommandContext& ctx, const OptionSpec& spec, std::vector<ParsedOpt>& opts,
                   std::vector<std::string>& operands) {
    static constexpr LongOpt kStd[] = {{"help", Arg::none, kOptHelp}, {"version", Arg::none, kOptVersion}};
    std::vector<LongOpt> longs(spec.longopts.begin(), spec.longopts.end());
    longs.insert(longs.end(), std::begin(kStd), std::end(kStd));
    bool permute = spec.permute && ctx.env.get("POSIXLY_CORRECT") == nullptr;
    const auto& argv = ctx.argv;
    size_t i = 1;
    auto short_kind = [&](char c, Arg& kind) {
        if (c == ':') return false;
        size_t p = spec.shortopts.find(c);
        if (p == std::string_view::npos) return false;
        kind = Arg::none;
        if (p + 1 < spec.shortopts.size() && spec.shortopts[p + 1] == ':') {
            kind = Arg::required;
            if (p + 2 < spec.shortopts.size() && spec.shortopts[p + 2] == ':') kind = Arg::optional;
        }
        return true;
    };
    auto fail = [&](const std::string& msg) {
        usage_error(ctx, msg);
        return false;
    };
    while (i < argv.size()) {
        const std::string& a = argv[i];
        if (a == "--") {
            for (++i; i < argv.size(); ++i) operands.push_back(argv[i]);
            break;
        }
        bool negnum = spec.stop_at_negative_number && a.size() >= 2 && a[0] == '-' &&
                      (a[1] == '.' || (a[1] >= '0' && a[1] <= '9'));
        if (a.size() < 2 || a[0] != '-' || negnum) {
            if (!permute) {
                for (; i < argv.size(); ++i) operands.push_back(argv[i]);
                break;
            }
            operands.push_back(a);
            ++i;
            continue;
        }
        if (a[1] == '-') {
            std::string_view body(a);
            body.remove_prefix(2);
            std::string_view name = body, value;
            bool has_eq = false;
            if (auto eq = body.find('='); eq != std::string_view::npos) {
                name = body.substr(0, eq);
                value = body.substr(eq + 1);
                has_eq = true;
            }
            const LongOpt* hit = nullptr;
            std::vector<const LongOpt*> cands;
            for (const auto& l : longs) {
                if (l.name == name) {
                    hit = &l;
                    break;
                }
                if (l.name.substr(0, name.size()) == name) {
                    bool dup = false;
                    for (auto* c : cands)
                        if (c->id == l.id && c->arg == l.arg) dup = true;
                    if (!dup) cands.push_back(&l);
                }
            }
            if (!hit) {
                if (cands.size() == 1) hit = cands[0];
                else if (cands.empty()) return fail("unrecognized option '" + a + "'");
                else {
                    std::string m = "option '--" + std::string(name) + "' is ambiguous; possibilities:";
                    for (auto* c : cands) m += " '--" + std::string(c->name) + "'";
                    return fail(m);
                }
            }
            ParsedOpt o;
            o.id = hit->id;
            if (hit->arg == Arg::none && has_eq)
                return fail("option '--" + std::string(hit->name) + "' doesn't allow an argument");
            if (has_eq) {
                o.has_value = true;
                o.value = std::string(value);
            } else if (hit->arg == Arg::required) {
                if (i + 1 >= argv.size())
                    return fail("option '--" + std::string(hit->name) + "' requires an argument");
                o.has_value = true;
                o.value = argv[++i];
            }
            opts.push_back(std::move(o));
            ++i;
            continue;
        }
        // Bundled short options.
        size_t j = 1;
        while (j < a.size()) {
            char c = a[j];
            Arg kind;
            if (!short_kind(c, kind)) {
                std::string m = "invalid option -- '";
                m += c;
                m += "'";
                return fail(m);
            }
            ParsedOpt o;
            o.id = static_cast<unsigned char>(c);
            if (kind == Arg::none) {
                opts.push_back(std::move(o));
                ++j;
                continue;
            }
            if (j + 1 < a.size()) {
                o.has_value = true;
                o.value = a.substr(j + 1);
            } else if (kind == Arg::required) {
                if (i + 1 >= argv.size()) {
                    std::string m = "option requires an argument -- '";
                    m += c;
                    m += "'";
                    return fail(m);
                }
                o.has_value = true;
                o.value = argv[++i];
            }
            opts.push_back(std::move(o));
            break;
        }
        ++i;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------

namespace {

// A FileHandle as a ByteStream (for output files).
class HandleStream final : public interp::ByteStream {
public:
    explicit HandleStream(std::unique_ptr<vfs::FileHandle> h) : h_(std::move(h)) {}
    bool writable() const override { return true; }
    interp::IoResult write(std::string_view d) override {
        auto r = h_->write(d);
        if (!r) return {0, vfs::to_errno(r.error())};
        return {*r, 0};
    }

private:
    std::unique_ptr<vfs::FileHandle> h_;
};

}  // namespace

interp::ByteStream* device_stream(CommandContext& ctx, std::string_view abs_path,
                                  std::unique_ptr<interp::ByteStream>& owned) {
    std::string p = vfs::normalize_path(abs_path);
    if (p.rfind("/dev/", 0) != 0) return nullptr;
    std::string_view dev = std::string_view(p).substr(5);
    if (dev == "null") {
        owned = std::make_unique<interp::NullStream>();
        return owned.get();
    }
    if (dev == "zero") {
        owned = std::make_unique<interp::ZeroStream>(&ctx.cancel);
        return owned.get();
    }
    if (dev == "urandom" || dev == "random") {
        auto now = ctx.clock.now();
        uint64_t seed = static_cast<uint64_t>(now.sec) * 1000003u ^ static_cast<uint64_t>(now.nsec) ^
                        reinterpret_cast<uintptr_t>(&owned);
        owned = std::make_unique<interp::RandomStream>(seed, &ctx.cancel);
        return owned.get();
    }
    if (dev == "stdin" || dev == "fd/0") return &ctx.in;
    if (dev == "stdout" || dev == "fd/1") return &ctx.out;
    if (dev == "stderr" || dev == "fd/2") return &ctx.err;
    return nullptr;
}

vfs::Errc OutputFile::open_output(CommandContext& ctx, std::string_view name, bool append) {
    std::string path = ctx.resolve(name);
    if (interp::ByteStream* d = device_stream(ctx, path, owned_)) {
        stream_ = d;
        return vfs::Errc::ok;
    }
    auto h = ctx.fs.open_write(path, append);
    if (!h) return h.error();
    owned_ = std::make_unique<HandleStream>(std::move(h).value());
    stream_ = owned_.get();
    return vfs::Errc::ok;
}

vfs::Errc Input::open_input(CommandContext& ctx, std::string_view name) {
    close();
    name_ = std::string(name);
    cancel_ = &ctx.cancel;
    memory_ = ctx.memory;
    if (name == "-") {
        stream_ = &ctx.in;
        return vfs::Errc::ok;
    }
    std::string path = ctx.resolve(name);
    if (interp::ByteStream* d = device_stream(ctx, path, device_)) {
        stream_ = d;
        return vfs::Errc::ok;
    }
    auto h = ctx.fs.open_read(path);
    if (!h) return h.error();
    file_ = std::move(h).value();
    return vfs::Errc::ok;
}

void Input::open_stdin(CommandContext& ctx) {
    close();
    device_.reset();
    name_ = "-";
    cancel_ = &ctx.cancel;
    memory_ = ctx.memory;
    stream_ = &ctx.in;
}

ReadResult Input::read(char* buf, size_t n) {
    if (cancel_ && cancel_->cancelled()) return {0, vfs::Errc::cancelled};
    if (stream_) {
        auto r = stream_->read(buf, n);
        if (r.err) return {r.n, vfs::from_errno(r.err)};
        return {r.n, vfs::Errc::ok};
    }
    if (!file_) return {0, vfs::Errc::bad_descriptor};
    auto r = file_->read(buf, n);
    if (!r) return {0, r.error()};
    return {*r, vfs::Errc::ok};
}

int64_t Input::file_size() {
    if (!file_) return -1;
    auto st = file_->stat();
    if (!st || !st->is_regular()) return -1;
    return static_cast<int64_t>(st->size);
}

void Input::close() {
    stream_ = nullptr;
    device_.reset();
    file_.reset();
}

bool LineReader::fill() {
    if (eof_) return false;
    if (buf_.size() < 64 * 1024) buf_.resize(64 * 1024);
    auto r = in_.read(buf_.data(), buf_.size());
    if (r.err != vfs::Errc::ok) {
        err_ = r.err;
        eof_ = true;
        return false;
    }
    if (r.n == 0) {
        eof_ = true;
        return false;
    }
    pos_ = 0;
    end_ = r.n;
    return true;
}

bool LineReader::next(std::string_view& line, bool& terminated) {
    acc_.clear();
    bool have_acc = false;
    for (;;) {
        if (pos_ < end_) {
            const char* start = buf_.data() + pos_;
            const void* hit = std::memchr(start, delim_, end_ - pos_);
            if (hit) {
                size_t len = static_cast<const char*>(hit) - start;
                pos_ += len + 1;
                terminated = true;
                if (have_acc) {
                    acc_.append(start, len);
                    line = acc_;
                } else {
                    line = std::string_view(start, len);
                }
                return true;
            }
            acc_.append(start, end_ - pos_);
            have_acc = true;
            pos_ = end_;
            if (acc_.size() > (size_t{1} << 20)) {
                interp::MemoryBudget* m = in_.memory();
                if (m && !m->fits(acc_.capacity())) throw interp::MemoryLimitExceeded(m->limit());
            }
        }
        if (!fill()) {
            if (have_acc) {
                terminated = false;
                line = acc_;
                return true;
            }
            return false;
        }
    }
}

vfs::Errc seed_from_file(CommandContext& ctx, std::string_view name, uint64_t& seed) {
    Input in;
    if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) return e;
    std::string buf(64 * 1024, '\0');
    size_t got = 0;
    while (got < buf.size()) {
        auto r = in.read(buf.data() + got, buf.size() - got);
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0) break;
        got += r.n;
    }
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < got; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
    seed = h;
    return vfs::Errc::ok;
}

vfs::Errc read_all(CommandContext& ctx, Input& in, std::string& out) {
    // A regular file's size is known: one allocation instead of a string doubling as it fills.
    if (const int64_t size = in.file_size(); size > 0) out.reserve(out.size() + static_cast<size_t>(size) + 1);
    size_t chunk = 64 * 1024;
    for (;;) {
        size_t old = out.size();
        size_t want = chunk;
        if (out.capacity() > old && out.capacity() - old < want) want = out.capacity() - old;  // no regrowth
        out.resize(old + want);
        auto r = in.read(out.data() + old, want);
        out.resize(old + r.n);
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0) return vfs::Errc::ok;
        if (chunk < (1u << 20)) chunk *= 2;
        // Refuse to read past what is left of the session's budget (the caller holds what it keeps).
        if (ctx.memory && out.size() > (size_t{1} << 20) && !ctx.memory->fits(out.capacity()))
            throw interp::MemoryLimitExceeded(ctx.memory->limit());
    }
}

// ---------------------------------------------------------------------------------------------------------

Output::Output(CommandContext& ctx, interp::ByteStream* target) : ctx_(ctx), out_(target ? *target : ctx.out) {
    buf_.reserve(kChunk + 4096);
}

Output::~Output() { flush(); }

bool Output::flush() {
    if (failed_) {
        buf_.clear();
        return false;
    }
    if (buf_.empty()) return true;
    auto r = out_.write(buf_);
    buf_.clear();
    if (r.err) {
        failed_ = true;
        err_ = r.err;
        return false;
    }
    return true;
}

int Output::finish() {
    flush();
    if (!failed_) return 0;
    if (err_ == EPIPE) return 141;
    if (err_ == ECANCELED) return 130;
    if (!reported_) {
        reported_ = true;
        ctx_.error("write error: " + errstr(vfs::from_errno(err_)));
    }
    return 1;
}

std::string errstr(vfs::Errc e) { return std::string(vfs::error_message(e)); }

void file_error(CommandContext& ctx, std::string_view name, vfs::Errc e) {
    ctx.error(quote_name(name) + ": " + errstr(e));
}

// ---------------------------------------------------------------------------------------------------------

bool parse_uint(std::string_view s, uint64_t& out) {
    if (s.empty()) return false;
    uint64_t v = 0;
    bool sat = false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        if (!sat) {
            if (v > (UINT64_MAX - (c - '0')) / 10) sat = true;
            else v = v * 10 + (c - '0');
        }
    }
    out = sat ? UINT64_MAX : v;
    return true;
}

SizeParse parse_size_checked(std::string_view s, uint64_t& out, bool allow_suffix) {
    size_t i = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == 0) return SizeParse::invalid;
    uint64_t v;
    if (!parse_uint(s.substr(0, i), v)) return SizeParse::invalid;
    bool over = v == UINT64_MAX && s.substr(0, i) != "18446744073709551615";
    std::string_view suf = s.substr(i);
    uint64_t mult = 1;
    if (!suf.empty()) {
        if (!allow_suffix) return SizeParse::invalid;
        static constexpr std::string_view kUnits = "KMGTPEZYRQ";
        if (suf == "b") mult = 512;
        else {
            char u = suf[0];
            if (u == 'k') u = 'K';
            if (u == 'm') u = 'M';
            size_t p = kUnits.find(u);
            if (p == std::string_view::npos) return SizeParse::invalid;
            std::string_view rest = suf.substr(1);
            uint64_t base;
            if (rest.empty() || rest == "iB") base = 1024;
            else if (rest == "B") base = 1000;
            else return SizeParse::invalid;
            for (size_t k = 0; k <= p; ++k) {
                if (mult > UINT64_MAX / base) {
                    over = true;
                    mult = UINT64_MAX;
                    break;
                }
                mult *= base;
            }
        }
    }
    if (!over && v != 0 && mult > UINT64_MAX / v) over = true;
    if (over) {
        out = UINT64_MAX;
        return SizeParse::overflow;
    }
    out = v * mult;
    return SizeParse::ok;
}

bool parse_size(std::string_view s, uint64_t& out, bool allow_suffix) {
    SizeParse r = parse_size_checked(s, out, allow_suffix);
    return r != SizeParse::invalid;
}

}  // namespace bashkit::builtins::text
