#include "utils/system/system.hpp"

#include "utils/system/tools.hpp"

namespace bashkit::utils {

void register_system_utils(interp::CommandRegistry& registry) {
    using namespace systemutil;
    struct Entry {
        const char* name;
        const char* help;
        interp::CommandFn fn;
    };
    const Entry entries[] = {
        {"date", "date [-u] [-d STRING | -f FILE | -r FILE] [-I[FMT] | -R | --rfc-3339=FMT] [+FORMAT] : print the date and time (TZ from the environment)", cmd_date},
        {"sleep", "sleep NUMBER[smhd]... : wait for the sum of the durations (cancellable)", cmd_sleep},
        {"timeout", "timeout [-s SIG] [-k DUR] [--preserve-status] [--foreground] [-v] DURATION COMMAND [ARG]... : run a command with a time limit (status 124 when it expires)", cmd_timeout},
        {"env", "env [-i] [-0] [-u NAME]... [-C DIR] [-S STRING] [-] [NAME=VALUE]... [COMMAND [ARG]...] : run a command in a modified environment, or print the environment", cmd_env},
        {"printenv", "printenv [-0] [VARIABLE]... : print environment variables", cmd_printenv},
        {"nohup", "nohup COMMAND [ARG]... : run a command (no terminal, no hangup in the sandbox)", cmd_nohup},
        {"xargs", "xargs [-0] [-a FILE] [-d DELIM] [-E EOF] [-I R] [-L N] [-n N] [-P N] [-r] [-s N] [-t] [-x] [COMMAND [ARG]...] : build and run command lines from input (sequentially)", cmd_xargs},
        {"which", "which [-a] NAME... : locate commands in PATH (utilities appear in /usr/bin and /bin)", cmd_which},
        {"whoami", "whoami : print the session's user name", cmd_whoami},
        {"id", "id [-u|-g|-G] [-n] [-r] [-z] [USER] : print the session's user and group ids", cmd_id},
        {"groups", "groups [USER]... : print group memberships", cmd_groups},
        {"logname", "logname : print the login name", cmd_logname},
        {"hostname", "hostname [-s|-f|-d|-i|-I] : print the session's host name", cmd_hostname},
        {"uname", "uname [-asnrvmpio] : print (virtual) system information", cmd_uname},
        {"arch", "arch : print the machine architecture", cmd_arch},
        {"nproc", "nproc [--all] [--ignore=N] : print the number of processing units (1)", cmd_nproc},
        {"tty", "tty [-s] : print the terminal name (never a terminal)", cmd_tty},
        {"true", "true : do nothing, successfully (as a command for env, xargs, timeout)", cmd_true},
        {"false", "false : do nothing, unsuccessfully", cmd_false},
        {"nice", "nice [-n N] [COMMAND [ARG]...] : run a command (no priorities in the sandbox: the niceness stays 0)", cmd_nice},
        {"stdbuf", "stdbuf [-i MODE] [-o MODE] [-e MODE] COMMAND [ARG]... : run a command (buffering modes are checked, then have no effect)", cmd_stdbuf},
        {"envsubst", "envsubst [-v] [SHELL-FORMAT] : substitute $VAR and ${VAR} in stdin from the environment", cmd_envsubst},
        {"getopt", "getopt [-aqQTu] [-n NAME] [-s SHELL] -o OPTSTRING [-l LONGOPTS] [--] PARAMETER... : parse and quote command options (util-linux)", cmd_getopt},
        {"tput", "tput [-T TERM] [-S] CAPNAME [ARG]... : terminal capabilities of xterm, xterm-256color and dumb (no terminal attached)", cmd_tput},
        {"free", "free [-b|-k|-m|-g|-h] [-t] [-w] : the session's memory budget as free shows memory", cmd_free},
        {"uptime", "uptime [-p] [-s] : the session's clock (no load, no users)", cmd_uptime},
        {"who", "who : logged-in users (nobody logs in to the sandbox)", cmd_who},
        {"users", "users : logged-in user names (none)", cmd_users},
        {"w", "w [-h] : uptime and logged-in users (none)", cmd_w},
        {"ps", "ps [--no-headers] : the session's shell, its running background jobs and ps itself", cmd_ps},
        {"pgrep", "pgrep [-lacfinovx] [-d DELIM] [-P PPID,...] [-u USER,...] PATTERN : list the session's background jobs whose name matches (procps)", cmd_pgrep},
        {"pkill", "pkill [-SIGNAL] [-cefinox] [-P PPID,...] [-u USER,...] PATTERN : signal the session's background jobs whose name matches (procps)", cmd_pkill},
        {"watch", "watch [-n SECS] [-tgepx] [-q CYCLES] COMMAND : run a command repeatedly (no terminal: runs printed one after the other; at most 100 runs)", cmd_watch},
        {"uuidgen", "uuidgen [-r|-t] : print a new UUID (random, or time-based)", cmd_uuidgen},
    };
    for (const auto& e : entries) registry.add(e.name, e.help, e.fn);
}

}  // namespace bashkit::utils
