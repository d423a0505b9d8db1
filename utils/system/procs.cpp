// pgrep, pkill (procps-ng 4.0) over the session's background jobs, and watch (procps-ng 4.0), bounded.
//
// The processes pgrep and pkill see are the running background jobs of the shell (what `jobs -l` lists,
// CommandRunner::running_jobs): never the host's processes, never the shell itself. A job's process name
// (what the pattern matches, 15 characters at most like the kernel's comm) is the base name of its first
// word when the job is a simple command (`sleep 30 &` is "sleep"), "bash" otherwise (a subshell); its
// command line (-f, -a) is the job's text as `jobs` shows it. Every job's parent is the session shell ($$),
// its user the session's user. pkill's signals are kill's cooperative cancels (the job reports 128 + SIG).
//
// watch runs its command (`sh -c` through the runner, or the words themselves with -x) every -n seconds
// (0.1 at least, 2 by default). There is no terminal: each run prints its header (unless -t) and the
// command's output, one run after the other, with no screen control codes. It is bounded: it ends when the
// command's output changes (-g), stays the same for -q N runs, or fails (-e, status 8, as watch after its
// key press), when the execution's time limit or a cancel fires (checked every 10 ms while it sleeps), and
// at the latest after kWatchMaxRuns runs (status 0, a note on stderr).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"
#include "interp/regex.hpp"
#include "interp/stream.hpp"

namespace bashkit::utils::systemutil {

namespace {

// ---------------------------------------------------------------------------------------------------------
// pgrep / pkill

constexpr struct {
    int num;
    const char* name;
} kSigNames[] = {
    {1, "HUP"},   {2, "INT"},    {3, "QUIT"},  {4, "ILL"},   {5, "TRAP"},   {6, "ABRT"},  {7, "BUS"},   {8, "FPE"},
    {9, "KILL"},  {10, "USR1"},  {11, "SEGV"}, {12, "USR2"}, {13, "PIPE"},  {14, "ALRM"}, {15, "TERM"},
    {16, "STKFLT"}, {17, "CHLD"}, {18, "CONT"}, {19, "STOP"}, {20, "TSTP"}, {21, "TTIN"}, {22, "TTOU"},
    {23, "URG"},  {24, "XCPU"},  {25, "XFSZ"}, {26, "VTALRM"}, {27, "PROF"}, {28, "WINCH"}, {29, "IO"},
    {30, "PWR"},  {31, "SYS"},
};

// A signal number or name (TERM, SIGTERM, term); -1 when unknown.
int signal_of(std::string_view s) {
    if (s.empty()) return -1;
    if (std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        if (s.size() > 2) return -1;
        const int n = std::stoi(std::string(s));
        return n <= 64 ? n : -1;
    }
    std::string up;
    for (char c : s) up.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (up.starts_with("SIG")) up.erase(0, 3);
    if (up == "IOT") return 6;
    if (up == "POLL") return 29;
    for (const auto& sg : kSigNames)
        if (up == sg.name) return sg.num;
    return -1;
}

}  // namespace

std::vector<JobProcess> job_processes(CommandContext& ctx) {
    std::vector<JobProcess> out;
    if (!ctx.runner) return out;
    for (auto& j : ctx.runner->running_jobs()) {
        JobProcess p;
        p.pid = j.pid;
        p.cmdline = j.command;
        // A simple command: its first word; anything else runs in a subshell ("bash").
        const std::string& c = j.command;
        const bool compound = c.find_first_of(";|&(){}<>\n`$") != std::string::npos || c.empty();
        if (compound) {
            p.name = "bash";
        } else {
            std::string first = c.substr(0, c.find_first_of(" \t"));
            if (first.find('=') != std::string::npos || first == "!" || first == "[[" || first == "if" ||
                first == "for" || first == "while" || first == "until" || first == "case")
                p.name = "bash";
            else
                p.name = first.substr(first.rfind('/') == std::string::npos ? 0 : first.rfind('/') + 1);
        }
        if (p.name.size() > 15) p.name.resize(15);
        out.push_back(std::move(p));
    }
    return out;
}

namespace {

// A comma-separated list of numbers (-P); false when one is not a number.
bool parse_pid_list(std::string_view s, std::vector<int64_t>& out, std::string& bad) {
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string_view::npos) comma = s.size();
        std::string_view item = s.substr(start, comma - start);
        if (item.empty() || !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
            item.size() > 18) {
            bad = std::string(item);
            return false;
        }
        out.push_back(std::stoll(std::string(item)));
        start = comma + 1;
    }
    return true;
}

