// awk input and output: record readers (RS as a character, paragraph mode or a regex), the main input
// over ARGV, getline sources, output redirections and commands run through the sandbox's interpreter.
#include <algorithm>
#include <cstring>

#include "utils/awk/parser.hpp"
#include "utils/awk/runtime.hpp"
#include "utils/text/util.hpp"  // device_stream: /dev/zero, /dev/urandom, ... as the text tools see them

namespace bashkit::utils::awk {

namespace {

constexpr size_t kChunk = 64 * 1024;
constexpr size_t kFlushAt = 64 * 1024;
constexpr size_t kMaxCommandOutput = size_t{256} << 20;

// Collects a command's output for `cmd | getline`, up to a cap; past it the writer gets a broken pipe.
class CaptureSink : public interp::ByteStream {
public:
    explicit CaptureSink(std::string& out) : out_(out) {}
    bool writable() const override { return true; }
    interp::IoResult write(std::string_view data) override {
        if (out_.size() + data.size() > kMaxCommandOutput) return {0, EPIPE};
        out_.append(data);
        return {data.size(), 0};
    }
    std::string describe() const override { return "pipe"; }

private:
    std::string& out_;
};

bool is_ident(std::string_view s) {
    if (s.empty()) return false;
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (!alpha(s[0])) return false;
    for (char c : s)
        if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
    return true;
}

}  // namespace

// ------------------------------------------------------------------------------------------------ Reader

bool Reader::more(int& err) {
    if (eof_) return false;
    if (buf_.size() - pos_ > max_record_) {
        err = EFBIG;
        eof_ = true;
        return false;
    }
    if (pos_ > 0 && (pos_ >= buf_.size() || pos_ > (kChunk / 2))) {
        buf_.erase(0, pos_);
        pos_ = 0;
    }
    size_t old = buf_.size();
    buf_.resize(old + kChunk);
    interp::IoResult r = fill_(buf_.data() + old, kChunk);
    buf_.resize(old + r.n);
    if (r.err) {
        err = r.err;
        eof_ = true;
        return false;
    }
    if (r.n == 0) {
        eof_ = true;
        return false;
    }
    return true;
}

bool Reader::next(int rs_mode, char rs_char, const interp::Regex* rs_re, std::string& rec, std::string& rt,
                  const interp::CancelToken& cancel, int& err) {
    err = 0;
    if (rs_mode == 0) {
        size_t scan = pos_;
        while (true) {
            const char* base = buf_.data();
            const void* hit = scan < buf_.size() ? std::memchr(base + scan, rs_char, buf_.size() - scan) : nullptr;
            if (hit) {
                size_t i = static_cast<size_t>(static_cast<const char*>(hit) - base);
                rec.assign(base + pos_, i - pos_);
                rt.assign(1, rs_char);
                pos_ = i + 1;
                return true;
            }
            if (eof_) {
                if (pos_ < buf_.size()) {
                    rec.assign(buf_.data() + pos_, buf_.size() - pos_);
                    rt.clear();
                    pos_ = buf_.size();
                    return true;
                }
                return false;
            }
            if (cancel.cancelled()) throw AwkCancelled{};
            size_t consumed = buf_.size() - pos_;
            (void)more(err);
            if (err) return false;
            scan = pos_ + consumed;
        }
    }
    if (rs_mode == 1) {
        // paragraph mode: skip leading newlines, end at a run of two or more
        while (true) {
            while (pos_ < buf_.size() && buf_[pos_] == '\n') ++pos_;
            if (pos_ < buf_.size() || eof_) break;
            if (cancel.cancelled()) throw AwkCancelled{};
            (void)more(err);
            if (err) return false;
        }
        size_t scan = pos_;
        while (true) {
            size_t i = buf_.find("\n\n", scan);
            if (i != std::string::npos) {
                size_t j = i;
                while (j < buf_.size() && buf_[j] == '\n') ++j;
                if (j == buf_.size() && !eof_) {
                    size_t keep = scan - pos_;
                    (void)more(err);
                    if (err) return false;
                    scan = pos_ + keep;
                    continue;
                }
                rec.assign(buf_.data() + pos_, i - pos_);
                rt.assign(buf_.data() + i, j - i);
                pos_ = j;
                return true;
            }
            if (eof_) {
                if (pos_ >= buf_.size()) return false;
                size_t e = buf_.size();
                while (e > pos_ && buf_[e - 1] == '\n') --e;
                rec.assign(buf_.data() + pos_, e - pos_);
                rt.assign(buf_.data() + e, buf_.size() - e);
                pos_ = buf_.size();
                return true;
            }
            if (cancel.cancelled()) throw AwkCancelled{};
            size_t keep = buf_.size() > pos_ ? buf_.size() - pos_ : 0;
            keep = keep > 0 ? keep - 1 : 0;
            (void)more(err);
            if (err) return false;
            scan = pos_ + keep;
        }
    }
    // regex RS
    std::vector<interp::RegexSpan> sp;
    while (true) {
        std::string_view text(buf_.data() + pos_, buf_.size() - pos_);
        size_t from = 0;
        bool found = false;
        size_t mb = 0, me = 0;
        while (from <= text.size() && rs_re->search(text, sp, from)) {
            mb = static_cast<size_t>(sp[0].begin);
            me = static_cast<size_t>(sp[0].end);
            if (me > mb) {
                found = true;
                break;
            }
            from = mb + 1;
        }
        if (found && (me < text.size() || eof_)) {
            rec.assign(text.data(), mb);
            rt.assign(text.data() + mb, me - mb);
            pos_ += me;
            return true;
        }
        if (eof_) {
            if (text.empty()) return false;
            rec.assign(text.data(), text.size());
            rt.clear();
            pos_ = buf_.size();
            return true;
        }
        if (cancel.cancelled()) throw AwkCancelled{};
        (void)more(err);
        if (err) return false;
    }
}

// ------------------------------------------------------------------------------------------------ input

void Runtime::set_rs() {
    Value& v = globals_[kRS].v;
    std::string buf;
    std::string rs(to_str(v, buf));
    rs_re_.reset();
    if (rs.empty()) {
        rs_mode_ = 1;
    } else if (rs.size() == 1) {
        rs_mode_ = 0;
        rs_char_ = rs[0];
        if (icase_ && std::isalpha(static_cast<unsigned char>(rs[0]))) {
            rs_mode_ = 2;
            interp::RegexOptions ro;
            ro.icase = true;
            ro.dialect = interp::RegexDialect::kGnu;
            rs_re_ = std::make_unique<interp::Regex>(
                interp::Regex::compile(std::string("[") + rs[0] + "]", interp::RegexSyntax::kExtended, ro));
        }
    } else {
        rs_mode_ = 2;
        interp::RegexOptions ro;
        ro.icase = icase_;
        ro.dialect = interp::RegexDialect::kGnu;
        rs_re_ = std::make_unique<interp::Regex>(
            interp::Regex::compile(awk_regex_to_ere(rs), interp::RegexSyntax::kExtended, ro));
        if (!rs_re_->ok()) fatal("invalid regexp for RS: " + rs_re_->message());
    }
}

bool Runtime::read_record_from(Reader& r, std::string& rec, std::string& rt, int& err) {
    return r.next(rs_mode_, rs_char_, rs_re_.get(), rec, rt, ctx_.cancel, err);
}

Reader* Runtime::stdin_reader() {
    if (!stdin_reader_) {
        interp::ByteStream* in = &ctx_.in;
        stdin_reader_ = std::make_unique<Reader>([in](char* b, size_t n) { return in->read(b, n); });
        stdin_reader_->set_max_record(ctx_.limits.max_variable_bytes);
    }
    return stdin_reader_.get();
}

bool Runtime::run_file_rules(PatternKind kind) {
    if (!prog_.has_file_rules) return true;
    for (auto& r : prog_.rules) {
        if (r.kind != kind) continue;
        Flow f = Flow::Normal;
        try {
            f = exec(r.action);
        } catch (const FlowSignal& s) {
            f = s.flow;
        }
        if (f == Flow::Exit) {
            main_done_ = true;
            return true;
        }
        if (f == Flow::NextFile) return false;
    }
    return true;
}

std::unique_ptr<Reader> Runtime::open_reader(const std::string& name, int& err) {
    std::string path = ctx_.resolve(name);
    auto owned = std::make_shared<std::unique_ptr<interp::ByteStream>>();
    if (interp::ByteStream* d = text::device_stream(ctx_, path, *owned)) {
        auto r = std::make_unique<Reader>([d, owned](char* b, size_t n) { return d->read(b, n); });
        r->set_max_record(ctx_.limits.max_variable_bytes);
        return r;
    }
    auto fh = ctx_.fs.open_read(path);
    if (!fh.ok()) {
        err = vfs::to_errno(fh.error());
        return nullptr;
    }
    auto handle = std::shared_ptr<vfs::FileHandle>(std::move(fh).value());
    auto r = std::make_unique<Reader>([handle](char* b, size_t n) {
        auto res = handle->read(b, n);
        if (!res.ok()) return interp::IoResult{0, vfs::to_errno(res.error())};
        return interp::IoResult{res.value(), 0};
    });
    r->set_max_record(ctx_.limits.max_variable_bytes);
    return r;
}

void Runtime::end_main_file() {
    main_reader_ = nullptr;
    main_owned_.reset();
}

bool Runtime::open_next_main() {
    while (true) {
        double argc = to_num(globals_[kARGC].v);
        if (static_cast<double>(arg_index_) >= argc) break;
        Array& argv = array_of_slot(kARGV);
        Value* v = argv.find(std::to_string(arg_index_));
        ++arg_index_;
        if (!v) continue;
        std::string buf;
        std::string arg(to_str(*v, buf));
        if (arg.empty()) continue;
        size_t eq = arg.find('=');
        if (eq != std::string::npos && eq > 0 && is_ident(std::string_view(arg).substr(0, eq))) {
            std::string name = arg.substr(0, eq);
            std::vector<std::string> warnings;
            std::string value = unescape_string(std::string_view(arg).substr(eq + 1), &warnings, "awk: ");
            auto it = prog_.global_index.find(name);
            if (prog_.function_index.count(name)) fatal("cannot use function `" + name + "' as variable name", 0);
            if (it != prog_.global_index.end()) {
                Cell& c = globals_[static_cast<size_t>(it->second)];
                if (c.kind == Cell::kArray) fatal("cannot use array `" + name + "' as a scalar", 0);
                c.kind = Cell::kScalar;
                c.v.set_strnum(value);
                if (it->second < kSpecialCount) on_special(it->second);
            }
            continue;
        }
        used_file_operand_ = true;
        if (arg == "-" || arg == "/dev/stdin") {
            main_reader_ = stdin_reader();
        } else {
            std::string path = ctx_.resolve(arg);
            auto st = ctx_.fs.stat(path);
            if (st.ok() && st->is_directory()) {
                flush_stdout();
                (void)ctx_.err.write("awk: warning: command line argument `" + arg + "' is a directory: skipped\n");
                continue;
            }
            int err = 0;
            main_owned_ = open_reader(arg, err);
            if (!main_owned_) {
                // gawk names the program line only once a rule has run
                throw AwkFatal{"cannot open file `" + arg + "' for reading: " +
                                   std::string(vfs::error_message(static_cast<vfs::Errc>(err))),
                               cur_line_, false};
            }
            main_reader_ = main_owned_.get();
        }
        globals_[kFILENAME].kind = Cell::kScalar;
        globals_[kFILENAME].v.set_strnum(arg);
        fnr_ = 0;
        return true;
    }
    if (!used_file_operand_) {
        used_file_operand_ = true;
        main_reader_ = stdin_reader();
        globals_[kFILENAME].kind = Cell::kScalar;
        globals_[kFILENAME].v.set_str("-");
        fnr_ = 0;
        return true;
    }
    main_done_ = true;
    return false;
}

bool Runtime::next_main_record(std::string& rec, std::string& rt) {
    while (true) {
        if (main_done_) return false;
        if (!main_reader_) {
            if (!open_next_main()) return false;
            if (!run_file_rules(PatternKind::BeginFile)) {
                end_main_file();  // nextfile in BEGINFILE skips the file
                continue;
            }
            if (main_done_) return false;
        }
        int err = 0;
        if (read_record_from(*main_reader_, rec, rt, err)) {
            nr_ += 1;
            fnr_ += 1;
            globals_[kNR].v.set_num(nr_);
            globals_[kFNR].v.set_num(fnr_);
            globals_[kRT].kind = Cell::kScalar;
            globals_[kRT].v.set_str(rt);
            return true;
        }
        if (err) {
            std::string buf;
            std::string name(to_str(globals_[kFILENAME].v, buf));
            fatal("error reading input file `" + (name.empty() ? std::string("-") : name) +
                      "': " + std::string(vfs::error_message(static_cast<vfs::Errc>(err))),
                  0);
        }
        run_file_rules(PatternKind::EndFile);
        end_main_file();
    }
}

Reader* Runtime::file_reader(const std::string& name, int& err) {
    if (name == "-" || name == "/dev/stdin" || name == "/dev/fd/0") return stdin_reader();
    auto it = in_files_.find(name);
    if (it != in_files_.end()) return it->second.get();
    auto r = open_reader(name, err);
    if (!r) return nullptr;
    Reader* p = r.get();
    in_files_.emplace(name, std::move(r));
    return p;
}

Reader* Runtime::cmd_reader(const std::string& cmd) {
    auto it = in_cmds_.find(cmd);
    if (it != in_cmds_.end()) return it->second.reader.get();
    flush_all();
    InCmd ic;
    ic.data = std::make_shared<std::string>();
    CaptureSink sink(*ic.data);
    ic.status = run_command(cmd, ctx_.in, sink);
    auto data = ic.data;
    auto pos = std::make_shared<size_t>(0);
    ic.reader = std::make_unique<Reader>([data, pos](char* b, size_t n) {
        size_t k = std::min(n, data->size() - *pos);
        std::memcpy(b, data->data() + *pos, k);
        *pos += k;
        return interp::IoResult{k, 0};
    });
    Reader* p = ic.reader.get();
    in_cmds_.emplace(cmd, std::move(ic));
    return p;
}

const Value& Runtime::getline(const Node* n, Value& tmp) {
    std::string rec, rt;
    int err = 0;
    std::string buf;
    auto deliver = [&](bool count_nr, bool count_fnr) {
        if (count_nr) {
            nr_ += 1;
            globals_[kNR].v.set_num(nr_);
        }
        if (count_fnr) {
            fnr_ += 1;
            globals_[kFNR].v.set_num(fnr_);
        }
        globals_[kRT].kind = Cell::kScalar;
        globals_[kRT].v.set_str(rt);
        if (n->a) {
            Value v;
            v.set_strnum(rec);
            assign(n->a, std::move(v));
        } else {
            set_record(rec);
        }
    };
    switch (n->op) {
        case 0: {
            if (!next_main_record(rec, rt)) {
                tmp.set_num(0);
                return tmp;
            }
            // next_main_record counted NR and FNR already
            if (n->a) {
                Value v;
                v.set_strnum(rec);
                assign(n->a, std::move(v));
            } else {
                set_record(rec);
            }
            tmp.set_num(1);
            return tmp;
        }
        case 1: {
            Value t;
            std::string name(to_str(eval(n->b, t), buf));
            Reader* r = file_reader(name, err);
            if (!r) {
                globals_[kERRNO].kind = Cell::kScalar;
                globals_[kERRNO].v.set_str(std::string(vfs::error_message(static_cast<vfs::Errc>(err))));
                tmp.set_num(-1);
                return tmp;
            }
            if (!read_record_from(*r, rec, rt, err)) {
                tmp.set_num(err ? -1 : 0);
                return tmp;
            }
            deliver(false, false);
            tmp.set_num(1);
            return tmp;
        }
        default: {
            Value t;
            std::string cmd(to_str(eval(n->b, t), buf));
            Reader* r = cmd_reader(cmd);
            if (!read_record_from(*r, rec, rt, err)) {
                tmp.set_num(0);
                return tmp;
            }
            deliver(false, false);
            tmp.set_num(1);
            return tmp;
        }
    }
}

// ------------------------------------------------------------------------------------------------ output

int Runtime::run_command(const std::string& cmd, interp::ByteStream& in, interp::ByteStream& out) {
    if (!ctx_.runner) {
        (void)ctx_.err.write("awk: cannot run commands here\n");
        return 127;
    }
    std::vector<std::string> args{"sh"};
    return ctx_.runner->run_script(cmd, args, in, out, ctx_.err);
}

void Runtime::flush_stdout() {
    if (!stdout_.flush()) stop_on_write_error();
}

void Runtime::stop_on_write_error() {
    // The reader went away (141, as gawk killed by SIGPIPE) or the command was cancelled (130); any other
    // failed write is dropped, as before.
    const int e = stdout_.error();
    if (e == EPIPE || e == ECANCELED) throw AwkCancelled{stdout_.finish()};
}

void Runtime::flush_output(Output& o) {
    if (o.kind == Output::kFile && o.fh && !o.buf.empty()) {
        auto r = o.fh->write(o.buf);
        o.buf.clear();
        if (!r.ok()) fatal("write failure: " + std::string(vfs::error_message(r.error())));
    }
}

void Runtime::flush_all() {
    flush_stdout();
    for (auto& [name, o] : outputs_) flush_output(*o);
}

Output* Runtime::output_for(char redir, const std::string& name) {
    auto it = outputs_.find(name);
    if (it != outputs_.end()) return it->second.get();
    auto o = std::make_unique<Output>();
    if (redir != '|' && (name == "/dev/stdout" || name == "/dev/fd/1" || name == "-")) {
        o->kind = Output::kStdout;
    } else if (redir != '|' && name == "/dev/null") {
        o->kind = Output::kNull;
    } else if (redir != '|' && (name == "/dev/stderr" || name == "/dev/fd/2")) {
        o->kind = Output::kStderr;
    } else if (redir == '|') {
        o->kind = Output::kPipe;
        o->cmd = name;
        flush_stdout();
    } else {
        auto fh = ctx_.fs.open_write(ctx_.resolve(name), redir == 'a');
        if (!fh.ok()) {
            fatal("cannot redirect to `" + name + "': " + std::string(vfs::error_message(fh.error())));
        }
        o->kind = Output::kFile;
        o->fh = std::move(fh).value();
    }
    Output* p = o.get();
    outputs_.emplace(name, std::move(o));
    output_order_.push_back(name);
    return p;
}

void Runtime::write_out(Output* o, std::string_view data) {
    switch (o->kind) {
        case Output::kStdout:
            print_stdout(data);
            return;
        case Output::kStderr:
            (void)ctx_.err.write(data);
            return;
        case Output::kNull:
            return;
        case Output::kFile:
            o->buf.append(data);
            if (o->buf.size() > kFlushAt) flush_output(*o);
            return;
        case Output::kPipe:
            o->buf.append(data);
            return;
    }
}

int Runtime::close_output(Output& o) {
    switch (o.kind) {
        case Output::kFile:
            flush_output(o);
            o.fh.reset();
            return 0;
        case Output::kPipe: {
            flush_all();
            interp::StringSource src(std::move(o.buf));
            o.buf.clear();
            return run_command(o.cmd, src, ctx_.out);
        }
        case Output::kStdout:
            flush_stdout();
            return 0;
        default:
            return 0;
    }
}

int Runtime::close_stream(const std::string& name) {
    int result = -1;
    bool found = false;
    auto it = outputs_.find(name);
    if (it != outputs_.end()) {
        result = close_output(*it->second);
        outputs_.erase(it);
        output_order_.erase(std::remove(output_order_.begin(), output_order_.end(), name), output_order_.end());
        found = true;
    }
    auto ic = in_cmds_.find(name);
    if (ic != in_cmds_.end()) {
        result = ic->second.status;
        in_cmds_.erase(ic);
        found = true;
    }
    auto f = in_files_.find(name);
    if (f != in_files_.end()) {
        in_files_.erase(f);
        if (!found) result = 0;
        found = true;
    }
    return found ? result : -1;
}

void Runtime::close_all() {
    std::vector<std::string> order = output_order_;
    for (const auto& name : order) {
        auto it = outputs_.find(name);
        if (it == outputs_.end()) continue;
        if (it->second->kind == Output::kPipe) continue;
        (void)close_output(*it->second);
    }
    for (const auto& name : order) {
        auto it = outputs_.find(name);
        if (it == outputs_.end()) continue;
        if (it->second->kind != Output::kPipe) continue;
        // gawk closes pipes before its own stdout is flushed
        interp::StringSource src(std::move(it->second->buf));
        (void)run_command(it->second->cmd, src, ctx_.out);
    }
    outputs_.clear();
    output_order_.clear();
    in_cmds_.clear();
    in_files_.clear();
}

}  // namespace bashkit::utils::awk
