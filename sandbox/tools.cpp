#include "sandbox/tools.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <exception>

#include "interp/pattern.hpp"
#include "sandbox/process.hpp"
#include "sandbox/types.hpp"

namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;

struct Param {
    const char* name;
    const char* type;  // string | integer | number | boolean
    bool required;
    const char* description;
};

struct ToolDef {
    const char* name;
    SandboxAccess min_access;
    bool process = false;  // a process tool (background processes only)
    const char* description;
    std::vector<Param> params;
};

const std::vector<ToolDef>& defs() {
    static const std::vector<ToolDef> d = {
        {"bash", SandboxAccess::full, false,
         "Run a bash command in the sandbox and return its exit code, stdout and stderr. Shell state (variables, "
         "the working directory, functions) persists between calls.",
         {{"command", "string", true, "The bash command or script to run."},
          {"timeout_seconds", "number", false, "Stop the command after this many seconds (exit code 124)."}}},
        {"read_file", SandboxAccess::files, false, "Read a text file, optionally a range of lines.",
         {{"path", "string", true, "The file (relative paths are relative to the working directory)."},
          {"offset", "integer", false, "The first line to return, counting from 1 (default 1)."},
          {"limit", "integer", false, "How many lines to return at most (default: all)."}}},
        {"write_file", SandboxAccess::files, false, "Create or replace a file with the given content (parent folders are created).",
         {{"path", "string", true, "The file to write."}, {"content", "string", true, "The whole new content."}}},
        {"edit_file", SandboxAccess::files, false,
         "Replace old_string by new_string in a file. old_string must occur exactly once unless replace_all is true.",
         {{"path", "string", true, "The file to edit."},
          {"old_string", "string", true, "The exact text to replace (not empty)."},
          {"new_string", "string", true, "The replacement text."},
          {"replace_all", "boolean", false, "Replace every occurrence (default false)."}}},
        {"list_files", SandboxAccess::files, false, "List the entries of a folder, optionally recursively and filtered by a glob on names.",
         {{"path", "string", false, "The folder (default: the working directory)."},
          {"recursive", "boolean", false, "Descend into sub-folders (default false)."},
          {"pattern", "string", false, "A glob the entry's name must match, e.g. \"*.py\"."}}},
        {"search_files", SandboxAccess::files, false,
         "Search file contents for a regular expression (RE2 syntax); returns matching lines with their path and line number.",
         {{"pattern", "string", true, "The regular expression."},
          {"path", "string", false, "The folder or file to search (default: the working directory)."},
          {"glob", "string", false, "Only files whose name matches this glob, e.g. \"*.cpp\"."}}},
        {"start_process", SandboxAccess::full, true,
         "Start a shell command in the background (a server, a watcher, an interactive program) and return its "
         "process_id at once.",
         {{"command", "string", true, "The shell command to start."}}},
        {"read_process_output", SandboxAccess::full, true,
         "Return the stdout and stderr a background process wrote since the last read, whether it is still "
         "running and, once it ended, its exit code.",
         {{"process_id", "integer", true, "The id start_process returned."}}},
        {"write_process_input", SandboxAccess::full, true, "Write to the stdin of a background process.",
         {{"process_id", "integer", true, "The id start_process returned."},
          {"input", "string", true, "The bytes to write (add \"\\n\" for a line)."},
          {"close_stdin", "boolean", false, "Close its stdin afterwards (end of input)."}}},
        {"kill_process", SandboxAccess::full, true, "Kill a background process and everything it started.",
         {{"process_id", "integer", true, "The id start_process returned."}}},
    };
    return d;
}

ToolSpec spec_of(const ToolDef& d) {
    json props = json::object();
    json required = json::array();
    for (const auto& p : d.params) {
        props[p.name] = {{"type", p.type}, {"description", p.description}};
        if (p.required) required.push_back(p.name);
    }
    json schema = {{"type", "object"}, {"properties", props}};
    // JSON Schema draft 4 wants at least one name in "required": an empty list is left out.
    if (!required.empty()) schema["required"] = std::move(required);
    schema["additionalProperties"] = false;
    return ToolSpec{d.name, d.description, std::move(schema)};
}

bool has_type(const json& v, std::string_view type) {
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_number_integer();  // call_tool turns 2.0 into 2 first
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_boolean();
    return false;
}

json fail(const std::string& tool, const std::string& message) { return {{"ok", false}, {"error", tool + ": " + message}}; }

// Splits into lines, keeping the newline with each line.
std::vector<std::string_view> lines_of(std::string_view s) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start < s.size()) {
        size_t nl = s.find('\n', start);
        size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
        out.push_back(s.substr(start, end - start));
        start = end;
    }
    return out;
}

