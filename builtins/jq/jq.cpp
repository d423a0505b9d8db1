// jq through libjq 1.6, driven the way jq 1.6's main() drives it (same options, output flags, messages and
// exit statuses), but reading only the sandbox: files come from ctx.fs, stdin from ctx.in, and $ENV/env
// show the script's exported environment.
//
// Confinement. libjq reaches the host in a few places, each closed here:
//  - `$ENV` and `env` would show the host's environ: the program is compiled inside a wrapper that binds
//    `$ENV` (and defines `env`) from ctx.env.
//  - `import`/`include` read module files from the host during compilation: a program that starts with a
//    module directive is refused before libjq sees it, and the library search path is empty.
//  - `stderr`, `debug` and compile errors would be written to the host's stderr: `debug` and errors go
//    through callbacks, `stderr` is redefined on top of `debug`.
//  - input_filename/input_line_number only work with libjq's own (host-file) input reader: they are
//    redefined to read the position this reader publishes in the JQ_ORIGIN attribute.
//  - --debug-trace/--debug-dump-disasm (host stdout/stderr) are ignored; --run-tests and -L modules refused.
//  - ltrimstr/rtrimstr are wrapped so that libjq 1.6's leak on non-string input cannot grow a long-lived
//    process.
//
// Thread safety. libjq 1.6 keeps process-wide state (oniguruma's tables, the colour table, builtins being
// compiled from a shared source, allocation handlers), so every libjq call made by any session runs under
// one process-wide mutex (libjq_mutex()). The mutex is released whenever this utility blocks on I/O (reading
// stdin or a pipe, writing output or errors), also from inside the input callback that `input`/`inputs`
// call in the middle of jq_next: another jq waiting for that pipe can then run, so `jq . | jq .` cannot
// deadlock. A filter that computes forever without output or input cannot be interrupted (libjq has no hook
// for it) and keeps the mutex.
#include "builtins/jq/jq.hpp"

#include <cctype>
#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "builtins/jq/inputs.hpp"
#include "builtins/jq/libjq_api.hpp"
#include "builtins/jq/options.hpp"
#include "builtins/text/util.hpp"

namespace bashkit::builtins {

namespace jq {

namespace {

std::mutex& libjq_mutex() {
    static std::mutex m;
    return m;
}

// The value `stderr` hands to `debug`: [kStderrTag, value]. The debug callback prints such a value's
// second element the way jq 1.6's stderr does (compact, no newline).
constexpr std::string_view kStderrTag = "\x01" "bashkit:stderr";
// The wrapper, on the program's first line (so $__loc__ and error line numbers do not move).
constexpr std::string_view kPrelude =
    "def env: $__bashkit_env; "
    "def input_filename: get_jq_origin[0]; "
    "def input_line_number: get_jq_origin[1]; "
    "def stderr: [\"\\u0001bashkit:stderr\", .] | debug | .[1]; "
    // libjq 1.6 leaks the error value of startswith/endswith when ltrimstr/rtrimstr get a non-string;
    // only strings reach the builtins (the others are returned unchanged, as the builtins do).
    "def __bashkit_ltrimstr($x): ltrimstr($x); def __bashkit_rtrimstr($x): rtrimstr($x); "
    "def ltrimstr($x): if type == \"string\" and ($x | type) == \"string\" then __bashkit_ltrimstr($x) else . end; "
    "def rtrimstr($x): if type == \"string\" and ($x | type) == \"string\" then __bashkit_rtrimstr($x) else . end; "
    "$__bashkit_env as $ENV | ";

std::string take_string(jv s) {  // consumes a string jv
    std::string r(jqlib().jv_string_value(s), static_cast<size_t>(jqlib().jv_string_length_bytes(jqlib().jv_copy(s))));
    jqlib().jv_free(s);
    return r;
}

// Whether the program starts with a module directive (only allowed first, so nothing later can be one).
// Skips a superset of what jq's lexer skips: blanks and # comments.
bool starts_with_module_directive(std::string_view p) {
    size_t i = 0;
    for (;;) {
        while (i < p.size() && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == '\f' ||
                                p[i] == '\v'))
            ++i;
        if (i < p.size() && p[i] == '#') {
            while (i < p.size() && p[i] != '\n') ++i;
            continue;
        }
        break;
    }
    for (std::string_view kw : {"import", "include", "module"}) {
        if (p.substr(i, kw.size()) != kw) continue;
        size_t e = i + kw.size();
        if (e >= p.size()) return true;
        unsigned char c = static_cast<unsigned char>(p[e]);
        if (!(std::isalnum(c) || c == '_')) return true;
    }
    return false;
}

class Runner {
public:
    Runner(interp::CommandContext& ctx, Options& o) : ctx_(ctx), o_(o) {}
    ~Runner() {
        if (!lk_.owns_lock()) lk_.lock();
        inputs_.reset();
        if (jq_) jqlib().jq_teardown(&jq_);
    }
    int run();

private:
    static void err_cb(void* data, jv msg);
    static void debug_cb(void* data, jv msg);
    static jv input_cb(jq_state* jq, void* data);

