// The bash AST: one header, a closed set of node kinds.
//
// Every node derives from Node (a kind tag and a source position) and is allocated from the Arena owned
// by a ParseResult. Nodes are trivially destructible: lists are (pointer, size) views into the arena and
// strings are std::string_view into arena-copied bytes, so destroying the arena frees everything at once.
// The tree is immutable after parsing and may be shared between threads.
//
// Conventions:
//  - Pos is 1-based (line, column); column counts bytes.
//  - Words keep their quoting structure; expansion (brace, tilde, parameter, arithmetic, command,
//    splitting, globbing, quote removal) is the interpreter's job. Brace expansion and tildes are left
//    inside Lit text; the interpreter recognises them there.
//  - Arithmetic keeps its raw text as a Word (bash expands it before evaluating) plus, when the text
//    parses, an ArithExpr tree. Bash reports arithmetic syntax errors only at run time, so a parse of the
//    script never fails because of bad arithmetic; `expr` is then null.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory_resource>
#include <new>
#include <string_view>
#include <type_traits>

namespace bashkit::syntax {

struct Pos {
    uint32_t line = 0;  // 1-based; 0 means unknown
    uint32_t col = 0;   // 1-based byte column
    friend bool operator==(const Pos&, const Pos&) = default;
};

// A read-only view of arena-allocated elements.
template <class T>
struct List {
    T* data = nullptr;
    uint32_t size = 0;
    T* begin() const { return data; }
    T* end() const { return data + size; }
    T& operator[](uint32_t i) const {
        assert(i < size);
        return data[i];
    }
    bool empty() const { return size == 0; }
    T& back() const {
        assert(size > 0);
        return data[size - 1];
    }
};

enum class NodeKind : uint8_t {
    // word parts
    Lit,           // unquoted literal text (no backslashes, no line continuations)
    Escaped,       // an unquoted backslash escape: text is the one escaped byte (`\*` -> "*")
    SglQuoted,     // '...': text is the content
    DblQuoted,     // "..." or $"...": parts
    AnsiCQuoted,   // $'...': text is the decoded value, raw is the source between the quotes
    ParamExp,      // $x ${x...}
    CmdSubst,      // $(...) or `...`
    ArithSubst,    // $((...)) or $[...]
    ProcSubst,     // <(...) or >(...)
    ExtGlob,       // ?(..) *(..) +(..) @(..) !(..)
    // words and their helpers
    Word,
    Assign,
    Redirect,
    // commands
    Stmt,
    Simple,
    Pipeline,
    AndOr,
    Brace,
    Subshell,
    If,
    While,
    For,
    ArithFor,
    Select,
    Case,
    ArithCmd,
    CondCmd,
    FuncDef,
    Coproc,
    // [[ ]] expressions
    CondWord,
    CondUnary,
    CondBinary,
    CondNot,
    CondAnd,
    CondOr,
    CondParen,
    // arithmetic expressions
    ArithNum,
    ArithVar,
    ArithWord,
    ArithUnary,
    ArithPostfix,
    ArithBinary,
    ArithAssign,
    ArithTernary,
    ArithParen,
    ArithError,
    ArithLookahead,
    // the root
    Script,
};

struct Node {
    NodeKind kind;
    Pos pos;

