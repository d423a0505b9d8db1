// Printer and JSON dump: round trips through the parser, the canonical style, and JSON well-formedness.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::syntax {
// Defined in printer.cpp, not part of printer.hpp.
std::string print_arith(const ArithExpr& expr);
}  // namespace bashkit::syntax

namespace {

using namespace bashkit::syntax;

// ---------------------------------------------------------------- a strict JSON checker (iterative: the
// dump of a deep tree is deeply nested)

class JsonChecker {
public:
    explicit JsonChecker(std::string_view s) : s_(s) {}
    bool ok() {
        std::vector<char> stack;  // '{' or '['
        ws();
        for (;;) {
            // expecting a value
            if (i_ >= s_.size()) return false;
            char c = s_[i_];
            if (c == '{' || c == '[') {
                ++i_;
                ws();
                if (i_ < s_.size() && s_[i_] == (c == '{' ? '}' : ']')) {
                    ++i_;
                } else {
                    stack.push_back(c);
                    if (c == '{' && !member_key()) return false;
                    continue;
                }
            } else if (c == '"') {
                if (!string()) return false;
            } else if (c == 't') {
                if (!lit("true")) return false;
            } else if (c == 'f') {
                if (!lit("false")) return false;
            } else if (c == 'n') {
                if (!lit("null")) return false;
            } else if (!number()) {
                return false;
            }
            // after a value: close containers or move to the next element
            for (;;) {
                ws();
                if (stack.empty()) return i_ == s_.size();
                char top = stack.back();
                if (lit(",")) {
                    ws();
                    if (top == '{' && !member_key()) return false;
                    break;
                }
                if (lit(top == '{' ? "}" : "]")) {
                    stack.pop_back();
                    continue;
                }
                return false;
            }
        }
    }

private:
    std::string_view s_;
    size_t i_ = 0;

    void ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
    }
    bool lit(std::string_view w) {
        if (s_.substr(i_, w.size()) != w) return false;
        i_ += w.size();
        return true;
    }
    bool member_key() {
        ws();
        if (i_ >= s_.size() || s_[i_] != '"' || !string()) return false;
        ws();
        if (!lit(":")) return false;
        ws();
        return true;
    }
    bool number() {
        size_t start = i_;
        if (i_ < s_.size() && s_[i_] == '-') ++i_;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
        return i_ > start && s_[i_ - 1] != '-';
    }
    bool string() {
        ++i_;
        while (i_ < s_.size()) {
            unsigned char c = static_cast<unsigned char>(s_[i_]);
            if (c == '"') return ++i_, true;
            if (c < 0x20) return false;
            if (c == '\\') {
                ++i_;
                if (i_ >= s_.size()) return false;
                char e = s_[i_];
                if (e == 'u') {
                    if (i_ + 4 >= s_.size()) return false;
                    for (int k = 1; k <= 4; ++k) {
                        if (!isxdigit(static_cast<unsigned char>(s_[i_ + k]))) return false;
                    }
                    i_ += 5;
                    continue;
                }
                if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) return false;
                ++i_;
                continue;
            }
            if (c >= 0x80) {
                size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
                if (n == 0 || c > 0xF4 || i_ + n > s_.size()) return false;
                for (size_t k = 1; k < n; ++k) {
                    if ((static_cast<unsigned char>(s_[i_ + k]) & 0xC0) != 0x80) return false;
                }
                i_ += n;
                continue;
            }
            ++i_;
        }
        return false;
    }
};

bool valid_json(std::string_view s) { return JsonChecker(s).ok(); }

// ---------------------------------------------------------------- /bin/bash as an oracle when present

bool bash_accepts(const std::string& src, bool extglob) {
    if (access("/bin/bash", X_OK) != 0) return true;
    char path[] = "/tmp/bashkit_printer_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return true;
    {
        std::ofstream f(path, std::ios::binary);
        f << src;
    }
    close(fd);
    std::string cmd = std::string("/bin/bash ") + (extglob ? "-O extglob " : "") + "-n " + path + " 2>/dev/null";
    int rc = std::system(cmd.c_str());
    unlink(path);
    return rc == 0;
}

// ---------------------------------------------------------------- round trips

struct RoundTripCase {
    const char* src;
    bool extglob = false;
};
// One line, so that test discovery (which reads the test list) is not confused.
void PrintTo(const RoundTripCase& c, std::ostream* os) {
    static constexpr char hex[] = "0123456789abcdef";
    *os << (c.extglob ? "[extglob] " : "");
    for (const char* p = c.src; *p != '\0'; ++p) {
        unsigned char b = static_cast<unsigned char>(*p);
        if (b == '\n') {
            *os << "\\n";
        } else if (b < 0x20 || b >= 0x7f || b == '\\') {  // a final backslash would continue the line
            *os << "\\x" << hex[b >> 4] << hex[b & 15];
        } else {
            *os << *p;
        }
    }
}

