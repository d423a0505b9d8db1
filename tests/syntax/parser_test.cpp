// Unit tests for the parser: tree shapes of the tricky forms, positions, bash's error messages,
// the nesting cap and linear behaviour on large input.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "interp/syntax/parser.hpp"
#include "tests/syntax/sexp.hpp"

namespace bashkit::syntax {
namespace {

using test::sexp;

// The tree as an S-expression, or "ERR line N: message".
std::string P(std::string_view src, ParseOptions opt = {}) {
    ParseResult r = parse(src, opt);
    if (!r.ok()) return "ERR line " + std::to_string(r.error->pos.line) + ": " + r.error->message;
    return sexp(r.script);
}

struct TCase {
    const char* src;
    const char* want;
};

void run_table(const std::vector<TCase>& cases, ParseOptions opt = {}) {
    for (const auto& c : cases) EXPECT_EQ(P(c.src, opt), c.want) << "source: " << c.src;
}

// ---------------------------------------------------------------- shapes

TEST(ParserShape, SimpleCommandsAndAssignments) {
    run_table({
        {"echo hello world", "(cmd echo hello world)"},
        {"a=1 b+=x c[i]=v cmd", "(cmd (= a 1) (= b + x) (= c[i] v) cmd)"},
        {"arr=(x y [k]=v [j]+=w)", "(cmd (= arr (arr x y [k]=v [j]+=w)))"},
        {"a=", "(cmd (= a (w)))"},
        {"a[1 + 2]=3 b", "(cmd (= a[1 + 2] 3) b)"},
        // NAME[ at the start of a command: the subscript is read across blanks and operators
        {"M[a&b] c", "(cmd M[a&b] c)"},
        {"M[a(b)]x y", "(cmd (w 'M[a(b)]' 'x') y)"},
        {"x=1 M[#&x]", "(cmd (= x 1) M[#&x])"},
        {"x=(\n  one # c\n  two\n)", "(cmd (= x (arr one two)))"},
        {"echo a=b", "(cmd echo a=b)"},
        {">f", "(cmd (r> f))"},
        {"a=1 >f b 2>&1", "(cmd (= a 1) b (r> f) (r2>& 1))"},
        {"echo a#b # comment", "(cmd echo a#b)"},
        {"echo }", "(cmd echo })"},
        {"a=1 fi", "(cmd (= a 1) fi)"},
    });
}

TEST(ParserShape, DeclarationUtilities) {
    run_table({
        {"declare -a a=(1 2)", "(cmd declare -a (decl (= a (arr 1 2))))"},
        {"local x=(1) y=$z w", "(cmd local (decl (= x (arr 1))) (decl (= y (w ($ z)))) w)"},
        {"export A=1", "(cmd export (decl (= A 1)))"},
        {"readonly r typeset", "(cmd readonly r typeset)"},
        // an argument's subscript is not read across an operator: `a[x` ends at the `;`
        {"declare a[x;y]=1", "(cmd declare a[x) (cmd y]=1)"},
        {"echo a=(1 2)", "ERR line 1: syntax error near unexpected token `('"},
        {"echo a[1]=(1)", "ERR line 1: syntax error near unexpected token `('"},
    });
    // parts keep the word as written
    ParseResult r = parse("declare x=$y");
    ASSERT_TRUE(r.ok());
    const Word* w = r.script->body[0]->cmd->as<Simple>()->words[1];
    ASSERT_NE(w->decl_assign, nullptr);
    ASSERT_EQ(w->parts.size, 2u);
    EXPECT_EQ(w->parts[0]->as<Lit>()->text, "x=");
    EXPECT_TRUE(w->parts[1]->is<ParamExp>());
}

TEST(ParserShape, PipelinesAndLists) {
    run_table({
        {"! a | b |& c", "(pipe! (cmd a) (cmd b) |& (cmd c))"},
        {"time -p a | b", "(pipe time-p (cmd a) (cmd b))"},
        {"time", "(pipe time)"},
        {"!", "(pipe!)"},
        {"a && b || c &", "(andor (cmd a) && (cmd b) || (cmd c))&"},
        {"a &&\n\n b", "(andor (cmd a) && (cmd b))"},
        {"a |\n b", "(pipe (cmd a) (cmd b))"},
        {"a; b & c\nd", "(cmd a) (cmd b)& (cmd c) (cmd d)"},
    });
}

TEST(ParserShape, CompoundCommands) {
    run_table({
        {"if a; then b; elif c; then d; else e; fi",
         "(if (cond (cmd a)) (then (cmd b)) (cond (cmd c)) (then (cmd d)) (else (cmd e)))"},
        {"while a; do b; done", "(while (cond (cmd a)) (do (cmd b)))"},
        {"until a\ndo b\ndone", "(until (cond (cmd a)) (do (cmd b)))"},
        {"for x in a b; do c; done", "(for x in a b (do (cmd c)))"},
        {"for x; do c; done", "(for x (do (cmd c)))"},
        {"for x do c; done", "(for x (do (cmd c)))"},
        {"for x in a; { c; }", "(for x in a ({ (cmd c)))"},
        {"for ((i=0; i<3; i++)); do c; done", "(afor (= i 0) (< i 3) (post++ i) (do (cmd c)))"},
        {"for ((;;)) { c; }", "(afor nil nil nil ({ (cmd c)))"},
        {"select x in a b; do c; done", "(select x in a b (do (cmd c)))"},
        {"{ a; b; } >f", "(brace (cmd a) (cmd b) (r> f))"},
        {"(a; b) 2>/dev/null", "(sub (cmd a) (cmd b) (r2> /dev/null))"},
        {"(( x = 1 + 2 ))", "((((= x (+ 1 2)))"},
        {"(( a ) )", "(sub (sub (cmd a)))"},
        {"[[ -f a && ( b == c* || ! d =~ ^(x|y)$ ) ]]",
         "([[ (&& (-f a) (paren (|| (== b c*) (! (=~ d ^(x|y)$))))))"},
        {"[[ a < b ]]", "([[ (< a b))"},
        {"[[ $x == @(a|b) ]]", "([[ (== (w ($ x)) (w (eg@ a b))))"},
        {"[[ a =~ (x y) ]]", "([[ (=~ a (x y)))"},
        {"[[ a &&\n b ]]", "([[ (&& a b))"},
        {"coproc foo { bar; }", "(coproc foo (brace (cmd bar)))"},
        {"coproc cat x", "(coproc - (cmd cat x))"},
    });
}

TEST(ParserShape, CaseTerminators) {
    run_table({
        {"case $x in a|b) echo;; (c) x;& d) y;;& *) z; esac",
         "(case (w ($ x)) (a|b) (cmd echo) ;; (c) (cmd x) ;& (d) (cmd y) ;;& (*) (cmd z))"},
        {"case x in\n a) ;;\n esac", "(case x (a) ;;)"},
        {"case x in esac", "(case x)"},
        {"case x\nin (esac) ;; esac", "(case x (esac) ;;)"},
        {"echo $(case x in x) ;; esac)", "(cmd echo (w (cs (case x (x) ;;))))"},
    });
    ParseResult r = parse("case x in a) ;; b) ;& c) ;;& d) esac");
    ASSERT_TRUE(r.ok());
    const syntax::Case* c = r.script->body[0]->cmd->as<syntax::Case>();
    ASSERT_EQ(c->items.size, 4u);
    EXPECT_EQ(c->items[0].term, CaseTerm::Break);
    EXPECT_EQ(c->items[1].term, CaseTerm::FallThrough);
    EXPECT_EQ(c->items[2].term, CaseTerm::Continue);
    EXPECT_EQ(c->items[3].term, CaseTerm::None);
}

TEST(ParserShape, Functions) {
    run_table({
        {"f() { echo; } >x 2>y", "(func f (brace (cmd echo) (r> x) (r2> y)))"},
        {"f ()\n{\n:\n}", "(func f (brace (cmd :)))"},
        {"function g { :; }", "(func g (brace (cmd :)))"},
        {"function h() ( : )", "(func h (sub (cmd :)))"},
        {"a.b-c() { :; }", "(func a.b-c (brace (cmd :)))"},
    });
    ParseResult r = parse("function f() { :; }");
    ASSERT_TRUE(r.ok());
    const FuncDef* f = r.script->body[0]->cmd->as<FuncDef>();
    EXPECT_TRUE(f->keyword);
    EXPECT_TRUE(f->parens);
}

TEST(ParserShape, ReservedWordsOnlyInCommandPosition) {
    run_table({
        {"echo if then fi done }", "(cmd echo if then fi done })"},
        {"{ echo }; }", "(brace (cmd echo }))"},
        {"if=1", "(cmd (= if 1))"},
        {"{echo;}", "ERR line 1: syntax error near unexpected token `}'"},
        {"{echo; }x", "(cmd {echo) (cmd }x)"},
    });
}

TEST(ParserShape, Quoting) {
    run_table({
        {"echo 'a b' \"c $d\" e\\ f", "(cmd echo (w (sq a b)) (w (dq 'c ' ($ d))) (w 'e' \\  'f'))"},
        {"echo \"a\\\"b\\$c\\\\d\\e\"", "(cmd echo (w (dq 'a\"b$c\\d\\e')))"},
        {"echo $\"loc\"", "(cmd echo (w (ldq 'loc')))"},
        {"echo a\\\nb", "(cmd echo ab)"},
        {"echo \"a\\\nb\"", "(cmd echo (w (dq 'ab')))"},
        {"echo 'a\\\nb'", "(cmd echo (w (sq a\\\nb)))"},
        {"ec\\\nho x", "(cmd echo x)"},
        {"echo \"$\" $ \"a$\"", "(cmd echo (w (dq '$')) $ (w (dq 'a$')))"},
        {"echo \"$'x'\"", "(cmd echo (w (dq '$'x'')))"},
    });
}

TEST(ParserShape, AnsiC) {
    auto value = [](std::string_view src) -> std::string {
        ParseResult r = parse(src);
        if (!r.ok()) return "ERR";
        const Word* w = r.script->body[0]->cmd->as<Simple>()->words[1];
        return std::string(w->parts[0]->as<AnsiCQuoted>()->value);
    };
    EXPECT_EQ(value(R"(echo $'a\nb\tc')"), "a\nb\tc");
    EXPECT_EQ(value(R"(echo $'\\ \' \" \a\b\e\E\f\r\v')"), "\\ ' \" \a\b\x1b\x1b\f\r\v");
    EXPECT_EQ(value(R"(echo $'\101\0101\x41\x4a')"), "A\b1AJ");
    EXPECT_EQ(value(R"(echo $'\u00e9\U0001F600')"), "\xc3\xa9\xf0\x9f\x98\x80");
    EXPECT_EQ(value(R"(echo $'\cA\ca\c?')"), "\x01\x01\x7f");
    EXPECT_EQ(value(R"(echo $'\q')"), "\\q");
    EXPECT_EQ(value(R"(echo $'a\0b')"), "a");
    ParseResult r = parse(R"(echo $'x\ny')");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.script->body[0]->cmd->as<Simple>()->words[1]->parts[0]->as<AnsiCQuoted>()->raw, "x\\ny");
}

TEST(ParserShape, ParameterExpansions) {
    run_table({
        {"echo $x ${x} $1 ${10} $@ $* $# $? $- $$ $! $0",
         "(cmd echo (w ($ x)) (w (${} x)) (w ($ 1)) (w (${} 10)) (w ($ @)) (w ($ *)) (w ($ #)) (w ($ ?)) (w ($ -)) "
         "(w ($ $)) (w ($ !)) (w ($ 0)))"},
        {"echo ${x:-y} ${x-y} ${x:=y} ${x=y} ${x:?y} ${x?y} ${x:+y} ${x+y}",
         "(cmd echo (w (${}: x def y)) (w (${} x def y)) (w (${}: x assign y)) (w (${} x assign y)) "
         "(w (${}: x err y)) (w (${} x err y)) (w (${}: x alt y)) (w (${} x alt y)))"},
        {"echo ${#x} ${x#p} ${x##p} ${x%p} ${x%%p}",
         "(cmd echo (w (${} x len)) (w (${} x # p)) (w (${} x ## p)) (w (${} x % p)) (w (${} x %% p)))"},
        {"echo ${x/p/r} ${x//p/r} ${x/#p/r} ${x/%p/r} ${x/p}",
         "(cmd echo (w (${} x / p r)) (w (${} x // p r)) (w (${} x /# p r)) (w (${} x /% p r)) (w (${} x / p)))"},
        {"echo ${x:1:2} ${x: -1} ${x:(-2)}",
         "(cmd echo (w (${} x sub 1 2)) (w (${} x sub  -1)) (w (${} x sub (-2))))"},
        {"echo ${x^} ${x^^} ${x,} ${x,,} ${x^^[ab]}",
         "(cmd echo (w (${} x ^)) (w (${} x ^^)) (w (${} x ,)) (w (${} x ,,)) (w (${} x ^^ [ab])))"},
        {"echo ${!x} ${!pre*} ${!pre@} ${!arr[@]} ${!arr[*]}",
         "(cmd echo (w (${}! x)) (w (${} pre prefix*)) (w (${} pre prefix@)) (w (${} arr[@] keys)) "
         "(w (${} arr[*] keys)))"},
        {"echo ${x@Q} ${x@a}", "(cmd echo (w (${} x @Q)) (w (${} x @a)))"},
        {"echo ${a[i]} ${a[@]} ${#a[@]} ${a[$i+1]}",
         "(cmd echo (w (${} a [i])) (w (${} a[@])) (w (${} a[@] len)) (w (${} a [(w ($ i) '+1')])))"},
        {"echo ${#} ${#@} ${!#} ${@:2}", "(cmd echo (w (${} #)) (w (${} @ len)) (w (${}! #)) (w (${} @ sub 2)))"},
        {"echo ${x:-a b} ${x:-'q'} \"${x:-'q'}\"",
         "(cmd echo (w (${}: x def a b)) (w (${}: x def (w (sq q)))) (w (dq (${}: x def 'q'))))"},
        {"echo ${x:-${y:-z}}", "(cmd echo (w (${}: x def (w (${}: y def z)))))"},
        // bad substitutions are run-time errors in bash: the raw text is kept as the name
        {"echo ${x!} ${}", "(cmd echo (w (${} x!)) (w (${} )))"},
        // bash's reader ends a `${` at its first `}` (a plain `{` does not nest); the subscript goes on past
        // it only as far as the word goes: to a blank or an operator byte (in double quotes, between
        // the `"` that closes them and the next)
        {"echo <f]} ${a[[3]}", "(cmd echo (w (${} a[[3])) (r< f]}))"},
        {"echo ${a[1} x]} ${a[1}x<y]}", "(cmd echo (w (${} a[1)) x]} (w (${} a[1) 'x') (r< y]}))"},
        {"echo ${a[1}]} ${a[1}\"x y\"]} ${a[{1}]} ${a[{1} x]}",
         "(cmd echo (w (${} a [1}])) (w (${} a [(w '1}' (dq 'x y'))])) (w (${} a [{1}])) (w (${} a[{1)) x]})"},
        {"echo \"${a[1} x]}\" \"${a[1}\"x\"]}\" \"${a[1}\" x \"]}\"",
         "(cmd echo (w (dq (${} a [1} x]))) (w (dq (${} a [(w '1}' (dq 'x'))]))) (w (dq (${} a[1))) x (w (dq ']}')))"},
        // nested in an operand, past the `}` of the `${` around it; in an arithmetic text, which has no words
        {"echo ${x:-${a[1} x]}} ${x:-${a[1}};]}}",
         "(cmd echo (w (${}: x def (w (${} a [1} x])))) (w (${}: x def (w (${} a[1))))) (cmd ]}})"},
        {"echo $(( ${a[1} + 1]} )) $(echo ${a[1} x]})",
         "(cmd echo (w (arith (w (${} a [1} + 1])))) (w (cs (cmd echo (w (${} a[1)) x]}))))"},
    });
}

TEST(ParserShape, Substitutions) {
    run_table({
        {"echo $(a $(b `c`))", "(cmd echo (w (cs (cmd a (w (cs (cmd b (w (bq (cmd c))))))))))"},
        {"echo `echo \\`x\\``", "(cmd echo (w (bq (cmd echo (w (bq (cmd x)))))))"},
        {"echo $( (a) )", "(cmd echo (w (cs (sub (cmd a)))))"},
        {"echo $((a) )", "(cmd echo (w (cs (sub (cmd a)))))"},
        {"echo $(( (1) ))", "(cmd echo (w (arith (paren 1))))"},
        {"echo $[1+2]", "(cmd echo (w (arith (+ 1 2))))"},
        {"echo <(a) >(b) x<(c)", "(cmd echo (w (ps< (cmd a))) (w (ps> (cmd b))) (w 'x' (ps< (cmd c))))"},
        {"echo $(echo \")\")", "(cmd echo (w (cs (cmd echo (w (dq ')'))))))"},
        {"echo $(# comment )\n)", "(cmd echo (w (cs)))"},
    });
}

// The first CmdSubst part of the n-th word of the first simple command.
const CmdSubst* first_cmdsubst(const ParseResult& r, uint32_t word) {
    if (!r.ok() || r.script->body.empty()) return nullptr;
    const Simple* s = r.script->body[0]->cmd->try_as<Simple>();
    if (!s || s->words.size <= word) return nullptr;
    for (const Node* n : s->words[word]->parts)
        if (const CmdSubst* c = n->try_as<CmdSubst>()) return c;
    return nullptr;
}

TEST(ParserShape, TrailingBackslashStandsForItself) {
    run_table({
        // an Escaped part, as a quoted backslash: printed `\\`, it cannot join what follows it
        {"echo a\\", "(cmd echo (w 'a' \\\\))"},
        {">D \\", "(cmd (w \\\\) (r> D))"},
    });
}

TEST(ParserShape, DeferredSubstitutionErrors) {
    ParseResult r = parse("echo \\\n  $((x)+1) `if` $(true) `echo \\\\ (`");
    ASSERT_TRUE(r.ok()) << r.error->message;
    const CmdSubst* c = first_cmdsubst(r, 1);
    ASSERT_NE(c, nullptr);
    EXPECT_FALSE(c->backquote);
    EXPECT_TRUE(c->body.empty());
    EXPECT_EQ(c->raw, "(x)+1");
    EXPECT_EQ(c->deferred_error, "syntax error near unexpected token `+1'");
    EXPECT_EQ(c->deferred_pos, (Pos{2, 8}));
    c = first_cmdsubst(r, 2);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->backquote);
    EXPECT_EQ(c->raw, "if");
    EXPECT_EQ(c->deferred_error, "syntax error: unexpected end of file");
    c = first_cmdsubst(r, 3);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->deferred_error, "");
    EXPECT_EQ(c->raw, "");
    EXPECT_EQ(c->body.size, 1u);
    c = first_cmdsubst(r, 4);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->raw, "echo \\\\ (");
    EXPECT_EQ(c->deferred_error, "syntax error near unexpected token `('");
}

