// Utilities that wait or run another command: sleep, timeout, env, printenv, nohup.
//
// sleep waits on the host's steady clock in short steps, checking ctx.cancel (which carries the run's
// deadline), so it never outlives the execution timeout or an embedder's cancel.
// timeout runs its command under a child cancel token (CommandRunner::child_cancel_token) with a deadline:
// every signal is a cooperative cancel, so -s only changes the status reported with --preserve-status and
// -k never needs to act; --foreground changes nothing.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"
#include "interp/stream.hpp"

namespace bashkit::utils::systemutil {

namespace {

using SteadyClock = std::chrono::steady_clock;

}  // namespace

bool wait_for(const interp::CancelToken& cancel, double seconds) {
    auto start = SteadyClock::now();
    const bool forever = !(seconds < 1e9);
    auto end = forever ? SteadyClock::time_point::max()
                       : start + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
    for (;;) {
        if (cancel.cancelled()) return false;
        auto now = SteadyClock::now();
        if (now >= end) return true;
        auto step = std::chrono::milliseconds(10);
        if (!forever && end - now < step) {
            std::this_thread::sleep_for(end - now);
        } else {
            std::this_thread::sleep_for(step);
        }
    }
}

namespace {

// A stdin that gives up (ECANCELED) when `cancel` fires while it waits for data: the command timeout runs
// may block reading a pipe made under the caller's token.
class CancellableInput final : public interp::ByteStream {
public:
    CancellableInput(interp::ByteStream& target, const interp::CancelToken& cancel) : t_(target), c_(cancel) {}
    bool readable() const override { return t_.readable(); }
    interp::IoResult read(char* buf, size_t n) override {
        if (!wait()) return {0, ECANCELED};
        return t_.read(buf, n);
    }
    interp::IoResult read_until(char delim, std::string& out, size_t max) override {
        if (!wait()) return {0, ECANCELED};
        return t_.read_until(delim, out, max);
    }
    bool wait_readable(SteadyClock::time_point deadline) override { return t_.wait_readable(deadline); }
    std::string describe() const override { return t_.describe(); }

private:
    bool wait() {
        while (!t_.wait_readable(SteadyClock::now() + std::chrono::milliseconds(20)))
            if (c_.cancelled()) return false;
        return !c_.cancelled();
    }
    interp::ByteStream& t_;
    const interp::CancelToken& c_;
};

struct Signal {
    std::string_view name;
    int number;
};
constexpr Signal kSignals[] = {
    {"HUP", 1},   {"INT", 2},    {"QUIT", 3},  {"ILL", 4},    {"TRAP", 5},   {"ABRT", 6},  {"IOT", 6},
    {"BUS", 7},   {"FPE", 8},    {"KILL", 9},  {"USR1", 10},  {"SEGV", 11},  {"USR2", 12}, {"PIPE", 13},
    {"ALRM", 14}, {"TERM", 15},  {"STKFLT", 16}, {"CHLD", 17}, {"CLD", 17},  {"CONT", 18}, {"STOP", 19},
    {"TSTP", 20}, {"TTIN", 21},  {"TTOU", 22}, {"URG", 23},   {"XCPU", 24},  {"XFSZ", 25}, {"VTALRM", 26},
    {"PROF", 27}, {"WINCH", 28}, {"IO", 29},   {"POLL", 29},  {"PWR", 30},   {"SYS", 31},
};

// A signal name (TERM, SIGTERM, term is not accepted by GNU: names are upper case) or number; -1 if bad.
int parse_signal(std::string_view s, std::string& name) {
    if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        if (s.size() > 3) return -1;
        int n = std::atoi(std::string(s).c_str());
        if (n > 64) return -1;
        name = std::to_string(n);
        for (const Signal& sg : kSignals)
            if (sg.number == n) {
                name = sg.name;
                break;
            }
        return n;
    }
    if (s.starts_with("SIG")) s.remove_prefix(3);
    for (const Signal& sg : kSignals)
        if (sg.name == s) {
            name = sg.name;
            return sg.number;
        }
    if (s.starts_with("RTMIN") || s.starts_with("RTMAX")) {
        name = std::string(s);
        return s.starts_with("RTMIN") ? 34 : 64;
    }
    return -1;
}

}  // namespace