void check_round_trip(std::string_view src, bool extglob) {
    ParseOptions opts;
    opts.extglob = extglob;
    ParseResult first = parse(src, opts);
    ASSERT_TRUE(first.ok()) << "source does not parse: " << first.error->message << "\n" << src;
    std::string printed = print(*first.script);
    ParseResult second = parse(printed, opts);
    ASSERT_TRUE(second.ok()) << "printed source does not parse: " << second.error->message << "\n--- source\n"
                             << src << "\n--- printed\n"
                             << printed;
    EXPECT_EQ(to_json(*first.script, false), to_json(*second.script, false))
        << "--- source\n" << src << "\n--- printed\n" << printed;
    EXPECT_EQ(print(*second.script), printed) << "printing is not idempotent\n--- source\n" << src;
    std::string json = to_json(*first.script, true);
    EXPECT_TRUE(valid_json(json)) << json;
    EXPECT_TRUE(valid_json(to_json(*first.script, false)));
    EXPECT_TRUE(bash_accepts(printed, extglob)) << "bash -n rejects the printed source\n" << printed;
}

class RoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(RoundTrip, ParsePrintReparse) { check_round_trip(GetParam().src, GetParam().extglob); }

const RoundTripCase kRoundTrips[] = {
    // simple commands and quoting
    {"echo hello world"},
    {"echo 'single quoted' \"double $x quoted\""},
    {"echo \\* \\$HOME \\\\ \\' \\\""},
    {"echo \"a\\\"b\\\\c\\$d\\`e\""},
    {"echo \"\\n stays \\t\""},
    {"echo \"line1\nline2\""},
    {"echo 'multi\nline'"},
    {"echo \"ends with backslash\\\\\" x"},
    {"echo \"$\" \"a$ b\" \"$x$\""},
    {"echo $'a\\nb\\'c' $'\\x41\\u00e9'"},
    {"echo $\"locale $x\""},
    {"echo \"\" '' x\"\"y"},
    {"echo -- -n -e"},
    {"echo if then fi done esac in"},
    {"'if' x"},
    {"\\if x"},
    {"echo {a,b} {1..3} ~ ~/x ~user"},
    {"echo a#b '#c' \\#d"},
    {"echo } { ]] [["},
    {"\\{ x"},
    {"echo é ü 日本"},
    {"echo \xff\xfe \"\xc3\""},
    {"echo $'\\xff'"},
    {"trap 'echo hi' EXIT"},
    {"eval \"$(cmd)\""},
    {"echo a\\\n  continued"},
    {"echo a; echo b"},
    {"echo a;echo b;"},
    // assignments
    {"a=1"},
    {"a=1 b=2 cmd arg"},
    {"a+=x"},
    {"a= b="},
    {"a[1]=x a[$i+1]+=y"},
    {"arr=(1 2 \"three four\")"},
    {"arr=([0]=a [k]+=b c)"},
    {"arr+=(x)"},
    {"arr=()"},
    {"x=$(cmd) y=`cmd` z=$((1+2))"},
    {"PATH=$PATH:/bin cmd"},
    {"declare -a arr=(1 2) x=3"},
    {"local x y=$z"},
    {"export PATH=\"$PATH:/bin\""},
    {"readonly -a r=(a b)"},
    {"typeset -A m=([k]=v [k2]=v2)"},
    {"declare x"},
    // parameter expansions
    {"echo $x ${x} $1 ${10} $@ $* $# $? $- $$ $! $0"},
    {"echo ${#x} ${#a[@]} ${#} ${##}"},
    {"echo ${x-d} ${x:-d} ${x=d} ${x:=d} ${x?e} ${x:?e} ${x+a} ${x:+a}"},
    {"echo ${x:-} ${x-} ${x:=}"},
    {"echo ${x#p} ${x##p*} ${x%s} ${x%%s*}"},
    {"echo ${x/a/b} ${x//a/b} ${x/#a/b} ${x/%a/b}"},
    {"echo ${x/a} ${x/a/} ${x//a}"},
    {"echo ${x:1} ${x:1:2} ${x: -1} ${x:(-2):1} ${x::3}"},
    {"echo ${x:$i:$((n-1))}"},
    {"echo ${x^} ${x^^} ${x,} ${x,,} ${x^^[ab]} ${x,p}"},
    {"echo ${x@Q} ${x@U} ${a[@]@K} ${x@E} ${x@P} ${x@A} ${x@a} ${x@u} ${x@L} ${x@k}"},
    {"echo ${!pre*} ${!pre@}"},
    {"echo ${!a[@]} ${!a[*]}"},
    {"echo ${!ref} ${!ref-def} ${!ref:+x}"},
    {"echo ${a[1]} ${a[@]} ${a[*]} ${a[$i]} ${a[i+1]:-x}"},
    {"echo \"${x:-\"nested $y\"}\""},
    {"echo ${x:-$(cmd)} ${x:-`cmd`} ${x:-'q'}"},
    {"echo \"${a[@]}\" \"${x#\"$p\"}\""},
    {"echo ${x//\\//_}"},
    {"echo \"${x#\\$\\$}\" \"${x#\\*}\" \"${x:-'a'}\" \"${x:-\\\"q\\\"}\" \"${x:-a\\\\b}\""},
    {"echo \"${x:-\\}}\" \"${x:-a}b}\" \"${x:-${y:-\\}}}\" \"${a[\\$i]}\" \"${a[\"k\"]}\""},
    {"echo \"${x:-$(echo \"a\")}\" \"${x:-`echo a`}\" ${x:-$'a'}"},
    {"echo \"${x/a/b\\/c}\" \"${x:1:\\$n}\""},
    {"declare -a a=( 1   2 ) b=x"},
    {"declare -A m=(\n  [a]=1\n  [b]=2\n)"},
    {"cat <<$(x)\nbody\n$(x)\n"},
    {"cat <<a$b'c'\n$x\na$bc\n"},
    {"echo a \\"},
    {"cat <<\\"},  // a delimiter that is a backslash ending the input: quoted, printed `\\`
    {"cat <<EOF\n${x:-\\}} ${x:-\"q\"} ${x:-\\\"q\\\"} ${x:-\\$} $x\\$\nEOF\n"},
    {"echo ${x}y $x\"y\" ${x}_1"},
    {": ${x:=default}"},
    // substitutions
    {"echo $(cmd arg) $(a; b)"},
    {"echo \"$(cmd \"$x\")\""},
    {"echo `cmd`"},
    {"echo `echo \\`inner\\``"},
    {"echo \"`echo hi`\""},
    {"echo `echo \\\\a`"},
    {"echo $( (sub) )"},
    {"echo $(a &)"},
    {"echo $(if a; then b; else c; fi)"},
    {"echo $(case $x in a) b;; esac)"},
    {"echo $(while a; do b; done; f() { g; })"},
    {"echo $()"},
    {"echo $((1 + 2)) $[3*4] $(( x++ ))"},
    {"echo $((a[1] + $b)) $(( $(cmd) * 2 ))"},
    {"echo $(( (1) + 2 ))"},
    {"diff <(a) >(b)"},
    {"cat < <(cmd)"},
    {"cmd > >(tee log)"},
    {"x=$(a | b) y=\"$(c && d)\""},
    // redirections
    {"cmd >out 2>err <in"},
    {"cmd >>out 2>&1 &>all"},
    {"cmd &>>all"},
    {"cmd 3<>rw 4>|f <&3 >&- 5<&-"},
    {"exec {fd}>file {fd2}<&-"},
    {">file"},
    {"<in cmd"},
    {">f if"},
    {">f in x"},
    {">f ]] x"},
    {"2>/dev/null"},
    {"cmd <<<\"here string\" 0<<<x"},
    {"cmd >\"$out\" 2>>'log file'"},
    {"cmd >&2"},
    {"echo x 2 >f"},
    // here-documents
    {"cat <<EOF\nhello $x\nEOF\n"},
    {"cat <<'EOF'\n$x `y` \\z\nEOF\n"},
    {"cat <<\"EOF\"\n$x\nEOF\n"},
    {"cat <<E\\OF\n$x\nEOF\n"},
    {"cat <<-EOF\n\tindented $x\n\t\tdeeper\n\tEOF\n"},
    {"cat <<-'EOF'\n\tq\n\tEOF\n"},
    {"cat <<A <<B\na\nA\nb\nB\n"},
    {"cat <<A; cat <<B\na\nA\nb\nB\n"},
    {"cat <<EOF\na\\\\b \\$x \\` \\\"q\\\" $(cmd) $((1+1)) ${y:-z}\nEOF\n"},
    {"cat <<EOF\n\nEOF\n"},
    {"cat <<EOF | grep x\nax\nEOF\n"},
    {"cat <<EOF >out\nbody\nEOF\n"},
    {"x=$(cat <<EOF\nin subst\nEOF\n)"},
    {"echo \"$(cat <<'EOF'\nq\nEOF\n)\""},
    {"while read -r l; do echo \"$l\"; done <<EOF\n1\n2\nEOF\n"},
    {"if cat <<EOF; then\nc\nEOF\n  echo; fi"},
    {"f() {\n  cat <<EOF\n  body\nEOF\n}"},
    {"cat <<EOF && echo ok\nx\nEOF\n"},
    {"{ cat <<EOF; }\nx\nEOF\n"},
    // pipelines and lists
    {"a | b | c"},
    {"a |& b"},
    {"! a | b"},
    {"time a"},
    {"time -p a | b"},
    {"! time a"},
    {"time ! a"},
    {"time"},
    {"a && b || c"},
    {"! a && b"},
    {"a & b; c &"},
    {"a &\nb"},
    {"a && b &"},
    {"cmd 2>/dev/null || true"},
    {"[ -f x ] && echo yes"},
    // compound commands
    {"{ a; b; }"},
    {"{ a; } >out 2>&1"},
    {"(a; b)"},
    {"( (a) )"},
    {"(a &)"},
    {"(a) | (b)"},
    {"(if a; then b; fi)"},
    {"if a; then b; fi"},
    {"if a; then b; elif c; then d; else e; fi"},
    {"if ! a; then :; fi"},
    {"if a & then b; fi"},
    {"if a; b; then c; d; fi > out"},
    {"while a; do b; done"},
    {"until a; do b; done"},
    {"while read -r l; do echo \"$l\"; done < file"},
    {"for x in a b c; do echo $x; done"},
    {"for x; do echo; done"},
    {"for x in; do :; done"},
    {"for x in a; { echo; }"},
    {"for ((i=0; i<3; i++)); do echo; done"},
    {"for ((;;)); do break; done"},
    {"for ((i=0;i<3;i++)) { echo; }"},
    {"select x in a b; do break; done"},
    {"case $x in a) echo a;; b|c) echo bc;& d) ;;& *) echo def;; esac"},
    {"case x in (a) b;; esac"},
    {"case x in a) b; esac"},
    {"case x in a) b & esac"},
    {"case x in esac"},
    {"case x in (esac) a;; esac"},
    {"case x in a) ;; b) esac"},
    {"case \"$1\" in -h|--help) usage; exit 0;; *.txt) cat \"$1\";; esac"},
    {"((x = 1 + 2))"},
    {"(( x++ ))"},
    {"((a[1] += $b))"},
    {"[[ -f file ]]"},
    {"[[ $a == b* ]]"},
    {"[[ a < b && c > d ]]"},
    {"[[ ! -z $x || ( -n $y && $z =~ ^[0-9]+$ ) ]]"},
    {"[[ $x =~ (a|b)+ ]]"},
    {"[[ a && b || c && d ]]"},
    {"[[ a || b && c ]]"},
    {"[[ ( a || b ) && c ]]"},
    {"[[ ! ! a ]]"},
    {"[[ ! ( a && b ) ]]"},
    {"[[ x ]]"},
    {"[[ -v a[1] ]]"},
    {"[[ $a -eq 1 && $b -nt c ]]"},
    {"[[ $x == @(a|b) ]]"},
    {"[[ \"$a\" != \"$b\" ]]"},
    {"f() { echo; }"},
    {"function f { echo; }"},
    {"function f() { echo; }"},
    {"f() ( sub )"},
    {"f() { a; } >log"},
    {"f() if a; then b; fi"},
    {"f() { g() { h; }; }"},
    {"coproc cat"},
    {"coproc NAME { cat; }"},
    {"coproc { cat; }"},
    // extglob
    {"echo @(a|b) !(x) *(y) +(z) ?(w)", true},
    {"case $f in *.@(jpg|png)) echo img;; esac", true},
    // a `${` read while the `$(` before it was read speculatively past its `)` (with extglob, `!(` took it)
    // is read again at the word's own read, which checks the end of its parts (`;` ends the word)
    {"${$(${x:${x%!(}})${a[}};]}${a[};]}", true},
    // larger scripts
    {"#!/bin/bash\n# comment\nset -euo pipefail\n\nmain() {\n  local n=${1:-3}\n  for ((i = 0; i < n; i++)); do\n"
     "    if (( i % 2 )); then\n      echo \"odd $i\"\n    else\n      case $i in\n        0) echo zero ;;\n"
     "        *) echo \"even $i\" ;;\n      esac\n    fi\n  done\n}\nmain \"$@\" 2>&1 | tee log &\nwait\n"},
    {"usage() {\n  cat <<EOF >&2\nusage: $0 [-v] file\nEOF\n  exit 1\n}\nwhile getopts v opt; do\n"
     "  case $opt in v) verbose=1 ;; *) usage ;; esac\ndone\nshift $((OPTIND - 1))\n"},
    {"for f in *.txt; do\n  [[ -s $f ]] || continue\n  n=$(wc -l < \"$f\")\n  total=$((total + n))\ndone\n"
     "echo \"total: ${total:-0}\""},
    {"arr=(one two three)\nfor i in \"${!arr[@]}\"; do printf '%d=%s\\n' \"$i\" \"${arr[i]}\"; done"},
    {"if [[ -n ${DEBUG+x} ]]; then set -x; fi; trap 'rm -f \"$tmp\"' EXIT; tmp=$(mktemp)"},
};

