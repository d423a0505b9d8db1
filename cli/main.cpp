// bashkit: the command-line front end.
//
//   bashkit -c CMD [NAME [ARG...]]               run CMD in a sandbox on an in-memory file system
//   bashkit FILE [ARG...]                         run a script file (read from the host by the CLI)
//   bashkit < FILE                                run a script from stdin, statement by statement, so that
//                                                commands in it read the rest of stdin as in bash
//   bashkit -n FILE | -n -c CMD | -n < FILE     check syntax like `bash -n` (status 0, or 2 on an error)
//   bashkit --dump-ast [FILE | -c CMD]           print the AST as JSON
//   bashkit --print [FILE | -c CMD]              print the script back in canonical form
//   bashkit --analyze [FILE | -c CMD]            pre-run analysis as JSON, nothing run (status 2 when the
//                                                script does not parse, like -n; the error is in the JSON)
//   bashkit --root DIR | --mount HOST:VIRT[:ro] | --overlay HOST:VIRT | --session ID [--instance ID] |
//           --ephemeral | --cwd VIRT ...         choose the file system (cli/tree.hpp)
//   bashkit --host ...                           unsandboxed: the real file system and host programs
//   bashkit serve [--port N] ...                 the remote sandbox server (cli/serve.hpp)
//   bashkit --load-state FILE | --save-state FILE ...  resume the shell state a previous run saved (variables,
//                                                functions, aliases, options, traps, cwd, dir stack), and/or
//                                                save it when the script ends (before the EXIT trap)
//
// The CLI is a front end: it may read host files (the script named on its command line), open host folders
// for the file system the flags ask for and, with --host, start host programs (cli/host_exec.hpp); the
// library underneath never does.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <sys/stat.h>
#include <vector>

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include "net/http.hpp"
#include "cli/host_exec.hpp"
#include "cli/host_streams.hpp"
#include "cli/tree.hpp"
#include "interp/builtin_names.hpp"
#include "interp/shell.hpp"
#include "interp/syntax/analyze.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"
#include "sandbox/configured_shell.hpp"

namespace sx = bashkit::syntax;
namespace vfs = bashkit::vfs;
namespace interp = bashkit::interp;
namespace cli = bashkit::cli;
namespace sandbox = bashkit::sandbox;
namespace net = bashkit::net;

