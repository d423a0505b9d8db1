// Running the real tools from a test: a shell command line through popen, or a script in a temporary file
// under /bin/bash, for the tests that compare bashkit with bash outside the differential tables.
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace bashkit::testing {

struct HostRun {
    bool ran = false;  // popen worked and the command exited normally
    std::string out;   // its stdout (and stderr when the command line merges it)
    std::string err;   // its stderr, from run_host_split
    int status = -1;   // its exit status
};

// s as one word for /bin/sh: 'it'\''s'.
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs `command` with /bin/sh -c and collects its stdout.
inline HostRun run_host(const std::string& command) {
    HostRun r;
    FILE* p = ::popen(command.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int st = ::pclose(p);
    r.ran = WIFEXITED(st);
    r.status = r.ran ? WEXITSTATUS(st) : -1;
    return r;
}

// Runs `command` with /bin/sh -c and collects its stdout and, apart, its stderr (through a temporary file).
inline HostRun run_host_split(const std::string& command) {
    char path[] = "/tmp/bashkit_test_err_XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return {};
    ::close(fd);
    HostRun r = run_host("{ " + command + "\n} 2>" + shell_quote(path));
    if (std::FILE* e = std::fopen(path, "r")) {
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, e)) > 0) r.err.append(buf, n);
        std::fclose(e);
    }
    std::remove(path);
    return r;
}

// Writes `script` to a temporary file and runs `<env> /bin/bash FILE <redirections>` (e.g. env
// "LC_ALL=C.UTF-8", redirections "2>&1"); the file is removed afterwards.
inline HostRun run_bash_script(const std::string& script, const std::string& env = "",
                               const std::string& redirections = "") {
    char path[] = "/tmp/bashkit_test_XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return {};
    ::close(fd);
    {
        std::ofstream f(path);
        f << script;
    }
    std::string cmd = env.empty() ? std::string() : env + " ";
    cmd += std::string("/bin/bash ") + path;
    if (!redirections.empty()) cmd += " " + redirections;
    HostRun r = run_host(cmd);
    std::remove(path);
    return r;
}

// The complete lines of text (a last line without its newline is dropped).
inline std::vector<std::string> complete_lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
        lines.push_back(text.substr(start, nl - start));
    return lines;
}

}  // namespace bashkit::testing