INSTANTIATE_TEST_SUITE_P(Printer, RoundTrip, ::testing::ValuesIn(kRoundTrips),
                         [](const ::testing::TestParamInfo<RoundTripCase>& info) {
                             return "case" + std::to_string(info.index);
                         });

// ---------------------------------------------------------------- canonical style

std::string reprint(std::string_view src) {
    ParseResult r = parse(src);
    if (!r.ok()) return "PARSE ERROR: " + r.error->message;
    return print(*r.script);
}

struct StyleCase {
    const char* src;
    const char* expected;
};

TEST(PrinterStyle, CanonicalOutput) {
    const StyleCase cases[] = {
        {"echo  a   b", "echo a b\n"},
        {"if a; then b; elif c; then d; else e; fi",
         "if a; then\n    b\nelif c; then\n    d\nelse\n    e\nfi\n"},
        {"f() { echo hi; }", "f() {\n    echo hi\n}\n"},
        {"function g { :; }", "function g {\n    :\n}\n"},
        {"case $x in a|b) echo;; *) ;; esac", "case $x in\na | b)\n    echo\n    ;;\n*) ;;\nesac\n"},
        {"for i in 1 2; do echo $i; done", "for i in 1 2; do\n    echo $i\ndone\n"},
        {"while true; do { a; b; }; done", "while true; do\n    {\n        a\n        b\n    }\ndone\n"},
        {"echo $(a; b) && (c; d)", "echo $(a; b) && (c; d)\n"},
        {"a & b", "a &\nb\n"},
        {"a&&b||c", "a && b || c\n"},
        {"cat <<EOF >out\nhi\nEOF", "cat <<EOF >out\nhi\nEOF\n"},
        {"cat <<A <<B\na\nA\nb\nB\n", "cat <<A <<B\na\nA\nb\nB\n"},
        {"x=$(cat <<EOF\nin\nEOF\n)", "x=$(cat <<EOF\nin\nEOF\n)\n"},
        {"echo `a`", "echo `a`\n"},
        {"! a | b |& c", "! a | b |& c\n"},
        {"time -p a", "time -p a\n"},
        {"[[ a&&b ]]", "[[ a && b ]]\n"},
        {"echo $( (a) )", "echo $( (a) )\n"},
        {"cat < <(a)", "cat < <(a)\n"},
        {"a=( 1  2 )", "a=(1 2)\n"},
        {"for ((i=0;i<2;i++)) do echo; done", "for ((i=0;i<2;i++)); do\n    echo\ndone\n"},
        {"cat <<-EOF\n\t\tx\n\tEOF\n", "cat <<-EOF\n\tx\n\tEOF\n"},
        {"until a; do b & done", "until a; do\n    b &\ndone\n"},
        {"echo a \\", "echo a \\\\\n"},
        {">D \\", "\\\\ >D\n"},
        {"if a; then\n  cat <<EOF\nx\nEOF\nfi", "if a; then\n    cat <<EOF\nx\nEOF\nfi\n"},
        {"echo \"a\\$b\\\"c\"", "echo \"a\\$b\\\"c\"\n"},
        {"", ""},
    };
    for (const StyleCase& c : cases) EXPECT_EQ(reprint(c.src), c.expected) << c.src;
}

