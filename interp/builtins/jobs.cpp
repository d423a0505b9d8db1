// Jobs, signals and the process: wait, jobs, kill, disown, fg/bg, suspend, trap, umask, ulimit, times.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/quote.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

namespace {

constexpr SignalName kSignals[] = {
    {1, "HUP"},   {2, "INT"},    {3, "QUIT"},   {4, "ILL"},    {5, "TRAP"},   {6, "ABRT"},  {7, "BUS"},
    {8, "FPE"},   {9, "KILL"},   {10, "USR1"},  {11, "SEGV"},  {12, "USR2"},  {13, "PIPE"}, {14, "ALRM"},
    {15, "TERM"}, {16, "STKFLT"}, {17, "CHLD"}, {18, "CONT"},  {19, "STOP"},  {20, "TSTP"}, {21, "TTIN"},
    {22, "TTOU"}, {23, "URG"},   {24, "XCPU"},  {25, "XFSZ"},  {26, "VTALRM"}, {27, "PROF"}, {28, "WINCH"},
    {29, "IO"},   {30, "PWR"},   {31, "SYS"},
};
}  // namespace

std::span<const SignalName> signal_table() { return kSignals; }

namespace {

// Signal spec -> number (EXIT 0, ERR/DEBUG/RETURN pseudo numbers); -1 when unknown.
int signal_number(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (s == "EXIT" || s == "0") return kTrapExit;
    if (s == "ERR") return kTrapErr;
    if (s == "DEBUG") return kTrapDebug;
    if (s == "RETURN") return kTrapReturn;
    int64_t n = 0;
    if (parse_int(s, n)) {
        if (n >= 0 && n <= 64) return static_cast<int>(n);
        return -1;
    }
    if (s.starts_with("SIG")) s = s.substr(3);
    for (const auto& sg : kSignals)
        if (s == sg.name) return sg.num;
    return -1;
}

std::string signal_name(int n) {
    if (n == kTrapExit) return "EXIT";
    if (n == kTrapErr) return "ERR";
    if (n == kTrapDebug) return "DEBUG";
    if (n == kTrapReturn) return "RETURN";
    for (const auto& sg : kSignals)
        if (sg.num == n) return std::string("SIG") + sg.name;
    return std::to_string(n);
}

}  // namespace

// ---------------------------------------------------------------- trap

BuiltinResult builtin_trap(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    bool print = false, list = false;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        // Options may be bundled (`-pl`); any other letter is an error, like bash (a negative number
        // such as `-1` is an invalid option, not an action).
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'p') print = true;
            else if (s[k] == 'l') list = true;
            else {
                sh.builtin_error("trap", std::string("-") + s[k] + ": invalid option");
                sh.write_err("trap: usage: trap [-lp] [[arg] signal_spec ...]\n");
                return 2;
            }
        }
    }
    if (list) {
        std::string out;
        for (size_t k = 0; k < std::size(kSignals); ++k) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%2d) SIG%s", kSignals[k].num, kSignals[k].name);
            out += buf;
            out += (k % 5 == 4 || k + 1 == std::size(kSignals)) ? "\n" : "\t";
        }
        sh.write_out(out);
        return 0;
    }
    auto show = [&](int n, std::string& out) {
        auto it = sh.state_.traps.find(n);
        if (it == sh.state_.traps.end()) return;
        // bash prints the action in plain single quotes, newlines and all (never $'...').
        out += "trap -- '";
        for (char c : it->second.action) {
            if (c == '\'') out += "'\\''";
            else out += c;
        }
        out += "' " + signal_name(n) + "\n";
    };
    if (i >= a.size() || print) {
        std::string out;
        if (i >= a.size()) {
            for (const auto& [n, t] : sh.state_.traps) show(n, out);
        } else {
            for (; i < a.size(); ++i) {
                int n = signal_number(a[i]);
                if (n < 0) {
                    sh.builtin_error("trap", a[i] + ": invalid signal specification");
                    continue;
                }
                show(n, out);
            }
        }
        sh.write_out(out);
        return 0;
    }
    std::string action = a[i];
    bool reset = action == "-";
    size_t first_sig = i + 1;
    // `trap SIG...` with a first argument that is a signal number resets those signals.
    int64_t maybe = 0;
    if (parse_int(action, maybe) && signal_number(action) >= 0) {
        reset = true;
        first_sig = i;
    }
    if (first_sig >= a.size()) {
        int n = signal_number(action);
        if (n >= 0) {
            sh.state_.traps.erase(n);
            return 0;
        }
        sh.builtin_error("trap", action + ": invalid signal specification");
        return 1;
    }
    if (sh.state_.traps_display_only) {
        // The first trap set in a subshell drops the parent's (except ignored signals).
        for (auto it = sh.state_.traps.begin(); it != sh.state_.traps.end();) {
            if (!it->second.action.empty())
                it = sh.state_.traps.erase(it);
            else
                ++it;
        }
        sh.state_.traps_display_only = false;
    }
    int status = 0;
    for (size_t k = first_sig; k < a.size(); ++k) {
        int n = signal_number(a[k]);
        if (n < 0) {
            sh.builtin_error("trap", a[k] + ": invalid signal specification");
            status = 1;
            continue;
        }
        if (reset)
            sh.state_.traps.erase(n);
        else
            sh.state_.traps[n] = Trap{action, nullptr};
    }
    return status;
}