    std::string dump(jv v, int flags);
    int process(jv value);
    bool emit(std::string s);  // lock held on entry and exit; false when output must stop
    void flush_err();          // lock released
    bool flush_out();          // lock released
    bool compile(const std::string& text, jv args, std::string& errors);
    jv make_args(bool& ok);  // ok=false: a message was printed; die() when usage_hint_
    bool usage_hint_ = true;
    bool read_file(const std::string& name, std::string& content, std::string& err);

    interp::CommandContext& ctx_;
    Options& o_;
    std::unique_lock<std::mutex> lk_{libjq_mutex(), std::defer_lock};
    jq_state* jq_ = nullptr;
    std::unique_ptr<InputReader> inputs_;
    int dumpopts_ = 0;
    bool exact_ = false;
    bool stopped_ = false;  // output failed or cancelled
    int stop_status_ = 0;
    std::string pending_err_;
    std::string* compile_errs_ = nullptr;
    std::string out_;
    std::string colors_;
    bool have_colors_ = false;
};

void Runner::err_cb(void* data, jv msg) {
    auto* r = static_cast<Runner*>(data);
    std::string s = take_string(jqlib().jq_format_error(msg)) + "\n";
    (r->compile_errs_ ? *r->compile_errs_ : r->pending_err_) += s;
}

void Runner::debug_cb(void* data, jv msg) {
    auto* r = static_cast<Runner*>(data);
    if (jqlib().jv_get_kind(msg) == JV_KIND_ARRAY && jqlib().jv_array_length(jqlib().jv_copy(msg)) == 2) {
        jv tag = jqlib().jv_array_get(jqlib().jv_copy(msg), 0);
        bool is_stderr = jqlib().jv_get_kind(tag) == JV_KIND_STRING && std::string_view(jqlib().jv_string_value(tag)) == kStderrTag;
        jqlib().jv_free(tag);
        if (is_stderr) {
            r->pending_err_ += r->dump(jqlib().jv_array_get(msg, 1), 0);
            return;
        }
    }
    r->pending_err_ += r->dump(array2(jqlib().jv_string("DEBUG:"), msg), r->dumpopts_ & ~JV_PRINT_PRETTY) + "\n";
}

jv Runner::input_cb(jq_state*, void* data) {
    auto* r = static_cast<Runner*>(data);
    if (!r->inputs_) return jqlib().jv_invalid();
    return r->inputs_->next();
}

std::string Runner::dump(jv v, int flags) {
    if ((flags & JV_PRINT_COLOR) && !jqlib().jq_set_colors(have_colors_ ? colors_.c_str() : "")) {
        (void)jqlib().jq_set_colors("");
    }
    return take_string(jqlib().jv_dump_string(v, flags));
}

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
            (void)ctx_.err.write("Error: writing output failed: " + text::errstr(static_cast<vfs::Errc>(r.err)) + "\n");
            stop_status_ = 2;
        }
        return false;
    }
    return true;
}

bool Runner::emit(std::string s) {
    lk_.unlock();
    flush_err();
    out_ += s;
    // stdout of a real jq writing to a pipe or file is block-buffered: errors printed meanwhile come first.
    bool ok = out_.size() < 4096 || flush_out();
    if (ok && ctx_.cancelled()) {
        stopped_ = true;
        stop_status_ = 130;
        ok = false;
    }
    lk_.lock();
    return ok;
}

