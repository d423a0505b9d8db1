// Control flow and running text: true, false, :, return, exit, logout, break, continue, test/[, eval,
// source, exec.
#include <algorithm>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"

namespace bashkit::interp {

// ---------------------------------------------------------------- trivial

BuiltinResult builtin_colon(BuiltinContext&) { return 0; }
BuiltinResult builtin_true(BuiltinContext&) { return 0; }
BuiltinResult builtin_false(BuiltinContext&) { return 1; }

namespace {

// `N: too many arguments` of break, continue, return and exit: bash reports it and discards the rest of the
// command line (its get_numeric_arg jumps to the top level), with status 1.
BuiltinResult too_many_arguments(Exec& sh, const char* name) {
    sh.builtin_error(name, "too many arguments");
    sh.exit_status_ = 1;
    sh.discard_line_ = true;
    return {1, Flow::Exit};
}

}  // namespace

BuiltinResult builtin_return(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = sh.state_.status;
    if (a.size() > 1 && !parse_int(a[1], n)) {
        sh.builtin_error("return", a[1] + ": numeric argument required");
        n = 2;
    } else if (a.size() > 2) {
        return too_many_arguments(sh, "return");
    }
    if (sh.call_depth_ == 0 && !sh.in_source_) {
        return sh.builtin_error("return", "can only `return' from a function or sourced script", 2);
    }
    sh.status_before_return_ = sh.state_.status;  // $? in the RETURN trap
    return {static_cast<int>(static_cast<uint8_t>(n)), Flow::Return};
}

BuiltinResult builtin_exit(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = sh.state_.status;
    if (a.size() > 1 && !parse_int(a[1], n)) {
        sh.builtin_error("exit", a[1] + ": numeric argument required");
        n = 2;
    } else if (a.size() > 2) {
        return too_many_arguments(sh, "exit");
    }
    sh.exit_status_ = static_cast<int>(static_cast<uint8_t>(n));
    if (!sh.is_subshell_) sh.state_.exited = true;
    return {sh.exit_status_, Flow::Exit};
}

BuiltinResult builtin_logout(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    return sh.builtin_error("logout", "not login shell: use `exit'");
}

namespace {

// break and continue: outside a loop a warning and status 0; a count that is not a number ends the shell
// (status 128); a count below 1 leaves every loop with status 1.
BuiltinResult loop_control(BuiltinContext& ctx, const char* name, Flow flow) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (sh.loop_depth_ == 0) {
        sh.builtin_error(name, "only meaningful in a `for', `while', or `until' loop");
        return 0;
    }
    int64_t n = 1;
    if (a.size() > 1 && !parse_int(a[1], n)) {
        sh.builtin_error(name, a[1] + ": numeric argument required");
        sh.exit_status_ = 128;
        return {128, Flow::Exit};
    }
    if (a.size() > 2) return too_many_arguments(sh, name);
    if (n < 1) {
        sh.builtin_error(name, a[1] + ": loop count out of range");
        sh.levels_ = sh.loop_depth_;
        return {1, Flow::Break};
    }
    sh.levels_ = static_cast<uint32_t>(std::min<int64_t>(n, sh.loop_depth_));
    return {0, flow};
}

}  // namespace

BuiltinResult builtin_break(BuiltinContext& ctx) { return loop_control(ctx, "break", Flow::Break); }

BuiltinResult builtin_continue(BuiltinContext& ctx) { return loop_control(ctx, "continue", Flow::Continue); }

// ---------------------------------------------------------------- test

BuiltinResult builtin_test(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    return sh.test_command(std::span<const std::string>(a.data() + 1, a.size() - 1), "test");
}

BuiltinResult builtin_bracket(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.back() != "]") return sh.builtin_error("[", "missing `]'", 2);
    return sh.test_command(std::span<const std::string>(a.data() + 1, a.size() - 2), "[");
}

// ---------------------------------------------------------------- eval / source

BuiltinResult builtin_eval(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    std::string text;
    size_t i = 1;
    if (i < a.size() && a[i] == "--") ++i;
    else if (i < a.size() && a[i].size() > 1 && a[i][0] == '-') {  // eval takes no options; `-` is a word
        sh.builtin_error("eval", a[i].substr(0, 2) + ": invalid option");
        sh.write_err("eval: usage: eval [arg ...]\n");
        return 2;
    }
    for (; i < a.size(); ++i) {
        if (!text.empty()) text.push_back(' ');
        text += a[i];
    }
    if (text.empty()) return 0;
    sh.state_.status = 0;
    ++sh.xtrace_level_;
    Flow f = sh.run_source(text, sh.source_name_, true);
    --sh.xtrace_level_;
    return {sh.state_.status, f};
}