TEST(ParserShape, ExtGlob) {
    ParseOptions on;
    on.extglob = true;
    run_table({{"ls *.@(jpg|png) !(a) +(x|y*(z))",
                "(cmd ls (w '*.' (eg@ jpg png)) (w (eg! a)) (w (eg+ x (w 'y' (eg* z)))))"},
               {"case x in @(a|b)) ;; esac", "(case x ((w (eg@ a b))) ;;)"}},
              on);
    EXPECT_EQ(P("ls @(a|b)"), "ERR line 1: syntax error near unexpected token `('");
}

TEST(ParserShape, Redirections) {
    run_table({
        {"cmd <a >b >>c >|d <>e", "(cmd cmd (r< a) (r> b) (r>> c) (r>| d) (r<> e))"},
        {"cmd 2>&1 3<&0 4>&- 5<&- &>f &>>g", "(cmd cmd (r2>& 1) (r3<& 0) (r4>& -) (r5<& -) (r&> f) (r&>> g))"},
        {"exec {fd}>x {in}<&0", "(cmd exec (r{fd}> x) (r{in}<& 0))"},
        {"cat <<<\"$x\" 12>x", "(cmd cat (r<<< (w (dq ($ x)))) (r12> x))"},
        {"echo 2 >x", "(cmd echo 2 (r> x))"},
    });
}

