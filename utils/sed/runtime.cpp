#include "utils/sed/runtime.hpp"

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string_view>
#include <utility>

#include "utils/text/util.hpp"

namespace bashkit::utils::sed {

namespace {

using interp::CommandContext;

// A fatal run-time error (GNU's panic): the message is printed, temporary files are removed and sed exits.
struct Panic {
    std::string message;
    int status = 4;
};

std::string errstr(vfs::Errc e) { return std::string(vfs::error_message(e)); }

// A file of the FileSystem as a stream that can be closed (a w file, the temporary file of an in-place edit).
class HandleStream final : public interp::ByteStream {
public:
    explicit HandleStream(std::unique_ptr<vfs::FileHandle> h) : h_(std::move(h)) {}
    bool writable() const override { return true; }
    interp::IoResult write(std::string_view data) override {
        if (!h_) return {0, EBADF};
        auto r = h_->write(data);
        if (!r) return {0, vfs::to_errno(r.error())};
        return {*r, 0};
    }
    void close() override { h_.reset(); }

private:
    std::unique_ptr<vfs::FileHandle> h_;
};

// Where sed writes: stdout, stderr, a w file, the temporary file of an in-place edit. The utilities' one
// buffered writer (utils/common Output) over it; with -u it is flushed after every command's output.
class Sink {
public:
    Sink(CommandContext& ctx, interp::ByteStream& target, std::string name, bool unbuffered)
        : name_(std::move(name)), unbuffered_(unbuffered), out_(ctx, &target) {}
    Sink(CommandContext& ctx, std::unique_ptr<vfs::FileHandle> file, std::string name, bool unbuffered)
        : file_(std::make_unique<HandleStream>(std::move(file))),
          name_(std::move(name)),
          unbuffered_(unbuffered),
          out_(ctx, file_.get()) {}
    Sink(const Sink&) = delete;
    Sink& operator=(const Sink&) = delete;

    void put(std::string_view s) { out_.put(s); }
    void put(char c) { out_.put(c); }
    // After a command's output: -u flushes at once.
    void end_write() {
        if (unbuffered_) out_.flush();
    }
    bool flush() { return out_.flush(); }
    bool failed() const { return out_.failed(); }
    int error() const { return out_.error(); }
    const std::string& name() const { return name_; }
    // A file sink: closes the file; what was not flushed is dropped and later writes fail.
    void close() {
        out_.buffer().clear();
        if (file_) file_->close();
    }

private:
    std::unique_ptr<HandleStream> file_;  // declared before out_, which flushes into it when destroyed
    std::string name_;
    bool unbuffered_;
    utils::Output out_;
};

// GNU's struct output: where a command writes, with its own "the last line lacked a newline" flag.
struct Channel {
    Sink* sink = nullptr;
    bool missing_newline = false;
};

// One input file (or stdin) read record by record, with one record of look-ahead for `$`.
class InFile {
public:
    InFile(char delim) : reader_(in_, delim) {}
    text::Input& input() { return in_; }