BuiltinResult builtin_source(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    if (i < a.size() && a[i] == "--") ++i;
    if (i >= a.size()) {
        sh.builtin_error(a[0], "filename argument required");
        sh.write_err(a[0] + ": usage: " + a[0] + " filename [arguments]\n");
        return 2;
    }
    std::string file = a[i];
    std::string path;
    if (file.find('/') == std::string::npos && sh.state_.opts[ShSourcepath]) {
        const std::string* pv = sh.get_scalar("PATH");
        if (pv) {
            size_t start = 0;
            while (start <= pv->size()) {
                size_t colon = pv->find(':', start);
                std::string dir = pv->substr(start, colon == std::string::npos ? std::string::npos : colon - start);
                std::string cand = sh.abs_path((dir.empty() ? std::string(".") : dir) + "/" + file);
                if (sh.session_.fs.is_regular_file(cand)) {
                    path = cand;
                    break;
                }
                if (colon == std::string::npos) break;
                start = colon + 1;
            }
        }
    }
    if (path.empty() && !file.empty()) path = sh.abs_path(file);
    // bash names the builtin for a directory only; a file it cannot read is reported as a redirection is
    // (`. ""` is a missing file, not the working directory).
    if (!path.empty() && sh.session_.fs.is_directory(path)) return sh.builtin_error(a[0], file + ": is a directory");
    if (path.empty()) {
        sh.error(": " + std::string(vfs::error_message(vfs::Errc::no_such_file)));
        return 1;
    }
    auto content = sh.session_.fs.read_file(path, sh.session_.limits.max_variable_bytes);
    if (!content) {
        sh.error(file + ": " + std::string(vfs::error_message(content.error())));
        return 1;
    }
    // Arguments replace the positional parameters for the duration.
    bool with_args = i + 1 < a.size();
    std::vector<std::string> saved;
    if (with_args) {
        saved = sh.params();
        sh.params().assign(a.begin() + static_cast<ptrdiff_t>(i) + 1, a.end());
    }
    std::string saved_name = sh.source_name_;
    sh.source_name_ = file;
    bool saved_in_source = sh.in_source_;
    sh.in_source_ = true;
    uint32_t saved_offset = sh.line_offset_;
    sh.line_offset_ = 0;
    sh.state_.status = 0;
    // A debug stack entry ("source", FILE, line) while the file runs, popped on every way out.
    // (By index: a function called from the file may grow the frame vector.)
    struct DebugPush {
        std::vector<CallFrame>& frames;
        size_t at;
        ~DebugPush() {
            if (at < frames.size() && !frames[at].sourced.empty()) frames[at].sourced.pop_back();
        }
    };
    sh.state_.frames.back().sourced.push_back({file, sh.lineno_});
    DebugPush pop{sh.state_.frames, sh.state_.frames.size() - 1};
    ++sh.xtrace_level_;
    Flow f = sh.run_source(*content, file, false);
    --sh.xtrace_level_;
    sh.line_offset_ = saved_offset;
    sh.in_source_ = saved_in_source;
    sh.source_name_ = saved_name;
    if (with_args) sh.params() = std::move(saved);
    const bool returned = f == Flow::Return;
    if (f == Flow::Return) f = Flow::Normal;
    // The RETURN trap runs when the file is done (a function sees it only when traced: call_function).
    if (f == Flow::Normal && !sh.state_.traps.empty()) f = sh.run_return_trap(returned);
    return {sh.state_.status, f};
}

BuiltinResult builtin_exec(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    std::string argv0;
    for (; i < a.size(); ++i) {
        if (a[i] == "--") {
            ++i;
            break;
        }
        if (a[i] == "-c" || a[i] == "-l") continue;
        if (a[i] == "-a" && i + 1 < a.size()) {
            argv0 = a[++i];
            continue;
        }
        break;
    }
    if (i >= a.size()) return 0;  // redirections only: kept by the caller
    std::vector<std::string> rest(a.begin() + static_cast<ptrdiff_t>(i), a.end());
    Flow f = sh.run_argv(rest, nullptr, false, false, ctx.decls);
    if (f == Flow::Exit) {
        return {sh.exit_status_, f};
    }
    // The shell is replaced: it ends with the command's status.
    sh.exit_status_ = sh.state_.status;
    if (sh.exit_status_ == 127) {
        // bash: exec of a missing command ends a non-interactive shell with 127.
    }
    return {sh.exit_status_, Flow::Exit};
}

}  // namespace bashkit::interp
