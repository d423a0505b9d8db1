// jq: our own implementation of the jq 1.7.1 language (engine.hpp), driven the way jq 1.7.1's main()
// drives libjq: the same options, output flags, messages and exit statuses. It reads only the sandbox:
// files and modules (import/include, -L) come from ctx.fs, stdin from ctx.in, `$ENV`/`env` show the
// command's exported environment. Each run has its own evaluator: no global state, no lock.
#include "utils/jq/jq.hpp"

#include <cctype>
#include <cerrno>
#include <memory>
#include <string>
#include <string_view>

#include "utils/jq/engine.hpp"
#include "utils/jq/inputs.hpp"
#include "utils/jq/options.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils {

namespace jq {

namespace {

constexpr int kOkNoOutput = -4;
constexpr int kOkNullKind = -1;
constexpr int kErrorUnknown = 5;

class Runner : public Host {
public:
    Runner(interp::CommandContext& ctx, Options& o) : ctx_(ctx), o_(o) {}
    int run();

    bool next_input(Value& out) override {
        if (!inputs_) return false;
        std::string err;
        for (;;) {
            auto st = inputs_->next(out, err);
            if (st == InputReader::kValue) return true;
            if (st == InputReader::kEnd) return false;
            throw JqError{Value::string(err)};
        }
    }
    void debug(const Value& msg) override {
        pending_err_ += to_json(Value::array({Value::string("DEBUG:"), msg})) + "\n";
    }
    void stderr_value(const Value& v) override { pending_err_ += v.is_string() ? v.str() : to_json(v); }
    Value input_filename() override { return inputs_ ? inputs_->filename() : Value(); }
    double input_line_number() override { return inputs_ ? static_cast<double>(inputs_->line()) : 0; }
    bool cancelled() override { return ctx_.cancelled(); }
    int read_file(const std::string& path, std::string& text) override {
        text::Input in;
        vfs::Errc e = in.open_input(ctx_, path);
        if (e == vfs::Errc::ok) e = text::read_all(ctx_, in, text);
        return static_cast<int>(e);
    }
    double now() override {
        auto t = ctx_.clock.now();
        return static_cast<double>(t.sec) + static_cast<double>(t.nsec) / 1e9;
    }

private:
    int process(const Value& input);
    bool emit(const Value& v);
    void flush_err();
    bool flush_out();
    bool make_args();  // false: a message was printed
    bool usage_hint_ = true;
    bool read_file(const std::string& name, std::string& content, std::string& err);