namespace {

// The file VERSION at the repository's root, through CMake (cli/CMakeLists.txt).
constexpr const char* kVersion = BASHKIT_VERSION;

constexpr const char* kUsage =
    "Usage:\tbashkit [option] ... [-c command | script-file] [arg ...]\n"
    "Options:\n"
    "\t-n\t\tread commands but do not execute them (syntax check, like bash -n)\n"
    "\t-c command\tread commands from the command string ($0 and $1... follow it)\n"
    "\t-O extglob\taccept extended glob patterns when parsing\n"
    "\t-e -u -x ..., -o NAME\tset options before the script runs, as `set` does (+ turns them off)\n"
    "\t--dump-ast\tprint the syntax tree as JSON\n"
    "\t--print\t\tprint the script back as canonical bash source\n"
    "\t--analyze\tprint, without running anything, the commands the script may run, the files\n"
    "\t\t\tit may write and read, its network use, eval, source and dynamic commands,\n"
    "\t\t\tas JSON (status 2 when it does not parse, like -n)\n"
    "File system (default: in memory, with /workspace as the cwd, /tmp and /home/user as HOME):\n"
    "\t--root DIR\t\tthe host folder DIR is / (nothing is created in it; /tmp is in memory\n"
    "\t\t\t\twhen DIR has none; the cwd is /workspace when DIR has one, else /)\n"
    "\t--mount HOST:VIRT[:ro]\tthe host folder HOST at VIRT; :ro refuses every change (repeatable)\n"
    "\t--overlay HOST:VIRT\tHOST at VIRT copy-on-write: the script sees its changes, HOST never\n"
    "\t\t\t\tchanges, the changes are gone at exit (repeatable)\n"
    "\t--session ID\t\ta session tree on disk under $TMPDIR/bashkit-sessions-UID; a later run\n"
    "\t\t\t\twith the same ids finds its files\n"
    "\t--instance ID\t\twith --session: the instance the session belongs to (part of the folder)\n"
    "\t--ephemeral\t\tthe session tree in memory only; nothing is written to disk\n"
    "\t--cwd VIRT\t\tthe working directory at start (an absolute path of the tree)\n"
    "Unsandboxed:\n"
    "\t--host\t\t\tthe real file system (virtual paths are host paths, the cwd is the caller's),\n"
    "\t\t\t\tthe caller's environment and user, no time limit, the network on (unless\n"
    "\t\t\t\t--network/--allow say otherwise), and host programs from PATH for commands\n"
    "\t\t\t\tthat are not builtins or in-process utilities; shell scripts run in bashkit\n"
    "\t\t\t\titself. For use as a plain shell and for external conformance suites\n"
    "\t--host-utilities\twith --host: run utilities (cat, grep, sed...) from the host PATH too,\n"
    "\t\t\t\tinstead of the in-process ones (shell builtins stay built in)\n"
    "Network (default: none; private and loopback addresses are always blocked unless allowed):\n"
    "\t--network none|all\t\tno network (default), or any http/https URL\n"
    "\t--allow HOST[:PORT]\t\tallow HTTPS to this host (repeatable; means an allow list)\n"
    "\t--allow-private-ips\t\tturn off the private/loopback address block\n"
    "\t--resolve HOST=ADDR[,ADDR]\tpin a name to addresses (repeatable; successive uses answer in turn)\n"
    "\t--header-binding HOST,HEADER,SECRET_NAME[,PATH_PREFIX[,PREFIX[,SUFFIX]]]\n"
    "\t\t\t\t\tadd a secret header on the wire; the secret is read from the CLI's\n"
    "\t\t\t\t\tenvironment variable SECRET_NAME and never shown to the script\n"
    "Limits (named after the fields of ExecutionLimits and FsLimits; see the README's Limits table):\n"
    "\t--timeout SECONDS\twall-clock time of the script (ExecutionLimits::timeout; default 300,\n"
    "\t\t\t\tnone with --host; 0: no limit); status 124 when it trips\n"
    "\t--max-memory SIZE\tthe session's memory budget (ExecutionLimits::max_memory_bytes; default\n"
    "\t\t\t\t1G; 0: none): variables, functions, aliases, substitutions, pipes, utility\n"
    "\t\t\t\tbuffers and the in-memory tree's files; a command over it fails with\n"
    "\t\t\t\tstatus 1 (a write: No space left on device), the script goes on\n"
    "\t--max-output SIZE\tbytes written to stdout and to stderr each (ExecutionLimits::\n"
    "\t\t\t\tmax_output_bytes; default for the CLI: no limit); the rest is dropped\n"
    "\t--max-total-bytes SIZE\tbytes of file data the script may store in the tree (FsLimits::\n"
    "\t\t\t\tmax_total_bytes; default 1G, or the --max-memory size when that is given);\n"
    "\t\t\t\tin a host folder (--root, --mount, --overlay) what the script writes counts,\n"
    "\t\t\t\tnot what the folder held. Past it: No space left on device\n"
    "\t--max-file-bytes SIZE\tbytes of one file (FsLimits::max_file_bytes; default 256M)\n"
    "\t--max-nodes N\t\tfiles, directories and symlinks the script may create (FsLimits::max_nodes;\n"
    "\t\t\t\tdefault 100000)\n"
    "\t--max-open-files N\tfiles open at once, across commands (FsLimits::max_open_files; default\n"
    "\t\t\t\t256); past it: Too many open files\n"
    "\t\t\t\tSIZE: bytes, or with a K, M or G suffix (powers of 1024). The four file\n"
    "\t\t\t\tlimits apply to every tree but --host's; df shows them\n"
    "Shell state:\n"
    "\t--load-state FILE\tbefore running, restore the shell state (variables, functions, aliases,\n"
    "\t\t\t\toptions, traps, cwd, directory stack, $0 and arguments) saved in FILE\n"
    "\t--save-state FILE\tafter running (before the EXIT trap), save the shell state to FILE as JSON\n"
    "\t--help\t\tshow this help\n"
    "\t--version\tshow the version\n"
    "Server:\n"
    "\tbashkit serve ...\tserve the remote sandbox protocol (see 'bashkit serve --help')\n";

enum class Mode { Run, Check, DumpAst, Print, Analyze };

struct Source {
    std::string text;
    std::string name;  // message prefix: "bashkit: -c" or the script path or "bashkit"
};

// Messages and printed trees go through stdio, not iostreams: <iostream>'s static initializer sets up the
// standard streams and their locales at every start (90,000 of the 620,000 instructions of `bashkit -c true`).
template <class T>
void say_part(std::string& out, const T& v) {
    if constexpr (std::is_same_v<T, char>) out.push_back(v);
    else if constexpr (std::is_integral_v<T>) out += std::to_string(v);
    else out += std::string_view(v);
}
template <class... T>
void say(FILE* f, const T&... parts) {
    std::string text;
    (say_part(text, parts), ...);
    std::fwrite(text.data(), 1, text.size(), f);
}

int usage_error(const std::string& msg) {
    say(stderr, "bashkit: ", msg, "\nTry 'bashkit --help' for more information.\n");
    return 2;
}

// The whole of a file, read in blocks (an istreambuf_iterator copy goes a character at a time: a tenth of the
// time of `bashkit -n` on a 1 MB script).
// A regular file's size is known: one allocation of that size, each page touched once.
std::string slurp(std::istream& in, size_t size_hint = 0) {
    if (size_hint > 0) {
        std::string text(size_hint, '\0');
        in.read(text.data(), static_cast<std::streamsize>(size_hint));
        text.resize(static_cast<size_t>(in.gcount()));
        if (in.gcount() == static_cast<std::streamsize>(size_hint) && in.peek() == std::char_traits<char>::eof())
            return text;
        std::ostringstream rest;  // the file grew while it was read
        rest << in.rdbuf();
        return text + std::move(rest).str();
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return std::move(ss).str();
}

// Checks the script file like bash does: 127 when missing, 126 when a directory or unreadable. Sets `st`.
bool script_file_ok(const std::string& path, struct stat& st, int& status) {
    if (::stat(path.c_str(), &st) != 0) {
        say(stderr, "bashkit: ", path, ": ", std::strerror(errno), "\n");
        status = 127;
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        say(stderr, "bashkit: ", path, ": ", std::strerror(EISDIR), "\n");
        status = 126;
        return false;
    }
    return true;
}

// Reads the script file like bash does (see script_file_ok).
std::optional<Source> read_script(const std::string& path, int& status) {
    struct stat st{};
    if (!script_file_ok(path, st, status)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        say(stderr, "bashkit: ", path, ": ", std::strerror(errno), "\n");
        status = 126;
        return std::nullopt;
    }
    return Source{slurp(in, S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0), path};
}

std::string_view line_of(std::string_view text, uint32_t line) {
    size_t start = 0;
    for (uint32_t l = 1; l < line; ++l) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) return {};
        start = nl + 1;
    }
    size_t end = text.find('\n', start);
    return text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

// bash prints the error, then for "unexpected token" errors the offending source line.
// first_line: the line number of text's first line (a piece of a longer script).
void report(std::string_view text, const std::string& name, const sx::ParseError& err, uint32_t first_line = 1) {
    say(stderr, err.format(name), "\n");
    if (err.message.rfind("syntax error near", 0) == 0) {
        say(stderr, name, ": line ", err.pos.line, ": `", line_of(text, err.pos.line - first_line + 1), "'\n");
    }
}
void report(const Source& src, const sx::ParseError& err) { report(src.text, src.name, err); }

// bash -n warns of each here-document that the end of the input closed, blaming the line of the input's
// last byte. `text` is the end of the input; its first line is `first_line`.
void warn_heredocs(const std::string& name, std::string_view text, uint32_t first_line, const sx::ParseResult& r) {
    if (r.unterminated_heredocs.empty()) return;
    uint32_t last = first_line;
    if (!text.empty()) last += static_cast<uint32_t>(std::count(text.begin(), text.end() - 1, '\n'));
    for (const auto& [line, delim] : r.unterminated_heredocs)
        say(stderr, name, ": line ", last, ": warning: here-document at line ", line,
            " delimited by end-of-file (wanted `", delim, "')\n");
}

// -n of a file or of stdin, like bash -n: one command line at a time, each line's tree dropped before the
// next is parsed, and the input read in blocks, so that the memory held is a block and one line's tree
// whatever the size of the script. A line is taken as parsed only when it is complete (ended by a newline
// with its here-documents closed: the text after it cannot change it); a line that is not, or that fails,
// is parsed again with more input, until the end of the input makes the answer final.
int check_stream(int fd, const std::string& name, const sx::ParseOptions& opts) {
    constexpr size_t kBlock = size_t(64) << 10;
    std::string pending;  // the unparsed rest of the last block: the start of a line
    uint32_t line = 1;    // its line number
    bool eof = false;
    for (;;) {
        // The block holds at least twice the pending text, so that a long line is read in O(n).
        std::string block = std::move(pending);
        size_t want = std::max(kBlock, block.size() * 2);
        size_t have = block.size();
        block.resize(want);
        while (!eof && have < want) {
            ssize_t n = ::read(fd, block.data() + have, want - have);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                say(stderr, name, ": ", std::strerror(errno), "\n");
                return 2;
            }
            if (n == 0) eof = true;
            have += static_cast<size_t>(n);
        }
        block.resize(have);
        auto text = std::make_shared<const std::string>(std::move(block));
        sx::ScriptReader reader(text, opts, line);
        bool more = false;
        while (!reader.at_end()) {
            size_t at = reader.offset();
            uint32_t at_line = reader.line();
            sx::ParseUnit unit = reader.next();
            if (!eof && (!unit.result.ok() || !unit.complete)) {
                pending.assign(*text, at);
                line = at_line;
                more = true;
                break;
            }
            if (!unit.result.ok()) {
                report(*text, name, *unit.result.error, line);
                // bash -n stops at an error inside [[ ]] as at the end of the input: status 0
                return unit.result.error->keeps_status ? 0 : 2;
            }
            warn_heredocs(name, *text, line, unit.result);
        }
        if (eof && !more) return 0;
        if (!more) line = reader.line();
    }
}

