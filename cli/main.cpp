// bashkit: the command-line front end.
//
//   bashkit -c CMD [NAME [ARG...]]               run CMD in a sandbox on an in-memory file system
//   bashkit FILE [ARG...]                         run a script file (read from the host by the CLI)
//   bashkit < FILE                                run a script from stdin, statement by statement, so that
//                                                commands in it read the rest of stdin as in bash
//   bashkit -n FILE | -n -c CMD | -n < FILE     check syntax like `bash -n` (status 0, or 2 on an error)
//   bashkit --dump-ast [FILE | -c CMD]           print the AST as JSON
//   bashkit --print [FILE | -c CMD]              print the script back in canonical form
//
// The CLI is a front end: it may read host files (the script named on its command line); the library
// underneath never does.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

#include <unistd.h>

#include "builtins/registry.hpp"
#include "net/http.hpp"
#include "cli/host_streams.hpp"
#include "interp/shell.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"
#include "vfs/memory_fs.hpp"

namespace sx = bashkit::syntax;
namespace vfs = bashkit::vfs;
namespace interp = bashkit::interp;
namespace cli = bashkit::cli;
namespace builtins = bashkit::builtins;
namespace net = bashkit::net;

namespace {

constexpr const char* kVersion = "0.1.0";

constexpr const char* kUsage =
    "Usage:\tbashkit [option] ... [-c command | script-file] [arg ...]\n"
    "Options:\n"
    "\t-n\t\tread commands but do not execute them (syntax check, like bash -n)\n"
    "\t-c command\tread commands from the command string ($0 and $1... follow it)\n"
    "\t-O extglob\taccept extended glob patterns when parsing\n"
    "\t--dump-ast\tprint the syntax tree as JSON\n"
    "\t--print\t\tprint the script back as canonical bash source\n"
    "Network (default: none; private and loopback addresses are always blocked unless allowed):\n"
    "\t--network none|all\t\tno network (default), or any http/https URL\n"
    "\t--allow HOST[:PORT]\t\tallow HTTPS to this host (repeatable; means an allow list)\n"
    "\t--allow-private-ips\t\tturn off the private/loopback address block\n"
    "\t--resolve HOST=ADDR[,ADDR]\tpin a name to addresses (repeatable; successive uses answer in turn)\n"
    "\t--header-binding HOST,HEADER,SECRET_NAME[,PATH_PREFIX[,PREFIX[,SUFFIX]]]\n"
    "\t\t\t\t\tadd a secret header on the wire; the secret is read from the CLI's\n"
    "\t\t\t\t\tenvironment variable SECRET_NAME and never shown to the script\n"
    "\t--help\t\tshow this help\n"
    "\t--version\tshow the version\n";

enum class Mode { Run, Check, DumpAst, Print };

struct Source {
    std::string text;
    std::string name;  // message prefix: "bashkit: -c" or the script path or "bashkit"
};

int usage_error(const std::string& msg) {
    std::cerr << "bashkit: " << msg << "\nTry 'bashkit --help' for more information.\n";
    return 2;
}

// Reads the script file like bash does: 127 when missing, 126 when a directory or unreadable.
std::optional<Source> read_script(const std::string& path, int& status) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) {
        std::cerr << "bashkit: " << path << ": " << std::strerror(errno) << "\n";
        status = 127;
        return std::nullopt;
    }
    if (S_ISDIR(st.st_mode)) {
        std::cerr << "bashkit: " << path << ": " << std::strerror(EISDIR) << "\n";
        status = 126;
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "bashkit: " << path << ": " << std::strerror(errno) << "\n";
        status = 126;
        return std::nullopt;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return Source{std::move(text), path};
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
void report(const Source& src, const sx::ParseError& err) {
    std::cerr << err.format(src.name) << "\n";
    if (err.message.rfind("syntax error near", 0) == 0) {
        std::cerr << src.name << ": line " << err.pos.line << ": `" << line_of(src.text, err.pos.line)
                  << "'\n";
    }
}

// The CLI's network settings, turned into the HTTP client that utilities get.
struct NetworkFlags {
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

std::unique_ptr<net::HttpClient> make_client(const NetworkFlags& f) {
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
    return std::make_unique<net::HttpClient>(std::move(o));
}

// A sandbox session as the CLI runs it: an in-memory file system with the usual layout, every utility
// registered, and the CLI's own stdin/stdout/stderr as the script's streams.
struct Session {
    vfs::MemoryFs fs;
    interp::CommandRegistry registry;
    cli::FdSource in{0};
    cli::FdSink out{1};
    cli::FdSink err{2};
    std::unique_ptr<net::HttpClient> http;
    interp::Shell shell;

    static interp::ShellOptions options(std::string name, std::vector<std::string> args, net::HttpClient* http) {
        interp::ShellOptions o;
        o.http = http;
        o.cwd = "/workspace";
        o.script_name = std::move(name);
        o.args = std::move(args);
        return o;
    }
    static vfs::MemoryFs& layout(vfs::MemoryFs& fs) {
        for (const char* d : {"/workspace", "/tmp", "/home/user"}) (void)fs.mkdir_all(d);
        (void)fs.chmod("/tmp", 01777);
        return fs;
    }
    static interp::CommandRegistry& filled(interp::CommandRegistry& r) {
        builtins::register_all(r);
        return r;
    }
    Session(std::string name, std::vector<std::string> args, const NetworkFlags& net)
        : http(make_client(net)),
          shell(layout(fs), filled(registry), options(std::move(name), std::move(args), http.get())) {}

    // Ends the session like bash exiting: the EXIT trap runs and may change the status.
    int finish(int status) {
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

// Whether `text` is a complete unit of input: it parses, and a following line would start a new statement
// (it is not swallowed by an open here-document or a line continuation).
bool complete(const std::string& text, const sx::ParseOptions& opts, std::optional<sx::ParseError>& error) {
    sx::ParseResult r = sx::parse(text, opts);
    if (!r.ok()) {
        const std::string& m = r.error->message;
        bool needs_more = m.rfind("unexpected EOF", 0) == 0 || m == "syntax error: unexpected end of file";
        if (!needs_more) error = r.error;
        return !needs_more;
    }
    sx::ParseResult probe = sx::parse(text + ":\n", opts);
    return probe.ok() && probe.script->body.size == r.script->body.size + 1;
}

// bash reading a script from stdin: statement by statement, each run before the next is read.
int run_stdin(const sx::ParseOptions& opts, const NetworkFlags& net) {
    Session session("bashkit", {}, net);
    std::string buffer, line;
    uint32_t line_base = 0;  // lines consumed before `buffer`, for messages
    int status = 0;
    bool more = true;
    while (more) {
        more = read_line(line);
        buffer += line;
        if (buffer.empty()) break;
        std::optional<sx::ParseError> error;
        if (more && !complete(buffer, opts, error)) continue;
        if (error || !sx::parse(buffer, opts).ok()) {
            sx::ParseError e = error ? *error : *sx::parse(buffer, opts).error;
            e.pos.line += line_base;
            std::cerr << e.format("bashkit") << "\n";
            return session.finish(2);
        }
        status = session.shell.run(buffer, session.in, session.out, session.err);
        if (session.shell.exited()) return status;
        for (char c : buffer) line_base += c == '\n';
        buffer.clear();
    }
    return session.finish(status);
}

}  // namespace

int main(int argc, char** argv) {
    Mode mode = Mode::Run;
    std::optional<std::string> command;
    std::optional<std::string> file;
    sx::ParseOptions opts;
    NetworkFlags netflags;
    bool want_c = false;

    int i = 1;
    for (; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help") {
            std::cout << kUsage;
            return 0;
        } else if (a == "--version") {
            std::cout << "bashkit " << kVersion << "\n";
            return 0;
        } else if (a == "--dump-ast") {
            mode = Mode::DumpAst;
        } else if (a == "--print") {
            mode = Mode::Print;
        } else if (a == "--network" || a == "--allow" || a == "--resolve" || a == "--header-binding") {
            if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
            std::string v = argv[++i];
            if (a == "--network") {
                if (v != "none" && v != "all") return usage_error("--network: expected none or all, got '" + v + "'");
                netflags.mode = v;
            } else if (a == "--allow") {
                auto hp = net::parse_host_port(v);
                if (!hp.value) return usage_error("--allow: " + hp.error);
                netflags.mode = "allow";
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
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error(std::string(a) + ": invalid option");
        } else {
            break;
        }
    }
    if (want_c) {
        if (i >= argc) {
            std::cerr << "bashkit: -c: option requires an argument\n";
            return 2;
        }
        command = argv[i++];
    } else if (i < argc) {
        file = argv[i++];
    }
    std::vector<std::string> rest(argv + i, argv + argc);

    if (mode == Mode::Run && !command && !file) return run_stdin(opts, netflags);

    Source src;
    if (command) {
        src = Source{*command, "bashkit: -c"};
    } else if (file) {
        int status = 0;
        auto s = read_script(*file, status);
        if (!s) return status;
        src = std::move(*s);
    } else {
        std::ostringstream ss;
        ss << std::cin.rdbuf();
        src = Source{ss.str(), "bashkit"};
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
            std::cout << sx::to_json(*r.script) << "\n";
            return 0;
        case Mode::Print:
            std::cout << sx::print(*r.script);
            return 0;
        case Mode::Run:
            break;
    }
    // bash -c CMD NAME ARGS...: NAME is $0; bash FILE ARGS...: FILE is $0.
    std::string name = command ? (rest.empty() ? "bashkit" : rest.front()) : *file;
    if (command && !rest.empty()) rest.erase(rest.begin());
    Session session(name, std::move(rest), netflags);
    int status = session.shell.run(src.text, session.in, session.out, session.err);
    return session.finish(status);
}