    // 1 with a record, 0 at the end, -1 on a read error (error()).
    int next(std::string& out, bool& terminated) {
        if (has_peek_) {
            has_peek_ = false;
            out.append(peek_);
            terminated = peek_terminated_;
            return 1;
        }
        std::string_view rec;
        if (!reader_.next(rec, terminated)) return reader_.error() == vfs::Errc::ok ? 0 : -1;
        out.append(rec);
        return 1;
    }
    // 1 when another record follows, 0 at the end, -1 on a read error.
    int has_more() {
        if (has_peek_) return 1;
        std::string_view rec;
        if (!reader_.next(rec, peek_terminated_)) return reader_.error() == vfs::Errc::ok ? 0 : -1;
        peek_.assign(rec);
        has_peek_ = true;
        return 1;
    }
    vfs::Errc error() const { return reader_.error(); }

private:
    text::Input in_;
    text::LineReader reader_;
    bool has_peek_ = false;
    std::string peek_;
    bool peek_terminated_ = false;
};

enum class Range : uint8_t { inactive, active, closed };

// The pattern and hold spaces may not grow past this (a runaway `G;D` or `H` loop would otherwise take all
// the host's memory); GNU sed has no limit. Legitimate whole-file scripts (:a;N;$!ba) fit far below it.
constexpr size_t kMaxSpaceBytes = size_t{1} << 30;

class Runner {
public:
    Runner(CommandContext& ctx, const Program& prog, const RunOptions& opt, const std::vector<std::string>& files)
        : ctx_(ctx),
          prog_(prog),
          opt_(opt),
          files_(files),
          delim_(opt.null_data ? '\0' : '\n'),
          stdout_sink_(ctx, ctx.out, "stdout", opt.unbuffered),
          stderr_sink_(ctx, ctx.err, "stderr", true),
          range_(prog.cmds.size(), Range::inactive),
          a2_number_(prog.cmds.size(), 0) {
        main_.sink = &stdout_sink_;
    }

    int run() {
        int status = 0;
        try {
            open_wfiles();
            open_rfiles();
            while (read_pattern_space(false)) {
                if (ctx_.cancelled()) {
                    discard_temp();
                    stdout_sink_.flush();
                    return 130;
                }
                const int st = execute();
                if (st != -1) {
                    status = st & 0xff;
                    break;
                }
                if (stdout_sink_.failed()) break;
            }
            closedown();
        } catch (Panic& p) {
            discard_temp();
            stdout_sink_.flush();
            if (!p.message.empty()) ctx_.error(p.message);
            flush_all();
            return p.status;
        } catch (const std::bad_alloc&) {
            // The memory limit: the interpreter reports it; an in-place edit leaves the file as it was.
            discard_temp();
            stdout_sink_.flush();
            flush_all();
            throw;
        }
        if (bad_count_) status = 2;
        return finish(status);
    }

private:
    // ---- outputs ---------------------------------------------------------------------------------------

    void open_wfiles() {
        channels_.resize(prog_.outputs.size());
        for (size_t i = 0; i < prog_.outputs.size(); ++i) {
            const std::string& name = prog_.outputs[i];
            if (!opt_.posix && name == "/dev/stdout") {
                channels_[i].sink = &stdout_sink_;
            } else if (!opt_.posix && name == "/dev/stderr") {
                channels_[i].sink = &stderr_sink_;
            } else {
                const std::string path = ctx_.resolve(name);
                std::unique_ptr<interp::ByteStream> owned;
                if (interp::ByteStream* dev = text::device_stream(ctx_, path, owned)) {
                    auto s = std::make_unique<Sink>(ctx_, *dev, name, opt_.unbuffered);
                    if (owned) owned_streams_.push_back(std::move(owned));
                    channels_[i].sink = s.get();
                    sinks_.push_back(std::move(s));
                    continue;
                }
                auto h = ctx_.fs.open_write(path);
                if (!h) throw Panic{"couldn't open file " + name + ": " + errstr(h.error()), 4};
                auto s = std::make_unique<Sink>(ctx_, std::move(h).value(), name, opt_.unbuffered);
                channels_[i].sink = s.get();
                sinks_.push_back(std::move(s));
            }
        }
    }

    void open_rfiles() {
        rfiles_.resize(prog_.rfiles.size());
        for (size_t i = 0; i < prog_.rfiles.size(); ++i) rewind_rfile(i);
    }

    void rewind_rfile(size_t i) {
        auto f = std::make_unique<InFile>(delim_);
        if (f->input().open_input(ctx_, prog_.rfiles[i]) != vfs::Errc::ok) {
            rfiles_[i].reset();
            return;
        }
        rfiles_[i] = std::move(f);
    }