// ---------------------------------------------------------------- jobs

static std::shared_ptr<Job> find_job(Exec& sh, const std::string& spec, bool& bad) {
    bad = false;
    auto& all = sh.state_.jobs->jobs;
    if (!spec.starts_with("%")) {
        int64_t pid = 0;
        if (!parse_int(spec, pid)) {
            bad = true;
            return nullptr;
        }
        for (auto& j : all)
            if (j->pid == pid) return j;
        return nullptr;
    }
    std::vector<std::shared_ptr<Job>> jobs;
    for (auto& j : all)
        if (!j->hidden) jobs.push_back(j);
    if (spec.starts_with("%")) {
        std::string s = spec.substr(1);
        if (s.empty() || s == "%" || s == "+") {
            if (!jobs.empty()) return jobs.back();
            bad = true;
            return nullptr;
        }
        if (s == "-") {
            if (jobs.size() >= 2) return jobs[jobs.size() - 2];
            if (!jobs.empty()) return jobs.back();
            bad = true;
            return nullptr;
        }
        int64_t n = 0;
        if (parse_int(s, n)) {
            for (auto& j : jobs)
                if (j->id == n) return j;
            bad = true;
            return nullptr;
        }
        for (auto it = jobs.rbegin(); it != jobs.rend(); ++it)
            if ((*it)->command.starts_with(s)) return *it;
        bad = true;
        return nullptr;
    }
    int64_t pid = 0;
    if (!parse_int(spec, pid)) {
        bad = true;
        return nullptr;
    }
    for (auto& j : jobs)
        if (j->pid == pid) return j;
    return nullptr;
}

// strsignal()'s text for the signals bash reports.
static const char* signal_description(int sig) {
    switch (sig) {
        case 1: return "Hangup";
        case 3: return "Quit";
        case 4: return "Illegal instruction";
        case 5: return "Trace/breakpoint trap";
        case 6: return "Aborted";
        case 7: return "Bus error";
        case 8: return "Floating point exception";
        case 9: return "Killed";
        case 10: return "User defined signal 1";
        case 11: return "Segmentation fault";
        case 12: return "User defined signal 2";
        case 14: return "Alarm clock";
        case 16: return "Stack fault";
        case 24: return "CPU time limit exceeded";
        case 25: return "File size limit exceeded";
        case 26: return "Virtual timer expired";
        case 27: return "Profiling timer expired";
        case 29: return "I/O possible";
        case 30: return "Power failure";
        case 31: return "Bad system call";
        default: return nullptr;  // INT, PIPE and TERM are not reported; the others do not end a job here
    }
}

