// The jq language (1.7.1): lexer and parser (engine_parse.cpp) to a tree of nodes, and an evaluator
// (engine_eval.cpp) that walks the tree with callbacks: every generator hands each output to the
// consumer's callback, which says whether to go on. Backtracking is the return of the callback; errors
// are C++ exceptions (JqError) that `try` catches only when they come from its own body.
//
// Containment: the evaluator checks the cancel token every few thousand steps, charges heap values to the
// session's memory budget (value.hpp), and turns native recursion deeper than its stack allowance into a
// jq error. Nothing is global: the builtin definitions are parsed once and shared read-only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "utils/jq/value.hpp"

namespace bashkit::utils::jq {

struct Node;

struct Program;

// A module directive: import "relpath" as as; import "relpath" as $as; include "relpath" (as empty).
struct Import {
    std::string relpath;
    std::string as;
    bool is_data = false;
    Value meta = Value::invalid();  // the directive's metadata object (Invalid: none)
    size_t pos = 0;
    // Linked (link_program): the module's program, or the data (an array of the file's texts).
    std::shared_ptr<Program> module;
    Value data;
};

// A parsed program (its nodes are owned here).
struct Program {
    std::vector<std::unique_ptr<Node>> nodes;
    Node* root = nullptr;
    std::string source;
    std::string file = "<top-level>";  // where errors are located
    Value module_meta = Value::invalid();  // `module {...};` (Invalid: none)
    std::vector<Import> imports;
    bool library() const;  // only definitions, no main expression
};

// Parses a jq program. On failure returns null with jq's messages (each ending in "\n") and their count.
std::shared_ptr<Program> parse_program(const std::string& source, std::string& errors, int& nerrors,
                                       const std::string& file = "<top-level>");

struct Host;
// Loads the modules the program imports (recursively; found along jq's search rules in the host's files) and
// binds them to their directives. On failure appends jq's messages and counts them.
bool link_program(Program& p, Host& host, std::string& errors, int& nerrors);
// modulemeta: the module's metadata with its deps and defs (throws JqError).
Value module_meta(Host& host, const Value& name);

// Reports functions, variables and labels that are not defined (jq's compile errors); vars: the names
// bound by --arg and friends.
bool check_program(const Program& p, const std::vector<std::string>& vars, std::string& errors, int& nerrors);

// An error raised by the program (error/1, type errors...): the value is the message.
struct JqError {
    Value v;
};
// halt / halt_error.
struct JqHalt {
    int code = 0;
    Value msg;  // Invalid: no message
};
// Cancelled by the session.
struct JqCancelled {};

// What the evaluator asks of its host (the jq command).
struct Host {
    virtual ~Host() = default;
    // The next input (input/inputs); false at the end. May throw JqError for a parse error.
    virtual bool next_input(Value& out) = 0;
    virtual void debug(const Value& msg) = 0;   // debug: ["DEBUG:", msg]
    virtual void stderr_value(const Value& v) = 0;
    virtual Value input_filename() = 0;
    virtual double input_line_number() = 0;
    virtual bool cancelled() = 0;
    virtual double now() = 0;
    // A file of the sandbox (modules): 0, or an errno (ENOENT when there is none). path is absolute.
    virtual int read_file(const std::string& path, std::string& text) {
        (void)path;
        (void)text;
        return 2;
    }
    std::vector<std::string> lib_dirs = {"~/.jq", "$ORIGIN/../lib/jq", "$ORIGIN/../lib"};  // -L
    std::string home;            // $HOME ("": none)
    std::string cwd = "/";       // the working directory
    std::string prog_origin;     // the folder of the -f file ("": the working directory)
    Value env = Value::object();      // $ENV
    Value named_args = Value::object();  // $ARGS.named and the --arg variables
    Value positional = Value::array();
};

class Evaluator {
public:
    Evaluator(std::shared_ptr<Program> prog, Host& host);
    ~Evaluator();
    // Runs the program on one input; each output goes to out (false: stop). Throws JqError, JqHalt,
    // JqCancelled, MemoryLimitExceeded.
    void run(const Value& input, const std::function<bool(const Value&)>& out);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bashkit::utils::jq