    void output_missing_newline(Channel& ch) {
        if (ch.missing_newline) {
            ch.sink->put(delim_);
            ch.missing_newline = false;
        }
    }

    void output_line(std::string_view text, bool nl, Channel& ch) {
        output_missing_newline(ch);
        ch.sink->put(text);
        if (nl)
            ch.sink->put(delim_);
        else
            ch.missing_newline = true;
        ch.sink->end_write();
    }

    void write_file_contents(const std::string& name, Channel& ch) {
        text::Input in;
        if (in.open_input(ctx_, name) != vfs::Errc::ok) return;
        char buf[64 * 1024];
        for (;;) {
            auto r = in.read(buf, sizeof buf);
            if (r.n) ch.sink->put(std::string_view(buf, r.n));
            if (r.n == 0 || r.err != vfs::Errc::ok) break;
        }
    }

    void dump_append() {
        output_missing_newline(main_);
        for (const auto& a : append_) {
            if (a.is_file)
                write_file_contents(a.text, main_);
            else
                main_.sink->put(a.text);
        }
        main_.sink->end_write();
        append_.clear();
    }

    void flush_all() {
        stdout_sink_.flush();
        for (auto& s : sinks_) s->flush();
    }

    int finish(int status) {
        flush_all();
        for (auto& s : sinks_) {
            if (s->failed()) {
                ctx_.error("couldn't write items to " + s->name() + ": " + errstr(vfs::from_errno(s->error())));
                return 4;
            }
        }
        if (stdout_sink_.failed()) {
            const int e = stdout_sink_.error();
            if (e == EPIPE) return 141;
            if (e == ECANCELED) return 130;
            ctx_.error("couldn't write items to stdout: " + errstr(vfs::from_errno(e)));
            return 4;
        }
        return status;
    }

    // ---- inputs ----------------------------------------------------------------------------------------

    void open_next_file(const std::string& name) {
        cur_.reset();
        cur_name_ = name;
        auto f = std::make_unique<InFile>(delim_);
        vfs::Errc e = vfs::Errc::ok;
        std::string path;
        if (name == "-" && !opt_.in_place) {
            f->input().open_stdin(ctx_);
        } else {
            path = ctx_.resolve(name);
            if (opt_.in_place && opt_.follow_symlinks) {
                auto real = ctx_.fs.realpath(path);
                if (real) path = *real;
            }
            e = f->input().open_input(ctx_, opt_.in_place ? path : name);
        }
        if (e != vfs::Errc::ok) {
            ctx_.error("can't read " + name + ": " + errstr(e));
            ++bad_count_;
            return;
        }
        if (opt_.in_place) {
            vfs::FileHandle* h = f->input().handle();
            vfs::Stat st;
            if (h) {
                auto s = h->stat();
                if (s) st = *s;
            }
            if (!h || !st.is_regular()) throw Panic{"couldn't edit " + name + ": not a regular file", 4};
            start_temp(path, st);
        }
        cur_ = std::move(f);
    }

    void start_temp(const std::string& target, const vfs::Stat& st) {
        const std::string dir = vfs::path_dirname(target);
        auto now = ctx_.clock.now();
        uint64_t seed = static_cast<uint64_t>(now.sec) * 1000003u ^ static_cast<uint64_t>(now.nsec) ^
                        (reinterpret_cast<uintptr_t>(this) >> 4);
        static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        for (int attempt = 0; attempt < 100; ++attempt) {
            std::string name = "sed";
            for (int k = 0; k < 6; ++k) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                name += kChars[(seed >> 33) % 62];
            }
            const std::string tmp = vfs::join_path(dir, name);
            auto h = ctx_.fs.open(tmp, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::exclusive,
                                  0600);
            if (!h) {
                if (h.error() == vfs::Errc::file_exists) continue;
                throw Panic{"couldn't open temporary file " + tmp + ": " + errstr(h.error()), 4};
            }
            temp_path_ = tmp;
            target_path_ = target;
            target_mode_ = st.mode;
            temp_sink_ = std::make_unique<Sink>(ctx_, std::move(h).value(), tmp, false);
            main_.sink = temp_sink_.get();
            main_.missing_newline = false;
            return;
        }
        throw Panic{"couldn't open temporary file in " + dir + ": " + errstr(vfs::Errc::file_exists), 4};
    }