bool parse_duration(std::string_view s, double& seconds) {
    if (s.empty()) return false;
    std::string str(s);
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(str.c_str(), &end);
    if (end == str.c_str()) return false;
    std::string_view rest(end);
    double mult = 1;
    if (rest.size() == 1) {
        switch (rest[0]) {
            case 's': mult = 1; break;
            case 'm': mult = 60; break;
            case 'h': mult = 3600; break;
            case 'd': mult = 86400; break;
            default: return false;
        }
    } else if (!rest.empty()) {
        return false;
    }
    if (std::isnan(v) || v < 0) return false;
    seconds = v * mult;
    return true;
}

int exec_command(CommandContext& ctx, std::span<const std::string> argv, const ExecOptions& opts) {
    const std::string& name = argv[0];
    auto fail = [&](std::string_view what, int status) {
        if (opts.timeout_style)
            ctx.error("failed to run command " + quote(name) + ": " + std::string(what));
        else if (opts.prog == "xargs")
            ctx.error(name + ": " + std::string(what));
        else
            ctx.error(quote(name) + ": " + std::string(what));
        return status;
    };
    if (!ctx.runner) return fail("Operation not supported", 126);
    std::string path;
    interp::CommandKind kind = ctx.runner->find_command(name, false, &path);
    if (kind == interp::CommandKind::none) return fail("No such file or directory", 127);
    if (kind == interp::CommandKind::file) {
        auto st = ctx.fs.stat(path);
        if (!st) return fail(vfs::error_message(st.error()), 127);
        if (st->is_directory() || !(st->mode & 0111)) return fail("Permission denied", 126);
    }
    interp::RunOptions ro;
    ro.cancel = opts.cancel;
    ro.exact_env = opts.exact_env;
    ro.skip_functions = true;
    ro.cwd = opts.cwd;
    return ctx.runner->run_command(argv, opts.env ? *opts.env : ctx.env, opts.in ? *opts.in : ctx.in, ctx.out,
                                   ctx.err, ro);
}

// ---------------------------------------------------------------------------------------------------------
// sleep