    interp::CommandContext& ctx_;
    Options& o_;
    std::unique_ptr<Evaluator> ev_;
    std::unique_ptr<InputReader> inputs_;
    DumpOptions dump_;
    bool stopped_ = false;
    int stop_status_ = 0;
    int last_ret_ = kOkNoOutput;
    bool halted_ = false;
    std::string pending_err_;
    std::string out_;
};

void Runner::flush_err() {
    if (pending_err_.empty()) return;
    (void)ctx_.err.write(pending_err_);
    pending_err_.clear();
}

bool Runner::flush_out() {
    if (out_.empty()) return true;
    interp::IoResult r = ctx_.out.write(out_);
    out_.clear();
    if (!r.ok()) {
        stopped_ = true;
        if (r.err == EPIPE) {
            stop_status_ = 141;
        } else {
            (void)ctx_.err.write("jq: error: writing output failed: " + text::errstr(static_cast<vfs::Errc>(r.err)) + "\n");
            stop_status_ = 2;
        }
        return false;
    }
    return true;
}

bool Runner::emit(const Value& v) {
    flush_err();
    if (o_.raw_output && v.is_string()) {
        if (o_.raw_output0 && v.str().find('\0') != std::string::npos) {
            throw JqError{Value::string("Cannot dump a string containing NUL with --raw-output0 option")};
        }
        if (o_.ascii) {
            dump_string(out_, v.str(), true);
        } else {
            out_ += v.str();
        }
        last_ret_ = 0;
    } else {
        last_ret_ = (v.kind() == Kind::False || v.kind() == Kind::Null) ? kOkNullKind : 0;
        if (o_.seq) out_ += '\x1e';
        dump(out_, v, dump_);
    }
    if (!o_.raw_no_lf) out_ += '\n';
    if (o_.raw_output0) out_ += '\0';
    // stdout of a real jq writing to a pipe or file is block-buffered: errors printed meanwhile come first.
    bool ok = out_.size() < 4096 || flush_out();
    if (ok && ctx_.cancelled()) {
        stopped_ = true;
        stop_status_ = 130;
        ok = false;
    }
    return ok;
}

int Runner::process(const Value& input) {
    last_ret_ = kOkNoOutput;
    try {
        ev_->run(input, [this](const Value& v) { return emit(v); });
    } catch (const JqError& e) {
        std::string pos = inputs_ && !o_.null_input ? inputs_->position() : "<unknown>";
        if (inputs_ && o_.null_input) pos = inputs_->position();
        if (e.v.is_string()) {
            pending_err_ += "jq: error (at " + pos + "): " + std::string(e.v.str()) + "\n";
        } else {
            pending_err_ += "jq: error (at " + pos + ") (not a string): " + to_json(e.v) + "\n";
        }
        return kErrorUnknown;
    } catch (const JqHalt& h) {
        halted_ = true;
        if (h.msg.is_valid()) {
            if (h.msg.is_string()) {
                pending_err_ += h.msg.str();
            } else if (!h.msg.is_null()) {
                pending_err_ += to_json(h.msg) + "\n";
            }
        }
        return h.code;
    } catch (const JqCancelled&) {
        stopped_ = true;
        stop_status_ = 130;
        return 130;
    }
    return last_ret_;
}

bool Runner::read_file(const std::string& name, std::string& content, std::string& err) {
    text::Input in;
    vfs::Errc e = in.open_input(ctx_, name);
    if (e == vfs::Errc::ok) e = text::read_all(ctx_, in, content);
    if (e != vfs::Errc::ok) {
        err = "Could not open " + name + ": " + text::errstr(e);
        return false;
    }
    return true;
}

// The named arguments (first definition of a name wins, as in jq), $ARGS, and the environment.
bool Runner::make_args() {
    Value named = Value::object();
    for (const NamedArg& a : o_.named) {
        Value value;
        if (a.kind == NamedArg::kString) {
            value = Value::string(a.text);
        } else if (a.kind == NamedArg::kJson) {
            std::string err;
            if (!parse_json(a.text, value, err)) {
                (void)ctx_.err.write("jq: invalid JSON text passed to --argjson\n");
                return false;
            }
        } else {
            std::string content, err;
            const char* opt = a.kind == NamedArg::kSlurpFile ? "slurpfile"
                              : a.kind == NamedArg::kRawFile ? "rawfile"
                                                             : "argfile";
            bool read = read_file(a.text, content, err);
            if (read) {
                if (a.kind == NamedArg::kRawFile) {
                    value = Value::string(content);
                } else {
                    std::vector<Value> all;
                    if (!parse_json_all(content, all, err)) {
                        read = false;
                    } else if (a.kind == NamedArg::kArgFile && all.size() == 1) {
                        value = all[0];
                    } else {
                        value = Value::array(std::move(all));
                    }
                }
            }
            if (!read) {
                (void)ctx_.err.write("jq: Bad JSON in --" + std::string(opt) + " " + a.name + " " + a.text + ": " +
                                     err + "\n");
                usage_hint_ = false;
                return false;
            }
        }
        named.set(a.name, std::move(value));
    }
    Value positional = Value::array();
    for (const auto& [is_json, text] : o_.positional) {
        Value v;
        if (is_json) {
            std::string err;
            if (!parse_json(text, v, err)) {
                (void)ctx_.err.write("jq: Invalid JSON text passed to --jsonargs\n");
                return false;
            }
        } else {
            v = Value::string(text);
        }
        positional.arr_mut().push_back(std::move(v));
    }
    Value envv = Value::object();
    for (const auto& [k, v] : ctx_.env.entries()) envv.set(k, Value::string(v));
    env = std::move(envv);
    named_args = std::move(named);
    this->positional = std::move(positional);
    return true;
}

int Runner::run() {
    std::string program = o_.have_program ? o_.program : ".";
    if (o_.from_file) {
        std::string content, err;
        if (!read_file(program, content, err)) {
            (void)ctx_.err.write("jq: " + err + "\n");
            return 2;
        }
        program = std::move(content);
    }
    if (size_t nul = program.find('\0'); nul != std::string::npos) program.resize(nul);
    if (!make_args()) return usage_hint_ ? die(ctx_) : 2;

    std::string errors;
    int nerrors = 0;
    std::shared_ptr<Program> prog = parse_program(program, errors, nerrors);
    if (prog) {
        if (!o_.lib_dirs.empty()) lib_dirs = o_.lib_dirs;
        if (const std::string* h = ctx_.env.get("HOME")) home = *h;
        cwd = ctx_.cwd;
        if (o_.from_file) {
            std::string f = ctx_.resolve(o_.program);
            prog_origin = f.substr(0, f.rfind('/') == 0 ? 1 : f.rfind('/'));
        }
        link_program(*prog, *this, errors, nerrors);
    }
    if (prog && nerrors == 0) {
        std::vector<std::string> vars = {"ENV", "ARGS", "__prog_args"};
        for (const auto& [k, v] : named_args.obj().items) vars.push_back(k);
        check_program(*prog, vars, errors, nerrors);
    }
    if (nerrors > 0) {
        (void)ctx_.err.write(errors + "jq: " + std::to_string(nerrors) + " compile error" + (nerrors > 1 ? "s" : "") +
                             "\n");
        return 3;
    }
    ev_ = std::make_unique<Evaluator>(prog, *this);

    int flags = o_.dumpopts;
    dump_.indent = (flags & JV_PRINT_PRETTY) ? jv_print_indent(flags) : 0;
    dump_.tab = (flags & JV_PRINT_TAB) != 0;
    if (dump_.tab) dump_.indent = 1;
    if ((flags & JV_PRINT_PRETTY) && !dump_.tab && dump_.indent == 0) dump_.indent = 0;
    dump_.sort = o_.sorted;
    dump_.ascii = o_.ascii;
    dump_.color = o_.color && !o_.no_color;
    if (dump_.color) {
        static const char* const defaults[8] = {"1;30", "0;39", "0;39", "0;39", "0;32", "1;39", "1;39", "34;1"};
        for (int i = 0; i < 8; ++i) dump_.colors[i] = defaults[i];
        if (const std::string* c = ctx_.env.get("JQ_COLORS")) {
            size_t i = 0, start = 0;
            while (i < 8 && start <= c->size()) {
                size_t e = c->find(':', start);
                if (e == std::string::npos) e = c->size();
                dump_.colors[i++] = c->substr(start, e - start);
                start = e + 1;
            }
        }
    }

    inputs_ = std::make_unique<InputReader>(ctx_, o_.files, o_.raw_input, o_.slurp, o_.seq, o_.stream);
    inputs_->on_error = [this](const std::string& s) {
        flush_err();
        (void)ctx_.err.write(s);
    };

    int ret = kOkNoOutput;
    int last_result = -1;
    try {
        if (o_.null_input) {
            ret = process(Value());
            if (ret <= 0 && ret != kOkNoOutput) last_result = ret != kOkNullKind;
        } else {
            while (!stopped_ && inputs_->failures() == 0) {
                Value value;
                std::string err;
                auto st = inputs_->next(value, err);
                if (st == InputReader::kEnd) break;
                if (st == InputReader::kValue) {
                    ret = process(value);
                    if (ret <= 0 && ret != kOkNoOutput) last_result = ret != kOkNullKind;
                    if (halted_) break;
                    continue;
                }
                if (!o_.seq) {
                    ret = kErrorUnknown;
                    pending_err_ += "jq: parse error: " + err + "\n";
                    break;
                }
                pending_err_ += "jq: ignoring parse error: " + err + "\n";
            }
        }
    } catch (const interp::MemoryLimitExceeded&) {
        throw;
    }
    if (inputs_->cancelled()) {
        stopped_ = true;
        stop_status_ = 130;
    }
    if (inputs_->failures() != 0) ret = 2;
    inputs_.reset();

    flush_err();
    if (!stopped_) flush_out();
    if (stopped_) return stop_status_;
    if (halted_) return o_.exit_status ? (ret < 0 ? -ret : ret) & 0xff : (ret > 0 ? ret & 0xff : 0);
    if (o_.exit_status) {
        if (ret != kOkNoOutput) return ret < 0 ? -ret : ret;
        switch (last_result) {
            case -1: return 4;
            case 0: return 1;
            default: return 0;
        }
    }
    return ret > 0 ? (ret & 0xff) : 0;
}

}  // namespace

int cmd_jq(interp::CommandContext& ctx) {
    Options o;
    int status = 0;
    if (!parse_options(ctx, o, status)) return status;
    if (o.help) {
        (void)ctx.out.write(kUsage);
        return 0;
    }
    if (o.version) {
        (void)ctx.out.write("jq-1.7.1\n");
        return 0;
    }
    BudgetScope budget(ctx.memory);
    Runner r(ctx, o);
    return r.run();
}

}  // namespace jq

void register_jq_utils(interp::CommandRegistry& registry) {
    registry.add("jq",
                 "jq [-cnrjsSeaRCM] [--tab|--indent N] [--arg N V] [--argjson N J] [--slurpfile N F] "
                 "[--rawfile N F] [--args|--jsonargs] FILTER [FILE]... : JSON processor (the jq 1.7.1 language)",
                 jq::cmd_jq);
}

}  // namespace bashkit::utils