    void discard_temp() {
        if (!temp_sink_) return;
        temp_sink_->close();
        (void)ctx_.fs.unlink(temp_path_);
        temp_sink_.reset();
        main_.sink = &stdout_sink_;
    }

    std::string backup_name() const {
        const std::string base = vfs::path_basename(target_path_);
        if (opt_.suffix.find('*') == std::string::npos) return target_path_ + opt_.suffix;
        std::string b;
        for (char c : opt_.suffix) {
            if (c == '*')
                b += base;
            else
                b += c;
        }
        if (b.find('/') == std::string::npos) return vfs::join_path(vfs::path_dirname(target_path_), b);
        return ctx_.resolve(b);
    }

    void closedown() {
        cur_.reset();
        if (!temp_sink_) return;
        if (!temp_sink_->flush()) {
            const int e = temp_sink_->error();
            throw Panic{"couldn't write items to " + temp_path_ + ": " + errstr(vfs::from_errno(e)), 4};
        }
        temp_sink_->close();
        (void)ctx_.fs.chmod(temp_path_, target_mode_);
        if (!opt_.suffix.empty() && opt_.suffix != "*") {
            const std::string backup = backup_name();
            if (auto r = ctx_.fs.rename(target_path_, backup); !r)
                throw Panic{"cannot rename " + target_path_ + ": " + errstr(r.error()), 4};
        }
        if (auto r = ctx_.fs.rename(temp_path_, target_path_); !r)
            throw Panic{"cannot rename " + temp_path_ + ": " + errstr(r.error()), 4};
        temp_sink_.reset();
        main_.sink = &stdout_sink_;
    }

    [[noreturn]] void read_error() {
        const vfs::Errc e = cur_ ? cur_->error() : vfs::Errc::io_error;
        if (e == vfs::Errc::cancelled) throw Panic{"", 130};
        throw Panic{"read error on " + (cur_name_ == "-" ? std::string("stdin") : cur_name_) + ": " + errstr(e), 4};
    }

    // Reads the next record into the pattern space (appending after a delimiter for N). False at the end.
    bool read_pattern_space(bool append) {
        if (!append_.empty()) dump_append();
        replaced_ = false;
        if (!append) line_.clear();
        chomped_ = true;
        for (;;) {
            if (cur_) {
                bool terminated = true;
                const int r = cur_->next(line_, terminated);
                if (r < 0) read_error();
                if (r > 0) {
                    if (!terminated) chomped_ = false;
                    break;
                }
            }
            closedown();
            if (next_file_ >= file_count()) return false;
            if (reset_at_next_file_) {
                line_number_ = 0;
                hold_.clear();
                hold_chomped_ = true;
                reset_addresses();
                for (size_t i = 0; i < rfiles_.size(); ++i) rewind_rfile(i);
                if (opt_.in_place) main_.missing_newline = false;
                reset_at_next_file_ = opt_.separate;
            }
            open_next_file(file_at(next_file_++));
        }
        ++line_number_;
        return true;
    }

    size_t file_count() const { return files_.empty() ? 1 : files_.size(); }
    std::string file_at(size_t i) const { return files_.empty() ? std::string("-") : files_[i]; }

    bool last_file_with_data() {
        for (;;) {
            closedown();
            if (next_file_ >= file_count()) return true;
            open_next_file(file_at(next_file_++));
            if (cur_) {
                const int r = cur_->has_more();
                if (r < 0) read_error();
                if (r > 0) return false;
            }
        }
    }