// The CLI's network settings, turned into the HTTP client that utilities get.
struct NetworkFlags {
    bool given = false;         // --network or --allow was on the command line
    std::string mode = "none";  // none | all | allow
    std::vector<std::string> allow;
    bool allow_private_ips = false;
    std::shared_ptr<net::StaticResolver> resolver;
    std::vector<std::string> resolver_names;
    std::vector<net::HeaderBinding> bindings;
};

// Secrets named by --header-binding come from the CLI's own environment, never from argv.
struct EnvSecrets final : net::SecretStore {
    std::optional<std::string> get(const std::string& name) const override {
        const char* v = std::getenv(name.c_str());
        if (!v) return std::nullopt;
        return std::string(v);
    }
};

net::ClientOptions client_options(const NetworkFlags& f) {
    net::ClientOptions o;
    o.network = f.mode == "all" ? net::Network::all() : f.mode == "allow" ? net::Network::allow(f.allow)
                                                                          : net::Network::none();
    o.block_private_ips = !f.allow_private_ips;
    if (f.resolver) {
        // Pinned names answer from the table; others still go to the system resolver.
        struct Chain final : net::Resolver {
            std::shared_ptr<net::StaticResolver> pinned;
            net::SystemResolver system;
            std::vector<std::string> names;
            std::vector<net::IpAddress> resolve(const std::string& host) override {
                for (const auto& n : names) {
                    if (net::normalize_host(n) == net::normalize_host(host)) return pinned->resolve(host);
                }
                return system.resolve(host);
            }
        };
        auto chain = std::make_shared<Chain>();
        chain->pinned = f.resolver;
        o.resolver = chain;
        chain->names = f.resolver_names;
    }
    o.header_bindings = f.bindings;
    o.secrets = std::make_shared<EnvSecrets>();
    return o;
}