TEST(ParserShape, HereDocuments) {
    run_table({
        {"cat <<EOF\nhello $x\nEOF\n", "(cmd cat (r<< EOF u:EOF (w 'hello ' ($ x) '\n')))"},
        {"cat <<'EOF'\n$x `y`\nEOF", "(cmd cat (r<< (w (sq EOF)) q:EOF $x `y`\n))"},
        {"cat <<\"E\"\\F\n$x\nEF\n", "(cmd cat (r<< (w (dq 'E') \\F) q:EF $x\n))"},
        {"cat <<-EOF\n\tone\n\t\ttwo\n\tEOF\n", "(cmd cat (r<<- EOF u:EOF one\ntwo\n))"},
        {"cat <<EOF\na \\$x \\` \\\\ \\n \"q\" 'q'\nEOF", "(cmd cat (r<< EOF u:EOF a $x ` \\ \\n \"q\" 'q'\n))"},
        {"cat <<A <<B\n1\nA\n2\nB\necho", "(cmd cat (r<< A u:A 1\n) (r<< B u:B 2\n)) (cmd echo)"},
        {"cat <<E | grep x\nbody\nE", "(pipe (cmd cat (r<< E u:E body\n)) (cmd grep x))"},
        {"x=$(cat <<E\ninside )\nE\n)", "(cmd (= x (w (cs (cmd cat (r<< E u:E inside )\n))))))"},
        {"if cat <<E; then\nx\nE\necho; fi", "(if (cond (cmd cat (r<< E u:E x\n))) (then (cmd echo)))"},
        {"cat <<E\n$(echo a)$((1+2))${y}\nE", "(cmd cat (r<< E u:E (w (cs (cmd echo a)) (arith (+ 1 2)) (${} y) '\n')))"},
        // delimited by end of file: bash warns and accepts
        {"cat <<E\nabc", "(cmd cat (r<< E u:E abc\n))"},
        {"cat <<E", "(cmd cat (r<< E u:E (w)))"},
        {"cat <<E\nx `y`", "(cmd cat (r<< E u:E (w 'x ' (bq (cmd y)) '\n')))"},
        {"cat <<E\n$x", "(cmd cat (r<< E u:E (w ($ x) '\n')))"},
    });
}