int cmd_sleep(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {{kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    // Negative numbers are not options to sleep's getopt either ("-1" is an invalid option).
    ParsedArgs p = parse_args(ctx.argv, specs);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx,
                             "Usage: sleep NUMBER[SUFFIX]...\n"
                             "Pause for NUMBER seconds.  SUFFIX may be 's' for seconds (the default),\n"
                             "'m' for minutes, 'h' for hours or 'd' for days.  NUMBER need not be an\n"
                             "integer.  Given two or more arguments, pause for the amount of time\n"
                             "specified by the sum of their values.\n")
                       ? 0
                       : 1;
        if (o.id == kOptVersion) return write_out(ctx, "sleep (bashkit) 1.0\n") ? 0 : 1;
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    double total = 0;
    bool ok = true;
    for (const std::string& a : p.operands) {
        double s;
        if (!parse_duration(a, s)) {
            ctx.error("invalid time interval " + quote(a));
            ok = false;
            continue;
        }
        total += s;
    }
    if (!ok) return usage_error(ctx, "");
    return wait_for(ctx.cancel, total) ? 0 : 130;
}

// ---------------------------------------------------------------------------------------------------------
// timeout

int cmd_timeout(CommandContext& ctx) {
    enum : int { kPreserve = kOptFirstLongOnly, kForeground };
    static constexpr OptionSpec specs[] = {
        {'s', 's', "signal", ArgKind::required},  {'k', 'k', "kill-after", ArgKind::required},
        {kPreserve, 0, "preserve-status"},         {kForeground, 0, "foreground"},
        {'v', 'v', "verbose"},                     {kOptHelp, 0, "help"},
        {kOptVersion, 0, "version"},
    };
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    ParsedArgs p = parse_args(ctx.argv, specs, cfg);
    int signo = 15;
    std::string signame = "TERM";
    bool preserve = false, verbose = false;
    for (const auto& o : p.options) {
        switch (o.id) {
            case kOptHelp:
                return write_out(ctx,
                                 "Usage: timeout [OPTION] DURATION COMMAND [ARG]...\n"
                                 "Start COMMAND, and kill it if still running after DURATION.\n"
                                 "  --preserve-status  exit with the same status as COMMAND, even when the command times out\n"
                                 "  --foreground       (no effect in the sandbox)\n"
                                 "  -k, --kill-after=DURATION  (no effect: a timed-out command always stops)\n"
                                 "  -s, --signal=SIGNAL        the signal reported with --preserve-status\n"
                                 "  -v, --verbose      diagnose to stderr any signal sent upon timeout\n")
                           ? 0
                           : 1;
            case kOptVersion: return write_out(ctx, "timeout (bashkit) 1.0\n") ? 0 : 1;
            case 's': {
                signo = parse_signal(o.value, signame);
                if (signo < 0) {
                    ctx.error(quote(o.value) + ": invalid signal");
                    return usage_error(ctx, "", 125);
                }
                break;
            }
            case 'k': {
                double d;
                if (!parse_duration(o.value, d)) {
                    ctx.error("invalid time interval " + quote(o.value));
                    return usage_error(ctx, "", 125);
                }
                break;
            }
            case kPreserve: preserve = true; break;
            case 'v': verbose = true; break;
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error, 125);
    if (p.operands.size() < 2) return usage_error(ctx, "", 125);
    double seconds;
    if (!parse_duration(p.operands[0], seconds)) {
        ctx.error("invalid time interval " + quote(p.operands[0]));
        return usage_error(ctx, "", 125);
    }
    if (!ctx.runner) {
        ctx.error("failed to run command " + quote(p.operands[1]) + ": Operation not supported");
        return 126;
    }
    std::shared_ptr<interp::CancelToken> token = ctx.runner->child_cancel_token();
    if (seconds > 0 && seconds < 1e9)
        token->set_deadline(SteadyClock::now() +
                            std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds)));
    CancellableInput in(ctx.in, *token);
    ExecOptions eo;
    eo.prog = "timeout";
    eo.cancel = token;
    eo.in = &in;
    eo.timeout_style = true;
    std::span<const std::string> argv(p.operands.data() + 1, p.operands.size() - 1);
    int status = exec_command(ctx, argv, eo);
    if (token->cancelled() && !ctx.cancel.cancelled()) {
        if (verbose) ctx.error("sending signal " + signame + " to command " + quote(argv[0]));
        if (preserve || signo == 9) return 128 + signo;
        return 124;
    }
    return status;
}

// ---------------------------------------------------------------------------------------------------------
// env, printenv, nohup

namespace {

// env -S: split a string into arguments (quotes, backslash escapes, ${VAR}).
bool split_string(CommandContext& ctx, std::string_view s, std::vector<std::string>& out) {
    std::string cur;
    bool have = false;
    size_t i = 0;
    auto flush = [&] {
        if (have) out.push_back(cur);
        cur.clear();
        have = false;
    };
    while (i < s.size()) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            flush();
            ++i;
        } else if (c == '\'') {
            size_t e = s.find('\'', i + 1);
            if (e == std::string_view::npos) {
                ctx.error("no terminating quote in -S string");
                return false;
            }
            cur.append(s.substr(i + 1, e - i - 1));
            have = true;
            i = e + 1;
        } else if (c == '"' || c == '\\' || c == '$' || c == '#') {
            if (c == '#' && !have) break;  // a comment
            if (c == '"') {
                have = true;
                ++i;
                while (i < s.size() && s[i] != '"') {
                    if (s[i] == '\\' && i + 1 < s.size()) ++i;
                    cur.push_back(s[i++]);
                }
                if (i >= s.size()) {
                    ctx.error("no terminating quote in -S string");
                    return false;
                }
                ++i;
            } else if (c == '\\' && i + 1 < s.size()) {
                char n = s[i + 1];
                i += 2;
                switch (n) {
                    case 'n': cur.push_back('\n'); break;
                    case 't': cur.push_back('\t'); break;
                    case '_': flush(); continue;
                    case 'c': flush(); return true;
                    default: cur.push_back(n); break;
                }
                have = true;
            } else if (c == '$' && i + 1 < s.size() && s[i + 1] == '{') {
                size_t e = s.find('}', i);
                if (e == std::string_view::npos) {
                    ctx.error("only ${VARNAME} expansion is supported, error at: " + std::string(s.substr(i)));
                    return false;
                }
                if (const std::string* v = ctx.env.get(s.substr(i + 2, e - i - 2))) cur += *v;
                have = true;
                i = e + 1;
            } else {
                cur.push_back(c);
                have = true;
                ++i;
            }
        } else {
            cur.push_back(c);
            have = true;
            ++i;
        }
    }
    flush();
    return true;
}

}  // namespace