// ---------------------------------------------------------------- hand-built trees (no parser involved)

class Build {
public:
    Arena arena;
    Pos p{1, 1};

    template <class T>
    List<T> list(std::initializer_list<T> items) {
        return arena.list<T>(std::vector<T>(items));
    }
    Node* lit(std::string_view s) {
        Lit* n = arena.node<Lit>(p);
        n->text = arena.str(s);
        return n;
    }
    Word* word(std::initializer_list<Node*> parts) {
        Word* w = arena.node<Word>(p);
        w->parts = list<Node*>(parts);
        return w;
    }
    Word* w(std::string_view s) { return word({lit(s)}); }
    Node* dq(std::initializer_list<Node*> parts) {
        DblQuoted* n = arena.node<DblQuoted>(p);
        n->parts = list<Node*>(parts);
        return n;
    }
    Simple* simple(std::initializer_list<Word*> words) {
        Simple* s = arena.node<Simple>(p);
        s->words = list<Word*>(words);
        return s;
    }
    Stmt* stmt(Command* c, bool bg = false) {
        Stmt* s = arena.node<Stmt>(p);
        s->cmd = c;
        s->background = bg;
        return s;
    }
    Script* script(std::initializer_list<Stmt*> body) {
        Script* s = arena.node<Script>(p);
        s->body = list<Stmt*>(body);
        return s;
    }
    Node* cmd_subst(std::initializer_list<Stmt*> body, bool backquote = false) {
        CmdSubst* c = arena.node<CmdSubst>(p);
        c->body = list<Stmt*>(body);
        c->backquote = backquote;
        return c;
    }
    Redirect* heredoc(std::string_view delim, std::string_view body, bool quoted = false, bool strip = false) {
        Redirect* r = arena.node<Redirect>(p);
        r->op = RedirOp::HereDoc;
        r->target = w(delim);
        r->delim = arena.str(delim);
        r->body = w(body);
        r->quoted_delim = quoted;
        r->strip_tabs = strip;
        return r;
    }
};

