// The awk evaluator: a tree walker over the parsed Program, with records, fields, arrays, user functions,
// input sources and output redirections. Everything reaches the world through the CommandContext.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "utils/awk/ast.hpp"
#include "utils/awk/value.hpp"
#include "utils/common/io.hpp"
#include "interp/command.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::awk {

struct StrHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

struct Elem {
    Value v;
    uint64_t seq = 0;
};

// The memory the running awk program holds in its arrays and global variables, charged to the session's
// budget: the Runtime points it at its charge for the thread while it runs (null otherwise).
interp::MemoryCharge*& awk_held();
// What an array element costs besides its key and value bytes (node, hash slot, bookkeeping).
inline constexpr size_t kElemCost = 64;

struct Array {
    std::unordered_map<std::string, Elem, StrHash, std::equal_to<>> map;
    uint64_t next_seq = 0;
    Array() = default;
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    ~Array() { clear(); }
    // Removes every element (or one), releasing what they held.
    void clear() {
        if (interp::MemoryCharge* h = awk_held()) {
            size_t n = 0;
            for (const auto& [k, e] : map) n += k.size() + kElemCost + e.v.s.size();
            h->sub(n);
        }
        map.clear();
    }
    void erase(std::string_view key) {
        auto it = map.find(key);
        if (it == map.end()) return;
        if (interp::MemoryCharge* h = awk_held()) h->sub(it->first.size() + kElemCost + it->second.v.s.size());
        map.erase(it);
    }
    Value& get(std::string_view key) {
        auto it = map.find(key);
        if (it != map.end()) return it->second.v;
        if (interp::MemoryCharge* h = awk_held()) h->add(key.size() + kElemCost);
        auto r = map.emplace(std::string(key), Elem{});
        r.first->second.seq = next_seq++;
        return r.first->second.v;
    }
    Value* find(std::string_view key) {
        auto it = map.find(key);
        return it == map.end() ? nullptr : &it->second.v;
    }
    // Keys in iteration order: all non-negative integers ascending (as gawk does), else insertion order.
    std::vector<std::string> keys() const;
};

struct Cell {
    enum Kind : uint8_t { kUntyped, kScalar, kArray, kRef };
    Kind kind = kUntyped;
    Value v;
    std::unique_ptr<Array> arr;
    Cell* ref = nullptr;
};

struct Frame {
    std::vector<Cell> locals;
    const Function* fn = nullptr;
};

enum class Flow : uint8_t { Normal, Break, Continue, Next, NextFile, Exit, Return };

// A fatal run-time error (printed as "awk: cmd. line:N: fatal: ..."), or the run being cancelled.
struct AwkFatal {
    std::string message;
    int line = 0;
    bool file_context = true;  // add "(FILENAME=x FNR=n)" while records are being processed
};
// The run stops early: cancelled (130), or its stdout is a pipe whose reader is gone (141, as gawk killed by
// SIGPIPE).
struct AwkCancelled {
    int status = 130;
};
// Unwinds an expression when a user function executes exit, next or nextfile.
struct FlowSignal {
    Flow flow;
};

// A record source: a stream, a file or a string, with a read buffer.
class Reader {
public:
    explicit Reader(std::function<interp::IoResult(char*, size_t)> fill) : fill_(std::move(fill)) {}
    // A record longer than this fails with EFBIG (the session's max_variable_bytes).
    void set_max_record(size_t n) { max_record_ = n; }
    // Reads the next record; false at end of input. err receives an errno-like code on failure.
    bool next(int rs_mode, char rs_char, const interp::Regex* rs_re, std::string& rec, std::string& rt,
              const interp::CancelToken& cancel, int& err);

private:
    bool more(int& err);
    std::function<interp::IoResult(char*, size_t)> fill_;
    std::string buf_;
    size_t pos_ = 0;
    bool eof_ = false;
    size_t max_record_ = SIZE_MAX;
};

struct Output {
    enum Kind : uint8_t { kFile, kPipe, kStdout, kStderr, kNull };
    Kind kind = kFile;
    std::unique_ptr<vfs::FileHandle> fh;
    std::string buf;
    std::string cmd;
};

struct RuntimeOptions {
    std::vector<std::pair<std::string, std::string>> assigns;  // -v name=value (value unescaped)
    std::vector<std::string> argv;                             // ARGV[0..]
    std::string source_name = "cmd. line";
};