static int wait_job(Exec& sh, Job& j) {
    std::unique_lock lock(sh.session_.jobs_mu);
    while (!j.done.load()) {
        if (sh.cancel_->cancelled()) return -1;
        sh.session_.jobs_cv.wait_for(lock, std::chrono::milliseconds(20));
    }
    const bool first = !j.reported;
    j.reported = true;
    lock.unlock();
    // A job a signal ended is reported as a non-interactive bash does: "PID Hangup   command".
    if (first && j.signal)
        if (const char* what = signal_description(j.signal)) {
            std::string d(what);
            if (d.size() < 24) d.resize(24, ' ');
            sh.error(to_dec(j.pid) + " " + d + j.command);
        }
    return j.signal ? 128 + j.signal : j.status.load();
}

BuiltinResult builtin_wait(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool any = false;
    std::string pvar;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        if (a[i] == "-n") any = true;
        else if (a[i] == "-f") {
        } else if (a[i] == "-p" && i + 1 < a.size()) pvar = a[++i];
        else if (a[i] == "--") {
            ++i;
            break;
        } else break;
    }
    auto& jobs = sh.state_.jobs->jobs;
    auto prune = [&]() {
        jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [](const std::shared_ptr<Job>& j) { return j->done && j->reported; }),
                   jobs.end());
    };
    if (i >= a.size()) {
        if (any) {
            // The next job to finish.
            bool pending = false;
            for (auto& j : jobs)
                if (!j->reported) pending = true;
            if (!pending) return 127;
            std::unique_lock lock(sh.session_.jobs_mu);
            while (true) {
                for (auto& j : jobs) {
                    if (!j->reported && j->done.load()) {
                        j->reported = true;
                        int st = j->signal ? 128 + j->signal : j->status.load();
                        if (!pvar.empty()) {
                            lock.unlock();
                            (void)sh.assign(pvar, to_dec(j->pid));
                        }
                        lock = std::unique_lock<std::mutex>();
                        prune();
                        return st;
                    }
                }
                if (sh.cancel_->cancelled()) {
                    Flow flow = sh.cancelled_flow();
                    return {sh.exit_status_, flow};
                }
                sh.session_.jobs_cv.wait_for(lock, std::chrono::milliseconds(20));
            }
        }
        for (auto& j : jobs) {
            int st = wait_job(sh, *j);
            if (st < 0) {
                Flow flow = sh.cancelled_flow();
                return {sh.exit_status_, flow};
            }
        }
        jobs.clear();
        return 0;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        bool bad = false;
        auto j = find_job(sh, a[i], bad);
        if (!j) {
            if (bad && a[i].starts_with("%"))
                sh.builtin_error("wait", a[i] + ": no such job");
            else if (bad) {
                sh.builtin_error("wait", "`" + a[i] + "': not a pid or valid job spec");
                status = any ? 127 : 1;  // bash: a bad argument is 1 (127 with -n), an unknown job or pid 127
                continue;
            } else
                sh.builtin_error("wait", "pid " + a[i] + " is not a child of this shell");
            status = 127;
            continue;
        }
        int st = wait_job(sh, *j);
        if (st < 0) {
            Flow flow = sh.cancelled_flow();
            return {sh.exit_status_, flow};
        }
        status = st;
        if (!pvar.empty()) (void)sh.assign(pvar, to_dec(j->pid));
    }
    prune();
    return status;
}

BuiltinResult builtin_jobs(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool pids = false, long_fmt = false;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-p") pids = true;
        else if (a[i] == "-l") long_fmt = true;
    }
    std::vector<std::shared_ptr<Job>> jobs;
    for (auto& j : sh.state_.jobs->jobs)
        if (!j->hidden) jobs.push_back(j);
    std::string out;
    for (size_t k = 0; k < jobs.size(); ++k) {
        auto& j = jobs[k];
        if (pids) {
            out += to_dec(j->pid) + "\n";
            continue;
        }
        char mark = k + 1 == jobs.size() ? '+' : (k + 2 == jobs.size() ? '-' : ' ');
        bool done = j->done.load();
        std::string state = done ? (j->status.load() == 0 ? "Done" : "Exit " + std::to_string(j->status.load())) : "Running";
        std::string line = "[" + std::to_string(j->id) + "]" + mark + "  ";
        if (long_fmt) line += to_dec(j->pid) + " ";
        line += state;
        if (line.size() < 30) line += std::string(30 - line.size(), ' ');
        line += j->command + (done ? "" : " &");
        out += line + "\n";
        if (done) j->reported = true;
    }
    auto& table = sh.state_.jobs->jobs;
    table.erase(std::remove_if(table.begin(), table.end(),
                               [](const std::shared_ptr<Job>& j) { return j->done && j->reported; }),
                table.end());
    sh.write_out(out);
    return 0;
}