// Everything the command line says about how scripts run (as opposed to what runs).
// --timeout, --max-memory, --max-output: named after the ExecutionLimits fields they set; unset keeps the
// defaults (ExecutionLimits's, and no time limit with --host).
struct LimitFlags {
    std::optional<std::chrono::milliseconds> timeout;
    std::optional<size_t> max_memory_bytes;
    std::optional<size_t> max_output_bytes;
};

// "256M", "1G", "4096", "1.5K": bytes with an optional K, M, G or T suffix (powers of 1024; a trailing B
// or iB is accepted). nullopt when not a size.
std::optional<uint64_t> parse_size(std::string_view v) {
    size_t i = 0;
    while (i < v.size() && ((v[i] >= '0' && v[i] <= '9') || v[i] == '.')) ++i;
    if (i == 0) return std::nullopt;
    double n = 0;
    try {
        size_t used = 0;
        n = std::stod(std::string(v.substr(0, i)), &used);
        if (used != i) return std::nullopt;
    } catch (...) {
        return std::nullopt;
    }
    std::string suffix(v.substr(i));
    for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (suffix.ends_with("IB")) suffix.resize(suffix.size() - 2);
    else if (suffix.size() > 1 && suffix.back() == 'B') suffix.pop_back();
    double mult = 1;
    if (suffix.empty() || suffix == "B") mult = 1;
    else if (suffix == "K") mult = 1024.0;
    else if (suffix == "M") mult = 1024.0 * 1024;
    else if (suffix == "G") mult = 1024.0 * 1024 * 1024;
    else if (suffix == "T") mult = 1024.0 * 1024 * 1024 * 1024;
    else return std::nullopt;
    double bytes = n * mult;
    if (bytes >= 1.8e19) return std::nullopt;
    return static_cast<uint64_t>(bytes);
}

struct RunConfig {
    LimitFlags limits;
    NetworkFlags net;
    cli::FsFlags fs;
    bool host_utilities = false;  // --host-utilities
    std::string load_state;       // --load-state FILE
    std::string save_state;       // --save-state FILE
    std::vector<std::string> set_args;  // -e, -o pipefail, +u...: given to `set` before the script
    bool interactive = false;           // -i: the history variables are set (no history is kept)
};

// --host: the caller's own user, host name and process ids instead of the virtual ones.
interp::Identity host_identity() {
    interp::Identity id;
    id.uid = ::getuid();
    id.gid = ::getgid();
    id.pid = ::getpid();
    id.ppid = ::getppid();
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0 && host[0]) id.host = host;
    std::vector<char> buf(16384);
    passwd pw{};
    passwd* found = nullptr;
    if (::getpwuid_r(id.uid, &pw, buf.data(), buf.size(), &found) == 0 && found) {
        id.user = found->pw_name;
        id.home = found->pw_dir;
    }
    if (const char* home = std::getenv("HOME"); home && home[0] == '/') id.home = home;
    return id;
}