class Runtime {
public:
    Runtime(interp::CommandContext& ctx, Program& prog, RuntimeOptions opts);
    ~Runtime();
    // Runs BEGIN, the main loop and END; returns the exit status.
    int run();

private:
    friend struct Formatter;
    interp::CommandContext& ctx_;
    Program& prog_;
    RuntimeOptions opts_;
    std::vector<Cell> globals_;
    Frame* frame_ = nullptr;
    int call_depth_ = 0;
    uint32_t max_depth_ = 1000;
    Value ret_;
    int exit_code_ = 0;
    bool exiting_ = false;
    bool in_end_ = false;
    bool in_begin_ = false;
    bool in_main_ = false;
    int cur_line_ = 0;
    uint64_t tick_ = 0;

    // records and fields
    std::vector<Value> fields_;   // [0] is $0
    int nf_ = 0;
    bool split_done_ = true;
    // Lazy splitting (split_fast): fields 1..partial_n_ of the current record are set, the rest starts at
    // byte partial_pos_ of $0 (SIZE_MAX when the record has no more).
    bool partial_started_ = false;
    bool partial_blanks_ = true;
    char partial_char_ = ' ';
    int partial_n_ = 0;
    size_t partial_pos_ = 0;
    bool record_dirty_ = false;
    std::string active_fs_ = " ";
    // How records split into fields: by FS, by FPAT (gawk: fields are the matches) or by FIELDWIDTHS;
    // the last of the three assigned wins, from the next record on (as FS itself).
    enum class FieldMode { fs, fpat, widths };
    FieldMode pending_field_mode_ = FieldMode::fs, field_mode_ = FieldMode::fs;
    std::string active_fpat_;
    bool fpat_icase_ = false;
    std::vector<std::pair<size_t, size_t>> widths_;  // (skip, width); width SIZE_MAX for `*`
    void set_fieldwidths();
    int split_fpat(std::string_view s, std::vector<std::string>& out);
    int split_widths(std::string_view s, std::vector<std::string>& out);
    double nr_ = 0, fnr_ = 0;

    // cached special values
    std::string ofs_ = " ", ors_ = "\n", subsep_ = "\034", convfmt_ = "%.6g", ofmt_ = "%.6g";
    bool convfmt_simple_ = true, ofmt_simple_ = true;
    bool icase_ = false;
    int rs_mode_ = 0;   // 0: single char, 1: paragraph, 2: regex
    char rs_char_ = '\n';
    std::unique_ptr<interp::Regex> rs_re_;

    // field splitting cache
    std::string split_fs_key_ = " ";
    int split_mode_ = 0;  // 0 default blanks, 1 single char, 2 empty (chars), 3 regex, 4 tab
    char split_char_ = ' ';
    const interp::Regex* split_re_ = nullptr;
    bool split_icase_ = false;
    bool split_forced_ = false;
    int last_field_ = 0;

    // regexes
    std::vector<std::unique_ptr<interp::Regex>> static_re_[2];
    std::unordered_map<std::string, std::unique_ptr<interp::Regex>, StrHash, std::equal_to<>> dyn_re_[2];
    std::vector<interp::RegexSpan> spans_;

    // main input
    size_t arg_index_ = 1;
    bool used_file_operand_ = false;
    Reader* main_reader_ = nullptr;
    std::unique_ptr<Reader> main_owned_;
    bool main_done_ = false;
    std::unique_ptr<Reader> stdin_reader_;
    std::vector<uint8_t> range_active_;

    // getline sources and outputs
    std::unordered_map<std::string, std::unique_ptr<Reader>> in_files_;
    struct InCmd {
        std::unique_ptr<Reader> reader;
        std::shared_ptr<std::string> data;
        int status = 0;
    };
    std::unordered_map<std::string, InCmd> in_cmds_;
    std::unordered_map<std::string, std::unique_ptr<Output>> outputs_;
    std::vector<std::string> output_order_;
    // stdout, through the utilities' writer (utils/common/io.hpp); print_stdout() stops the run once it failed.
    utils::Output stdout_;

    // rand
    std::mt19937 rng_{1};
    double seed_ = 1;  // gawk starts as if srand(1) had been called
    bool rand_used_ = false;