std::string base_name(const std::string& path) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    size_t slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

json run_tool(SandboxAccess access, FileAccess& files, const ExecuteFn& execute, const ToolDef& def, const json& a,
             ProcessTools* procs) {
    std::string tool = def.name;
    if (def.process) {
        ProcessTools& table = *procs;
        if (tool == "start_process") {
            ProcessTools::Started st = table.start(a["command"].get<std::string>());
            if (!st.error.empty()) return fail(tool, st.error);
            return {{"ok", true}, {"process_id", st.id}};
        }
        // Ids are small positive ints: anything else (4294967297 included) names no process.
        const json& pid = a["process_id"];
        if (pid.is_number_unsigned() ? pid.get<uint64_t>() > uint64_t(INT32_MAX)
                                     : (pid.get<int64_t>() < 0 || pid.get<int64_t>() > INT32_MAX))
            return fail(tool, "no process " + pid.dump());
        int id = int(pid.get<int64_t>());
        if (tool == "write_process_input") {
            std::string input = a["input"].get<std::string>();
            if (auto e = table.write(id, input, a.contains("close_stdin") && a["close_stdin"].get<bool>())) return fail(tool, *e);
            return {{"ok", true}, {"bytes_written", input.size()}};
        }
        bool kill = tool == "kill_process";
        ProcessTools::Output o = kill ? table.kill(id) : table.read(id);
        if (!o.found) return fail(tool, o.error.empty() ? "no process " + std::to_string(id) : o.error);
        if (kill) return {{"ok", true}, {"process_id", id}, {"exit_code", o.exit_code}};
        return {{"ok", true}, {"stdout", o.out}, {"stderr", o.err}, {"running", o.running},
                {"exit_code", o.running ? json(nullptr) : json(o.exit_code)}};
    }
    auto str = [&](const char* k, std::string dflt = {}) { return a.contains(k) ? a[k].get<std::string>() : dflt; };
    (void)access;
    if (tool == "bash") {
        std::optional<double> timeout;
        if (a.contains("timeout_seconds")) {
            timeout = a["timeout_seconds"].get<double>();
            if (!(*timeout > 0)) return fail(tool, "timeout_seconds must be positive");
        }
        SandboxExecutionResult r = execute(a["command"].get<std::string>(), timeout);
        return {{"ok", true}, {"exit_code", r.exit_code}, {"stdout", r.stdout_}, {"stderr", r.stderr_}, {"timed_out", r.timed_out}};
    }
    if (tool == "read_file") {
        int64_t offset = a.contains("offset") ? a["offset"].get<int64_t>() : 1;
        int64_t limit = a.contains("limit") ? a["limit"].get<int64_t>() : -1;
        if (offset < 1) return fail(tool, "offset must be at least 1");
        if (a.contains("limit") && limit < 0) return fail(tool, "limit must not be negative");
        auto t = files.read_text(str("path"));
        if (!t.data) return fail(tool, t.error);
        auto lines = lines_of(*t.data);
        std::string content;
        size_t first = size_t(offset - 1);
        size_t end = limit < 0 ? lines.size() : std::min(lines.size(), first + size_t(limit));
        for (size_t i = first; i < end; ++i) content += lines[i];
        return {{"ok", true}, {"content", content}, {"total_lines", lines.size()}, {"truncated", end < lines.size()}};
    }
    if (tool == "write_file") {
        std::string path = str("path");
        std::string content = str("content");
        if (auto e = files.write_text(path, content)) return fail(tool, *e);
        return {{"ok", true}, {"path", path}, {"bytes_written", content.size()}};
    }
    if (tool == "edit_file") {
        std::string path = str("path");
        std::string old_s = str("old_string"), new_s = str("new_string");
        bool all = a.contains("replace_all") && a["replace_all"].get<bool>();
        if (old_s.empty()) return fail(tool, "old_string must not be empty");
        auto t = files.read_text(path);
        if (!t.data) return fail(tool, t.error);
        const std::string& text = *t.data;
        size_t count = 0;
        for (size_t p = text.find(old_s); p != std::string::npos; p = text.find(old_s, p + old_s.size())) ++count;
        if (count == 0) return fail(tool, path + ": old_string not found");
        if (count > 1 && !all)
            return fail(tool, path + ": old_string occurs " + std::to_string(count) +
                                  " times; give more context or set replace_all");
        std::string out;
        size_t from = 0;
        for (size_t p = text.find(old_s); p != std::string::npos; p = text.find(old_s, from)) {
            out.append(text, from, p - from);
            out += new_s;
            from = p + old_s.size();
            if (!all) break;
        }
        out.append(text, from, std::string::npos);
        if (auto e = files.write_text(path, out)) return fail(tool, *e);
        return {{"ok", true}, {"path", path}, {"replacements", all ? count : 1}};
    }
    if (tool == "list_files") {
        std::string path = str("path", ".");
        bool recursive = a.contains("recursive") && a["recursive"].get<bool>();
        std::optional<interp::Pattern> pat;
        if (a.contains("pattern")) pat = interp::Pattern::compile(str("pattern"));
        constexpr size_t kMaxEntries = 5000;
        auto l = files.list(path, recursive, kMaxEntries + 1);
        if (!l.ok) return fail(tool, l.error);
        bool truncated = l.entries.size() > kMaxEntries;
        if (truncated) l.entries.resize(kMaxEntries);
        json entries = json::array();
        for (const auto& e : l.entries) {
            if (pat && !pat->match(base_name(e.path))) continue;
            entries.push_back({{"path", e.path}, {"type", e.type}, {"size", e.size}});
        }
        return {{"ok", true}, {"entries", entries}, {"truncated", truncated}};
    }
    if (tool == "search_files") {
        RE2::Options o;
        o.set_log_errors(false);
        o.set_max_mem(8 << 20);
        RE2 re(str("pattern"), o);
        if (!re.ok()) return fail(tool, "bad pattern: " + re.error());
        std::optional<interp::Pattern> glob;
        if (a.contains("glob")) glob = interp::Pattern::compile(str("glob"));
        std::string path = str("path", ".");
        std::vector<FileEntry> targets;
        auto l = files.list(path, true, 20000);
        if (!l.ok) {
            // A file rather than a folder.
            auto t = files.read_text(path);
            if (!t.data) return fail(tool, l.error);
            targets.push_back({path, "file", t.data->size()});
        } else {
            targets = std::move(l.entries);
        }
        json matches = json::array();
        bool truncated = false;
        for (const auto& e : targets) {
            if (e.type != "file") continue;
            if (glob && !glob->match(base_name(e.path))) continue;
            if (e.size > (8u << 20)) continue;  // skip huge files
            auto t = files.read_text(e.path);
            if (!t.data) continue;
            if (t.data->find('\0') != std::string::npos) continue;  // binary
            auto lines = lines_of(*t.data);
            for (size_t i = 0; i < lines.size(); ++i) {
                std::string_view line = lines[i];
                if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
                if (!RE2::PartialMatch(line, re)) continue;
                if (matches.size() >= 1000) {
                    truncated = true;
                    break;
                }
                matches.push_back({{"path", e.path}, {"line", i + 1}, {"text", std::string(line)}});
            }
            if (truncated) break;
        }
        return {{"ok", true}, {"matches", matches}, {"truncated", truncated}};
    }
    return fail(tool, "not implemented");
}