// --host: the caller's environment, except what the shell sets itself.
std::vector<std::pair<std::string, std::string>> host_environment() {
    std::vector<std::pair<std::string, std::string>> env;
    for (char** e = environ; *e; ++e) {
        std::string_view kv = *e;
        size_t eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        std::string name(kv.substr(0, eq));
        bool ident = !(name[0] >= '0' && name[0] <= '9');
        for (char c : name) ident = ident && (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
        if (!ident) continue;
        if (name == "PWD" || name == "OLDPWD" || name == "UID" || name == "EUID" || name == "PPID" ||
            name == "BASHOPTS" || name == "SHELLOPTS" || name == "BASH_VERSINFO") {
            continue;
        }
        std::string value(kv.substr(eq + 1));
        if (name == "SHLVL") value = std::to_string(std::atoi(value.c_str()) + 1);
        env.emplace_back(std::move(name), std::move(value));
    }
    return env;
}

// A shell as the CLI runs it: the file system the flags chose (an in-memory one with the usual layout by
// default) under its FsLimits, every utility registered, the network of the flags, and the CLI's own
// stdin/stdout/stderr as the script's streams. The shell is built by sandbox::ConfiguredShell, as
// BashkitSandbox's are.
struct CliShell {
    cli::FdSource in;
    cli::FdSink out;
    cli::FdSink err;
    sandbox::ConfiguredShell configured;
    interp::Shell& shell;

    static sandbox::ShellSetup setup(cli::Tree tree, const RunConfig& cfg, std::string name,
                                     std::vector<std::string> args) {
        sandbox::ShellSetup s;
        s.fs_limits = cli::tree_limits(cfg.fs);
        s.count_existing_usage = tree.count_existing;
        s.tree = std::move(tree.fs);
        s.network = client_options(network(cfg));
        // --host keeps the host's own git: the sandbox's `git config` stands in for it only inside a sandbox.
        s.utilities = cfg.host_utilities ? sandbox::Utilities::none
                      : cfg.fs.host      ? sandbox::Utilities::host
                                         : sandbox::Utilities::sandbox;
        interp::ShellOptions& o = s.shell;
        o.cwd = tree.cwd;
        o.script_name = std::move(name);
        o.args = std::move(args);
        if (cfg.fs.host) {
            o.identity = host_identity();
            o.env = host_environment();
            o.env_is_complete = true;
            o.limits.timeout = std::chrono::milliseconds(0);  // a plain shell has no time limit
            o.external = cli::run_host_program;
        }
        if (cfg.limits.timeout) o.limits.timeout = *cfg.limits.timeout;
        if (cfg.limits.max_memory_bytes) o.limits.max_memory_bytes = *cfg.limits.max_memory_bytes;
        if (cfg.limits.max_output_bytes) o.limits.max_output_bytes = *cfg.limits.max_output_bytes;
        return s;
    }
    static NetworkFlags network(const RunConfig& cfg) {
        NetworkFlags n = cfg.net;
        if (cfg.fs.host && !n.given) {
            n.mode = "all";
            n.allow_private_ips = true;
        }
        return n;
    }
    CliShell(cli::Tree t, std::string name, std::vector<std::string> args, const RunConfig& cfg)
        : in(0, cfg.fs.host),
          out(1, cfg.fs.host, cfg.limits.max_output_bytes.value_or(SIZE_MAX)),
          err(2, cfg.fs.host, cfg.limits.max_output_bytes.value_or(SIZE_MAX)),
          configured(setup(std::move(t), cfg, std::move(name), std::move(args))),
          shell(configured.shell()) {}

    // --load-state: false (a message printed) when the file cannot be read or is not a usable snapshot.
    bool load(const RunConfig& cfg) {
        if (cfg.load_state.empty()) return true;
        std::ifstream f(cfg.load_state, std::ios::binary);
        if (!f) {
            say(stderr, "bashkit: --load-state: ", cfg.load_state, ": ", std::strerror(errno), "\n");
            return false;
        }
        std::string text = slurp(f);
        try {
            shell.restore_state(text);
        } catch (const interp::StateError& e) {
            say(stderr, "bashkit: --load-state: ", cfg.load_state, ": ", e.what(), "\n");
            return false;
        }
        return true;
    }
    // The shell options of the command line (-e, -o pipefail...), set as `set` does; false (status 2) when
    // one is unknown (its message printed).
    bool set_options(const RunConfig& cfg) {
        if (cfg.interactive) {
            interp::Shell::Source src;
            // and aliases are expanded, as in an interactive bash
            (void)shell.run(": \"${HISTFILE=~/.bash_history}\" \"${HISTSIZE=500}\" \"${HISTFILESIZE=500}\"; "
                            "shopt -s expand_aliases",
                            in, out, err, src);
        }
        if (cfg.set_args.empty()) return true;
        std::string cmd = "set";
        for (const std::string& a : cfg.set_args) cmd += " " + a;  // letters and option names only
        interp::Shell::Source src;
        return shell.run(cmd, in, out, err, src) == 0;
    }
    // --save-state: false (a message printed) when the file cannot be written.
    bool save(const RunConfig& cfg) {
        if (cfg.save_state.empty()) return true;
        std::ofstream f(cfg.save_state, std::ios::binary | std::ios::trunc);
        if (f) f << shell.save_state() << "\n";
        if (!f) {
            say(stderr, "bashkit: --save-state: ", cfg.save_state, ": ", std::strerror(errno), "\n");
            return false;
        }
        return true;
    }

    // Ends the session like bash exiting: the EXIT trap runs and may change the status. The state is saved
    // first (--save-state).
    int finish(int status, const RunConfig& cfg) {
        if (!save(cfg) && status == 0) status = 1;
        if (shell.exited()) return status;
        interp::ExecResult r = shell.close();
        if (!r.out.empty()) out.write(r.out);
        if (!r.err.empty()) err.write(r.err);
        return r.out.empty() && r.err.empty() ? status : r.exit_code;
    }
};

// Reads one line from fd 0 without reading past it, so commands see the rest of stdin.
bool read_line(std::string& line) {
    line.clear();
    char c;
    for (;;) {
        ssize_t n = ::read(0, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return !line.empty();
        line += c;
        if (c == '\n') return true;
    }
}

// Whether `text` is complete input for bash reading a stream: every top-level command line in it parses and
// the last one ended with a newline that closed its here-documents, so that no following line can belong to
// it. A syntax error that more input could not fix is complete too (the run reports it).
bool complete(const std::string& text, const sx::ParseOptions& opts) {
    sx::ScriptReader reader(std::make_shared<const std::string>(text), opts);
    while (!reader.at_end()) {
        sx::ParseUnit u = reader.next();
        if (!u.result.ok()) return !u.result.error->incomplete;
        if (!u.complete) return false;
    }
    return true;
}

// bash reading a script from stdin: one command line at a time, each run before the next is read.
int run_stdin(const sx::ParseOptions& opts, cli::Tree tree, const RunConfig& cfg, const std::string& shell_name) {
    CliShell session(std::move(tree), shell_name, {}, cfg);
    if (!session.load(cfg) || !session.set_options(cfg)) return 2;
    // The shell parses with extglob patterns allowed (Shell::run): a line that needs them is complete.
    sx::ParseOptions run_opts = opts;
    run_opts.extglob = true;
    std::string buffer, line;
    uint32_t line_base = 0;  // lines consumed before `buffer`
    int status = 0;
    bool more = true;
    while (more) {
        more = read_line(line);
        buffer += line;
        if (buffer.empty()) break;
        // with the aliases the shell will parse the line with (a value may open a compound command)
        std::map<std::string, std::string> aliases = session.shell.parse_aliases();
        run_opts.aliases = &aliases;
        if (more && !complete(buffer, run_opts)) continue;
        interp::Shell::Source src;
        src.name = shell_name;
        src.first_line = line_base + 1;
        src.script_input = true;
        status = session.shell.run(buffer, session.in, session.out, session.err, src);
        if (session.shell.stopped()) return session.finish(status, cfg);
        for (char c : buffer) line_base += c == '\n';
        buffer.clear();
    }
    return session.finish(status, cfg);
}

// `bashkit serve ...` runs the program bashkit-serve built and installed beside bashkit (cli/serve.hpp). The
// server links cpp-httplib, OpenSSL and brotli, which every other run of bashkit would otherwise load and map
// at start-up (twice the page faults of `bashkit -c true`). Returns only when it cannot be started.
int exec_serve(char** argv) {
    std::string self(PATH_MAX, '\0');
    ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size());
    std::string path = "bashkit-serve";
    if (n > 0) {
        self.resize(static_cast<size_t>(n));
        path = self.substr(0, self.rfind('/') + 1) + path;
    }
    ::execv(path.c_str(), argv);
    say(stderr, "bashkit: serve: cannot run ", path, ": ", std::strerror(errno), "\n");
    return 127;
}

}  // namespace