BuiltinResult builtin_kill(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int sig = 15;
    size_t i = 1;
    if (i < a.size() && (a[i] == "-l" || a[i] == "-L")) {
        std::string out;
        if (i + 1 < a.size()) {
            for (size_t k = i + 1; k < a.size(); ++k) {
                int64_t n = 0;
                if (parse_int(a[k], n)) {
                    if (n > 128) n -= 128;
                    std::string nm = signal_name(static_cast<int>(n));
                    out += (nm.starts_with("SIG") ? nm.substr(3) : nm) + "\n";
                } else {
                    out += std::to_string(signal_number(a[k])) + "\n";
                }
            }
        } else {
            for (size_t k = 0; k < std::size(kSignals); ++k) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%2d) SIG%s", kSignals[k].num, kSignals[k].name);
                out += buf;
                out += (k % 5 == 4 || k + 1 == std::size(kSignals)) ? "\n" : "\t";
            }
        }
        sh.write_out(out);
        return 0;
    }
    if (i < a.size() && (a[i] == "-s" || a[i] == "-n")) {
        if (i + 1 >= a.size()) return sh.builtin_error("kill", a[i] + ": option requires an argument");
        sig = signal_number(a[i + 1]);
        if (sig < 0) return sh.builtin_error("kill", a[i + 1] + ": invalid signal specification");
        i += 2;
    } else if (i < a.size() && a[i].size() > 1 && a[i][0] == '-' && a[i] != "--") {
        sig = signal_number(a[i].substr(1));
        if (sig < 0) return sh.builtin_error("kill", a[i].substr(1) + ": invalid signal specification");
        ++i;
    }
    if (i < a.size() && a[i] == "--") ++i;
    if (i >= a.size()) {
        sh.write_err("kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n");
        return 2;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        int64_t pid = 0;
        if (!a[i].starts_with("%") && parse_int(a[i], pid) && pid == sh.session_.id.pid && pid != sh.state_.bashpid) {
            // The main shell, from another shell of the session (a subshell, `bash -c`): it runs the trap
            // (or ends) after its current command, as a real signal's would.
            if (sig > 0 && sig < 64) sh.session_.pending_signals.fetch_or(uint64_t{1} << sig);
            continue;
        }
        if (!a[i].starts_with("%") && parse_int(a[i], pid) && pid == sh.state_.bashpid) {
            // Signalling ourselves: run the trap, or end the shell.
            if (sig == 0) continue;
            auto it = sh.state_.traps.find(sig);
            if (it != sh.state_.traps.end()) {
                if (!it->second.action.empty() && sh.run_trap(sig) == Flow::Exit) return {sh.exit_status_, Flow::Exit};
                continue;
            }
            if (sig == 17 || sig == 18 || sig == 23 || sig == 28) continue;
            sh.exit_status_ = 128 + sig;
            return {sh.exit_status_, Flow::Exit};
        }
        bool bad = false;
        auto j = find_job(sh, a[i], bad);
        if (!j) {
            if (a[i].starts_with("%"))
                sh.builtin_error("kill", a[i] + ": no such job");
            else if (bad)
                sh.builtin_error("kill", a[i] + ": arguments must be process or job IDs");
            else
                sh.builtin_error("kill", "(" + a[i] + ") - No such process");
            status = 1;
            continue;
        }
        if (sig == 0) {
            if (j->done) status = 1;
            continue;
        }
        if (sig == 17 || sig == 18 || sig == 28 || sig == 23) continue;
        if (!j->done) {
            j->signal = sig;
            j->token->cancel();
        }
    }
    return status;
}