int Runner::process(jv value) {
    int ret = 14;  // no output: -e turns this into 4
    jqlib().jq_start(jq_, value, 0);
    jv result;
    while (is_valid(result = jqlib().jq_next(jq_))) {
        std::string s;
        if (o_.raw_output && jqlib().jv_get_kind(result) == JV_KIND_STRING) {
            if (o_.ascii) {
                s = dump(result, JV_PRINT_ASCII);
            } else {
                s = take_string(result);
            }
            ret = 0;
        } else {
            jv_kind k = jqlib().jv_get_kind(result);
            ret = (k == JV_KIND_FALSE || k == JV_KIND_NULL) ? 11 : 0;
            if (o_.seq) s = "\x1e";
            s += dump(result, dumpopts_);
        }
        if (!o_.raw_no_lf) s += '\n';
        if (!emit(std::move(s))) return ret;
    }
    if (inputs_ && inputs_->cancelled()) {
        stopped_ = true;
        stop_status_ = 130;
    }
    if (jqlib().jq_halted(jq_)) {
        exact_ = true;
        jv code = jqlib().jq_get_exit_code(jq_);
        if (!is_valid(code)) {
            ret = 0;
        } else if (jqlib().jv_get_kind(code) == JV_KIND_NUMBER) {
            ret = static_cast<int>(jqlib().jv_number_value(code));
        } else {
            ret = 5;
        }
        jqlib().jv_free(code);
        jv msg = jqlib().jq_get_error_message(jq_);
        if (jqlib().jv_get_kind(msg) == JV_KIND_STRING) {
            pending_err_ += take_string(msg);
        } else if (jqlib().jv_get_kind(msg) == JV_KIND_NULL) {
            jqlib().jv_free(msg);
        } else if (is_valid(msg)) {
            pending_err_ += dump(msg, 0) + "\n";
        } else {
            jqlib().jv_free(msg);
        }
    } else if (jqlib().jv_invalid_has_msg(jqlib().jv_copy(result))) {
        jv msg = jqlib().jv_invalid_get_msg(jqlib().jv_copy(result));
        std::string pos = inputs_ ? inputs_->position() : "<unknown>";
        if (jqlib().jv_get_kind(msg) == JV_KIND_STRING) {
            pending_err_ += "jq: error (at " + pos + "): " + take_string(msg) + "\n";
        } else {
            pending_err_ += "jq: error (at " + pos + ") (not a string): " + dump(msg, 0) + "\n";
        }
        ret = 5;
    }
    jqlib().jv_free(result);
    return ret;
}