int main(int argc, char** argv) {
    // `bashkit serve ...`: the remote sandbox server (a script named serve runs as `bashkit ./serve`).
    if (argc > 1 && std::string_view(argv[1]) == "serve") return exec_serve(argv + 1);
    // The shell's name ($0 of a script read from stdin or of -c without NAME, and the prefix of its messages)
    // is the name it was started as, like bash's, without the directory: `bashkit`, or `bash` for a link named
    // bash or an `exec -a bash`.
    std::string shell_name = argc > 0 && argv[0] && *argv[0] ? argv[0] : "bashkit";
    if (size_t slash = shell_name.rfind('/'); slash != std::string::npos) shell_name.erase(0, slash + 1);
    if (shell_name.empty()) shell_name = "bashkit";
    Mode mode = Mode::Run;
    std::optional<std::string> command;
    std::optional<std::string> file;
    sx::ParseOptions opts;
    RunConfig cfg;
    NetworkFlags& netflags = cfg.net;
    cli::FsFlags& fsflags = cfg.fs;
    bool want_c = false;

    int i = 1;
    for (; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help") {
            say(stdout, kUsage);
            return 0;
        } else if (a == "--version") {
            say(stdout, "bashkit ", kVersion, "\n");
            return 0;
        } else if (a == "--dump-ast") {
            mode = Mode::DumpAst;
        } else if (a == "--print") {
            mode = Mode::Print;
        } else if (a == "--analyze") {
            mode = Mode::Analyze;
        } else if (a == "--network" || a == "--allow" || a == "--resolve" || a == "--header-binding") {
            if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
            std::string v = argv[++i];
            if (a == "--network") {
                if (v != "none" && v != "all") return usage_error("--network: expected none or all, got '" + v + "'");
                netflags.mode = v;
                netflags.given = true;
            } else if (a == "--allow") {
                auto hp = net::parse_host_port(v);
                if (!hp.value) return usage_error("--allow: " + hp.error);
                netflags.mode = "allow";
                netflags.given = true;
                netflags.allow.push_back(v);
            } else if (a == "--resolve") {
                size_t eq = v.find('=');
                if (eq == std::string::npos || eq == 0) return usage_error("--resolve: expected HOST=ADDR[,ADDR...]");
                std::vector<net::IpAddress> addrs;
                std::string list = v.substr(eq + 1);
                for (size_t start = 0; start <= list.size();) {
                    size_t comma = list.find(',', start);
                    std::string one = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                    auto ip = net::parse_ip(one);
                    if (!ip) return usage_error("--resolve: not an IP address: '" + one + "'");
                    addrs.push_back(*ip);
                    if (comma == std::string::npos) break;
                    start = comma + 1;
                }
                if (!netflags.resolver) netflags.resolver = std::make_shared<net::StaticResolver>();
                netflags.resolver->add(v.substr(0, eq), addrs);
                netflags.resolver_names.push_back(v.substr(0, eq));
            } else {
                std::vector<std::string> parts;
                for (size_t start = 0;;) {
                    size_t comma = v.find(',', start);
                    parts.push_back(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
                    if (comma == std::string::npos) break;
                    start = comma + 1;
                }
                if (parts.size() < 3 || parts.size() > 6) {
                    return usage_error("--header-binding: expected HOST,HEADER,SECRET_NAME[,PATH_PREFIX[,PREFIX[,SUFFIX]]]");
                }
                net::HeaderBinding b;
                b.host = parts[0];
                b.header = parts[1];
                b.secret_name = parts[2];
                if (parts.size() > 3) b.path_prefix = parts[3];
                if (parts.size() > 4) b.prefix = parts[4];
                if (parts.size() > 5) b.suffix = parts[5];
                if (!net::parse_host_port(b.host).value) return usage_error("--header-binding: bad host '" + b.host + "'");
                if (!std::getenv(b.secret_name.c_str())) {
                    return usage_error("--header-binding: environment variable " + b.secret_name + " is not set");
                }
                netflags.bindings.push_back(std::move(b));
            }
        } else if (a == "--root" || a == "--mount" || a == "--overlay" || a == "--cwd" || a == "--session" ||
                   a == "--instance") {
            if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
            std::string v = argv[++i];
            if (a == "--mount" || a == "--overlay") {
                cli::MountFlag m;
                if (auto e = cli::parse_mount(a, v, a == "--overlay", m)) return usage_error(*e);
                fsflags.mounts.push_back(std::move(m));
            } else if (v.empty()) {
                return usage_error(std::string(a) + ": the value must not be empty");
            } else if (a == "--root") {
                if (fsflags.root) return usage_error("--root: given twice");
                fsflags.root = v;
            } else if (a == "--cwd") {
                fsflags.cwd = v;
            } else if (a == "--session") {
                fsflags.session = v;
            } else {
                fsflags.instance = v;
            }
        } else if (a == "--timeout" || a == "--max-memory" || a == "--max-output" || a == "--max-total-bytes" ||
                   a == "--max-file-bytes" || a == "--max-nodes" || a == "--max-open-files") {
            if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
            std::string_view v = argv[++i];
            if (a == "--timeout") {
                // Seconds, fractions allowed; 0: no time limit.
                double secs = -1;
                try {
                    size_t used = 0;
                    secs = std::stod(std::string(v), &used);
                    if (used != v.size()) secs = -1;
                } catch (...) {
                }
                if (!(secs >= 0) || secs > 1e9)
                    return usage_error("--timeout: expected a number of seconds, got '" + std::string(v) + "'");
                cfg.limits.timeout = std::chrono::milliseconds(static_cast<int64_t>(secs * 1000 + 0.5));
                continue;
            }
            std::optional<uint64_t> n = parse_size(v);
            if (!n) return usage_error(std::string(a) + ": expected a size such as 4096, 64K, 256M or 1G, got '" +
                                       std::string(v) + "'");
            if (a == "--max-memory") cfg.limits.max_memory_bytes = static_cast<size_t>(*n);
            else if (a == "--max-output") cfg.limits.max_output_bytes = static_cast<size_t>(*n);
            else if (a == "--max-total-bytes") fsflags.max_total_bytes = *n;
            else if (a == "--max-file-bytes") fsflags.max_file_bytes = *n;
            else if (a == "--max-open-files") fsflags.max_open_files = *n;
            else fsflags.max_nodes = *n;
        } else if (a == "--load-state" || a == "--save-state") {
            if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
            std::string v = argv[++i];
            if (v.empty()) return usage_error(std::string(a) + ": the value must not be empty");
            (a == "--load-state" ? cfg.load_state : cfg.save_state) = v;
        } else if (a == "--ephemeral") {
            fsflags.ephemeral = true;
        } else if (a == "--host") {
            fsflags.host = true;
        } else if (a == "--host-utilities") {
            cfg.host_utilities = true;
        } else if (a == "--allow-private-ips") {
            netflags.allow_private_ips = true;
        } else if (a == "-n") {
            mode = Mode::Check;
        } else if (a == "-c") {
            want_c = true;
        } else if (a == "-O" || a == "+O") {
            if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
            std::string_view opt = argv[++i];
            if (opt == "extglob") {
                opts.extglob = a == "-O";
            } else {
                return usage_error(std::string(opt) + ": invalid shell option name");
            }
        } else if (a == "--") {
            ++i;
            break;
        } else if (a == "--norc" || a == "--noprofile" || a == "--noediting" || a == "--posix") {
            // bash's start-up options: nothing to read at start-up, no line editing
        } else if (a == "--rcfile" || a == "--init-file") {
            // bash's start-up file of an interactive shell: none is read
            if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
            ++i;
        } else if (a.size() > 1 && (a[0] == '-' || a[0] == '+') && a[1] != '-') {
            // bash's one-letter options, bundled (-eu, -euo pipefail, +x): c and n as above, i sets the
            // history variables, s l r are accepted and ignored, the others are `set` options
            bool on = a[0] == '-';
            for (char c : a.substr(1)) {
                if (c == 'c' && on) {
                    want_c = true;
                } else if (c == 'n' && on) {
                    mode = Mode::Check;
                } else if (c == 'i') {
                    cfg.interactive = on;
                } else if (c == 's' || c == 'l' || c == 'r') {
                } else if (c == 'o') {
                    if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
                    std::string_view name = argv[++i];
                    bool word = !name.empty();
                    for (char k : name) word = word && ((k >= 'a' && k <= 'z') || k == '-');
                    if (!word) return usage_error(std::string(name) + ": invalid option name");
                    cfg.set_args.push_back(std::string(on ? "-o " : "+o ") + std::string(name));
                } else if (std::strchr("abefhkmptuvxBCEHPT", c) && c) {
                    cfg.set_args.push_back(std::string(1, a[0]) + c);
                } else {
                    return usage_error(std::string(1, a[0]) + c + ": invalid option");
                }
            }
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error(std::string(a) + ": invalid option");
        } else {
            break;
        }
    }
    if (want_c) {
        if (i >= argc) {
            say(stderr, "bashkit: -c: option requires an argument\n");
            return 2;
        }
        command = argv[i++];
    } else if (i < argc) {
        file = argv[i++];
    }
    std::vector<std::string> rest(argv + i, argv + argc);
    if (cfg.host_utilities && !fsflags.host) return usage_error("--host-utilities: needs --host");
    // The in-memory tree is bounded like the rest of the session when only --max-memory is given.
    if (cfg.limits.max_memory_bytes && *cfg.limits.max_memory_bytes && !fsflags.max_total_bytes)
        fsflags.max_total_bytes = *cfg.limits.max_memory_bytes;

    // The file system is built before the script is read, so that a bad flag fails at once (status 2).
    std::optional<cli::Tree> tree;
    if (mode == Mode::Run) {
        if (fsflags.host) {
            fsflags.uid = ::getuid();
            fsflags.gid = ::getgid();
        }
        cli::TreeOrError t = cli::build_tree(fsflags);
        if (!t.tree) return usage_error(t.error);
        tree = std::move(t.tree);
    }
    if (mode == Mode::Run && !command && !file) return run_stdin(opts, std::move(*tree), cfg, shell_name);

    if (mode == Mode::Check && !command) {
        if (!file) return check_stream(0, shell_name, opts);  // bash -n < FILE names its messages "bash"
        int status = 0;
        struct stat st{};
        if (!script_file_ok(*file, st, status)) return status;
        int fd = ::open(file->c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            say(stderr, "bashkit: ", *file, ": ", std::strerror(errno), "\n");
            return 126;
        }
        status = check_stream(fd, *file, opts);
        ::close(fd);
        return status;
    }
    Source src;
    if (command) {
        src = Source{*command, shell_name + ": -c"};
    } else if (file) {
        int status = 0;
        auto s = read_script(*file, status);
        if (!s) return status;
        src = std::move(*s);
    } else {
        std::string text;
        char buf[65536];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, stdin)) > 0;) text.append(buf, n);
        src = Source{std::move(text), shell_name};
    }

    if (mode == Mode::Analyze) {
        sx::AnalyzeOptions ao;
        ao.parse = opts;
        ao.is_builtin = interp::is_shell_builtin;
        sx::Analysis an = sx::analyze(src.text, ao);
        say(stdout, sx::to_json(an), "\n");
        return an.ok ? 0 : 2;
    }
    // A run parses and runs one command line at a time, like bash: the lines before a syntax error run.
    if (mode == Mode::Run) {
        // bash -c CMD NAME ARGS...: NAME is $0; bash FILE ARGS...: FILE is $0.
        std::string name = command ? (rest.empty() ? shell_name : rest.front()) : *file;
        if (command && !rest.empty()) rest.erase(rest.begin());
        CliShell session(std::move(*tree), name, std::move(rest), cfg);
        if (!session.load(cfg) || !session.set_options(cfg)) return 2;
        interp::Shell::Source where;
        if (file) where.name = *file;
        where.script_input = !command;
        where.script_file = !command && file;
        where.syntax_name = src.name;
        // bash -c names its messages by $0 ("NAME: line 1: ...", "NAME: -c: line 1: syntax error ...").
        std::string dash_c_name = name + ": -c";
        if (command) {
            where.name = name;
            where.syntax_name = dash_c_name;
        }
        int status = session.shell.run(src.text, session.in, session.out, session.err, where);
        return session.finish(status, cfg);
    }
    if (mode == Mode::Check) {  // -n -c CMD
        auto text = std::make_shared<const std::string>(std::move(src.text));
        sx::ScriptReader reader(text, opts);
        while (!reader.at_end()) {
            sx::ParseUnit unit = reader.next();
            if (!unit.result.ok()) {
                report(*text, src.name, *unit.result.error);
                return unit.result.error->keeps_status ? 0 : 2;
            }
            warn_heredocs(shell_name, *text, 1, unit.result);
        }
        return 0;
    }
    sx::ParseResult r = sx::parse(src.text, opts);
    if (!r.ok()) {
        report(src, *r.error);
        return 2;
    }
    switch (mode) {
        case Mode::Check:
            return 0;
        case Mode::DumpAst:
            say(stdout, sx::to_json(*r.script), "\n");
            return 0;
        case Mode::Print:
            say(stdout, sx::print(*r.script));
            return 0;
        case Mode::Run:
        case Mode::Analyze:
            break;
    }
    return 0;
}