BuiltinResult builtin_disown(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    auto& jobs = sh.state_.jobs->jobs;
    if (a.size() == 1 || a[1] == "-a") {
        jobs.clear();
        return 0;
    }
    for (size_t i = 1; i < a.size(); ++i) {
        bool bad = false;
        auto j = find_job(sh, a[i], bad);
        if (!j) {
            sh.builtin_error("disown", a[i] + ": no such job");
            return 1;
        }
        std::erase(jobs, j);
    }
    return 0;
}

BuiltinResult builtin_fg(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    return sh.builtin_error(a[0], "no job control");
}
// A script keeps no history (bash records none when not interactive): the list is always empty, so
// `history` lists nothing, `-c -s -a -n -r -w` have nothing to do, and `-p` prints its arguments.
BuiltinResult builtin_history(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    auto usage = [&](const std::string& opt) -> BuiltinResult {
        sh.builtin_error("history", opt + ": invalid option");
        sh.write_err("history: usage: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps "
                     "arg [arg...]\n");
        return 2;
    };
    size_t i = 1;
    bool print = false, delete_at = false;
    std::string offset;
    for (; i < a.size(); ++i) {
        const std::string& w = a[i];
        if (w == "--") {
            ++i;
            break;
        }
        if (w.size() < 2 || w[0] != '-') break;
        for (size_t j = 1; j < w.size(); ++j) {
            char c = w[j];
            if (c == 'p' || c == 's') print = print || c == 'p';
            else if (c == 'c' || c == 'a' || c == 'n' || c == 'r' || c == 'w') continue;
            else if (c == 'd') {
                delete_at = true;
                if (j + 1 < w.size()) offset = w.substr(j + 1);
                else if (i + 1 < a.size()) offset = a[++i];
                else {
                    sh.builtin_error("history", "-d: option requires an argument");
                    return 2;
                }
                break;
            } else return usage(std::string("-") + c);
        }
    }
    if (delete_at) return sh.builtin_error("history", offset + ": history position out of range");
    if (print) {
        std::string out;
        for (; i < a.size(); ++i) out += a[i] + "\n";
        sh.write_out(out);
        return 0;
    }
    if (i < a.size() && a[1].size() > 1 && a[1][0] == '-') return 0;  // -anrw [filename], -c, -s args
    if (i < a.size()) {
        int64_t n = 0;
        if (!parse_int(a[i], n)) return sh.builtin_error("history", a[i] + ": numeric argument required");
        if (i + 1 < a.size()) {  // bash drops the rest of the line
            sh.builtin_error("history", "too many arguments");
            sh.exit_status_ = 1;
            sh.discard_line_ = true;
            return {1, Flow::Exit};
        }
    }
    return 0;
}

BuiltinResult builtin_suspend(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    return sh.builtin_error("suspend", "cannot suspend a non-interactive shell");
}

BuiltinResult builtin_umask(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool symbolic = false, print = false;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        if (a[i] == "-S") symbolic = true;
        else if (a[i] == "-p") print = true;
        else break;
    }
    auto sym = [](uint32_t m) {
        std::string out;
        const char* who = "ugo";
        for (int k = 0; k < 3; ++k) {
            uint32_t bits = (~m >> (6 - 3 * k)) & 7;
            out += who[k];
            out += '=';
            if (bits & 4) out += 'r';
            if (bits & 2) out += 'w';
            if (bits & 1) out += 'x';
            if (k < 2) out += ',';
        }
        return out;
    };
    if (i >= a.size()) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%04o", sh.state_.umask);
        std::string out = symbolic ? sym(sh.state_.umask) : std::string(buf);
        if (print) out = "umask " + std::string(symbolic ? "-S " : "") + out;
        sh.write_out(out + "\n");
        return 0;
    }
    const std::string& m = a[i];
    if (std::all_of(m.begin(), m.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        uint32_t v = 0;
        for (char c : m) v = v * 8 + static_cast<uint32_t>(c - '0');
        if (v > 0777) return sh.builtin_error("umask", m + ": octal number out of range");
        sh.state_.umask = v;
        return 0;
    }
    // Symbolic: u=rwx,g=rx,o=
    uint32_t allowed = ~sh.state_.umask & 0777;
    size_t p = 0;
    while (p < m.size()) {
        uint32_t who = 0;
        while (p < m.size() && std::strchr("ugoa", m[p])) {
            switch (m[p]) {
                case 'u': who |= 0700; break;
                case 'g': who |= 0070; break;
                case 'o': who |= 0007; break;
                default: who |= 0777; break;
            }
            ++p;
        }
        if (!who) who = 0777;
        if (p >= m.size() || !std::strchr("=+-", m[p])) return sh.builtin_error("umask", "`" + m.substr(p, 1) + "': invalid symbolic mode operator");
        char op = m[p++];
        uint32_t perm = 0;
        while (p < m.size() && std::strchr("rwx", m[p])) {
            perm |= m[p] == 'r' ? 0444 : m[p] == 'w' ? 0222 : 0111;
            ++p;
        }
        perm &= who;
        if (op == '=') allowed = (allowed & ~who) | perm;
        else if (op == '+') allowed |= perm;
        else allowed &= ~perm;
        if (p < m.size() && m[p] == ',') ++p;
        else if (p < m.size()) return sh.builtin_error("umask", "`" + m.substr(p, 1) + "': invalid symbolic mode character");
    }
    sh.state_.umask = ~allowed & 0777;
    return 0;
}