std::string errc_text(vfs::Errc e) { return std::string(vfs::error_message(e)); }

std::string type_of(vfs::FileType t) {
    switch (t) {
        case vfs::FileType::regular: return "file";
        case vfs::FileType::directory: return "directory";
        case vfs::FileType::symlink: return "symlink";
        default: return "other";
    }
}

}  // namespace

json ToolSpec::to_json(bool strict) const {
    if (!strict)
        return {{"type", "function"}, {"function", {{"name", name}, {"description", description}, {"parameters", parameters}}}};
    return {{"type", "function"},
            {"function", {{"name", name}, {"description", description}, {"parameters", strict_parameters()}, {"strict", true}}}};
}

json ToolSpec::strict_parameters() const {
    json p = parameters;
    json required = json::array();
    const json listed_required = p.value("required", json::array());
    for (auto& [key, prop] : p["properties"].items()) {
        required.push_back(key);
        bool listed = std::find(listed_required.begin(), listed_required.end(), key) != listed_required.end();
        if (!listed) prop["type"] = json::array({prop["type"], "null"});  // optional: null stands for absent
    }
    p["required"] = std::move(required);
    p["additionalProperties"] = false;
    return p;
}

std::vector<ToolSpec> tools_for(SandboxAccess access, bool background_processes) {
    std::vector<ToolSpec> out;
    for (const auto& d : defs()) {
        if (d.process && !background_processes) continue;
        if (access >= d.min_access && access != SandboxAccess::none) out.push_back(spec_of(d));
    }
    return out;
}