TEST(PrinterBuilt, DoubleQuotedLitIsReescaped) {
    Build b;
    Word* w = b.word({b.dq({b.lit("a\"b\\c$d`e\\n$"), b.lit("\n")})});
    EXPECT_EQ(print(*w), "\"a\\\"b\\c\\$d\\`e\\n\\$\n\"");
}

TEST(PrinterBuilt, WordPartsVerbatim) {
    Build b;
    Escaped* e = b.arena.node<Escaped>(b.p);
    e->text = "*";
    SglQuoted* s = b.arena.node<SglQuoted>(b.p);
    s->text = "a b";
    AnsiCQuoted* a = b.arena.node<AnsiCQuoted>(b.p);
    a->raw = "\\n";
    a->value = "\n";
    EXPECT_EQ(print(*b.word({b.lit("x"), e, s, a})), "x\\*'a b'$'\\n'");
}

TEST(PrinterBuilt, HereDocInsideSubstitutionStaysInside) {
    Build b;
    Simple* cat = b.simple({b.w("cat")});
    cat->redirs = b.list<Redirect*>({b.heredoc("EOF", "x $\n")});
    Simple* echo = b.simple({b.w("echo"), b.word({b.cmd_subst({b.stmt(cat)})}), b.w("y")});
    Script* s = b.script({b.stmt(echo)});
    EXPECT_EQ(print(*s), "echo $(cat <<EOF\nx $\nEOF\n) y\n");
}