    // Whether the current line is the last one (`$`).
    bool test_eof() {
        if (cur_) {
            const int r = cur_->has_more();
            if (r < 0) read_error();
            if (r > 0) return false;
        }
        return opt_.separate || last_file_with_data();
    }

    void reset_addresses() {
        for (size_t i = 0; i < prog_.cmds.size(); ++i) {
            const Command& c = prog_.cmds[i];
            range_[i] = c.a1.type == AddrType::num && c.a1.number == 0 ? Range::active : Range::inactive;
        }
    }

    // ---- matching --------------------------------------------------------------------------------------

    const interp::Regex& regex(int index) {
        if (index == kLastRegex) {
            if (!last_regex_) throw Panic{prog_.last_location + "no previous regular expression", 1};
            return *last_regex_;
        }
        last_regex_ = &prog_.regexes[static_cast<size_t>(index)];
        return *last_regex_;
    }

    bool match_an_address(const Address& a, size_t cmd) {
        switch (a.type) {
            case AddrType::none:
            case AddrType::always: return true;
            case AddrType::regex: return regex(a.regex).search(line_);
            case AddrType::num_mod:
                return line_number_ >= a.number && (line_number_ - a.number) % a.step == 0;
            case AddrType::step:
            case AddrType::step_mod: return a2_number_[cmd] <= line_number_;
            case AddrType::last: return test_eof();
            case AddrType::num: return a.number == line_number_;
        }
        return false;
    }

    bool match_address(size_t i) {
        const Command& c = prog_.cmds[i];
        if (c.a1.type == AddrType::none) return true;
        const bool has_a2 = c.a2.type != AddrType::none;
        if (range_[i] != Range::active) {
            if (!has_a2) return match_an_address(c.a1, i);
            if (c.a1.type == AddrType::num) {
                if (range_[i] == Range::closed || line_number_ < c.a1.number) return false;
            } else if (!match_an_address(c.a1, i)) {
                return false;
            }
            range_[i] = Range::active;
            switch (c.a2.type) {
                case AddrType::regex: return true;
                case AddrType::num:
                    if (line_number_ >= c.a2.number) range_[i] = Range::closed;
                    return line_number_ <= c.a2.number || match_an_address(c.a1, i);
                case AddrType::step:
                    a2_number_[i] = line_number_ + c.a2.step;
                    return true;
                case AddrType::step_mod:
                    a2_number_[i] = line_number_ + c.a2.step - (line_number_ % c.a2.step);
                    return true;
                default: break;
            }
        }
        if (c.a2.type == AddrType::num) {
            if (line_number_ >= c.a2.number) range_[i] = Range::closed;
            return line_number_ <= c.a2.number;
        }
        if (match_an_address(c.a2, i)) range_[i] = Range::closed;
        return true;
    }

    // ---- commands --------------------------------------------------------------------------------------

    void do_list(int64_t width) {
        output_missing_newline(main_);
        Sink& out = *main_.sink;
        int64_t col = 0;
        char obuf[8];
        for (unsigned char c : line_) {
            size_t n = 0;
            if (c >= 0x20 && c < 0x7f) {
                obuf[n++] = static_cast<char>(c);
                if (c == '\\') obuf[n++] = '\\';
            } else {
                obuf[n++] = '\\';
                switch (c) {
                    case '\a': obuf[n++] = 'a'; break;
                    case '\b': obuf[n++] = 'b'; break;
                    case '\f': obuf[n++] = 'f'; break;
                    case '\n': obuf[n++] = 'n'; break;
                    case '\r': obuf[n++] = 'r'; break;
                    case '\t': obuf[n++] = 't'; break;
                    case '\v': obuf[n++] = 'v'; break;
                    default:
                        obuf[n++] = static_cast<char>('0' + (c >> 6));
                        obuf[n++] = static_cast<char>('0' + ((c >> 3) & 7));
                        obuf[n++] = static_cast<char>('0' + (c & 7));
                        break;
                }
            }
            if (width > 0 && col + static_cast<int64_t>(n) >= width) {
                out.put('\\');
                out.put(delim_);
                col = 0;
            }
            out.put(std::string_view(obuf, n));
            col += static_cast<int64_t>(n);
        }
        out.put('$');
        out.put(delim_);
        out.end_write();
    }