bool Runner::compile(const std::string& text, jv args, std::string& errors) {
    if (jq_) jqlib().jq_teardown(&jq_);
    jq_ = jqlib().jq_init();
    if (!jq_) {
        jqlib().jv_free(args);
        errors = "jq: error: cannot allocate memory\n";
        return false;
    }
    jqlib().jq_set_error_cb(jq_, err_cb, this);
    jqlib().jq_set_debug_cb(jq_, debug_cb, this);
    jqlib().jq_set_attr(jq_, jqlib().jv_string("JQ_LIBRARY_PATH"), jqlib().jv_array());
    jqlib().jq_set_attr(jq_, jqlib().jv_string("JQ_ORIGIN"), array2(jqlib().jv_null(), jqlib().jv_number(0)));
    compile_errs_ = &errors;
    int ok = jqlib().jq_compile_args(jq_, text.c_str(), args);
    compile_errs_ = nullptr;
    return ok != 0;
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

// Every value of a JSON text (an array), or an invalid with the parser's message.
jv parse_all(const std::string& content) {
    jv_parser* p = jqlib().jv_parser_new(0);
    jqlib().jv_parser_set_buf(p, content.data(), static_cast<int>(content.size()), 0);
    jv all = jqlib().jv_array();
    jv v;
    while (is_valid(v = jqlib().jv_parser_next(p))) all = jqlib().jv_array_append(all, v);
    if (jqlib().jv_invalid_has_msg(jqlib().jv_copy(v))) {
        jqlib().jv_free(all);
        all = v;
    } else {
        jqlib().jv_free(v);
    }
    jqlib().jv_parser_free(p);
    return all;
}

// The named arguments (first definition of a name wins, as in jq), $ARGS, and the environment.
jv Runner::make_args(bool& ok) {
    ok = true;
    jv named = jqlib().jv_object();
    for (const NamedArg& a : o_.named) {
        jv value;
        if (a.kind == NamedArg::kString) {
            value = jqlib().jv_string_sized(a.text.data(), static_cast<int>(a.text.size()));
        } else if (a.kind == NamedArg::kJson) {
            value = jqlib().jv_parse_sized(a.text.data(), static_cast<int>(a.text.size()));
            if (!is_valid(value)) {
                jqlib().jv_free(value);
                jqlib().jv_free(named);
                lk_.unlock();
                (void)ctx_.err.write("jq: invalid JSON text passed to --argjson\n");
                lk_.lock();
                ok = false;
                return jqlib().jv_invalid();
            }
        } else {
            std::string content, err;
            const char* opt = a.kind == NamedArg::kSlurpFile ? "slurpfile"
                              : a.kind == NamedArg::kRawFile ? "rawfile"
                                                             : "argfile";
            lk_.unlock();
            bool read = read_file(a.text, content, err);
            lk_.lock();
            if (read) {
                if (a.kind == NamedArg::kRawFile) {
                    value = jqlib().jv_string_sized(content.data(), static_cast<int>(content.size()));
                } else {
                    value = parse_all(content);
                    if (!is_valid(value)) {
                        err = take_string(jqlib().jv_invalid_get_msg(value));
                        read = false;
                    } else if (a.kind == NamedArg::kArgFile && jqlib().jv_array_length(jqlib().jv_copy(value)) == 1) {
                        value = jqlib().jv_array_get(value, 0);
                    }
                }
            }
            if (!read) {
                jqlib().jv_free(named);
                lk_.unlock();
                (void)ctx_.err.write("jq: Bad JSON in --" + std::string(opt) + " " + a.name + " " + a.text + ": " +
                                     err + "\n");
                lk_.lock();
                ok = false;
                usage_hint_ = false;
                return jqlib().jv_invalid();
            }
        }
        named = jqlib().jv_object_set(named, jqlib().jv_string_sized(a.name.data(), static_cast<int>(a.name.size())), value);
    }
    jv positional = jqlib().jv_array();
    for (const auto& [is_json, text] : o_.positional) {
        jv v = is_json ? jqlib().jv_parse_sized(text.data(), static_cast<int>(text.size()))
                       : jqlib().jv_string_sized(text.data(), static_cast<int>(text.size()));
        if (!is_valid(v)) {  // jq 1.6 aborts on an assertion here; report it as a usage error
            jqlib().jv_free(v);
            jqlib().jv_free(named);
            jqlib().jv_free(positional);
            lk_.unlock();
            (void)ctx_.err.write("jq: invalid JSON text passed to --jsonargs\n");
            lk_.lock();
            ok = false;
            return jqlib().jv_invalid();
        }
        positional = jqlib().jv_array_append(positional, v);
    }
    jv env = jqlib().jv_object();
    for (const auto& [k, v] : ctx_.env.entries()) {
        env = jqlib().jv_object_set(env, jqlib().jv_string_sized(k.data(), static_cast<int>(k.size())),
                            jqlib().jv_string_sized(v.data(), static_cast<int>(v.size())));
    }
    jv args = jqlib().jv_copy(named);
    args = jqlib().jv_object_set(args, jqlib().jv_string("ARGS"),
                         object2(jqlib().jv_string("positional"), positional, jqlib().jv_string("named"), named));
    args = jqlib().jv_object_set(args, jqlib().jv_string("__bashkit_env"), env);
    return args;
}

int Runner::run() {
    // The program.
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
    if (starts_with_module_directive(program)) {
        (void)ctx_.err.write(
            "jq: error: import/include: modules are not available in the sandbox\njq: 1 compile error\n");
        return 3;
    }
    if (const std::string* c = ctx_.env.get("JQ_COLORS")) {
        colors_ = *c;
        have_colors_ = true;
    }

    lk_.lock();
    bool ok = false;
    jv args = make_args(ok);
    if (!ok) {
        lk_.unlock();
        return usage_hint_ ? die(ctx_) : 2;
    }
    // First the program as written, so that its errors read exactly as jq's; then the wrapped program that
    // actually runs (a program of definitions only, or an empty one, needs a body after the wrapper).
    std::string errors;
    if (!compile(program, jqlib().jv_copy(args), errors)) {
        jqlib().jv_free(args);
        lk_.unlock();
        (void)ctx_.err.write(errors);
        return 3;
    }
    std::string wrapped = std::string(kPrelude) + program;
    std::string errors2;
    if (!compile(wrapped, jqlib().jv_copy(args), errors2)) {
        errors2.clear();
        if (!compile(wrapped + "\n.", jqlib().jv_copy(args), errors2)) {
            jqlib().jv_free(args);
            lk_.unlock();
            (void)ctx_.err.write(errors2);
            return 3;
        }
    }
    jqlib().jv_free(args);

    dumpopts_ = o_.dumpopts;
    if (o_.sorted) dumpopts_ |= JV_PRINT_SORTED;
    if (o_.ascii) dumpopts_ |= JV_PRINT_ASCII;
    if (o_.color) dumpopts_ |= JV_PRINT_COLOR;
    if (o_.no_color) dumpopts_ &= ~JV_PRINT_COLOR;

    int parser_flags = (o_.seq ? JV_PARSE_SEQ : 0) | (o_.stream ? JV_PARSE_STREAMING : 0) |
                       (o_.stream_errors ? JV_PARSE_STREAM_ERRORS : 0);
    inputs_ = std::make_unique<InputReader>(ctx_, lk_, o_.files, o_.raw_input, o_.slurp, parser_flags);
    inputs_->on_error = [this](const std::string& s) {
        flush_err();
        (void)ctx_.err.write(s);
    };
    inputs_->on_position = [this] { jqlib().jq_set_attr(jq_, jqlib().jv_string("JQ_ORIGIN"), inputs_->origin()); };
    jqlib().jq_set_input_cb(jq_, input_cb, this);

    int ret = 0;
    if (o_.null_input) {
        ret = process(jqlib().jv_null());
    } else {
        jv value;
        while (!stopped_ && inputs_->failures() == 0 &&
               (is_valid(value = inputs_->next()) || jqlib().jv_invalid_has_msg(jqlib().jv_copy(value)))) {
            if (is_valid(value)) {
                ret = process(value);
                continue;
            }
            std::string msg = take_string(jqlib().jv_invalid_get_msg(value));
            if (!o_.seq) {
                ret = 4;  // what jq 1.6 (Debian 12) exits with after a parse error
                pending_err_ += "parse error: " + msg + "\n";
                break;
            }
            pending_err_ += "ignoring parse error: " + msg + "\n";
        }
        if (inputs_->cancelled()) {
            stopped_ = true;
            stop_status_ = 130;
        }
    }
    if (inputs_->failures() != 0) ret = 2;
    inputs_.reset();
    jqlib().jq_teardown(&jq_);
    lk_.unlock();

    flush_err();
    if (!stopped_) flush_out();
    if (stopped_) return stop_status_;
    if (ret >= 10 && o_.exit_status) return ret - 10;
    if (ret >= 10 && !exact_) return 0;
    return ret & 0xff;
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
        (void)ctx.out.write("jq-1.6\n");
        return 0;
    }
    if (!need_libjq(ctx)) return 2;
    Runner r(ctx, o);
    return r.run();
}

}  // namespace jq

void register_jq_utils(interp::CommandRegistry& registry) {
    registry.add("jq",
                 "jq [-cnrjsSeaRCM] [--tab|--indent N] [--arg N V] [--argjson N J] [--slurpfile N F] "
                 "[--rawfile N F] [--args|--jsonargs] FILTER [FILE]... : JSON processor (libjq 1.6)",
                 jq::cmd_jq);
}

}  // namespace bashkit::builtins
