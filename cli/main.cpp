// bashkit: the command-line front end.
//
//   bashkit -n FILE | -n -c CMD | -n < FILE     check syntax like `bash -n` (status 0, or 2 on an error)
//   bashkit --dump-ast [FILE | -c CMD]           print the AST as JSON
//   bashkit --print [FILE | -c CMD]              print the script back in canonical form
//
// The CLI is a front end: it may read host files (the script named on its command line); the library
// underneath never does.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"

namespace sx = bashkit::syntax;

namespace {

constexpr const char* kVersion = "0.1.0";

constexpr const char* kUsage =
    "Usage:\tbashkit [option] ... [-c command | script-file] [arg ...]\n"
    "Options:\n"
    "\t-n\t\tread commands but do not execute them (syntax check, like bash -n)\n"
    "\t-c command\tread commands from the command string\n"
    "\t-O extglob\taccept extended glob patterns when parsing\n"
    "\t--dump-ast\tprint the syntax tree as JSON\n"
    "\t--print\t\tprint the script back as canonical bash source\n"
    "\t--help\t\tshow this help\n"
    "\t--version\tshow the version\n";

enum class Mode { Run, Check, DumpAst, Print };

struct Source {
    std::string text;
    std::string name;  // message prefix: "bashkit: -c" or the script path or "bashkit"
};

int usage_error(const std::string& msg) {
    std::cerr << "bashkit: " << msg << "\n" << kUsage;
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

}  // namespace

int main(int argc, char** argv) {
    Mode mode = Mode::Run;
    std::optional<std::string> command;
    std::optional<std::string> file;
    sx::ParseOptions opts;
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
            std::cerr << "bashkit: running scripts needs the interpreter, which is not built yet; "
                         "use -n, --dump-ast or --print\n";
            return 2;
    }
    return 2;
}