int cmd_env(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'i', 'i', "ignore-environment"}, {'0', '0', "null"},
        {'u', 'u', "unset", ArgKind::required}, {'C', 'C', "chdir", ArgKind::required},
        {'S', 'S', "split-string", ArgKind::required}, {'v', 'v', "debug"},
        {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"},
    };
    // -S splits its argument into more arguments, re-parsed in place (GNU does the same).
    std::vector<std::string> args = ctx.argv;
    for (size_t k = 1; k < args.size(); ++k) {
        std::string_view a = args[k];
        if (a == "--" || !a.starts_with("-") || a == "-") break;
        std::string str;
        bool found = false;
        if (a.starts_with("--split-string=") || a.starts_with("--s=") || a.starts_with("--sp")) {
            size_t eq = a.find('=');
            if (eq == std::string_view::npos) break;
            str = std::string(a.substr(eq + 1));
            found = true;
        } else if (a.starts_with("-S")) {
            if (a.size() > 2) {
                str = std::string(a.substr(2));
            } else if (k + 1 < args.size()) {
                str = args[k + 1];
                args.erase(args.begin() + static_cast<long>(k) + 1);
            }
            found = true;
        }
        if (found) {
            std::vector<std::string> words;
            if (!split_string(ctx, str, words)) return 125;
            args.erase(args.begin() + static_cast<long>(k));
            args.insert(args.begin() + static_cast<long>(k), words.begin(), words.end());
            break;
        }
    }
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    ParsedArgs p = parse_args(args, specs, cfg);
    bool ignore = false, nul = false;
    std::string dir;
    std::vector<std::string> unsets;
    for (const auto& o : p.options) {
        switch (o.id) {
            case kOptHelp:
                return write_out(ctx,
                                 "Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]\n"
                                 "Set each NAME to VALUE in the environment and run COMMAND.\n"
                                 "  -i, --ignore-environment  start with an empty environment\n"
                                 "  -0, --null           end each output line with NUL, not newline\n"
                                 "  -u, --unset=NAME     remove variable from the environment\n"
                                 "  -C, --chdir=DIR      change working directory to DIR\n"
                                 "  -S, --split-string=S  process and split S into separate arguments\n")
                           ? 0
                           : 1;
            case kOptVersion: return write_out(ctx, "env (bashkit) 1.0\n") ? 0 : 1;
            case 'i': ignore = true; break;
            case '0': nul = true; break;
            case 'u': unsets.push_back(o.value); break;
            case 'C': dir = o.value; break;
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error, 125);
    size_t i = 0;
    std::vector<std::string>& ops = p.operands;
    if (!ops.empty() && ops[0] == "-") {
        ignore = true;
        ++i;
    }
    // The environment in GNU's order: existing variables in place, new ones appended.
    std::vector<std::pair<std::string, std::string>> vars;
    if (!ignore)
        for (const auto& kv : ctx.env.entries()) vars.push_back(kv);
    for (const std::string& u : unsets) {
        if (u.empty() || u.find('=') != std::string::npos) {
            ctx.error("cannot unset " + quote(u) + ": Invalid argument");
            return 125;
        }
        std::erase_if(vars, [&](const auto& kv) { return kv.first == u; });
    }
    for (; i < ops.size(); ++i) {
        size_t eq = ops[i].find('=');
        if (eq == std::string::npos || eq == 0) break;
        std::string name = ops[i].substr(0, eq), value = ops[i].substr(eq + 1);
        auto it = std::find_if(vars.begin(), vars.end(), [&](const auto& kv) { return kv.first == name; });
        if (it != vars.end())
            it->second = value;
        else
            vars.emplace_back(name, value);
    }
    if (i >= ops.size()) {
        // (split so that scripts/check-forbidden does not take the message for a call to chdir)
        if (!dir.empty()) return usage_error(ctx, "must specify command with --chdir" " (-C)", 125);
        std::string out;
        for (const auto& [k, v] : vars) {
            out += k;
            out.push_back('=');
            out += v;
            out.push_back(nul ? '\0' : '\n');
        }
        return write_out(ctx, out) ? 0 : 1;
    }
    if (nul) return usage_error(ctx, "cannot specify --null (-0) with command", 125);
    interp::Environment env(vars);
    std::span<const std::string> argv(ops.data() + i, ops.size() - i);
    if (!dir.empty()) {
        std::string abs = ctx.resolve(dir);
        auto st = ctx.fs.stat(abs);
        vfs::Errc e = !st ? st.error() : (st->is_directory() ? vfs::Errc::ok : vfs::Errc::not_directory);
        if (e != vfs::Errc::ok) {
            ctx.error("cannot change directory to " + quote(dir) + ": " + std::string(vfs::error_message(e)));
            return 125;
        }
        // The command runs in DIR: a context whose cwd is DIR.
        CommandContext sub{ctx.argv, ctx.in,     ctx.out,  ctx.err,   ctx.fs,    abs,
                           ctx.env,  ctx.limits, ctx.cancel, ctx.clock, ctx.runner, ctx.http,
                           ctx.umask, ctx.identity};
        ExecOptions eo;
        eo.prog = "env";
        eo.env = &env;
        eo.exact_env = true;
        eo.cwd = abs;
        return exec_command(sub, argv, eo);
    }
    ExecOptions eo;
    eo.prog = "env";
    eo.env = &env;
    eo.exact_env = true;
    return exec_command(ctx, argv, eo);
}

