// Loader for the parser table cases in tests/syntax/cases/*.txt (header-only: the test suite globs only
// *_test.cpp, and dump_corpus.cpp uses it too).
//
// File format (tests/syntax/tools/check_cases reads the same format and checks every case against bash):
//   - lines outside a case are ignored (comments, blank lines);
//   - "=== NAME" starts a case; NAME is [A-Za-z0-9_]+ and unique within its file;
//   - the following lines, up to a line starting with "--- ", are the script: joined with "\n", plus a
//     final "\n";
//   - "--- ok" (the script parses) or "--- error line N: MESSAGE" (bash's first error line for
//     `bash -n file`, without the "file: " prefix) ends the case.
#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::testing {

struct SyntaxCase {
    std::string file;    // file stem, e.g. "compound"
    std::string name;    // case name, e.g. "if_elif_else"
    std::string script;  // the source, always ending in "\n"
    bool ok = true;      // expected to parse
    std::string error;   // when !ok: "line N: MESSAGE"
    int source_line = 0; // line of "=== NAME" in the file, for messages
};

struct SyntaxCaseSet {
    std::vector<SyntaxCase> cases;
    std::vector<std::string> problems;  // malformed files: "path:line: what"
};

inline bool syntax_case_name_ok(std::string_view name) {
    if (name.empty()) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// Parses one case file's text; `stem` names the file in cases and problems.
inline void parse_syntax_case_text(const std::string& stem, std::string_view text, SyntaxCaseSet& out) {
    std::vector<std::string_view> lines;
    for (size_t start = 0; start < text.size();) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    auto problem = [&](size_t line, const std::string& what) {
        out.problems.push_back(stem + ".txt:" + std::to_string(line) + ": " + what);
    };
    std::vector<std::string> names;
    bool in_case = false;
    SyntaxCase cur;
    std::string script;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string_view line = lines[i];
        size_t lineno = i + 1;
        if (!in_case) {
            if (line.rfind("=== ", 0) == 0) {
                cur = SyntaxCase{};
                cur.file = stem;
                cur.name = std::string(line.substr(4));
                cur.source_line = static_cast<int>(lineno);
                if (!syntax_case_name_ok(cur.name)) problem(lineno, "bad case name '" + cur.name + "'");
                if (std::find(names.begin(), names.end(), cur.name) != names.end())
                    problem(lineno, "duplicate case name '" + cur.name + "'");
                names.push_back(cur.name);
                script.clear();
                in_case = true;
            } else if (line.rfind("--- ", 0) == 0) {
                problem(lineno, "'---' outside a case");
            }
            continue;
        }
        if (line.rfind("--- ", 0) == 0) {
            std::string_view expect = line.substr(4);
            cur.script = script + "\n";
            if (expect == "ok") {
                cur.ok = true;
            } else if (expect.rfind("error line ", 0) == 0 && expect.find(": ") != std::string_view::npos) {
                cur.ok = false;
                cur.error = std::string(expect.substr(6));
            } else {
                problem(lineno, "bad expectation '" + std::string(expect) + "'");
            }
            out.cases.push_back(cur);
            in_case = false;
        } else if (line.rfind("=== ", 0) == 0) {
            problem(lineno, "'===' inside case '" + cur.name + "' (missing '---' line?)");
        } else {
            if (cur.source_line + 1 != static_cast<int>(lineno)) script += '\n';
            script += line;
        }
    }
    if (in_case) problem(static_cast<size_t>(cur.source_line), "case '" + cur.name + "' has no '---' line");
}

// Loads every *.txt of `dir`, files in name order, cases in file order.
inline SyntaxCaseSet load_syntax_cases(const std::filesystem::path& dir) {
    SyntaxCaseSet out;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".txt") files.push_back(entry.path());
    }
    if (ec) {
        out.problems.push_back(dir.string() + ": " + ec.message());
        return out;
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            out.problems.push_back(path.string() + ": cannot open");
            continue;
        }
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        parse_syntax_case_text(path.stem().string(), text, out);
    }
    return out;
}

// The test name of a case: "<file>_<name>" (letters, digits and underscores only, as GoogleTest wants).
inline std::string syntax_case_id(const SyntaxCase& c) {
    std::string id = c.file + "_" + c.name;
    for (char& ch : id) {
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))) ch = '_';
    }
    return id;
}

}  // namespace bashkit::testing