int pgrep_usage(CommandContext& ctx, bool kill, std::string_view message) {
    const std::string prog = kill ? "pkill" : "pgrep";
    std::string err;
    if (!message.empty()) err = prog + ": " + std::string(message) + "\n";
    err += "\nUsage:\n " + prog + " [options] <pattern>\n\nSee '" + prog + " --help'.\n";
    ctx.err.write(err);
    return 2;
}

int pgrep_main(CommandContext& ctx, bool kill) {
    const std::string prog = kill ? "pkill" : "pgrep";
    enum : int { kSignal = kOptFirstLongOnly, kNs, kNsList, kCgroup };
    static constexpr OptionSpec kSpecs[] = {
        {'d', 'd', "delimiter", ArgKind::required}, {'l', 'l', "list-name"}, {'a', 'a', "list-full"},
        {'v', 'v', "inverse"}, {'w', 'w', "lightweight"}, {'c', 'c', "count"}, {'f', 'f', "full"},
        {'g', 'g', "pgroup", ArgKind::required}, {'G', 'G', "group", ArgKind::required},
        {'i', 'i', "ignore-case"}, {'n', 'n', "newest"}, {'o', 'o', "oldest"},
        {'O', 'O', "older", ArgKind::required}, {'P', 'P', "parent", ArgKind::required},
        {'s', 's', "session", ArgKind::required}, {'t', 't', "terminal", ArgKind::required},
        {'u', 'u', "euid", ArgKind::required}, {'U', 'U', "uid", ArgKind::required}, {'x', 'x', "exact"},
        {'F', 'F', "pidfile", ArgKind::required}, {'L', 'L', "logpidfile"},
        {'r', 'r', "runstates", ArgKind::required}, {'A', 'A', "ignore-ancestors"}, {'e', 'e', "echo"},
        {'q', 'q', "queue", ArgKind::required}, {kSignal, 0, "signal", ArgKind::required},
        {kNs, 0, "ns", ArgKind::required}, {kNsList, 0, "nslist", ArgKind::required},
        {kCgroup, 0, "cgroup", ArgKind::required}, {kOptHelp, 'h', "help"}, {kOptVersion, 'V', "version"},
    };
    std::vector<std::string> args = ctx.argv;
    int sig = 15;
    // pkill -SIGNAL: only as the first argument (procps looks there before getopt).
    if (kill && args.size() > 1 && args[1].size() > 1 && args[1][0] == '-' && args[1] != "--" &&
        !args[1].starts_with("--")) {
        const int n = signal_of(std::string_view(args[1]).substr(1));
        if (n >= 0) {
            sig = n;
            args.erase(args.begin() + 1);
        }
    }
    ParsedArgs p = parse_args(args, kSpecs);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp) {
            std::string h = "\nUsage:\n " + prog + " [options] <pattern>\n\nOptions:\n";
            if (kill)
                h += " -<sig>, --signal <sig>    signal to send (either number or name)\n"
                     " -e, --echo                display what is killed\n";
            else
                h += " -d, --delimiter <string>  specify output delimiter\n"
                     " -l, --list-name           list PID and process name\n"
                     " -a, --list-full           list PID and full command line\n"
                     " -v, --inverse             negates the matching\n";
            h += " -c, --count               count of matching processes\n"
                 " -f, --full                use full process name to match\n"
                 " -i, --ignore-case         match case insensitively\n"
                 " -n, --newest              select most recently started\n"
                 " -o, --oldest              select least recently started\n"
                 " -P, --parent <PPID,...>   match only child processes of the given parent\n"
                 " -u, --euid <ID,...>       match by effective IDs\n"
                 " -U, --uid <ID,...>        match by real IDs\n"
                 " -x, --exact               match exactly with the command name\n"
                 " -A, --ignore-ancestors    exclude our ancestors from results\n"
                 "\n -h, --help     display this help and exit\n"
                 " -V, --version  output version information and exit\n"
                 "\nThe processes are the session's background jobs (see jobs -l).\n";
            return write_out(ctx, h) ? 0 : 1;
        }
        if (o.id == kOptVersion) return write_out(ctx, prog + " from procps-ng 4.0.2 (bashkit)\n") ? 0 : 1;
    }
    if (!p.ok()) return pgrep_usage(ctx, kill, p.error);
    std::string delim = "\n";
    bool list_name = false, list_full = false, inverse = false, count = false, full = false, icase = false;
    bool newest = false, oldest = false, exact = false, echo = false, criteria = false;
    std::vector<int64_t> parents;
    bool users_given = false, user_matches = false;
    for (const auto& o : p.options) {
        const bool pgrep_only = o.id == 'd' || o.id == 'l' || o.id == 'a' || o.id == 'v' || o.id == 'w';
        const bool pkill_only = o.id == 'e' || o.id == 'q' || o.id == kSignal;
        if ((kill && pgrep_only) || (!kill && pkill_only)) {
            std::string spelled = o.spelled.starts_with("--") ? "unrecognized option '" + o.spelled + "'"
                                                                : "invalid option -- '" + o.spelled.substr(1) + "'";
            return pgrep_usage(ctx, kill, spelled);
        }
        switch (o.id) {
            case 'd': delim = o.value; break;
            case 'l': list_name = true; break;
            case 'a': list_full = true; break;
            case 'v': inverse = true; break;
            case 'w': break;  // no threads: every job is one task
            case 'c': count = true; break;
            case 'f': full = true; break;
            case 'i': icase = true; break;
            case 'n': newest = true; break;
            case 'o': oldest = true; break;
            case 'x': exact = true; break;
            case 'e': echo = true; break;
            case 'A': break;  // a job is never an ancestor of pgrep
            case 'P': {
                std::string bad;
                if (!parse_pid_list(o.value, parents, bad)) {
                    ctx.err.write(prog + ": not a number: " + bad + "\n");
                    return 2;
                }
                criteria = true;
                break;
            }
            case 'u':
            case 'U': {
                users_given = criteria = true;
                std::string_view s = o.value;
                size_t start = 0;
                while (start <= s.size()) {
                    size_t comma = s.find(',', start);
                    if (comma == std::string_view::npos) comma = s.size();
                    std::string item(s.substr(start, comma - start));
                    const std::string user = ctx.identity ? ctx.identity->user : "user";
                    const uint32_t uid = ctx.identity ? ctx.identity->uid : 1000;
                    if (item == user || item == std::to_string(uid)) {
                        user_matches = true;
                    } else if (item.empty() ||
                               !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
                        return pgrep_usage(ctx, kill, "invalid user name: " + item);
                    }
                    start = comma + 1;
                }
                break;
            }
            case kSignal: {
                const int n = signal_of(o.value);
                if (n < 0) {
                    ctx.err.write(prog + ": Unknown signal \"" + o.value + "\".\n");
                    return 2;
                }
                sig = n;
                break;
            }
            default:
                ctx.err.write(prog + ": " + o.spelled +
                              ": not supported in the sandbox (process groups, sessions, terminals, pid files "
                              "and namespaces do not exist)\n");
                return 2;
        }
    }
    if (newest && oldest) {
        ctx.err.write(prog + ": -n and -o are mutually exclusive\n");
        return 2;
    }
    if (p.operands.size() > 1) {
        ctx.err.write(prog + ": only one pattern can be provided\nTry `" + prog + " --help' for more information.\n");
        return 2;
    }
    if (p.operands.empty() && !criteria) {
        ctx.err.write(prog + ": no matching criteria specified\nTry `" + prog + " --help' for more information.\n");
        return 2;
    }
    std::optional<interp::Regex> re;
    if (!p.operands.empty()) {
        interp::RegexOptions opts;
        opts.icase = icase;
        opts.bytes = true;
        // procps: regcomp(REG_EXTENDED | REG_NOSUB), anchored for -x.
        std::string pattern = p.operands[0];
        if (exact) pattern = "^(" + pattern + ")$";
        re.emplace(interp::Regex::compile(pattern, interp::RegexSyntax::kExtended, opts));
        if (!re->ok()) {
            ctx.err.write(prog + ": regex error: " + re->message() + "\n");
            return 2;
        }
    }
    const int64_t shell_pid = ctx.identity ? ctx.identity->pid : 1000;
    std::vector<JobProcess> matched;
    for (JobProcess& pr : job_processes(ctx)) {
        if (ctx.cancelled()) return 130;
        bool ok = true;
        if (re) ok = re->search(full ? pr.cmdline : pr.name);
        if (ok && !parents.empty()) ok = std::find(parents.begin(), parents.end(), shell_pid) != parents.end();
        if (ok && users_given) ok = user_matches;
        if (inverse) ok = !ok;
        if (ok) matched.push_back(std::move(pr));
    }
    if (newest && !matched.empty()) matched.erase(matched.begin(), matched.end() - 1);
    if (oldest && matched.size() > 1) matched.resize(1);
    std::string out;
    if (kill) {
        for (const JobProcess& pr : matched) {
            if (ctx.cancelled()) return 130;
            // A job that ended since the listing is gone, as a process that exits before kill(2) is.
            if (ctx.runner->signal_job(pr.pid, sig) && echo)
                out += pr.name + " killed (pid " + std::to_string(pr.pid) + ")\n";
        }
        if (count) out += std::to_string(matched.size()) + "\n";
    } else if (count) {
        out = std::to_string(matched.size()) + "\n";
    } else {
        for (size_t i = 0; i < matched.size(); ++i) {
            if (i) out += delim;
            out += std::to_string(matched[i].pid);
            if (list_full) out += " " + matched[i].cmdline;
            else if (list_name) out += " " + matched[i].name;
        }
        if (!matched.empty()) out += "\n";
    }
    if (!out.empty() && !write_out(ctx, out)) return 3;
    return matched.empty() ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// watch