TEST(ParserShape, Arithmetic) {
    run_table({
        {"echo $((1 + 2 * 3 - 4 / 5 % 6))", "(cmd echo (w (arith (- (+ 1 (* 2 3)) (% (/ 4 5) 6)))))"},
        {"echo $((a = b += c ? d : e, f))", "(cmd echo (w (arith (, (= a (+= b (? c d e))) f))))"},
        {"echo $((-2 ** 2 ** 3))", "(cmd echo (w (arith (** (-u 2) (** 2 3)))))"},
        {"echo $((a++ + ++b - c-- - --d))",
         "(cmd echo (w (arith (- (- (+ (post++ a) (++pre b)) (post-- c)) (--pre d)))))"},
        {"echo $((1--2)) $((--5))", "(cmd echo (w (arith (- 1 (-u 2)))) (w (arith (-u (-u 5)))))"},
        {"echo $((!a && ~b || c))", "(cmd echo (w (arith (|| (&& (! a) (~ b)) c))))"},
        {"echo $((a | b ^ c & d == e < f << g))",
         "(cmd echo (w (arith (| a (^ b (& c (== d (< e (<< f g)))))))))"},
        {"echo $((0x1f + 017 + 2#101 + 64#z@_))", "(cmd echo (w (arith (+ (+ (+ 0x1f 017) 2#101) 64#z@_))))"},
        {"echo $((a[1] + b[$i] * $x + ${y} + $(z)))",
         "(cmd echo (w (arith (+ (+ (+ a[1] (* b[(w ($ i))] (w ($ x)))) (w (${} y))) (w (cs (cmd z)))))))"},
        {"echo $((x <<= 2, y >>= 1, z |= 1, w ^= 2, v &= 3, u %= 4, t /= 5, s *= 6, r -= 7))",
         "(cmd echo (w (arith (, (, (, (, (, (, (, (, (<<= x 2) (>>= y 1)) (|= z 1)) (^= w 2)) (&= v 3)) (%= u 4)) "
         "(/= t 5)) (*= s 6)) (-= r 7)))))"},
        // bash reports bad arithmetic only when it runs: the script still parses, expr is null
        {"echo $((1 +)) $(( )) $((a b))", "(cmd echo (w (arith nil)) (w (arith nil)) (w (arith nil)))"},
    });
    ParseResult r = parse("echo $((1+$x))");
    ASSERT_TRUE(r.ok());
    const ArithSubst* as = r.script->body[0]->cmd->as<Simple>()->words[1]->parts[0]->as<ArithSubst>();
    ASSERT_EQ(as->raw->parts.size, 2u);
    EXPECT_EQ(as->raw->parts[0]->as<Lit>()->text, "1+");
    EXPECT_TRUE(as->raw->parts[1]->is<ParamExp>());
    EXPECT_FALSE(as->bracket);
}