TEST(PrinterBuilt, QuotedHereDocBodyIsVerbatimAndTabsIndentStripped) {
    Build b;
    Simple* cat = b.simple({b.w("cat")});
    Redirect* r = b.heredoc("E", "$x \\ `\nline\n", true, true);
    r->target = b.w("'E'");
    cat->redirs = b.list<Redirect*>({r});
    Simple* unq = b.simple({b.w("cat")});
    unq->redirs = b.list<Redirect*>({b.heredoc("F", "$x \\ ` \\\n")});
    Script* s = b.script({b.stmt(cat), b.stmt(unq)});
    EXPECT_EQ(print(*s), "cat <<-'E'\n\t$x \\ `\n\tline\n\tE\ncat <<F\n\\$x \\ \\` \\\\\nF\n");
}

TEST(PrinterBuilt, BackquoteBodyIsEscaped) {
    Build b;
    Escaped* e = b.arena.node<Escaped>(b.p);
    e->text = "$";
    Simple* inner = b.simple({b.w("echo"), b.word({e}), b.word({b.cmd_subst({b.stmt(b.simple({b.w("x")}))}, true)})});
    Word* w = b.word({b.cmd_subst({b.stmt(inner)}, true)});
    EXPECT_EQ(print(*w), "`echo \\\\$ \\`x\\``");
    // Inside double quotes a " of the body is escaped too.
    Simple* q = b.simple({b.w("echo"), b.word({b.dq({b.lit("hi")})})});
    Word* dw = b.word({b.dq({b.cmd_subst({b.stmt(q)}, true)})});
    EXPECT_EQ(print(*dw), "\"`echo \\\"hi\\\"`\"");
}

TEST(PrinterBuilt, SubstringWithNegativeOffsetKeepsSpace) {
    Build b;
    ParamExp* p = b.arena.node<ParamExp>(b.p);
    p->braced = true;
    p->name = "x";
    p->op = ParamOp::Substring;
    p->arg = b.w("-1");
    p->arg2 = b.w("2");
    EXPECT_EQ(print(*b.word({p})), "${x: -1:2}");
}

TEST(PrinterBuilt, ReservedWordAfterRedirection) {
    Build b;
    Simple* s = b.simple({b.w("if")});
    Redirect* r = b.arena.node<Redirect>(b.p);
    r->op = RedirOp::Out;
    r->target = b.w("f");
    s->redirs = b.list<Redirect*>({r});
    EXPECT_EQ(print(*b.script({b.stmt(s)})), ">f if\n");
}