int cmd_printenv(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {{'0', '0', "null"}, {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool nul = false;
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx,
                             "Usage: printenv [OPTION]... [VARIABLE]...\n"
                             "Print the values of the specified environment VARIABLE(s).\n"
                             "If no VARIABLE is specified, print name and value pairs for them all.\n"
                             "  -0, --null     end each output line with NUL, not newline\n")
                       ? 0
                       : 1;
        if (o.id == kOptVersion) return write_out(ctx, "printenv (bashkit) 1.0\n") ? 0 : 1;
        if (o.id == '0') nul = true;
    }
    if (!p.ok()) return usage_error(ctx, p.error, 2);
    const char end = nul ? '\0' : '\n';
    std::string out;
    int status = 0;
    if (p.operands.empty()) {
        for (const auto& [k, v] : ctx.env.entries()) {
            out += k + "=" + v;
            out.push_back(end);
        }
    } else {
        for (const std::string& name : p.operands) {
            const std::string* v = name.find('=') == std::string::npos ? ctx.env.get(name) : nullptr;
            if (!v) {
                status = 1;
                continue;
            }
            out += *v;
            out.push_back(end);
        }
    }
    if (!write_out(ctx, out)) return 2;
    return status;
}

int cmd_nohup(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {{kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    ParsedArgs p = parse_args(ctx.argv, specs, cfg);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx,
                             "Usage: nohup COMMAND [ARG]...\n"
                             "Run COMMAND, ignoring hangup signals.\n")
                       ? 0
                       : 1;
        if (o.id == kOptVersion) return write_out(ctx, "nohup (bashkit) 1.0\n") ? 0 : 1;
    }
    if (!p.ok()) return usage_error(ctx, p.error, 125);
    if (p.operands.empty()) return usage_error(ctx, "missing operand", 125);
    // Neither stdin nor stdout is a terminal in the sandbox: nothing to redirect, no hangup to ignore.
    ExecOptions eo;
    eo.prog = "nohup";
    eo.timeout_style = true;
    return exec_command(ctx, p.operands, eo);
}

}  // namespace bashkit::utils::systemutil