    static char to_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }
    static char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

    static void append_modified(std::string& to, std::string_view s, uint8_t type) {
        if (type == kReplAsIs) {
            to.append(s);
            return;
        }
        size_t i = 0;
        if (!s.empty() && (type & kReplModifiers)) {
            to += (type & kReplUpperFirst) ? to_upper(s[0]) : to_lower(s[0]);
            type = static_cast<uint8_t>(type & ~kReplModifiers);
            i = 1;
            if (type == kReplAsIs) {
                to.append(s.substr(1));
                return;
            }
        }
        for (; i < s.size(); ++i) to += (type & kReplUpper) ? to_upper(s[i]) : to_lower(s[i]);
    }

    void append_replacement(std::string& buf, const Subst& sub, const std::vector<interp::RegexSpan>& spans) {
        uint8_t repl_mod = 0;
        for (const ReplPart& p : sub.replacement) {
            uint8_t cur = (p.type & kReplModifiers) ? p.type : static_cast<uint8_t>(p.type | repl_mod);
            repl_mod = 0;
            if (!p.prefix.empty()) {
                append_modified(buf, p.prefix, cur);
                cur = static_cast<uint8_t>(cur & ~kReplModifiers);
            }
            if (p.group >= 0 && static_cast<size_t>(p.group) < spans.size()) {
                const interp::RegexSpan& sp = spans[static_cast<size_t>(p.group)];
                if (!sp.matched()) continue;
                if (sp.end == sp.begin && (p.type & kReplModifiers))
                    repl_mod = cur & kReplModifiers;
                else if (sp.end != sp.begin)
                    append_modified(buf, std::string_view(line_).substr(static_cast<size_t>(sp.begin),
                                                                        static_cast<size_t>(sp.end - sp.begin)),
                                    cur);
            }
        }
    }

    void do_subst(const Subst& sub) {
        const interp::Regex& re = regex(sub.regex);
        std::vector<interp::RegexSpan>& spans = spans_;
        if (!re.search(line_, spans, 0)) return;
        std::string& acc = accum_;
        acc.clear();
        size_t start = 0, last_end = 0;
        uint64_t count = 0;
        bool again = true;
        const size_t len = line_.size();
        uint32_t tick = 0;
        do {
            if ((++tick & 0xfff) == 0) {
                // A long line with many matches: the result grows with it.
                if (ctx_.cancelled()) throw Panic{"", 130};
                charge_spaces(acc.capacity());
            }
            const size_t offset = static_cast<size_t>(spans[0].begin);
            size_t matched = static_cast<size_t>(spans[0].end - spans[0].begin);
            if (start < offset) acc.append(line_, start, offset - start);
            if ((matched > 0 || count == 0 || offset > last_end) && ++count >= sub.nth) {
                replaced_ = true;
                append_replacement(acc, sub, spans);
                again = sub.global;
            } else {
                if (matched == 0) {
                    if (start < len)
                        matched = 1;
                    else
                        break;
                }
                acc.append(line_, offset, matched);
            }
            start = offset + matched;
            last_end = static_cast<size_t>(spans[0].end);
        } while (again && start <= len && re.search(line_, spans, start));
        if (start < len) acc.append(line_, start, len - start);
        line_.swap(acc);
        if (count < sub.nth) return;
        if (sub.print) output_line(line_, chomped_, main_);
        if (sub.wfile >= 0) output_line(line_, chomped_, channels_[static_cast<size_t>(sub.wfile)]);
    }