TEST(PrinterBuilt, BackgroundThenMore) {
    Build b;
    Script* s = b.script({b.stmt(b.simple({b.w("a")}), true), b.stmt(b.simple({b.w("b")}))});
    EXPECT_EQ(print(*s), "a &\nb\n");
    Subshell* sub = b.arena.node<Subshell>(b.p);
    sub->body = b.list<Stmt*>({b.stmt(b.simple({b.w("a")}), true), b.stmt(b.simple({b.w("b")}), true)});
    EXPECT_EQ(print(*b.script({b.stmt(sub)})), "(a & b &)\n");
}

TEST(PrinterBuilt, HandBuiltCondPrecedenceGetsParentheses) {
    Build b;
    auto cw = [&](std::string_view s) {
        CondWord* c = b.arena.node<CondWord>(b.p);
        c->word = b.w(s);
        return c;
    };
    CondOr* o = b.arena.node<CondOr>(b.p);
    o->left = cw("a");
    o->right = cw("b");
    CondAnd* a = b.arena.node<CondAnd>(b.p);
    a->left = o;
    a->right = cw("c");
    CondNot* n = b.arena.node<CondNot>(b.p);
    n->expr = a;
    CondCmd* c = b.arena.node<CondCmd>(b.p);
    c->expr = n;
    EXPECT_EQ(print(*b.script({b.stmt(c)})), "[[ ! ( ( a || b ) && c ) ]]\n");
}

TEST(PrinterBuilt, DeepLeftChainsDoNotRecurse) {
    Build b;
    CondWord* leaf = b.arena.node<CondWord>(b.p);
    leaf->word = b.w("x");
    CondExpr* e = leaf;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        CondAnd* a = b.arena.node<CondAnd>(b.p);
        a->left = e;
        a->right = leaf;
        e = a;
    }
    CondCmd* c = b.arena.node<CondCmd>(b.p);
    c->expr = e;
    ArithNum* one = b.arena.node<ArithNum>(b.p);
    one->text = "1";
    ArithExpr* sum = one;
    for (int i = 0; i < n; ++i) {
        ArithBinary* a = b.arena.node<ArithBinary>(b.p);
        a->op = ArithOp::Add;
        a->left = sum;
        a->right = one;
        sum = a;
    }
    ArithCmd* ac = b.arena.node<ArithCmd>(b.p);
    ac->raw = b.w("1");
    ac->expr = sum;
    Script* s = b.script({b.stmt(c), b.stmt(ac)});
    std::string printed = print(*s);
    EXPECT_EQ(printed.size(), std::string("[[ x ]]\n((1))\n").size() + static_cast<size_t>(n) * 5);
    std::string json = to_json(*s, false);
    EXPECT_TRUE(valid_json(json));
    EXPECT_EQ(print_arith(*sum).size(), 1 + static_cast<size_t>(n) * 4);
}

TEST(PrintArith, MinimalParentheses) {
    Build b;
    auto num = [&](std::string_view t) {
        ArithNum* n = b.arena.node<ArithNum>(b.p);
        n->text = t;
        return n;
    };
    auto bin = [&](ArithOp op, ArithExpr* l, ArithExpr* r) {
        ArithBinary* n = b.arena.node<ArithBinary>(b.p);
        n->op = op;
        n->left = l;
        n->right = r;
        return n;
    };
    EXPECT_EQ(print_arith(*bin(ArithOp::Mul, bin(ArithOp::Add, num("1"), num("2")), num("3"))), "(1 + 2) * 3");
    EXPECT_EQ(print_arith(*bin(ArithOp::Sub, num("1"), bin(ArithOp::Sub, num("2"), num("3")))), "1 - (2 - 3)");
    EXPECT_EQ(print_arith(*bin(ArithOp::Sub, bin(ArithOp::Sub, num("1"), num("2")), num("3"))), "1 - 2 - 3");
    EXPECT_EQ(print_arith(*bin(ArithOp::Pow, num("2"), bin(ArithOp::Pow, num("3"), num("2")))), "2 ** 3 ** 2");
    EXPECT_EQ(print_arith(*bin(ArithOp::Pow, bin(ArithOp::Pow, num("2"), num("3")), num("2"))), "(2 ** 3) ** 2");
    ArithUnary* neg = b.arena.node<ArithUnary>(b.p);
    neg->op = ArithOp::Minus;
    ArithUnary* inner = b.arena.node<ArithUnary>(b.p);
    inner->op = ArithOp::Minus;
    inner->operand = num("1");
    neg->operand = inner;
    EXPECT_EQ(print_arith(*neg), "- -1");
    ArithVar* v = b.arena.node<ArithVar>(b.p);
    v->name = "x";
    ArithAssign* as = b.arena.node<ArithAssign>(b.p);
    as->op = ArithOp::AddEq;
    as->target = v;
    as->value = bin(ArithOp::Comma, num("1"), num("2"));
    EXPECT_EQ(print_arith(*as), "x += (1, 2)");
    ArithTernary* t = b.arena.node<ArithTernary>(b.p);
    t->cond = v;
    t->then_expr = num("1");
    t->else_expr = as;
    EXPECT_EQ(print_arith(*t), "x ? 1 : (x += (1, 2))");
}