    // --- program execution
    void init_globals();
    void run_begin();
    void main_loop();
    void run_end();
    Flow exec(const Stmt* s);
    Flow exec_block(const std::vector<Stmt*>& list);
    bool match_pattern(Rule& r);
    // The arrays' and global variables' bytes (see awk_held).
    interp::MemoryCharge held_{ctx_.memory};
    // A string of n bytes is about to be built: fails (MemoryLimitExceeded) when it cannot fit in the budget.
    void need(size_t n) const {
        if (n >= (size_t{1} << 16) && ctx_.memory && !ctx_.memory->fits(n))
            throw interp::MemoryLimitExceeded(ctx_.memory->limit());
    }
    void check_cancel() {
        if (ctx_.cancel.poll(tick_)) throw AwkCancelled{};
    }

    // --- evaluation
    const Value& eval(const Node* n, Value& tmp);
    double num(const Node* n);
    bool cond(const Node* n);
    std::string_view to_str(const Value& v, std::string& buf);      // CONVFMT
    std::string_view to_out_str(const Value& v, std::string& buf);  // OFMT
    void to_str_append(const Value& v, std::string& out);
    void num_to_str(double d, bool output, std::string& out);
    int compare(const Value& a, const Value& b);
    std::string subscript(const std::vector<Node*>& args);
    void subscript_into(const std::vector<Node*>& args, std::string& out);

    Cell& cell_of(const Node* n);
    Array& array_of(const Node* n);
    Value& scalar_of(const Node* n);
    // lvalue access: returns the storage; after changing it call stored(n).
    Value& lref(const Node* n);
    void stored(const Node* n);
    void field_stored();
    void assign(const Node* lv, Value&& v);
    void on_special(int slot);
    [[noreturn]] void fatal(const std::string& msg, int line = -1);
    void warning(const std::string& msg);

    const Value& call(const Node* n, Value& tmp);
    const Value& builtin(const Node* n, Value& tmp);
    const Value& getline(const Node* n, Value& tmp);

    // --- fields
    void set_record(std::string_view text);
    void split_record();
    // Blank or one-character FS: splits $0 on from where it stopped, up to field `upto`; false for other
    // separators (split_record does those).
    bool split_fast(int upto);
    void rebuild_record();
    const Value& field(int i);
    // The field number a value names ($d); fatal for a negative one or NaN.
    int field_number(double d);
    Value& field_ref(int i);
    void set_nf(int nf);
    int split_into(std::string_view s, std::string_view fs, const interp::Regex* force_re, bool paragraph,
                   std::vector<std::string>& out, std::vector<std::string>* seps);
    void end_main_file();
    bool run_file_rules(PatternKind kind);  // false: nextfile was executed
    void prepare_split(std::string_view fs);

    // --- regex
    const interp::Regex& regex_for(const Node* n, Value& tmp);
    const interp::Regex& dyn_regex(std::string_view src);
    const interp::Regex& static_regex(int id);
    bool re_match(const Node* re_node, std::string_view text);

    // --- I/O
    bool next_main_record(std::string& rec, std::string& rt);
    bool open_next_main();
    Reader* stdin_reader();
    Reader* file_reader(const std::string& name, int& err);
    std::unique_ptr<Reader> open_reader(const std::string& name, int& err);
    Reader* cmd_reader(const std::string& cmd);
    Output* output_for(char redir, const std::string& name);
    void write_out(Output* o, std::string_view data);
    void flush_stdout();
    void print_stdout(std::string_view a, std::string_view b = {}) {
        stdout_.put(a);
        if (!b.empty()) stdout_.put(b);
        if (stdout_.failed()) stop_on_write_error();
    }
    void stop_on_write_error();  // throws AwkCancelled after a closed pipe or a cancel
    void flush_all();
    Array& array_of_slot(int slot);
    void flush_output(Output& o);
    int close_output(Output& o);
    int close_stream(const std::string& name);
    void close_all();
    int run_command(const std::string& cmd, interp::ByteStream& in, interp::ByteStream& out);
    bool read_record_from(Reader& r, std::string& rec, std::string& rt, int& err);
    void set_rs();

    // --- builtins helpers
    void format(std::string& out, std::string_view fmt, const std::vector<Value>& args, size_t first, int line);
    double do_sub(const Node* n, bool global);
    std::string gensub(const interp::Regex& re, std::string_view repl, std::string_view how, std::string_view target);
    double do_split(const Node* n);
    double do_match(const Node* n);
    double do_asort(const Node* n, bool by_index);
    std::string strftime(std::string_view fmt, double t, bool utc);
    std::vector<std::string> sorted_keys(Array& a);
};

}  // namespace bashkit::utils::awk