    // Runs the program on the pattern space. -1 at the end of the cycle, else the status to exit with.
    int execute() {
        const auto& cmds = prog_.cmds;
        size_t i = 0;
        while (i < cmds.size()) {
            const Command& c = cmds[i];
            if (match_address(i) != c.bang) {
                switch (c.name) {
                    case 'a': append_.push_back({c.text, false}); break;
                    case '{': i = c.jump; continue;
                    case 'b':
                        if (c.jump <= i && ctx_.cancelled()) throw Panic{"", 130};
                        i = c.jump;
                        continue;
                    case '}':
                    case ':': break;
                    case 'c':
                        if (range_[i] != Range::active && !c.text.empty())
                            output_line(std::string_view(c.text).substr(0, c.text.size() - 1), true, main_);
                        return -1;
                    case 'd': return -1;
                    case 'D': {
                        const size_t nl = line_.find(delim_);
                        if (nl == std::string::npos) return -1;
                        line_.erase(0, nl + 1);
                        if (ctx_.cancelled()) throw Panic{"", 130};
                        i = 0;
                        continue;
                    }
                    case 'g':
                        line_ = hold_;
                        chomped_ = hold_chomped_;
                        break;
                    case 'G':
                        line_ += delim_;
                        line_ += hold_;
                        chomped_ = hold_chomped_;
                        break;
                    case 'h':
                        hold_ = line_;
                        hold_chomped_ = chomped_;
                        break;
                    case 'H':
                        hold_ += delim_;
                        hold_ += line_;
                        hold_chomped_ = chomped_;
                        break;
                    case 'i':
                        if (!c.text.empty())
                            output_line(std::string_view(c.text).substr(0, c.text.size() - 1), true, main_);
                        break;
                    case 'l': do_list(c.int_arg == -1 ? opt_.line_wrap : c.int_arg); break;
                    case 'n':
                        if (!opt_.quiet) output_line(line_, chomped_, main_);
                        if (test_eof() || !read_pattern_space(false)) return -1;
                        break;
                    case 'N':
                        line_ += delim_;
                        if (test_eof() || !read_pattern_space(true)) {
                            line_.pop_back();
                            if (!opt_.posix && !opt_.quiet) output_line(line_, chomped_, main_);
                            return -1;
                        }
                        break;
                    case 'p': output_line(line_, chomped_, main_); break;
                    case 'P': {
                        const size_t nl = line_.find(delim_);
                        if (nl == std::string::npos)
                            output_line(line_, chomped_, main_);
                        else
                            output_line(std::string_view(line_).substr(0, nl), true, main_);
                        break;
                    }
                    case 'q':
                        if (!opt_.quiet) output_line(line_, chomped_, main_);
                        dump_append();
                        return c.int_arg == -1 ? 0 : static_cast<int>(c.int_arg & 0xff);
                    case 'Q': return c.int_arg == -1 ? 0 : static_cast<int>(c.int_arg & 0xff);
                    case 'r':
                        if (c.prepend) {
                            output_missing_newline(main_);
                            write_file_contents(c.text, main_);
                            main_.sink->end_write();
                        } else {
                            append_.push_back({c.text, true});
                        }
                        break;
                    case 'R': {
                        auto& f = rfiles_[static_cast<size_t>(c.file)];
                        if (f) {
                            std::string text;
                            bool terminated = true;
                            if (f->next(text, terminated) > 0) {
                                if (terminated) text += delim_;
                                append_.push_back({std::move(text), false});
                            }
                        }
                        break;
                    }
                    case 's': do_subst(prog_.substs[static_cast<size_t>(c.subst)]); break;
                    case 't':
                        if (replaced_) {
                            replaced_ = false;
                            if (c.jump <= i && ctx_.cancelled()) throw Panic{"", 130};
                            i = c.jump;
                            continue;
                        }
                        break;
                    case 'T':
                        if (!replaced_) {
                            if (c.jump <= i && ctx_.cancelled()) throw Panic{"", 130};
                            i = c.jump;
                            continue;
                        }
                        replaced_ = false;
                        break;
                    case 'w': output_line(line_, chomped_, channels_[static_cast<size_t>(c.file)]); break;
                    case 'W': {
                        Channel& ch = channels_[static_cast<size_t>(c.file)];
                        const size_t nl = line_.find(delim_);
                        if (nl == std::string::npos)
                            output_line(line_, chomped_, ch);
                        else
                            output_line(std::string_view(line_).substr(0, nl), true, ch);
                        break;
                    }
                    case 'x':
                        line_.swap(hold_);
                        std::swap(chomped_, hold_chomped_);
                        break;
                    case 'y': {
                        const auto& map = prog_.ymaps[static_cast<size_t>(c.ymap)];
                        for (char& ch : line_) ch = static_cast<char>(map[static_cast<unsigned char>(ch)]);
                        break;
                    }
                    case 'z': line_.clear(); break;
                    case '=': {
                        output_missing_newline(main_);
                        main_.sink->put(std::to_string(line_number_));
                        main_.sink->put(delim_);
                        main_.sink->end_write();
                        break;
                    }
                    case 'F':
                        output_missing_newline(main_);
                        main_.sink->put(cur_name_);
                        main_.sink->put(delim_);
                        main_.sink->end_write();
                        break;
                    default: break;
                }
                charge_spaces(accum_.capacity());
                if (line_.size() > kMaxSpaceBytes || hold_.size() > kMaxSpaceBytes)
                    throw Panic{"pattern or hold space exceeds " + std::to_string(kMaxSpaceBytes >> 20) +
                                    " MiB (bashkit's limit)",
                                4};
            }
            ++i;
        }
        if (!opt_.quiet) output_line(line_, chomped_, main_);
        return -1;
    }