    template <class T>
    bool is() const {
        return kind == T::Kind;
    }
    template <class T>
    T* as() {
        assert(kind == T::Kind);
        return static_cast<T*>(this);
    }
    template <class T>
    const T* as() const {
        assert(kind == T::Kind);
        return static_cast<const T*>(this);
    }
    // Returns nullptr when the kind differs.
    template <class T>
    const T* try_as() const {
        return kind == T::Kind ? static_cast<const T*>(this) : nullptr;
    }
};

template <NodeKind K>
struct NodeOf : Node {
    static constexpr NodeKind Kind = K;
};

struct Word;
struct Stmt;
struct Command;
struct ArithExpr;
struct CondExpr;
struct Assign;
struct Redirect;

// ---------------------------------------------------------------- word parts

struct Lit : NodeOf<NodeKind::Lit> {
    std::string_view text;
};
struct Escaped : NodeOf<NodeKind::Escaped> {
    std::string_view text;  // the byte after the backslash
};
struct SglQuoted : NodeOf<NodeKind::SglQuoted> {
    std::string_view text;
};
struct DblQuoted : NodeOf<NodeKind::DblQuoted> {
    bool locale = false;  // $"..."
    // Lit (with \" \\ \$ \` and line continuations already resolved), ParamExp, CmdSubst, ArithSubst.
    List<Node*> parts;
};
struct AnsiCQuoted : NodeOf<NodeKind::AnsiCQuoted> {
    std::string_view value;  // decoded bytes
    std::string_view raw;    // source text between $' and '
};

enum class ParamOp : uint8_t {
    None,          // $x ${x}
    Length,        // ${#x}
    Default,       // ${x-w}   (colon => ${x:-w})
    Assign,        // ${x=w}
    Error,         // ${x?w}
    Alternate,     // ${x+w}
    RemPrefix,     // ${x#p}
    RemLongPrefix, // ${x##p}
    RemSuffix,     // ${x%p}
    RemLongSuffix, // ${x%%p}
    Replace,       // ${x/p/r}
    ReplaceAll,    // ${x//p/r}
    ReplacePrefix, // ${x/#p/r}
    ReplaceSuffix, // ${x/%p/r}
    Substring,     // ${x:off} ${x:off:len}
    UpperFirst,    // ${x^p}
    UpperAll,      // ${x^^p}
    LowerFirst,    // ${x,p}
    LowerAll,      // ${x,,p}
    Transform,     // ${x@Q} etc: transform holds the letter
    PrefixNames,   // ${!pre*} ${!pre@}: at_form tells which
    Keys,          // ${!a[@]} ${!a[*]}
};

struct ParamExp : NodeOf<NodeKind::ParamExp> {
    bool braced = false;    // ${...} rather than $x
    bool indirect = false;  // ${!x...} (not for PrefixNames/Keys)
    bool colon = false;     // the ':' forms of - = ? +
    bool at_form = false;   // PrefixNames: '@' rather than '*'
    ParamOp op = ParamOp::None;
    char transform = 0;     // Transform: one of Q E P A K a k u U L
    std::string_view name;  // identifier, digits, or one of @ * # ? - $ ! 0
    // Subscript of name[...]: text "@" or "*" gives index_all; otherwise index is the subscript word.
    Word* index = nullptr;
    char index_all = 0;     // '@' or '*' for a[@] a[*], else 0
    Word* arg = nullptr;    // word/pattern/offset (may be null when empty: ${x:-} has an empty Word)
    Word* arg2 = nullptr;   // replacement or substring length; null when absent
};

struct CmdSubst : NodeOf<NodeKind::CmdSubst> {
    bool backquote = false;
    List<Stmt*> body;
    // A body that does not parse where bash reports the error only when the substitution runs: always
    // for `...` (bash parses backquoted text only then), and for $(...) that bash re-reads as a command
    // substitution after `$((` turned out not to be arithmetic, e.g. $((x)+1). Then body is empty,
    // deferred_error is the message ("syntax error near unexpected token `+1'"), deferred_pos the place
    // it blames, and raw the source between the delimiters exactly as written (print it back verbatim
    // between `$(` and `)`, or between backquotes). All three are empty/zero when the body parsed, but
    // for that `$((` text: bash finds its end by its parentheses and parses it alone, so raw is kept (and
    // printed) whether its body parsed or not.
    std::string_view deferred_error;
    Pos deferred_pos;
    // With deferred_error: the text to parse when the substitution runs (a backquoted text with its
    // backslash escapes resolved; raw for a `$((` text).
    std::string_view deferred_text;
    std::string_view raw;
    // For that `$((` text: the here-documents that the substitutions in it leave open (`$(($(<<E))x)`,
    // read while it was tried as arithmetic, as bash's reader reads them): their bodies come after the
    // line, which the printer, writing the text as written, must know.
    List<Redirect*> open_docs;
};
struct ArithSubst : NodeOf<NodeKind::ArithSubst> {
    bool bracket = false;      // $[ ] rather than $(( ))
    bool exact = false;        // expr may be evaluated as it is (see arith_exact in parser.hpp)
    Word* raw = nullptr;       // the source text between the delimiters, with its expansions
    ArithExpr* expr = nullptr; // null when the text does not parse as arithmetic
};
struct ProcSubst : NodeOf<NodeKind::ProcSubst> {
    bool output = false;  // >( ) rather than <( )
    List<Stmt*> body;
};
struct ExtGlob : NodeOf<NodeKind::ExtGlob> {
    char op = '@';               // ? * + @ !
    List<Word*> alternatives;   // separated by |
};

struct Word : NodeOf<NodeKind::Word> {
    List<Node*> parts;
    // Set on an argument of a declaration utility (declare, typeset, local, export, readonly) that is
    // written as an assignment, e.g. `declare -a a=(1 2)`. parts still hold the word as written.
    Assign* decl_assign = nullptr;
};

// ---------------------------------------------------------------- assignments and redirections

struct ArrayElem {
    Pos pos;
    Word* key = nullptr;   // [key]=value; null for a plain element
    bool append = false;   // [key]+=value
    Word* value = nullptr;
};

struct Assign : NodeOf<NodeKind::Assign> {
    std::string_view name;
    Word* index = nullptr;     // name[index]=...
    bool append = false;       // +=
    bool is_array = false;     // name=(...)
    Word* value = nullptr;     // scalar value (an empty Word for `a=`); null when is_array
    List<ArrayElem> elems;     // when is_array
};

enum class RedirOp : uint8_t {
    In,           // <
    Out,          // >
    Append,       // >>
    Clobber,      // >|
    ReadWrite,    // <>
    DupIn,        // <&
    DupOut,       // >&  (also `>&word` when word is not a number or -: bash treats it like &>)
    OutErr,       // &>
    AppendOutErr, // &>>
    HereDoc,      // << and <<-
    HereString,   // <<<
};

struct Redirect : NodeOf<NodeKind::Redirect> {
    RedirOp op = RedirOp::Out;
    int fd = -1;                  // explicit fd number, -1 when absent
    std::string_view fd_var;      // {var}> form, empty otherwise
    Word* target = nullptr;       // file, fd word, here-string; for here-docs the delimiter as written
    // here-documents
    bool strip_tabs = false;      // <<-
    bool quoted_delim = false;    // any quoting in the delimiter: body is literal
    std::string_view delim;       // the delimiter after quote removal
    // The delimiter word's source text: printed back as written when quoted, as bash takes the delimiter
    // from its text (a `...` in it is text, whose reprint would change it).
    std::string_view delim_text;
    // The here-documents that a substitution in the delimiter leaves open (`<<$(<<P)`): their bodies come
    // after the line, before this one's, as the parser reads them. The printer, which writes the delimiter
    // as written, cannot tell them from the ones the substitution's own lines close (`<<$(<<P` newline
    // ...`P` newline `)`).
    List<Redirect*> open_docs;
    Word* body = nullptr;         // the body: one Lit when quoted_delim, else Lit/ParamExp/CmdSubst/ArithSubst parts
};

// ---------------------------------------------------------------- commands

struct Command : Node {
    List<Redirect*> redirs;  // for compound commands: the redirections after the closing keyword
};
template <NodeKind K>
struct CommandOf : Command {
    static constexpr NodeKind Kind = K;
};

// A command in a list, terminated by ; & or a newline.
struct Stmt : NodeOf<NodeKind::Stmt> {
    Command* cmd = nullptr;
    bool background = false;  // terminated by &
};

struct Simple : CommandOf<NodeKind::Simple> {
    List<Assign*> assigns;  // leading assignments
    List<Word*> words;      // command name and arguments (may be empty: `a=1` or `>f`)
};

struct Pipeline : CommandOf<NodeKind::Pipeline> {
    bool negated = false;     // !
    bool timed = false;       // time
    bool time_posix = false;  // time -p
    List<Command*> stages;    // at least one (zero only for a bare `time` or `!`)
    List<uint8_t> stderr_too; // size stages.size - 1; 1 where the joint is |&
};

enum class AndOrOp : uint8_t { And, Or };
struct AndOr : CommandOf<NodeKind::AndOr> {
    List<Command*> items;  // at least two
    List<AndOrOp> ops;     // items.size - 1
};

struct Brace : CommandOf<NodeKind::Brace> {
    List<Stmt*> body;
};
struct Subshell : CommandOf<NodeKind::Subshell> {
    List<Stmt*> body;
};

struct IfClause {
    Pos pos;
    List<Stmt*> cond;
    List<Stmt*> body;
};
struct If : CommandOf<NodeKind::If> {
    List<IfClause> clauses;  // if, then each elif
    bool has_else = false;
    List<Stmt*> else_body;
};

struct While : CommandOf<NodeKind::While> {
    bool until = false;
    List<Stmt*> cond;
    List<Stmt*> body;
};

struct For : CommandOf<NodeKind::For> {
    std::string_view var;
    Pos var_pos;
    bool has_in = false;  // `for x; do` iterates "$@"
    List<Word*> items;
    bool brace_body = false;  // for x in a; { ...; }
    List<Stmt*> body;
};
struct Select : CommandOf<NodeKind::Select> {
    std::string_view var;
    Pos var_pos;
    bool has_in = false;
    List<Word*> items;
    List<Stmt*> body;
};

// One of the three parts of for ((init; cond; step)); each may be empty (raw is an empty Word).
struct ArithPart {
    Word* raw = nullptr;
    ArithExpr* expr = nullptr;
    bool exact = false;  // expr may be evaluated as it is (see arith_exact in parser.hpp)
};
struct ArithFor : CommandOf<NodeKind::ArithFor> {
    ArithPart init, cond, step;
    bool brace_body = false;
    List<Stmt*> body;
};

enum class CaseTerm : uint8_t { Break /* ;; */, FallThrough /* ;& */, Continue /* ;;& */, None /* last */ };
struct CaseItem {
    Pos pos;
    List<Word*> patterns;
    List<Stmt*> body;
    CaseTerm term = CaseTerm::Break;
};
struct Case : CommandOf<NodeKind::Case> {
    Word* subject = nullptr;
    List<CaseItem> items;
};

struct ArithCmd : CommandOf<NodeKind::ArithCmd> {  // (( ... ))
    Word* raw = nullptr;
    ArithExpr* expr = nullptr;
    bool exact = false;  // expr may be evaluated as it is (see arith_exact in parser.hpp)
};

struct CondCmd : CommandOf<NodeKind::CondCmd> {  // [[ ... ]]
    CondExpr* expr = nullptr;
};

struct FuncDef : CommandOf<NodeKind::FuncDef> {
    std::string_view name;
    bool keyword = false;  // written with `function`
    bool parens = false;   // written with ()
    Command* body = nullptr;  // a compound command; its redirs belong to the definition
};

struct Coproc : CommandOf<NodeKind::Coproc> {
    std::string_view name;  // empty means COPROC
    Command* body = nullptr;
};

// ---------------------------------------------------------------- [[ ]] expressions

struct CondExpr : Node {};
template <NodeKind K>
struct CondOf : CondExpr {
    static constexpr NodeKind Kind = K;
};
struct CondWord : CondOf<NodeKind::CondWord> {  // [[ word ]]: true when non-empty
    Word* word = nullptr;
};
struct CondUnary : CondOf<NodeKind::CondUnary> {
    std::string_view op;  // "-f", "-z", "-v", ...
    Word* arg = nullptr;
};
struct CondBinary : CondOf<NodeKind::CondBinary> {
    std::string_view op;  // "==", "=", "!=", "=~", "<", ">", "-eq", "-nt", ...
    Word* left = nullptr;
    Word* right = nullptr;  // a pattern for == and !=, a regex for =~
};
struct CondNot : CondOf<NodeKind::CondNot> {
    CondExpr* expr = nullptr;
};
struct CondAnd : CondOf<NodeKind::CondAnd> {
    CondExpr* left = nullptr;
    CondExpr* right = nullptr;
};
struct CondOr : CondOf<NodeKind::CondOr> {
    CondExpr* left = nullptr;
    CondExpr* right = nullptr;
};
struct CondParen : CondOf<NodeKind::CondParen> {
    CondExpr* expr = nullptr;
};

// ---------------------------------------------------------------- arithmetic

struct ArithExpr : Node {
    // Byte offsets in the arithmetic text (the literal parts of the raw word, counted from its start): where
    // the node's first token starts and where its last token ends. Error messages quote the text from them.
    uint32_t begin = 0;
    uint32_t end = 0;
};
template <NodeKind K>
struct ArithOf : ArithExpr {
    static constexpr NodeKind Kind = K;
};

enum class ArithOp : uint8_t {
    // unary
    Plus, Minus, Not, BitNot, PreInc, PreDec, PostInc, PostDec,
    // binary, by precedence from low to high
    Comma,
    LogOr, LogAnd, BitOr, BitXor, BitAnd,
    Eq, Ne, Lt, Le, Gt, Ge,
    Shl, Shr,
    Add, Sub, Mul, Div, Mod, Pow,
    // assignment
    AssignEq, AddEq, SubEq, MulEq, DivEq, ModEq, ShlEq, ShrEq, AndEq, XorEq, OrEq,
};

// How an operator is written.
constexpr std::string_view arith_op_text(ArithOp op) {
    switch (op) {
    case ArithOp::Plus: case ArithOp::Add: return "+";
    case ArithOp::Minus: case ArithOp::Sub: return "-";
    case ArithOp::Not: return "!";
    case ArithOp::BitNot: return "~";
    case ArithOp::PreInc: case ArithOp::PostInc: return "++";
    case ArithOp::PreDec: case ArithOp::PostDec: return "--";
    case ArithOp::Comma: return ",";
    case ArithOp::LogOr: return "||";
    case ArithOp::LogAnd: return "&&";
    case ArithOp::BitOr: return "|";
    case ArithOp::BitXor: return "^";
    case ArithOp::BitAnd: return "&";
    case ArithOp::Eq: return "==";
    case ArithOp::Ne: return "!=";
    case ArithOp::Lt: return "<";
    case ArithOp::Le: return "<=";
    case ArithOp::Gt: return ">";
    case ArithOp::Ge: return ">=";
    case ArithOp::Shl: return "<<";
    case ArithOp::Shr: return ">>";
    case ArithOp::Mul: return "*";
    case ArithOp::Div: return "/";
    case ArithOp::Mod: return "%";
    case ArithOp::Pow: return "**";
    case ArithOp::AssignEq: return "=";
    case ArithOp::AddEq: return "+=";
    case ArithOp::SubEq: return "-=";
    case ArithOp::MulEq: return "*=";
    case ArithOp::DivEq: return "/=";
    case ArithOp::ModEq: return "%=";
    case ArithOp::ShlEq: return "<<=";
    case ArithOp::ShrEq: return ">>=";
    case ArithOp::AndEq: return "&=";
    case ArithOp::XorEq: return "^=";
    case ArithOp::OrEq: return "|=";
    }
    return "?";
}

// Bash's precedence of the binary operators, the one table that the parser, the printer and the text
// evaluator read: from 1 (||) to 11 (**, right associative); 0 for the others (comma, assignments, unary).
constexpr int arith_precedence(ArithOp op) {
    switch (op) {
    case ArithOp::LogOr: return 1;
    case ArithOp::LogAnd: return 2;
    case ArithOp::BitOr: return 3;
    case ArithOp::BitXor: return 4;
    case ArithOp::BitAnd: return 5;
    case ArithOp::Eq: case ArithOp::Ne: return 6;
    case ArithOp::Lt: case ArithOp::Le: case ArithOp::Gt: case ArithOp::Ge: return 7;
    case ArithOp::Shl: case ArithOp::Shr: return 8;
    case ArithOp::Add: case ArithOp::Sub: return 9;
    case ArithOp::Mul: case ArithOp::Div: case ArithOp::Mod: return 10;
    case ArithOp::Pow: return 11;
    default: return 0;
    }
}
inline constexpr int kArithMaxPrecedence = 11;

struct ArithNum : ArithOf<NodeKind::ArithNum> {
    std::string_view text;  // as written: 42 0x1f 017 2#101 64#z
    // A decimal constant without a leading 0 and of at most 18 digits (the common `i<1000000`) is converted
    // once by the parser; any other form is converted by the evaluator, which reports its errors.
    bool has_value = false;
    int64_t value = 0;
};
struct ArithVar : ArithOf<NodeKind::ArithVar> {
    std::string_view name;
    // name[index]: the subscript as parsed from a script (a word, expanded when evaluated), or as text (in
    // text evaluated at run time, the bytes between the brackets, which the interpreter expands).
    Word* index = nullptr;
    std::string_view index_text;
    bool has_index = false;
    // `=` follows: bash does not read the variable (it reads 0 here if the assignment turns out invalid).
    bool unread = false;
    // How deeply the parser had nested when it read the name: an evaluation the host starts for the
    // subscript or the value continues this count (the bound on nesting is shared).
    uint32_t nest = 0;
};
struct ArithWord : ArithOf<NodeKind::ArithWord> {  // an expansion: $x ${x} $(cmd) "..."
    Word* word = nullptr;
};
struct ArithUnary : ArithOf<NodeKind::ArithUnary> {
    ArithOp op;  // Plus Minus Not BitNot PreInc PreDec
    ArithExpr* operand = nullptr;
};
struct ArithPostfix : ArithOf<NodeKind::ArithPostfix> {
    ArithOp op;  // PostInc PostDec
    ArithExpr* operand = nullptr;
};
struct ArithBinary : ArithOf<NodeKind::ArithBinary> {
    ArithOp op;
    ArithExpr* left = nullptr;
    ArithExpr* right = nullptr;
    uint32_t op_end = 0;  // where the operator ends (a division by 0 blames the text from there)
};
struct ArithAssign : ArithOf<NodeKind::ArithAssign> {
    ArithOp op;                   // AssignEq, AddEq, ...
    ArithExpr* target = nullptr;  // ArithVar (or ArithWord, checked at run time)
    ArithExpr* value = nullptr;
};
struct ArithTernary : ArithOf<NodeKind::ArithTernary> {
    ArithExpr* cond = nullptr;
    ArithExpr* then_expr = nullptr;
    ArithExpr* else_expr = nullptr;
};
struct ArithParen : ArithOf<NodeKind::ArithParen> {
    ArithExpr* inner = nullptr;
};
// Where bash stops with a syntax error. Bash evaluates while it parses, so what it read before the error
// has had its effects: `before` (null: nothing) is evaluated first, then the error is reported. Trees of a
// script never hold one (expr is null there); trees of text evaluated at run time do.
struct ArithError : ArithOf<NodeKind::ArithError> {
    ArithExpr* before = nullptr;
    std::string_view message;  // complete: `1 +: syntax error: operand expected (error token is "+")`
};
// An operand followed by a stray name, which bash reads (evaluating its value) as it looks ahead, before
// the syntax error that the stray token causes further out. Its value is the operand's.
struct ArithLookahead : ArithOf<NodeKind::ArithLookahead> {
    ArithExpr* operand = nullptr;
    ArithVar* next = nullptr;
};

// ---------------------------------------------------------------- root

struct Script : NodeOf<NodeKind::Script> {
    List<Stmt*> body;
};

// ---------------------------------------------------------------- arena

// Bump allocator for nodes. Every type allocated here must be trivially destructible. The first kilobyte is
// part of the arena itself, so a one-line command parses without a separate allocation for its nodes.
class Arena {
public:
    Arena() : res_(first_, sizeof first_) {}
    // Blocks past the first from `upstream` (which may count them).
    explicit Arena(std::pmr::memory_resource* upstream) : res_(first_, sizeof first_, upstream) {}
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    template <class T, class... Args>
    T* make(Args&&... args) {
        static_assert(std::is_trivially_destructible_v<T>);
        void* p = res_.allocate(sizeof(T), alignof(T));
        return new (p) T{std::forward<Args>(args)...};
    }
    template <class N>
    N* node(Pos pos) {
        static_assert(std::is_trivially_destructible_v<N>);
        void* p = res_.allocate(sizeof(N), alignof(N));
        N* n = new (p) N{};
        n->kind = N::Kind;
        n->pos = pos;
        return n;
    }
    // Copies a range (e.g. a std::vector being built by the parser) into the arena.
    template <class T, class Range>
    List<T> list(const Range& r) {
        static_assert(std::is_trivially_destructible_v<T>);
        List<T> out;
        out.size = static_cast<uint32_t>(std::size(r));
        if (out.size == 0) return out;
        T* p = static_cast<T*>(res_.allocate(sizeof(T) * out.size, alignof(T)));
        uint32_t i = 0;
        for (const auto& x : r) new (p + i++) T(x);
        out.data = p;
        return out;
    }
    std::string_view str(std::string_view s) {
        if (s.empty()) return {};
        char* p = static_cast<char*>(res_.allocate(s.size(), 1));
        for (size_t i = 0; i < s.size(); ++i) p[i] = s[i];
        return {p, s.size()};
    }

private:
    alignas(std::max_align_t) std::byte first_[1024];
    std::pmr::monotonic_buffer_resource res_;
};

}  // namespace bashkit::syntax