BuiltinResult builtin_ulimit(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    // Limits of the sandbox are set by the embedder; ulimit reports them and accepts changes for the
    // session without touching the host.
    char which = 'f';
    bool all = false;
    std::string value;
    for (size_t i = 1; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s.size() > 1 && s[0] == '-') {
            for (size_t k = 1; k < s.size(); ++k) {
                if (s[k] == 'a') all = true;
                else if (s[k] == 'S' || s[k] == 'H') {
                } else which = s[k];
            }
        } else {
            value = s;
        }
    }
    if (all) {
        sh.write_out(
            "real-time non-blocking time  (microseconds, -R) unlimited\n"
            "core file size              (blocks, -c) 0\n"
            "data seg size               (kbytes, -d) unlimited\n"
            "scheduling priority                 (-e) 0\n"
            "file size                   (blocks, -f) unlimited\n"
            "pending signals                     (-i) 63459\n"
            "max locked memory           (kbytes, -l) 8192\n"
            "max memory size             (kbytes, -m) unlimited\n"
            "open files                          (-n) 1024\n"
            "pipe size                (512 bytes, -p) 8\n"
            "POSIX message queues         (bytes, -q) 819200\n"
            "real-time priority                  (-r) 0\n"
            "stack size                  (kbytes, -s) 8192\n"
            "cpu time                   (seconds, -t) unlimited\n"
            "max user processes                  (-u) 63459\n"
            "virtual memory              (kbytes, -v) unlimited\n"
            "file locks                          (-x) unlimited\n");
        return 0;
    }
    if (!value.empty()) {
        int64_t n = 0;
        if (value != "unlimited" && value != "hard" && value != "soft" && !parse_int(value, n))
            return sh.builtin_error("ulimit", value + ": invalid number");
        sh.ulimits_[which] = value;
        return 0;
    }
    auto it = sh.ulimits_.find(which);
    if (it != sh.ulimits_.end()) {
        sh.write_out(it->second + "\n");
        return 0;
    }
    const char* v = "unlimited";
    switch (which) {
        case 'n': v = "1024"; break;
        case 's': v = "8192"; break;
        case 'c': v = "0"; break;
        case 'u': v = "63459"; break;
        case 'p': v = "8"; break;
        case 'l': v = "8192"; break;
        default: break;
    }
    sh.write_out(std::string(v) + "\n");
    return 0;
}

BuiltinResult builtin_times(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    sh.write_out("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
    return 0;
}


void Exec::wait_hidden_jobs() {
    for (auto& j : state_.jobs->jobs)
        if (j->hidden && wait_job(*this, *j) < 0) return;
    auto& table = state_.jobs->jobs;
    table.erase(std::remove_if(table.begin(), table.end(),
                               [](const std::shared_ptr<Job>& j) { return j->hidden && j->done; }),
                table.end());
}

}  // namespace bashkit::interp