    struct AppendItem {
        std::string text;  // the text, or the file name for r
        bool is_file = false;
    };

    CommandContext& ctx_;
    const Program& prog_;
    const RunOptions& opt_;
    const std::vector<std::string>& files_;
    const char delim_;

    Sink stdout_sink_;
    Sink stderr_sink_;
    // The devices some w files write to, declared before the sinks (destroyed after them: a sink flushes
    // when it is destroyed).
    std::vector<std::unique_ptr<interp::ByteStream>> owned_streams_;
    std::vector<std::unique_ptr<Sink>> sinks_;
    std::vector<Channel> channels_;
    Channel main_;
    std::vector<std::unique_ptr<InFile>> rfiles_;

    std::string line_;
    bool chomped_ = true;
    std::string hold_;
    bool hold_chomped_ = true;
    // The pattern and hold spaces and the substitution buffer, held on the session's memory budget.
    interp::MemoryCharge spaces_{ctx_.memory};
    void charge_spaces(size_t accum) { spaces_.set(line_.capacity() + hold_.capacity() + accum); }
    std::string accum_;
    std::vector<interp::RegexSpan> spans_;
    std::vector<Range> range_;
    std::vector<uint64_t> a2_number_;
    bool replaced_ = false;
    uint64_t line_number_ = 0;
    const interp::Regex* last_regex_ = nullptr;
    std::vector<AppendItem> append_;

    size_t next_file_ = 0;
    std::unique_ptr<InFile> cur_;
    std::string cur_name_ = "-";
    bool reset_at_next_file_ = true;
    int bad_count_ = 0;

    std::unique_ptr<Sink> temp_sink_;
    std::string temp_path_;
    std::string target_path_;
    vfs::Mode target_mode_ = 0644;
};

}  // namespace

int run_program(CommandContext& ctx, const Program& program, const RunOptions& options,
                const std::vector<std::string>& files) {
    Runner runner(ctx, program, options, files);
    return runner.run();
}

}  // namespace bashkit::utils::sed