constexpr int kWatchMaxRuns = 100;

int watch_usage(CommandContext& ctx, std::string_view message) {
    std::string err;
    if (!message.empty()) err = "watch: " + std::string(message) + "\n";
    err += "\nUsage:\n watch [options] command\n\nSee 'watch --help'.\n";
    ctx.err.write(err);
    return 1;
}

}  // namespace

int cmd_pgrep(CommandContext& ctx) { return pgrep_main(ctx, false); }
int cmd_pkill(CommandContext& ctx) { return pgrep_main(ctx, true); }

int cmd_watch(CommandContext& ctx) {
    static constexpr OptionSpec kSpecs[] = {
        {'b', 'b', "beep"}, {'c', 'c', "color"}, {'C', 'C', "no-color"},
        {'d', 'd', "differences", ArgKind::optional}, {'e', 'e', "errexit"}, {'g', 'g', "chgexit"},
        {'q', 'q', "equexit", ArgKind::required}, {'n', 'n', "interval", ArgKind::required},
        {'p', 'p', "precise"}, {'t', 't', "no-title"}, {'w', 'w', "no-wrap"}, {'x', 'x', "exec"},
        {kOptHelp, 'h', "help"}, {kOptVersion, 'v', "version"},
    };
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    ParsedArgs p = parse_args(ctx.argv, kSpecs, cfg);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx,
                             "\nUsage:\n watch [options] command\n\nOptions:\n"
                             "  -b, --beep             beep if command has a non-zero exit (no terminal: nothing)\n"
                             "  -c, --color            interpret ANSI color and style sequences (kept as is)\n"
                             "  -d, --differences[=<permanent>]\n"
                             "                         highlight changes between updates (no terminal: nothing)\n"
                             "  -e, --errexit          exit if command has a non-zero exit\n"
                             "  -g, --chgexit          exit when output from command changes\n"
                             "  -q, --equexit <cycles>\n"
                             "                         exit when output from command does not change\n"
                             "  -n, --interval <secs>  seconds to wait between updates\n"
                             "  -p, --precise          attempt run command in precise intervals\n"
                             "  -t, --no-title         turn off header\n"
                             "  -w, --no-wrap          turn off line wrapping\n"
                             "  -x, --exec             pass command to exec instead of \"sh -c\"\n"
                             "\n -h, --help     display this help and exit\n"
                             " -v, --version  output version information and exit\n"
                             "\nNo terminal: every run is printed after the previous one, without screen codes;\n"
                             "watch stops after 100 runs or when the execution's time limit fires.\n")
                       ? 0
                       : 1;
        if (o.id == kOptVersion) return write_out(ctx, "watch from procps-ng 4.0.2 (bashkit)\n") ? 0 : 1;
    }
    if (!p.ok()) return watch_usage(ctx, p.error);
    double interval = 2.0;
    bool errexit = false, chgexit = false, title = true, exec = false, precise = false;
    long equexit = 0;
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'n': {
                std::string v = o.value;
                std::replace(v.begin(), v.end(), ',', '.');
                char* end = nullptr;
                const double d = std::strtod(v.c_str(), &end);
                if (v.empty() || *end != '\0' || !std::isfinite(d)) {
                    ctx.err.write("watch: failed to parse argument: '" + o.value + "': Invalid argument\n");
                    return 1;
                }
                interval = std::clamp(d, 0.1, 2678400.0);
                break;
            }
            case 'q': {
                char* end = nullptr;
                const long n = std::strtol(o.value.c_str(), &end, 10);
                if (o.value.empty() || *end != '\0') {
                    ctx.err.write("watch: failed to parse argument: '" + o.value + "': Invalid argument\n");
                    return 1;
                }
                equexit = std::max(n, 1L);
                break;
            }
            case 'e': errexit = true; break;
            case 'g': chgexit = true; break;
            case 't': title = false; break;
            case 'x': exec = true; break;
            case 'p': precise = true; break;
            default: break;  // -b -c -C -d -w: about the terminal there is not
        }
    }
    if (p.operands.empty()) return watch_usage(ctx, "");
    if (!ctx.runner) {
        ctx.error("cannot run commands here");
        return 1;
    }
    std::string command;
    for (size_t i = 0; i < p.operands.size(); ++i) {
        if (i) command += ' ';
        command += p.operands[i];
    }
    Output out(ctx);
    std::string previous;
    interp::MemoryCharge previous_charge(ctx.memory);
    bool have_previous = false;
    long same_runs = 0;
    for (int run = 0;; ++run) {
        if (ctx.cancelled()) return out.status(130);
        if (run == kWatchMaxRuns) {
            out.flush();
            ctx.error("stopped after " + std::to_string(kWatchMaxRuns) + " runs (the sandbox's bound)");
            return out.status(0);
        }
        const auto started = std::chrono::steady_clock::now();
        interp::StringSink capture(SIZE_MAX, ctx.memory);  // its bytes are charged to the session's budget
        interp::NullStream null_in;
        int status;
        if (exec) {
            status = ctx.runner->run_command(p.operands, ctx.env, null_in, capture, capture);
        } else {
            const std::vector<std::string> args = {"sh"};
            status = ctx.runner->run_script(command, args, null_in, capture, capture);
        }
        if (capture.over_budget()) {  // reported at the command boundary like any other charge past the budget
            out.flush();
            throw interp::MemoryLimitExceeded(ctx.memory ? ctx.memory->limit() : 0);
        }
        interp::MemoryCharge data_charge(ctx.memory);
        data_charge.add(capture.size());
        std::string data = capture.take();
        if (ctx.cancelled()) return out.status(130);
        if (title) {
            const vfs::TimeSpec now = ctx.clock.now();
            const TimeZone tz = TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
            const std::string when = format_time("%a %b %e %H:%M:%S %Y", tz.local(now.sec));
            char every[64];
            std::snprintf(every, sizeof every, "Every %.1fs: ", interval);
            std::string left = every + command;
            std::string right = (ctx.identity ? ctx.identity->host : std::string("bashkit")) + ": " + when;
            std::string line = left;
            if (left.size() + right.size() + 1 < 80) line.append(80 - left.size() - right.size(), ' ');
            else line += ' ';
            out.put(line + right + "\n\n");
        }
        out.put(data);
        if (!data.empty() && data.back() != '\n') out.put('\n');
        out.flush();
        if (out.failed()) return out.status(0);
        if (errexit && status != 0) return out.status(8);
        if (have_previous) {
            if (chgexit && data != previous) return out.status(0);
            if (data == previous) {
                if (equexit && ++same_runs >= equexit) return out.status(0);
            } else {
                same_runs = 0;
            }
        }
        previous_charge.set(data.size());
        previous = std::move(data);
        have_previous = true;
        double wait = interval;
        if (precise) {
            const double spent =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            wait = std::max(0.0, interval - spent);
        }
        if (!wait_for(ctx.cancel, wait)) return out.status(130);
        out.put('\n');
    }
}

}  // namespace bashkit::utils::systemutil