TEST(ParseArith, Standalone) {
    Arena a;
    EXPECT_EQ(sexp(parse_arith("1 + 2 * x", a)), "(+ 1 (* 2 x))");
    EXPECT_EQ(sexp(parse_arith("(a ? b : c) ** 2", a)), "(** (paren (? a b c)) 2)");
    EXPECT_EQ(sexp(parse_arith("arr[i+1] = $v", a)), "(= arr[i+1] (w ($ v)))");
    EXPECT_EQ(parse_arith("1 +", a), nullptr);
    EXPECT_EQ(parse_arith("(1", a), nullptr);
    EXPECT_EQ(parse_arith("1)", a), nullptr);
    EXPECT_EQ(parse_arith("", a), nullptr);
    ArithExpr* e = parse_arith("\n  a+b", a, {5, 3});
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->pos, (Pos{6, 3}));
    std::string deep(100000, '(');
    EXPECT_EQ(parse_arith(deep + "1" + std::string(100000, ')'), a), nullptr);
    EXPECT_EQ(parse_arith(std::string(100000, '-') + "1", a), nullptr);
}

// Every node carries the byte offsets of its first token's start and its last token's end in the text, whatever
// line and column the text starts at; an expansion spans its source bytes.
TEST(ParseArith, NodesCarryByteOffsets) {
    Arena a;
    std::string_view text = "1 +\n  foo[2] * (${x}) - y++ - --z";
    ArithExpr* e = parse_arith(text, a, {7, 4});
    ASSERT_NE(e, nullptr);
    auto span = [&](const ArithExpr* n) { return std::string(text.substr(n->begin, n->end - n->begin)); };
    EXPECT_EQ(span(e), text);
    const auto* outer = e->as<ArithBinary>();  // (1 + foo[2] * (${x}) - y++) - --z
    EXPECT_EQ(span(outer->right), "--z");
    EXPECT_EQ(span(outer->right->as<ArithUnary>()->operand), "z");
    const auto* inner = outer->left->as<ArithBinary>();  // (1 + foo[2] * (${x})) - y++
    EXPECT_EQ(span(inner->right), "y++");
    const auto* sum = inner->left->as<ArithBinary>();
    EXPECT_EQ(span(sum->left), "1");
    const auto* product = sum->right->as<ArithBinary>();
    EXPECT_EQ(span(product), "foo[2] * (${x})");
    EXPECT_EQ(span(product->left), "foo[2]");
    EXPECT_EQ(span(product->right), "(${x})");
    EXPECT_EQ(span(product->right->as<ArithParen>()->inner), "${x}");
    // "1--2" is 1 - (-2): the pair is split, each half with its own byte.
    e = parse_arith("1--2", a);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->as<ArithBinary>()->right->begin, 2u);
    EXPECT_EQ(e->as<ArithBinary>()->right->end, 4u);
}

// ---------------------------------------------------------------- positions

TEST(ParserPositions, CommandsAndWords) {
    ParseResult r = parse("echo a\n  if x; then\n\tfoo \"$b\" >f\nfi");
    ASSERT_TRUE(r.ok());
    const Stmt* s0 = r.script->body[0];
    EXPECT_EQ(s0->pos, (Pos{1, 1}));
    EXPECT_EQ(s0->cmd->as<Simple>()->words[1]->pos, (Pos{1, 6}));
    const If* f = r.script->body[1]->cmd->as<If>();
    EXPECT_EQ(f->pos, (Pos{2, 3}));
    EXPECT_EQ(f->clauses[0].cond[0]->pos, (Pos{2, 6}));
    const Simple* foo = f->clauses[0].body[0]->cmd->as<Simple>();
    EXPECT_EQ(foo->pos, (Pos{3, 2}));
    const Word* w = foo->words[1];
    EXPECT_EQ(w->pos, (Pos{3, 6}));
    EXPECT_EQ(w->parts[0]->pos, (Pos{3, 6}));
    EXPECT_EQ(w->parts[0]->as<DblQuoted>()->parts[0]->pos, (Pos{3, 7}));
    EXPECT_EQ(foo->redirs[0]->pos, (Pos{3, 11}));
}

TEST(ParserPositions, NestedAndHereDoc) {
    ParseResult r = parse("x=1 y=$(a\nb) <<E\n$z\nE\necho ${q:-$((1+ab))}");
    ASSERT_TRUE(r.ok());
    const Simple* s = r.script->body[0]->cmd->as<Simple>();
    EXPECT_EQ(s->assigns[0]->pos, (Pos{1, 1}));
    EXPECT_EQ(s->assigns[1]->pos, (Pos{1, 5}));
    const CmdSubst* cs = s->assigns[1]->value->parts[0]->as<CmdSubst>();
    EXPECT_EQ(cs->pos, (Pos{1, 7}));
    EXPECT_EQ(cs->body[1]->pos, (Pos{2, 1}));
    EXPECT_EQ(s->redirs[0]->pos, (Pos{2, 4}));
    EXPECT_EQ(s->redirs[0]->body->parts[0]->pos, (Pos{3, 1}));
    const Simple* e = r.script->body[1]->cmd->as<Simple>();
    EXPECT_EQ(e->pos, (Pos{5, 1}));
    const ParamExp* pe = e->words[1]->parts[0]->as<ParamExp>();
    EXPECT_EQ(pe->pos, (Pos{5, 6}));
    const ArithSubst* as = pe->arg->parts[0]->as<ArithSubst>();
    EXPECT_EQ(as->pos, (Pos{5, 11}));
    const ArithBinary* b = as->expr->as<ArithBinary>();
    EXPECT_EQ(b->right->pos, (Pos{5, 16}));
    EXPECT_EQ(b->right->as<ArithVar>()->name, "ab");
}