// ---------------------------------------------------------------- JSON

TEST(Json, ExactSmallTree) {
    Build b;
    b.p = {2, 5};
    Script* s = b.script({b.stmt(b.simple({b.w("echo")}), true)});
    EXPECT_EQ(to_json(*s, false),
              "{\"kind\":\"Script\",\"body\":[{\"kind\":\"Stmt\",\"cmd\":{\"kind\":\"Simple\",\"assigns\":[],"
              "\"words\":[{\"kind\":\"Word\",\"parts\":[{\"kind\":\"Lit\",\"text\":\"echo\"}],"
              "\"decl_assign\":null}],\"redirs\":[]},\"background\":true}]}");
    std::string with = to_json(*s, true);
    EXPECT_EQ(with.substr(0, 40), "{\"kind\":\"Script\",\"line\":2,\"col\":5,\"body\"");
    EXPECT_TRUE(valid_json(with));
}

TEST(Json, StringsAreEscapedByteSafe) {
    Build b;
    std::string text = std::string("q\"b\\n\n\t\x01\x7f") + "\xc3\xa9" + "\xff" + "\xc3" + "\xe2\x82" +
                       "\xed\xa0\x80" + "\xc0\xaf" + "\xf0\x9f\x98\x80" + std::string(1, '\0') + "z";
    Script* s = b.script({b.stmt(b.simple({b.w(text)}))});
    std::string json = to_json(*s, false);
    EXPECT_TRUE(valid_json(json)) << json;
    std::string expected = "\"q\\\"b\\\\n\\u000a\\u0009\\u0001\\u007f\xc3\xa9\\u00ff\\u00c3\\u00e2\\u0082"
                           "\\u00ed\\u00a0\\u0080\\u00c0\\u00af\xf0\x9f\x98\x80\\u0000z\"";
    EXPECT_NE(json.find(expected), std::string::npos) << json;
}

TEST(Json, PositionsOmittedEverywhereWithoutPositions) {
    ParseResult r = parse(
        "a=(x [k]=v)\nif a; then b; fi\ncase x in y) z;; esac\nfor i in 1; do :; done\nselect s in 1; do :; done");
    ASSERT_TRUE(r.ok());
    std::string no = to_json(*r.script, false);
    EXPECT_EQ(no.find("\"line\""), std::string::npos);
    EXPECT_EQ(no.find("\"col\""), std::string::npos);
    EXPECT_EQ(no.find("var_pos"), std::string::npos);
    std::string yes = to_json(*r.script, true);
    for (const char* k : {"\"ArrayElem\",\"line\"", "\"IfClause\",\"line\"", "\"CaseItem\",\"line\"", "var_pos"}) {
        EXPECT_NE(yes.find(k), std::string::npos) << k;
    }
    EXPECT_TRUE(valid_json(yes));
    EXPECT_EQ(to_json(*r.script, true), yes) << "not deterministic";
}

TEST(Json, DistinguishesTrees) {
    const char* pairs[][2] = {
        {"echo a", "echo b"},
        {"echo \"a\"", "echo 'a'"},
        {"a &", "a"},
        {"a | b", "a |& b"},
        {"${x:-a}", "${x-a}"},
        {"cat <<A\nx\nA\n", "cat <<'A'\nx\nA\n"},
        {"echo `a`", "echo $(a)"},
        {"f() { a; }", "function f { a; }"},
    };
    for (const auto& p : pairs) {
        ParseResult a = parse(p[0]);
        ParseResult b = parse(p[1]);
        ASSERT_TRUE(a.ok() && b.ok()) << p[0] << " / " << p[1];
        EXPECT_NE(to_json(*a.script, false), to_json(*b.script, false)) << p[0] << " / " << p[1];
    }
}

TEST(JsonChecker, RejectsBrokenJson) {
    EXPECT_TRUE(valid_json("{\"a\":[1,true,null,\"\\u00ff\"]}"));
    EXPECT_FALSE(valid_json("{\"a\":[1,}"));
    EXPECT_FALSE(valid_json("{\"a\":\"\x01\"}"));
    EXPECT_FALSE(valid_json("{\"a\":\"\xff\"}"));
    EXPECT_FALSE(valid_json("{\"a\":1}}"));
}

}  // namespace
