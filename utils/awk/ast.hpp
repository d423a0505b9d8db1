// The awk program as the parser leaves it: expression nodes, statements, rules and functions.
//
// Nodes live in the Program's deques (stable addresses, freed together); names are resolved at parse time
// to global slots (Var) or to the slots of the enclosing function's frame (Local), so the evaluator never
// looks a name up. Every node carries the source line it starts on (for error messages).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "utils/awk/value.hpp"

namespace bashkit::utils::awk {

enum class NK : uint8_t {
    Num,        // num
    Str,        // str
    Regex,      // /re/ standing alone: $0 ~ /re/ (re: regex index)
    Var,        // global slot
    Local,      // function frame slot
    Field,      // $a
    Index,      // a[args]: a is Var or Local
    Group,      // (a, b, ...) : args (only valid before `in` or as print's list)
    Assign,     // a op= b; op: 0 for =, else '+', '-', '*', '/', '%', '^'
    Cond,       // a ? b : c
    And, Or, Not,
    Neg, UPlus,
    Binary,     // a op b; op '+', '-', '*', '/', '%', '^'
    Compare,    // op: '<', 'l' (<=), '>', 'g' (>=), '=' (==), '!' (!=)
    Match,      // a ~ b (op 0) or a !~ b (op 1); b may be Regex
    Concat,     // args (flattened)
    In,         // (args) in a: a is Var or Local
    PreInc, PreDec, PostInc, PostDec,
    Call,       // user function: id = function index, args
    Builtin,    // id = BuiltinId, args
    Getline,    // op: 0 plain, 1 < file (b), 2 cmd | (b); a = lvalue or null
};

enum class BuiltinId : uint8_t {
    Length, Substr, Index, Split, Sub, Gsub, Match, Sprintf, Sin, Cos, Atan2, Exp, Log, Sqrt, Int, Rand,
    Srand, Tolower, Toupper, System, Close, Fflush, Gensub, Asort, Asorti, Systime, Strftime, Mktime, And,
    Or, Xor, Lshift, Rshift, Compl, Strtonum, Isarray, Typeof, Patsplit,
};

struct Node {
    NK kind = NK::Num;
    char op = 0;
    int line = 0;
    int id = 0;      // slot, function index, builtin id, regex index
    double num = 0;
    std::string str;
    Node* a = nullptr;
    Node* b = nullptr;
    Node* c = nullptr;
    std::vector<Node*> args;
    Value cv;  // the value of a Num or Str constant
};

enum class SK : uint8_t {
    Expr, Print, Printf, If, While, Do, For, ForIn, Block, Next, NextFile, Exit, Return, Break, Continue,
    Delete,     // a = array (Var/Local), args = subscripts (empty: the whole array)
    Getline,    // (as Expr)
    Switch,     // gawk: expr = subject; list = cases (Block, expr = value or regex, null for default)
};

struct Stmt {
    SK kind = SK::Block;
    int line = 0;
    Node* expr = nullptr;   // condition / expression / exit code / return value
    Node* init = nullptr;   // for: init ; ForIn: the loop variable
    Node* step = nullptr;   // for: step ; ForIn: the array
    Stmt* body = nullptr;
    Stmt* other = nullptr;  // else
    std::vector<Stmt*> list;     // block
    std::vector<Node*> args;     // print args
    char redir = 0;              // print: 0, '>', 'a' (>>), '|'
    Node* dest = nullptr;        // redirection target
};

enum class PatternKind : uint8_t { Always, Begin, End, BeginFile, EndFile, Expr, Range };

struct Rule {
    PatternKind kind = PatternKind::Always;
    Node* pat = nullptr;
    Node* pat2 = nullptr;   // range end
    Stmt* action = nullptr; // null: print $0
    int range_index = -1;
};

struct Function {
    std::string name;
    int nparams = 0;
    std::vector<std::string> params;
    Stmt* body = nullptr;
    bool defined = false;
    int line = 0;
};

// Well-known global slots (the parser creates them first, in this order).
enum Special : int {
    kNR, kNF, kFNR, kFS, kOFS, kORS, kRS, kSUBSEP, kCONVFMT, kOFMT, kRSTART, kRLENGTH, kFILENAME, kENVIRON,
    kARGC, kARGV, kIGNORECASE, kRT, kPROCINFO, kFIELDWIDTHS, kFPAT, kBINMODE, kLINT, kTEXTDOMAIN, kERRNO,
    kSYMTAB_unused, kSpecialCount
};

struct RegexLit {
    std::string source;  // the text between the slashes, escapes untouched
};

struct Program {
    std::deque<Node> nodes;
    std::deque<Stmt> stmts;
    std::vector<Rule> rules;
    std::vector<Function> functions;
    std::unordered_map<std::string, int> function_index;
    std::vector<std::string> globals;  // slot -> name
    std::unordered_map<std::string, int> global_index;
    std::vector<RegexLit> regexes;
    int range_count = 0;
    bool has_main = false;  // a rule other than BEGIN (so input is read)
    bool has_end = false;
    bool has_file_rules = false;  // BEGINFILE or ENDFILE
};

}  // namespace bashkit::utils::awk