TEST(ParserPositions, SourceOutlivesCallerBuffer) {
    ParseResult r;
    {
        std::string src = "echo hello-world";
        r = parse(src);
        src.assign(src.size(), 'X');
    }
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(sexp(r.script), "(cmd echo hello-world)");
}

// ---------------------------------------------------------------- errors (checked against bash -n)

TEST(ParserErrors, BashMessagesAndLines) {
    run_table({
        {"echo \"abc", "ERR line 1: unexpected EOF while looking for matching `\"'"},
        {"echo\necho \"abc\n\n", "ERR line 2: unexpected EOF while looking for matching `\"'"},
        {"echo 'abc\n\n", "ERR line 1: unexpected EOF while looking for matching `''"},
        {"echo `ls", "ERR line 1: unexpected EOF while looking for matching ``'"},
        {"echo ${x\n\n", "ERR line 1: unexpected EOF while looking for matching `}'"},
        {"echo\necho $(ls\n\n", "ERR line 4: unexpected EOF while looking for matching `)'"},
        {"echo\necho $(ls", "ERR line 3: unexpected EOF while looking for matching `)'"},
        {"echo $((\n\n", "ERR line 1: unexpected EOF while looking for matching `)'"},
        {"echo\n((echo\n\n", "ERR line 2: unexpected EOF while looking for matching `)'"},
        {"x=(a\n\n", "ERR line 1: unexpected EOF while looking for matching `)'"},
        {"if true; then\necho\n", "ERR line 3: syntax error: unexpected end of file"},
        {"if true; then\necho\n\n\n", "ERR line 5: syntax error: unexpected end of file"},
        {"echo a |", "ERR line 2: syntax error: unexpected end of file"},
        {"echo\n(echo\n\n", "ERR line 4: syntax error: unexpected end of file"},
        {"if\n", "ERR line 2: syntax error: unexpected end of file"},
        {"echo ( )", "ERR line 2: syntax error: unexpected end of file"},
        {"fi\n", "ERR line 1: syntax error near unexpected token `fi'"},
        {"echo a\n  fi", "ERR line 2: syntax error near unexpected token `fi'"},
        {"echo a ;;", "ERR line 1: syntax error near unexpected token `;;'"},
        {"echo >", "ERR line 1: syntax error near unexpected token `newline'"},
        {"echo >\n", "ERR line 1: syntax error near unexpected token `newline'"},
        {"cat << ;", "ERR line 1: syntax error near unexpected token `;'"},
        {"echo (a)", "ERR line 1: syntax error near unexpected token `a'"},
        {"{ }", "ERR line 1: syntax error near unexpected token `}'"},
        {"( )", "ERR line 1: syntax error near unexpected token `)'"},
        {"if then fi", "ERR line 1: syntax error near unexpected token `then'"},
        {"while true; do done", "ERR line 1: syntax error near unexpected token `done'"},
        {"f() echo", "ERR line 1: syntax error near unexpected token `echo'"},
        {"case x in a b) ;; esac", "ERR line 1: syntax error near unexpected token `b'"},
        {"echo a; ;", "ERR line 1: syntax error near unexpected token `;'"},
        {"a && && b", "ERR line 1: syntax error near unexpected token `&&'"},
        {"coproc", "ERR line 1: syntax error near unexpected token `newline'"},
        {"{ echo; } fi", "ERR line 1: syntax error near unexpected token `fi'"},
        {"echo $(fi)", "ERR line 1: syntax error near unexpected token `fi'"},
        {"[[ -f ]]", "ERR line 1: unexpected argument `]]' to conditional unary operator"},
        {"[[ a b ]]", "ERR line 1: conditional binary operator expected"},
        {"[[ a == ]]", "ERR line 1: unexpected argument `]]' to conditional binary operator"},
        {"[[ ( a ]]", "ERR line 1: unexpected token `]]', expected `)'"},
        {"echo\n[[ a\n\n", "ERR line 2: unexpected token `newline', conditional binary operator expected"},
        {"echo\n[[ a == b\n\n", "ERR line 2: unexpected EOF while looking for `]]'"},
        {"echo\n[[ a == b &&\n", "ERR line 3: unexpected token `EOF' in conditional command"},
        {"[[ a =~ (b ]]", "ERR line 1: unexpected EOF while looking for matching `)'"},
        {"for ((a;b)); do :; done", "ERR line 1: syntax error: arithmetic expression required"},
        {"for ((a;b;c;d)); do :; done", "ERR line 1: syntax error: `;' unexpected"},
        {"for", "ERR line 1: syntax error near unexpected token `newline'"},
        {"case", "ERR line 1: syntax error near unexpected token `newline'"},
        {"in", "ERR line 1: syntax error near unexpected token `in'"},
        {"echo $(echo 'a)", "ERR line 1: unexpected EOF while looking for matching `''"},
        {"for x in a; do", "ERR line 2: syntax error: unexpected end of file"},
        {"case x in a) b", "ERR line 2: syntax error: unexpected end of file"},
        {"a | &", "ERR line 1: syntax error near unexpected token `&'"},
        {"(a) (b)", "ERR line 1: syntax error near unexpected token `('"},
        {"cat <<E\na\nE)", "(cmd cat (r<< E u:E a\nE)\n))"},
        {"((1)", "ERR line 3: syntax error: unexpected end of file"},
        {"echo $((1)", "ERR line 1: unexpected EOF while looking for matching `)'"},
        {"f\\\ni", "ERR line 2: syntax error near unexpected token `fi'"},
    });
}

// Some [[ ]] errors make bash stop reading the script without any message (and `bash -n` exits 0), so
// the tables cannot hold them. We report them as ordinary syntax errors.
TEST(ParserErrors, SilentBashCondErrorsAreErrors) {
    run_table({
        {"[[ ]]", "ERR line 1: syntax error near unexpected token `]]'"},
        {"[[ ! ]]", "ERR line 1: syntax error near unexpected token `]]'"},
        {"[[ a && ! ]]", "ERR line 1: syntax error near unexpected token `]]'"},
        {"[[ ! ! ]]", "ERR line 1: syntax error near unexpected token `]]'"},
    });
}