json call_tool(SandboxAccess access, FileAccess& files, const ExecuteFn& execute, const std::string& name, const json& args,
               ProcessTools* processes) {
    try {
        const ToolDef* def = nullptr;
        for (const auto& d : defs())
            if (name == d.name) def = &d;
        if (!def) return fail(name, "unknown tool");
        if (access == SandboxAccess::none || access < def->min_access)
            return fail(name, "not available with access=" + std::string(to_string(access)));
        if (def->process && !processes) return fail(name, "this sandbox has no background processes");
        if (!args.is_object()) return fail(name, "arguments must be a JSON object");
        // What models send: null for an optional argument left out (OpenAI strict mode requires every one),
        // and 2.0 for an integer. Both are normalised before the types are checked.
        json a = json::object();
        for (const auto& item : args.items()) {
            const std::string& k = item.key();
            json v = item.value();
            auto it = std::find_if(def->params.begin(), def->params.end(), [&](const Param& p) { return k == p.name; });
            if (v.is_null() && it != def->params.end() && !it->required) continue;
            if (it != def->params.end() && std::string_view(it->type) == "integer" && v.is_number_float()) {
                double d = v.get<double>();
                if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) v = int64_t(d);
            }
            a[k] = std::move(v);
        }
        for (const auto& item : a.items()) {
            const std::string k = item.key();
            const json& v = item.value();
            auto it = std::find_if(def->params.begin(), def->params.end(), [&](const Param& p) { return k == p.name; });
            if (it == def->params.end()) return fail(name, "unknown argument '" + k + "'");
            if (!has_type(v, it->type)) return fail(name, "argument '" + k + "' must be of type " + it->type);
        }
        for (const auto& p : def->params)
            if (p.required && !a.contains(p.name)) return fail(name, "missing required argument '" + std::string(p.name) + "'");
        return run_tool(access, files, execute, *def, a, processes);
    } catch (const std::exception& e) {
        return fail(name, e.what());
    } catch (...) {
        return fail(name, "unexpected error");
    }
}

// ------------------------------------------------------------------------------------------ FileAccess

namespace {
std::string absolute(const std::string& cwd, const std::string& path) {
    if (!path.empty() && path[0] == '/') return vfs::normalize_path(path);
    return vfs::normalize_path(cwd + "/" + path);
}
}  // namespace

FileAccess::Text FileAccess::read_text(const std::string& path) {
    vfs::FileSystem* fs = filesystem();
    if (!fs) return {std::nullopt, "no file access"};
    std::string p = absolute(working_directory(), path);
    auto r = fs->read_file(p, 64u << 20);
    if (!r) return {std::nullopt, path + ": " + errc_text(r.error())};
    return {std::move(*r), {}};
}

std::optional<std::string> FileAccess::write_text(const std::string& path, const std::string& content) {
    vfs::FileSystem* fs = filesystem();
    if (!fs) return "no file access";
    std::string p = absolute(working_directory(), path);
    size_t slash = p.rfind('/');
    if (slash > 0) {
        std::string failed;
        if (auto s = fs->mkdir_all(p.substr(0, slash), 0755, &failed); !s)
            return failed + ": " + errc_text(s.error());
    }
    if (auto s = fs->write_file(p, content); !s) return path + ": " + errc_text(s.error());
    return std::nullopt;
}

FileAccess::Listing FileAccess::list(const std::string& path, bool recursive, size_t max_entries) {
    Listing out;
    vfs::FileSystem* fs = filesystem();
    if (!fs) return {{}, "no file access", false};
    std::string root = absolute(working_directory(), path);
    auto st = fs->stat(root);
    if (!st) return {{}, path + ": " + errc_text(st.error()), false};
    if (!st->is_directory()) return {{}, path + ": " + errc_text(vfs::Errc::not_directory), false};
    // Iterative walk; symlinks are listed, never followed.
    std::vector<std::pair<std::string, std::string>> todo{{root, path == "." ? "" : path}};
    while (!todo.empty() && out.entries.size() < max_entries) {
        auto [dir, shown] = todo.back();
        todo.pop_back();
        auto entries = fs->readdir(dir);
        if (!entries) continue;
        for (const auto& e : *entries) {
            std::string full = dir == "/" ? "/" + e.name : dir + "/" + e.name;
            std::string display = shown.empty() ? e.name : (shown.back() == '/' ? shown + e.name : shown + "/" + e.name);
            auto ls = fs->lstat(full);
            FileEntry fe{display, ls ? type_of(ls->type) : "other", ls ? ls->size : 0};
            if (fe.type == "directory") fe.size = 0;
            if (recursive && fe.type == "directory") todo.emplace_back(full, display);
            out.entries.push_back(std::move(fe));
            if (out.entries.size() >= max_entries) break;
        }
    }
    std::sort(out.entries.begin(), out.entries.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
    return out;
}

}  // namespace bashkit::sandbox
