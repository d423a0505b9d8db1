// The tools an agent gives its model, by access level, each with a name, a description and a JSON Schema
// (a subset valid under drafts 4 to 2020-12: type object, properties, required when not empty,
// additionalProperties false):
//
//   full   bash {command, timeout_seconds?}
//   files  read_file {path, offset?, limit?}        offset: first line (1-based, default 1); limit: lines
//   (and   write_file {path, content}               creates parent folders; replaces the file
//   full)  edit_file {path, old_string, new_string, replace_all?}
//                                                   old_string must occur exactly once unless replace_all
//          list_files {path?, recursive?, pattern?} pattern: a glob on the entry's name ("*.py")
//          search_files {pattern, path?, glob?}     pattern: an RE2 regular expression; glob filters names
//   none   (no tools)
// and, for full access where the sandbox supports background processes (see supports_background_processes):
//          start_process {command}                  runs it in the background; returns process_id
//          read_process_output {process_id}         output since the last read; running; exit_code
//          write_process_input {process_id, input, close_stdin?}
//          kill_process {process_id}                kills its process group
//
// call_tool() validates the arguments against the schema (unknown tool, missing or extra property, wrong
// type) and returns a JSON object; it never throws. null for an optional argument counts as absent, and an
// integral number (2.0) is accepted for an integer. Success: {"ok": true, ...tool fields}; failure:
// {"ok": false, "error": "read_file: /x: No such file or directory"}. The tool fields:
//   bash          exit_code, stdout, stderr, timed_out
//   read_file     content, total_lines, truncated (more lines follow the returned ones)
//   write_file    path, bytes_written
//   edit_file     path, replacements
//   list_files    entries: [{path, type: "file"|"directory"|"symlink"|"other", size}] (sorted, at most 5000),
//                 truncated (more entries exist than were returned)
//   search_files  matches: [{path, line, text}] (at most 1000), truncated
//   start_process process_id;  read_process_output stdout, stderr, running, exit_code (null while running);
//   write_process_input bytes_written;  kill_process process_id, exit_code
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/process.hpp"
#include "sandbox/types.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::sandbox {

struct ToolSpec {
    std::string name;
    std::string description;
    nlohmann::json parameters;  // JSON Schema of the arguments object
    // {"type": "function", "function": {"name", "description", "parameters"}}: the chat-completions form.
    // strict: OpenAI's strict mode ("strict": true; every property listed in "required", the optional ones
    // typed [T, "null"]; call_tool treats null as absent).
    nlohmann::json to_json(bool strict = false) const;
    nlohmann::json strict_parameters() const;
};

// The tools of an access level (with the process tools when background_processes).
std::vector<ToolSpec> tools_for(SandboxAccess access, bool background_processes = false);

struct FileEntry {
    std::string path;
    std::string type;  // "file" | "directory" | "symlink" | "other"
    uint64_t size = 0;
};

// How the file tools reach a session's files. The default implementation works over filesystem() with
// relative paths resolved against working_directory(); a sandbox without a FileSystem view (docker)
// overrides the three operations. Errors are messages like "/x: No such file or directory".
class FileAccess {
public:
    virtual ~FileAccess() = default;
    struct Text {
        std::optional<std::string> data;
        std::string error;
    };
    virtual Text read_text(const std::string& path);
    // Creates missing parent folders. Returns an error message, or nullopt.
    virtual std::optional<std::string> write_text(const std::string& path, const std::string& content);
    struct Listing {
        std::vector<FileEntry> entries;  // paths as given (relative stays relative), sorted
        std::string error;
        bool ok = true;
    };
    virtual Listing list(const std::string& path, bool recursive, size_t max_entries);

protected:
    virtual vfs::FileSystem* filesystem() { return nullptr; }
    virtual std::string working_directory() { return "/"; }
};

using ExecuteFn = std::function<SandboxExecutionResult(const std::string& command, std::optional<double> timeout)>;

// Where the process tools run background programs, for the sandbox types that support them. Ids are small
// positive ints given by start(). Implementations are thread-safe and never throw out of these calls
// (a failure is an error message).
class ProcessTools {
public:
    virtual ~ProcessTools() = default;
    struct Started {
        int id = 0;
        std::string error;  // not empty: nothing was started
    };
    using Output = ProcessOutput;
    virtual Started start(const std::string& command) = 0;
    virtual Output read(int id) = 0;
    // Writes to the process's stdin (and closes it when close_stdin). An error message, or nullopt.
    virtual std::optional<std::string> write(int id, const std::string& data, bool close_stdin) = 0;
    // Kills the process and what it started, and waits for it: its output (exit_code set), found false when
    // there is no such process.
    virtual Output kill(int id) = 0;
};

// Host programs (DangerousLocalSandbox, LocalDockerSandbox): SHELL... COMMAND in cwd, in table.
struct HostProcessTools final : ProcessTools {
    ProcessTable* table = nullptr;
    std::vector<std::string> shell;  // {"/bin/bash", "-c"}
    std::string cwd;
    // For programs started elsewhere than on this host (LocalDockerSandbox): the command line that starts
    // process `id` (instead of SHELL... COMMAND), and what kill_process does first to reach it there.
    std::function<std::vector<std::string>(int id, const std::string& command)> argv_for;
    std::function<void(int id)> kill_inside;

    Started start(const std::string& command) override;
    Output read(int id) override;
    std::optional<std::string> write(int id, const std::string& data, bool close_stdin) override;
    Output kill(int id) override;
};

// Runs one tool: validates args, checks the tool belongs to `access` (process tools need `processes`), and
// calls it. Never throws.
nlohmann::json call_tool(SandboxAccess access, FileAccess& files, const ExecuteFn& execute, const std::string& name,
                         const nlohmann::json& args, ProcessTools* processes = nullptr);

}  // namespace bashkit::sandbox