TEST(ParserErrors, Format) {
    ParseResult r = parse("echo ok\nfi");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.script, nullptr);
    EXPECT_EQ(r.error->format("bashkit"), "bashkit: line 2: syntax error near unexpected token `fi'");
    EXPECT_EQ(r.error->pos.col, 1u);
}

// ---------------------------------------------------------------- hardening

TEST(ParserLimits, NestingDepthIsCapped) {
    const std::string kMsg = "maximum nesting depth exceeded";
    auto expect_depth_error = [&](const std::string& src) {
        ParseResult r = parse(src);
        ASSERT_FALSE(r.ok()) << src.substr(0, 40);
        EXPECT_EQ(r.error->message, kMsg) << src.substr(0, 40);
    };
    expect_depth_error(std::string(1000000, '('));
    std::string s;
    for (int i = 0; i < 100000; ++i) s += "{ ";
    expect_depth_error(s);
    for (int i = 0; i < 100000; ++i) s += "$(";
    expect_depth_error(s);
    s.clear();
    for (int i = 0; i < 100000; ++i) s += "if a; then ";
    expect_depth_error(s);
    s = "a";
    for (int i = 0; i < 300; ++i) s = "$(echo \"" + s + "\")";
    expect_depth_error(s);
    s = "echo ";
    for (int i = 0; i < 100000; ++i) s += "${x:-";
    expect_depth_error(s);
    expect_depth_error("echo $((" + std::string(100000, '(') + "1");
    expect_depth_error("echo $((" + std::string(100000, '-') + "1))");
    expect_depth_error("echo $((" + std::string(100000, '!') + "1))");
    s = "[[ ";
    for (int i = 0; i < 100000; ++i) s += "! ( ";
    expect_depth_error(s + "a ]]");

    ParseOptions small;
    small.max_depth = 3;
    EXPECT_EQ(P("{ { a; }; }", small), "(brace (brace (cmd a)))");
    EXPECT_EQ(P("{ { { { a; }; }; }; }", small), "ERR line 1: " + kMsg);
    EXPECT_EQ(P("echo $(( ((((1)))) ))", small), "ERR line 1: " + kMsg);
}

TEST(ParserLimits, LinearOnLargeInput) {
    auto time_parse = [](const std::string& src) {
        auto t0 = std::chrono::steady_clock::now();
        ParseResult r = parse(src);
        auto dt = std::chrono::steady_clock::now() - t0;
        EXPECT_TRUE(r.ok()) << (r.error ? r.error->message : "");
        return std::chrono::duration<double>(dt).count();
    };
    std::string semis;
    for (int i = 0; i < 500000; ++i) semis += "a;";
    time_parse(semis);  // 1 MB of `a;`
    time_parse("echo " + std::string(1 << 20, 'x'));
    std::string dq = "echo \"";
    for (int i = 0; i < 200000; ++i) dq += "a$x";
    time_parse(dq + "\"");
    std::string hd = "cat <<EOF\n";
    for (int i = 0; i < 100000; ++i) hd += "line $x `y` here\n";
    time_parse(hd + "EOF\n");
    std::string q = "cat <<'EOF'\n";
    for (int i = 0; i < 100000; ++i) q += "line $x here\n";
    time_parse(q + "EOF\n");
    std::string many;
    for (int i = 0; i < 50000; ++i) many += "cat <<E\nx\nE\n";
    time_parse(many);
    // $(( that turn out to be command substitutions, nested: each level is re-read once, not 2^n times
    std::string f = "a";
    for (int i = 0; i < 60; ++i) f = "$(( (" + f + ") ) )";
    time_parse("echo " + f);
    // long runs of line continuations inside operators, names and reserved words
    std::string conts;
    for (int i = 0; i < 100000; ++i) conts += "\\\n";
    EXPECT_LT(time_parse("i" + conts + "f echo a |" + conts + "| echo $" + conts + "x${" + conts + "y" + conts +
                         "}; t" + conts + "hen :; f" + conts + "i"),
              60.0);
    // substitutions whose errors wait for run time: flat, and nested re-reads of $(( as $(
    std::string deferred = "echo";
    for (int i = 0; i < 50000; ++i) deferred += " $((x)+1) `if`";
    EXPECT_LT(time_parse(deferred), 60.0);
    std::string g = "1";
    for (int i = 0; i < 60; ++i) g = "$((x)+" + g + ")";
    EXPECT_LT(time_parse("echo " + g), 60.0);
    // a generous bound that only a quadratic blow-up would exceed, even unoptimised with sanitizers
    EXPECT_LT(time_parse(semis), 60.0);
}

TEST(ParserLimits, ArbitraryBytesNeverCrash) {
    std::mt19937 rng(12345);
    const std::string alphabet = std::string("$(){}[]<>|&;'\"`\\ \n\t#=!*?@+-:/%^,~0123abcEOFif then fi do done case esac", 72) +
                                 std::string("\0\xff\xc3", 3);
    const char* words[] = {"if ", "then ", "fi ", "for ", "in ", "do ", "done ", "case ", "esac ", "((", "))",
                           "[[ ", " ]]", "$((", "${", "<<EOF\n", "\nEOF\n", "$(", "`", "function ", "() ", "=(",
                           "<(", "@(", "=~ ", "-f ", "<<-", "<<<", "coproc ", "select ", "time "};
    for (int iter = 0; iter < 4000; ++iter) {
        std::string s;
        int len = static_cast<int>(rng() % 60);
        for (int i = 0; i < len; ++i) {
            if (rng() % 4 == 0)
                s += words[rng() % (sizeof(words) / sizeof(words[0]))];
            else
                s += alphabet[rng() % alphabet.size()];
        }
        ParseOptions opt;
        opt.extglob = iter % 2 == 0;
        ParseResult r = parse(s, opt);
        EXPECT_TRUE(r.ok() || !r.error->message.empty());
        Arena a;
        (void)parse_arith(s, a);
    }
}


// ---------------------------------------------------------------- aliases

// A parse with aliases gives the tree of the text bash would read.
TEST(Aliases, ExpandAsBashReads) {
    std::map<std::string, std::string> al{{"ll", "ls -l"},    {"e", "echo "},        {"one", "ONE "},
                                          {"LEFT", "{"},      {"loop", "for i in 1 2; do echo $i;"},
                                          {"self", "self x"}, {"nl", "echo a\necho b"}, {"none", ""}};
    ParseOptions opt;
    opt.aliases = &al;
    run_table({{"ll /tmp", P("ls -l /tmp").c_str()},
               {"e one one x", P("echo ONE ONE x").c_str()},
               {"echo ll", P("echo ll").c_str()},
               {"'ll' x", P("'ll' x").c_str()},
               {"X=1 ll", P("X=1 ls -l").c_str()},
               {"LEFT echo a; }", P("{ echo a; }").c_str()},
               {"loop done", P("for i in 1 2; do echo $i; done").c_str()},
               {"self", P("self x").c_str()},
               {"nl c", P("echo a\necho b c").c_str()},
               {"none (( 1 ))", P("(( 1 ))").c_str()},
               {"case ll in ll) ll;; esac", P("case ll in ll) ls -l;; esac").c_str()}},
              opt);
    EXPECT_EQ(P("ll", {}), P("ll"));  // no aliases given: none expanded
}

// Values that double at each level stop at the bound, as a syntax error.
TEST(Aliases, ExpansionIsBounded) {
    std::map<std::string, std::string> al;
    std::string prev = ":";
    for (int i = 1; i <= 30; ++i) {
        std::string name = "a" + std::to_string(i);
        al[name] = prev + " " + prev + " ";
        prev = name;
    }
    ParseOptions opt;
    opt.aliases = &al;
    EXPECT_EQ(P(prev, opt), "ERR line 1: alias expansion limit exceeded");
}

// Random alias values and lines made of the pieces that open and close constructs: a parse ends, with a
// tree or an error, and never reads outside the text it is in (a value may end inside a word, a
// substitution, a here-document...).
TEST(Aliases, RandomValuesNeverBreakTheParser) {
    const std::vector<std::string> toks = {
        "<<E\n", "E\n", "$(cat <<E\n", "\"$(", "`", "<(", "function", "f()", "((", "\\\n", "a", "b", "c", "echo",
        "x", "$(", ")", "(", "{", "}", ";", "\n", "\"", "'", "<<E", "E", "for", "in", "do", "done", "if", "then",
        "fi", "case", "esac", ";;", "|", "&&", "[[", "]]", "=", "a=(", "$((", "1", "+", "))", "\\", "#", " ",
        "\t", "${", "[", "]", "!", "time", "a[$(", "b)]=1", "<<-E", "$x"};
    std::mt19937 rng(12345);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    for (int iter = 0; iter < 3000; ++iter) {
        std::map<std::string, std::string> al;
        for (const char* name : {"a", "b", "c", "x"}) {
            std::string v;
            for (size_t k = pick(7); k > 0; --k) v += toks[pick(toks.size())] + (pick(2) ? " " : "");
            al[name] = v;
        }
        std::string src;
        for (int line = 0; line < 4; ++line) {
            for (size_t k = 1 + pick(8); k > 0; --k) src += toks[pick(toks.size())] + (pick(3) ? " " : "");
            src += "\n";
        }
        ParseOptions opt;
        opt.aliases = &al;
        ScriptReader rd(std::make_shared<const std::string>(src), opt);
        for (int units = 0; !rd.at_end(); ++units) {
            ASSERT_LT(units, 1000) << src;
            (void)rd.next();
        }
        (void)parse(src, opt);
    }
}

// ScriptReader: one top-level command line per unit, positions in the whole script, here-document bodies
// with their line, "incomplete" errors for input that more text could finish.
TEST(ScriptReader, OneLinePerUnit) {
    ScriptReader rd(std::make_shared<const std::string>("a; b\n\n# c\ncat <<E\nbody\nE\nif x\nthen y; fi\nlast"));
    std::vector<std::pair<size_t, uint32_t>> units;  // statements, line of the first
    std::vector<bool> complete;
    while (!rd.at_end()) {
        ParseUnit u = rd.next();
        ASSERT_TRUE(u.result.ok()) << u.result.error->message;
        units.emplace_back(u.result.script->body.size, u.result.script->body.size ? u.result.script->body[0]->pos.line : 0);
        complete.push_back(u.complete);
    }
    std::vector<std::pair<size_t, uint32_t>> want{{2, 1}, {1, 4}, {1, 7}, {1, 9}};
    EXPECT_EQ(units, want);
    EXPECT_EQ(complete, (std::vector<bool>{true, true, true, false}));
}

TEST(ScriptReader, ErrorsSayWhetherMoreInputCouldHelp) {
    for (const char* src : {"if true; then", "echo 'open", "a &&", "f() {", "echo $(("}) {
        ScriptReader rd(std::make_shared<const std::string>(src));
        ParseUnit u = rd.next();
        ASSERT_FALSE(u.result.ok()) << src;
        EXPECT_TRUE(u.result.error->incomplete) << src;
        EXPECT_TRUE(rd.at_end());
    }
    ScriptReader rd(std::make_shared<const std::string>("echo ok\nfi\necho never\n"));
    EXPECT_TRUE(rd.next().result.ok());
    ParseUnit bad = rd.next();
    ASSERT_FALSE(bad.result.ok());
    EXPECT_FALSE(bad.result.error->incomplete);
    EXPECT_EQ(bad.result.error->pos.line, 2u);
}

TEST(ScriptReader, UnterminatedHereDocIsNotComplete) {
    ScriptReader rd(std::make_shared<const std::string>("cat <<EOF\nbody\n"));
    ParseUnit u = rd.next();
    ASSERT_TRUE(u.result.ok());
    EXPECT_FALSE(u.complete);
    ASSERT_EQ(u.result.unterminated_heredocs.size(), 1u);
    EXPECT_EQ(u.result.unterminated_heredocs[0].first, 1u);
    EXPECT_EQ(u.result.unterminated_heredocs[0].second, "EOF");
}

}  // namespace
}  // namespace bashkit::syntax
