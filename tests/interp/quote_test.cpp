// Quoting and escape tests. The tables were produced by /bin/bash 5.2 (LC_ALL=C.UTF-8) and are checked
// against it again when /bin/bash exists; random byte strings must survive a round trip through bash's eval.
#include "interp/quote.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::interp {
namespace {

// A string literal with its length, so that expectations may hold NUL bytes.
struct QuoteBytes {
    template <size_t N>
    constexpr QuoteBytes(const char (&s)[N]) : v(s, N - 1) {}
    std::string_view v;
};

struct QuoteCase {
    QuoteBytes input;
    QuoteBytes printf_q;  // printf %q
    QuoteBytes at_q;      // ${x@Q}
    QuoteBytes declare;   // declare -p x, after "declare -- x="
    QuoteBytes set;       // set, after "x="
};

// clang-format off
const QuoteCase kQuoteCases[] = {
    {"a", "a", "'a'", "\"a\"", "a"},
    {"a b", "a\\ b", "'a b'", "\"a b\"", "'a b'"},
    {"", "''", "''", "\"\"", ""},
    {"'", "\\'", "\\'", "\"'\"", "\\'"},
    {"it's", "it\\'s", "'it'\\''s'", "\"it's\"", "'it'\\''s'"},
    {"''", "\\'\\'", "''\\'''\\'''", "\"''\"", "''\\'''\\'''"},
    {"a\012b", "$'a\\nb'", "$'a\\nb'", "$'a\\nb'", "$'a\\nb'"},
    {"\011", "$'\\t'", "$'\\t'", "$'\\t'", "$'\\t'"},
    {" ", "\\ ", "' '", "\" \"", "' '"},
    {"$HOME", "\\$HOME", "'$HOME'", "\"\\$HOME\"", "'$HOME'"},
    {"${x}", "\\$\\{x\\}", "'${x}'", "\"\\${x}\"", "'${x}'"},
    {"`id`", "\\`id\\`", "'`id`'", "\"\\`id\\`\"", "'`id`'"},
    {"\"q\"", "\\\"q\\\"", "'\"q\"'", "\"\\\"q\\\"\"", "'\"q\"'"},
    {"\\", "\\\\", "'\\'", "\"\\\\\"", "'\\'"},
    {"a\\b", "a\\\\b", "'a\\b'", "\"a\\\\b\"", "'a\\b'"},
    {"~", "\\~", "'~'", "\"~\"", "'~'"},
    {"~x", "\\~x", "'~x'", "\"~x\"", "'~x'"},
    {"a~", "a~", "'a~'", "\"a~\"", "a~"},
    {"x=~", "x=\\~", "'x=~'", "\"x=~\"", "'x=~'"},
    {"x:~", "x:\\~", "'x:~'", "\"x:~\"", "'x:~'"},
    {"a=b", "a=b", "'a=b'", "\"a=b\"", "a=b"},
    {"#a", "\\#a", "'#a'", "\"#a\"", "'#a'"},
    {"a#", "a#", "'a#'", "\"a#\"", "a#"},
    {"a,b", "a\\,b", "'a,b'", "\"a,b\"", "a,b"},
    {"!", "\\!", "'!'", "\"!\"", "'!'"},
    {"%", "%", "'%'", "\"%\"", "%"},
    {"+-./:=@_", "+-./:=@_", "'+-./:=@_'", "\"+-./:=@_\"", "+-./:=@_"},
    {"*?[]", "\\*\\?\\[\\]", "'*?[]'", "\"*?[]\"", "'*?[]'"},
    {"{a,b}", "\\{a\\,b\\}", "'{a,b}'", "\"{a,b}\"", "'{a,b}'"},
    {"|&;<>()", "\\|\\&\\;\\<\\>\\(\\)", "'|&;<>()'", "\"|&;<>()\"", "'|&;<>()'"},
    {"^", "\\^", "'^'", "\"^\"", "'^'"},
    {"\303\251", "\303\251", "'\303\251'", "\"\303\251\"", "\303\251"},
    {"caf\303\251 bar", "caf\303\251\\ bar", "'caf\303\251 bar'", "\"caf\303\251 bar\"", "'caf\303\251 bar'"},
    {"\346\227\245\346\234\254\350\252\236", "\346\227\245\346\234\254\350\252\236", "'\346\227\245\346\234\254\350\252\236'", "\"\346\227\245\346\234\254\350\252\236\"", "\346\227\245\346\234\254\350\252\236"},
    {"\205", "$'\\205'", "$'\\205'", "$'\\205'", "$'\\205'"},
    {"\351", "$'\\351'", "$'\\351'", "$'\\351'", "$'\\351'"},
    {"\177", "$'\\177'", "$'\\177'", "$'\\177'", "$'\\177'"},
    {"\001", "$'\\001'", "$'\\001'", "$'\\001'", "$'\\001'"},
    {"\033[0m", "$'\\E[0m'", "$'\\E[0m'", "$'\\E[0m'", "$'\\E[0m'"},
    {"a\015b", "$'a\\rb'", "$'a\\rb'", "$'a\\rb'", "$'a\\rb'"},
    {"\007\010\014\013", "$'\\a\\b\\f\\v'", "$'\\a\\b\\f\\v'", "$'\\a\\b\\f\\v'", "$'\\a\\b\\f\\v'"},
    {"\302\205", "$'\\302\\205'", "$'\\302\\205'", "$'\\302\\205'", "$'\\302\\205'"},
    {"\302\240", "\302\240", "'\302\240'", "\"\302\240\"", "\302\240"},
    {"\342\200\250", "$'\\342\\200\\250'", "$'\\342\\200\\250'", "$'\\342\\200\\250'", "$'\\342\\200\\250'"},
    {"\315\270", "$'\\315\\270'", "$'\\315\\270'", "$'\\315\\270'", "$'\\315\\270'"},
    {"\342\200\213", "\342\200\213", "'\342\200\213'", "\"\342\200\213\"", "\342\200\213"},
    {"\360\237\230\200", "\360\237\230\200", "'\360\237\230\200'", "\"\360\237\230\200\"", "\360\237\230\200"},
    {"\356\200\200", "\356\200\200", "'\356\200\200'", "\"\356\200\200\"", "\356\200\200"},
    {"x\303", "$'x\\303'", "$'x\\303'", "$'x\\303'", "$'x\\303'"},
    {"\303\251\377", "$'\303\251\\377'", "$'\303\251\\377'", "$'\303\251\\377'", "$'\303\251\\377'"},
    {"a'b\012c", "$'a\\'b\\nc'", "$'a\\'b\\nc'", "$'a\\'b\\nc'", "$'a\\'b\\nc'"},
    {"tab\011here", "$'tab\\there'", "$'tab\\there'", "$'tab\\there'", "$'tab\\there'"},
    {"semi;colon", "semi\\;colon", "'semi;colon'", "\"semi;colon\"", "'semi;colon'"},
    {"-n", "-n", "'-n'", "\"-n\"", "-n"},
    {"--", "--", "'--'", "\"--\"", "--"},
    {"a=~/x:~/y", "a=\\~/x:\\~/y", "'a=~/x:~/y'", "\"a=~/x:~/y\"", "'a=~/x:~/y'"},
};

struct DecodeCase {
    EscapeMode mode;
    QuoteBytes input;
    QuoteBytes out;
    bool saw_c;
};

const DecodeCase kDecodeCases[] = {
    {EscapeMode::Echo, "plain", "plain", false},
    {EscapeMode::Echo, "a\\nb", "a\012b", false},
    {EscapeMode::Echo, "\\t\\r\\v\\f\\a\\b", "\011\015\013\014\007\010", false},
    {EscapeMode::Echo, "\\e\\E", "\033\033", false},
    {EscapeMode::Echo, "\\\\", "\\", false},
    {EscapeMode::Echo, "\\q", "\\q", false},
    {EscapeMode::Echo, "\\\"", "\\\"", false},
    {EscapeMode::Echo, "\\'", "\\'", false},
    {EscapeMode::Echo, "\\?", "\\?", false},
    {EscapeMode::Echo, "\\0", "\000", false},
    {EscapeMode::Echo, "\\01", "\001", false},
    {EscapeMode::Echo, "\\0101", "A", false},
    {EscapeMode::Echo, "\\01018", "A8", false},
    {EscapeMode::Echo, "\\101", "\\101", false},
    {EscapeMode::Echo, "\\1018", "\\1018", false},
    {EscapeMode::Echo, "\\7", "\\7", false},
    {EscapeMode::Echo, "\\777", "\\777", false},
    {EscapeMode::Echo, "\\400", "\\400", false},
    {EscapeMode::Echo, "\\x41", "A", false},
    {EscapeMode::Echo, "\\x414", "A4", false},
    {EscapeMode::Echo, "\\xG", "\\xG", false},
    {EscapeMode::Echo, "\\x", "\\x", false},
    {EscapeMode::Echo, "\\u00e9", "\303\251", false},
    {EscapeMode::Echo, "\\u263a", "\342\230\272", false},
    {EscapeMode::Echo, "\\U0001F600", "\360\237\230\200", false},
    {EscapeMode::Echo, "\\u", "\\u", false},
    {EscapeMode::Echo, "\\U", "\\U", false},
    {EscapeMode::Echo, "\\u12", "\022", false},
    {EscapeMode::Echo, "\\ud800", "\355\240\200", false},
    {EscapeMode::Echo, "\\U7fffffff", "\375\277\277\277\277\277", false},
    {EscapeMode::Echo, "\\Uffffffff", "", false},
    {EscapeMode::Echo, "a\\cb", "a", true},
    {EscapeMode::Echo, "\\c", "", true},
    {EscapeMode::Echo, "x\\c", "x", true},
    {EscapeMode::Echo, "\\x{41}", "\\x{41}", false},
    {EscapeMode::Echo, "\\d\\%", "\\d\\%", false},
    {EscapeMode::Echo, "\303\251\\n", "\303\251\012", false},
    {EscapeMode::Echo, "end\\", "end\\", false},
    {EscapeMode::PrintfArg, "plain", "plain", false},
    {EscapeMode::PrintfArg, "a\\nb", "a\012b", false},
    {EscapeMode::PrintfArg, "\\t\\r\\v\\f\\a\\b", "\011\015\013\014\007\010", false},
    {EscapeMode::PrintfArg, "\\e\\E", "\033\033", false},
    {EscapeMode::PrintfArg, "\\\\", "\\", false},
    {EscapeMode::PrintfArg, "\\q", "\\q", false},
    {EscapeMode::PrintfArg, "\\\"", "\\\"", false},
    {EscapeMode::PrintfArg, "\\'", "\\'", false},
    {EscapeMode::PrintfArg, "\\?", "\\?", false},
    {EscapeMode::PrintfArg, "\\0", "\000", false},
    {EscapeMode::PrintfArg, "\\01", "\001", false},
    {EscapeMode::PrintfArg, "\\0101", "A", false},
    {EscapeMode::PrintfArg, "\\01018", "A8", false},
    {EscapeMode::PrintfArg, "\\101", "A", false},
    {EscapeMode::PrintfArg, "\\1018", "A8", false},
    {EscapeMode::PrintfArg, "\\7", "\007", false},
    {EscapeMode::PrintfArg, "\\777", "\377", false},
    {EscapeMode::PrintfArg, "\\400", "\000", false},
    {EscapeMode::PrintfArg, "\\x41", "A", false},
    {EscapeMode::PrintfArg, "\\x414", "A4", false},
    {EscapeMode::PrintfArg, "\\xG", "\\xG", false},
    {EscapeMode::PrintfArg, "\\x", "\\x", false},
    {EscapeMode::PrintfArg, "\\u00e9", "\303\251", false},
    {EscapeMode::PrintfArg, "\\u263a", "\342\230\272", false},
    {EscapeMode::PrintfArg, "\\U0001F600", "\360\237\230\200", false},
    {EscapeMode::PrintfArg, "\\u", "\\u", false},
    {EscapeMode::PrintfArg, "\\U", "\\U", false},
    {EscapeMode::PrintfArg, "\\u12", "\022", false},
    {EscapeMode::PrintfArg, "\\ud800", "\355\240\200", false},
    {EscapeMode::PrintfArg, "\\U7fffffff", "\375\277\277\277\277\277", false},
    {EscapeMode::PrintfArg, "\\Uffffffff", "", false},
    {EscapeMode::PrintfArg, "a\\cb", "a", true},
    {EscapeMode::PrintfArg, "\\c", "", true},
    {EscapeMode::PrintfArg, "x\\c", "x", true},
    {EscapeMode::PrintfArg, "\\x{41}", "\\x{41}", false},
    {EscapeMode::PrintfArg, "\\d\\%", "\\d\\%", false},
    {EscapeMode::PrintfArg, "\303\251\\n", "\303\251\012", false},
    {EscapeMode::PrintfArg, "end\\", "end\\", false},
    {EscapeMode::PrintfFormat, "plain", "plain", false},
    {EscapeMode::PrintfFormat, "a\\nb", "a\012b", false},
    {EscapeMode::PrintfFormat, "\\t\\r\\v\\f\\a\\b", "\011\015\013\014\007\010", false},
    {EscapeMode::PrintfFormat, "\\e\\E", "\033\033", false},
    {EscapeMode::PrintfFormat, "\\\\", "\\", false},
    {EscapeMode::PrintfFormat, "\\q", "\\q", false},
    {EscapeMode::PrintfFormat, "\\\"", "\"", false},
    {EscapeMode::PrintfFormat, "\\'", "'", false},
    {EscapeMode::PrintfFormat, "\\?", "?", false},
    {EscapeMode::PrintfFormat, "\\0", "\000", false},
    {EscapeMode::PrintfFormat, "\\01", "\001", false},
    {EscapeMode::PrintfFormat, "\\0101", "\0101", false},
    {EscapeMode::PrintfFormat, "\\01018", "\01018", false},
    {EscapeMode::PrintfFormat, "\\101", "A", false},
    {EscapeMode::PrintfFormat, "\\1018", "A8", false},
    {EscapeMode::PrintfFormat, "\\7", "\007", false},
    {EscapeMode::PrintfFormat, "\\777", "\377", false},
    {EscapeMode::PrintfFormat, "\\400", "\000", false},
    {EscapeMode::PrintfFormat, "\\x41", "A", false},
    {EscapeMode::PrintfFormat, "\\x414", "A4", false},
    {EscapeMode::PrintfFormat, "\\xG", "\\xG", false},
    {EscapeMode::PrintfFormat, "\\x", "\\x", false},
    {EscapeMode::PrintfFormat, "\\u00e9", "\303\251", false},
    {EscapeMode::PrintfFormat, "\\u263a", "\342\230\272", false},
    {EscapeMode::PrintfFormat, "\\U0001F600", "\360\237\230\200", false},
    {EscapeMode::PrintfFormat, "\\u", "\\u", false},
    {EscapeMode::PrintfFormat, "\\U", "\\U", false},
    {EscapeMode::PrintfFormat, "\\u12", "\022", false},
    {EscapeMode::PrintfFormat, "\\ud800", "\355\240\200", false},
    {EscapeMode::PrintfFormat, "\\U7fffffff", "\375\277\277\277\277\277", false},
    {EscapeMode::PrintfFormat, "\\Uffffffff", "", false},
    {EscapeMode::PrintfFormat, "a\\cb", "a\\cb", false},
    {EscapeMode::PrintfFormat, "\\c", "\\c", false},
    {EscapeMode::PrintfFormat, "x\\c", "x\\c", false},
    {EscapeMode::PrintfFormat, "\\x{41}", "\\x{41}", false},
    {EscapeMode::PrintfFormat, "\303\251\\n", "\303\251\012", false},
    {EscapeMode::PrintfFormat, "end\\", "end\\", false},
    {EscapeMode::DollarQuote, "plain", "plain", false},
    {EscapeMode::DollarQuote, "a\\nb", "a\012b", false},
    {EscapeMode::DollarQuote, "\\t\\r\\v\\f\\a\\b", "\011\015\013\014\007\010", false},
    {EscapeMode::DollarQuote, "\\e\\E", "\033\033", false},
    {EscapeMode::DollarQuote, "\\\\", "\\", false},
    {EscapeMode::DollarQuote, "\\q", "\\q", false},
    {EscapeMode::DollarQuote, "\\\"", "\"", false},
    {EscapeMode::DollarQuote, "\\'", "'", false},
    {EscapeMode::DollarQuote, "\\?", "?", false},
    {EscapeMode::DollarQuote, "\\0", "", false},
    {EscapeMode::DollarQuote, "\\01", "\001", false},
    {EscapeMode::DollarQuote, "\\0101", "\0101", false},
    {EscapeMode::DollarQuote, "\\01018", "\01018", false},
    {EscapeMode::DollarQuote, "\\101", "A", false},
    {EscapeMode::DollarQuote, "\\1018", "A8", false},
    {EscapeMode::DollarQuote, "\\7", "\007", false},
    {EscapeMode::DollarQuote, "\\777", "\377", false},
    {EscapeMode::DollarQuote, "\\400", "", false},
    {EscapeMode::DollarQuote, "\\x41", "A", false},
    {EscapeMode::DollarQuote, "\\x414", "A4", false},
    {EscapeMode::DollarQuote, "\\xG", "\\xG", false},
    {EscapeMode::DollarQuote, "\\x", "\\x", false},
    {EscapeMode::DollarQuote, "\\u00e9", "\303\251", false},
    {EscapeMode::DollarQuote, "\\u263a", "\342\230\272", false},
    {EscapeMode::DollarQuote, "\\U0001F600", "\360\237\230\200", false},
    {EscapeMode::DollarQuote, "\\u", "\\u", false},
    {EscapeMode::DollarQuote, "\\U", "\\U", false},
    {EscapeMode::DollarQuote, "\\u12", "\022", false},
    {EscapeMode::DollarQuote, "\\ud800", "\355\240\200", false},
    {EscapeMode::DollarQuote, "\\U7fffffff", "\375\277\277\277\277\277", false},
    {EscapeMode::DollarQuote, "\\Uffffffff", "", false},
    {EscapeMode::DollarQuote, "a\\cb", "a\002", false},
    {EscapeMode::DollarQuote, "\\c", "\\c", false},
    {EscapeMode::DollarQuote, "x\\c", "x\\c", false},
    {EscapeMode::DollarQuote, "\\x{41}", "A", false},
    {EscapeMode::DollarQuote, "\\d\\%", "\\d\\%", false},
    {EscapeMode::DollarQuote, "\303\251\\n", "\303\251\012", false},
    {EscapeMode::DollarQuote, "\\ca", "\001", false},
    {EscapeMode::DollarQuote, "\\cA", "\001", false},
    {EscapeMode::DollarQuote, "\\c?", "\177", false},
    {EscapeMode::DollarQuote, "\\c@z", "", false},
    {EscapeMode::DollarQuote, "\\c[", "\033", false},
    {EscapeMode::DollarQuote, "\\c\\\\", "\034", false},
    {EscapeMode::DollarQuote, "\\c\303\251", "\003\251", false},
    {EscapeMode::DollarQuote, "a\\0b", "a", false},
    {EscapeMode::DollarQuote, "\\x{4142}z", "Bz", false},
    {EscapeMode::DollarQuote, "\\x{}z", "", false},
    {EscapeMode::DollarQuote, "\\x{41", "A", false},
    {EscapeMode::DollarQuote, "\\u0000z", "", false},
};
// clang-format on

const char* mode_name(EscapeMode m) {
    switch (m) {
        case EscapeMode::DollarQuote: return "DollarQuote";
        case EscapeMode::Echo: return "Echo";
        case EscapeMode::PrintfFormat: return "PrintfFormat";
        case EscapeMode::PrintfArg: return "PrintfArg";
    }
    return "?";
}

// Runs /bin/bash with argv (after "bash") in the C.UTF-8 locale; returns its stdout.
std::string bash_argv_output(const std::vector<std::string>& argv, int* status = nullptr) {
    std::string out;
    int out_pipe[2];
    if (pipe(out_pipe) != 0) return out;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
    std::vector<std::string> full = {"bash"};
    full.insert(full.end(), argv.begin(), argv.end());
    std::vector<char*> cargv;
    for (auto& a : full) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    std::vector<std::string> env = {"LC_ALL=C.UTF-8", "TZ=UTC", "PATH=/usr/bin:/bin"};
    std::vector<char*> cenv;
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/bash", &fa, nullptr, cargv.data(), cenv.data());
    posix_spawn_file_actions_destroy(&fa);
    close(out_pipe[1]);
    if (rc != 0) {
        close(out_pipe[0]);
        return out;
    }
    char buf[4096];
    ssize_t n;
    while ((n = read(out_pipe[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    close(out_pipe[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (status) *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return out;
}

bool quote_have_bash() { return access("/bin/bash", X_OK) == 0; }

std::vector<std::string> split(const std::string& s, std::string_view sep) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t at; (at = s.find(sep, start)) != std::string::npos; start = at + sep.size())
        parts.push_back(s.substr(start, at - start));
    return parts;
}

// What bash prints for each input: %q, ${x@Q}, declare -p and set forms, each ended by @@END@@.
constexpr const char* kQuoteScript = R"(
for a; do
  x=$a
  printf '%q@@END@@' "$x"
  printf '%s@@END@@' "${x@Q}"
  d=$(declare -p x); printf '%s@@END@@' "${d#declare -- x=}"
  s=$(set | grep -a '^x='); printf '%s@@END@@' "${s#x=}"
done
)";

// eval's each argument as the right-hand side of an assignment and prints the value, ended by @@END@@.
constexpr const char* kEvalScript = R"(
for q; do
  eval "v=$q"
  printf '%s@@END@@' "$v"
done
)";

TEST(Quote, Table) {
    for (const QuoteCase& c : kQuoteCases) {
        EXPECT_EQ(quote_for_reuse(c.input.v, QuoteStyle::Backslash), c.printf_q.v) << c.input.v;
        EXPECT_EQ(quote_for_reuse(c.input.v, QuoteStyle::Single), c.at_q.v) << c.input.v;
        EXPECT_EQ(quote_declare_value(c.input.v), c.declare.v) << c.input.v;
        EXPECT_EQ(quote_set_value(c.input.v), c.set.v) << c.input.v;
    }
}

TEST(Quote, TableMatchesBash) {
    if (!quote_have_bash()) GTEST_SKIP() << "no /bin/bash";
    std::vector<std::string> argv = {"-c", kQuoteScript, "_"};
    for (const QuoteCase& c : kQuoteCases) argv.emplace_back(c.input.v);
    auto parts = split(bash_argv_output(argv), "@@END@@");
    ASSERT_EQ(parts.size(), 4 * std::size(kQuoteCases));
    for (size_t i = 0; i < std::size(kQuoteCases); ++i) {
        const QuoteCase& c = kQuoteCases[i];
        EXPECT_EQ(parts[4 * i], c.printf_q.v) << c.input.v;
        EXPECT_EQ(parts[4 * i + 1], c.at_q.v) << c.input.v;
        EXPECT_EQ(parts[4 * i + 2], c.declare.v) << c.input.v;
        EXPECT_EQ(parts[4 * i + 3], c.set.v) << c.input.v;
    }
}

TEST(Decode, Table) {
    for (const DecodeCase& c : kDecodeCases) {
        DecodeResult r = ansi_c_decode(c.input.v, c.mode);
        EXPECT_EQ(r.bytes, c.out.v) << mode_name(c.mode) << " " << c.input.v;
        EXPECT_EQ(r.saw_c, c.saw_c) << mode_name(c.mode) << " " << c.input.v;
    }
}

TEST(Decode, TableMatchesBash) {
    if (!quote_have_bash()) GTEST_SKIP() << "no /bin/bash";
    // Each mode's output is followed by a marker that \c suppresses ("|" for printf, the newline of echo).
    const char* script = R"(
mode=$1; shift
for a; do
  case $mode in
    Echo) echo -e "x$a"; echo -n .; ;;
    PrintfArg) printf '%b|' "$a" 2>/dev/null; echo -n .; ;;
    PrintfFormat) printf -- "$a" 2>/dev/null; printf '|.'; ;;
    DollarQuote) eval "v=\$'$a'"; printf '%s' "$v|."; ;;
  esac
  printf '@@END@@'
done
)";
    for (EscapeMode mode : {EscapeMode::Echo, EscapeMode::PrintfArg, EscapeMode::PrintfFormat, EscapeMode::DollarQuote}) {
        std::vector<std::string> argv = {"-c", script, "_", mode_name(mode)};
        std::vector<const DecodeCase*> cases;
        for (const DecodeCase& c : kDecodeCases) {
            if (c.mode != mode) continue;
            cases.push_back(&c);
            argv.emplace_back(c.input.v);
        }
        auto parts = split(bash_argv_output(argv), "@@END@@");
        ASSERT_EQ(parts.size(), cases.size()) << mode_name(mode);
        for (size_t i = 0; i < cases.size(); ++i) {
            std::string expected(cases[i]->out.v);
            if (mode == EscapeMode::Echo) expected = "x" + expected + (cases[i]->saw_c ? "" : "\n");
            else if (mode == EscapeMode::PrintfArg || !cases[i]->saw_c) expected += cases[i]->saw_c ? "" : "|";
            expected += ".";
            EXPECT_EQ(parts[i], expected) << mode_name(mode) << " " << cases[i]->input.v;
        }
    }
}

// Random strings mixing ASCII, shell specials, control bytes, valid UTF-8 (printable and not) and stray
// high bytes; never NUL (bash strings cannot hold it). Every other string has printable characters only, so
// that the backslash and single-quote forms get exercised as much as $'...'.
std::vector<std::string> random_strings(size_t count, uint32_t seed) {
    static const std::vector<std::string> kPrintablePieces = {
        " ", "'", "\"", "\\", "$", "`", "!", "*", "?", "[", "]", "{", "}", "(", ")", "|", "&", ";", "<", ">",
        "#", "~", "=", ":", ",", "^", "%", "-", "@", "+", "\xc3\xa9", "\xe6\x97\xa5", "\xc2\xa0", "\xe2\x80\x8b"};
    static const std::vector<std::string> kPieces = {
        " ", "'", "\"", "\\", "$", "`", "!", "*", "?", "[", "]", "{", "}", "(", ")", "|", "&", ";", "<", ">",
        "#", "~", "=", ":", ",", "^", "%", "\t", "\n", "\r", "\x01", "\x1b", "\x7f", "\x1f",
        "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "\xc2\x85", "\xc2\xa0", "\xe2\x80\xa8", "\xcd\xb8",
        "\xe2\x80\x8b", "\xee\x80\x80", "\xef\xbb\xbf", "\xcc\x80", "\xf3\xa0\x80\x81", "\xed\xa0\x80"};
    std::mt19937 rng(seed);
    std::vector<std::string> out;
    for (size_t k = 0; k < count; ++k) {
        std::string s;
        size_t pieces = rng() % 10;
        if (k % 2 == 1) {
            for (size_t p = 0; p < pieces; ++p) {
                if (rng() % 2) s += static_cast<char>(0x20 + rng() % 95);
                else s += kPrintablePieces[rng() % kPrintablePieces.size()];
            }
            out.push_back(s);
            continue;
        }
        for (size_t p = 0; p < pieces; ++p) {
            switch (rng() % 4) {
                case 0: s += static_cast<char>(0x20 + rng() % 95); break;
                case 1: s += kPieces[rng() % kPieces.size()]; break;
                case 2: s += static_cast<char>(0x80 + rng() % 128); break;
                default: s += static_cast<char>('a' + rng() % 26); break;
            }
        }
        out.push_back(s);
    }
    return out;
}

TEST(Quote, RandomStringsQuoteLikeBash) {
    if (!quote_have_bash()) GTEST_SKIP() << "no /bin/bash";
    auto inputs = random_strings(300, 12345);
    std::vector<std::string> argv = {"-c", kQuoteScript, "_"};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    auto parts = split(bash_argv_output(argv), "@@END@@");
    ASSERT_EQ(parts.size(), 4 * inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        EXPECT_EQ(quote_for_reuse(inputs[i], QuoteStyle::Backslash), parts[4 * i]) << inputs[i];
        EXPECT_EQ(quote_for_reuse(inputs[i], QuoteStyle::Single), parts[4 * i + 1]) << inputs[i];
        EXPECT_EQ(quote_declare_value(inputs[i]), parts[4 * i + 2]) << inputs[i];
        EXPECT_EQ(quote_set_value(inputs[i]), parts[4 * i + 3]) << inputs[i];
    }
}

TEST(Quote, RandomStringsRoundTripThroughEval) {
    if (!quote_have_bash()) GTEST_SKIP() << "no /bin/bash";
    auto inputs = random_strings(300, 777);
    using QuoteFn = std::string (*)(std::string_view);
    const std::vector<std::pair<const char*, QuoteFn>> quoters = {
        {"%q", [](std::string_view s) { return quote_for_reuse(s, QuoteStyle::Backslash); }},
        {"@Q", [](std::string_view s) { return quote_for_reuse(s, QuoteStyle::Single); }},
        {"ansi_c", [](std::string_view s) { return s.empty() ? std::string("''") : ansi_c_quote(s); }},
        {"single", [](std::string_view s) { return single_quote(s); }},
        {"double", [](std::string_view s) { return double_quote(s); }},
        {"declare", [](std::string_view s) { return quote_declare_value(s); }},
        {"set", [](std::string_view s) { return quote_set_value(s); }},
    };
    for (const auto& [name, fn] : quoters) {
        std::vector<std::string> argv = {"-c", kEvalScript, "_"};
        for (const auto& s : inputs) argv.push_back(fn(s));
        auto parts = split(bash_argv_output(argv), "@@END@@");
        ASSERT_EQ(parts.size(), inputs.size()) << name;
        for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(parts[i], inputs[i]) << name << " " << argv[i + 3];
    }
    // Backslash quoting alone cannot carry a newline (backslash-newline is a line continuation): only
    // strings without control characters.
    std::vector<std::string> argv = {"-c", kEvalScript, "_"};
    std::vector<std::string> plain;
    for (const auto& s : inputs) {
        if (needs_ansi_c_quoting(s)) continue;
        plain.push_back(s);
        argv.push_back(backslash_quote(s));
    }
    auto parts = split(bash_argv_output(argv), "@@END@@");
    ASSERT_EQ(parts.size(), plain.size());
    for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(parts[i], plain[i]) << argv[i + 3];
}

TEST(Quote, AnsiCQuoteDecodesBack) {
    // Without bash: $'...' decoding undoes ansi_c_quote for every byte string without NUL.
    for (const auto& s : random_strings(2000, 99)) {
        std::string q = ansi_c_quote(s);
        if (s.empty()) {
            EXPECT_EQ(q, "");
            continue;
        }
        ASSERT_GE(q.size(), 3u);
        ASSERT_EQ(q.substr(0, 2), "$'");
        ASSERT_EQ(q.back(), '\'');
        EXPECT_EQ(ansi_c_decode(std::string_view(q).substr(2, q.size() - 3), EscapeMode::DollarQuote).bytes, s);
    }
}

TEST(Quote, CLocale) {
    // Every byte >= 0x80 is a non-printable byte in the C locale.
    EXPECT_EQ(quote_for_reuse("\xc3\xa9", QuoteStyle::Backslash, false), "$'\\303\\251'");
    EXPECT_EQ(quote_for_reuse("a \xc3\xa9", QuoteStyle::Single, false), "$'a \\303\\251'");
    EXPECT_EQ(quote_declare_value("\xc3\xa9", false), "$'\\303\\251'");
    EXPECT_EQ(ansi_c_decode("\\u00e9\\U0001F600", EscapeMode::DollarQuote, false).bytes, "\\u00E9\\U0001F600");
    EXPECT_EQ(ansi_c_decode("\\u0041", EscapeMode::Echo, false).bytes, "A");
}

TEST(Utf8, DecodeAndEncode) {
    EXPECT_EQ(decode_utf8("\xc3\xa9", 0).cp, 0xE9u);
    EXPECT_EQ(decode_utf8("\xc3\xa9", 0).len, 2u);
    EXPECT_EQ(decode_utf8("\xf0\x9f\x98\x80", 0).cp, 0x1F600u);
    EXPECT_EQ(decode_utf8("\xc0\x80", 0).len, 0u);          // overlong
    EXPECT_EQ(decode_utf8("\xed\xa0\x80", 0).len, 0u);      // surrogate
    EXPECT_EQ(decode_utf8("\xf4\x90\x80\x80", 0).len, 0u);  // above U+10FFFF
    EXPECT_EQ(decode_utf8("\xe2\x82", 0).len, 0u);          // truncated
    EXPECT_EQ(decode_utf8("a", 0).cp, 'a');
    EXPECT_EQ(decode_utf8("", 0).len, 0u);
    std::string s;
    append_code_point(s, 0x41);
    append_code_point(s, 0xE9);
    append_code_point(s, 0x263A);
    append_code_point(s, 0x1F600);
    append_code_point(s, 0x80000000u);  // nothing, like bash
    EXPECT_EQ(s, "A\xc3\xa9\xe2\x98\xba\xf0\x9f\x98\x80");
    EXPECT_TRUE(is_printable_code_point(0xE9));
    EXPECT_TRUE(is_printable_code_point(0x4E2D));
    EXPECT_FALSE(is_printable_code_point(0x85));
    EXPECT_FALSE(is_printable_code_point(0x2028));
    EXPECT_FALSE(is_printable_code_point(0x378));
    EXPECT_FALSE(is_printable_code_point(0x110000));
}

TEST(Decode, EscapeStepReturnsNextIndex) {
    std::string out;
    bool saw_c = false;
    std::vector<std::string> diags;
    EXPECT_EQ(decode_escape("\\x41rest", 0, EscapeMode::PrintfFormat, out, &saw_c, &diags), 4u);
    EXPECT_EQ(out, "A");
    out.clear();
    // Unknown escape: the backslash alone, the next character is read as text.
    EXPECT_EQ(decode_escape("\\q", 0, EscapeMode::PrintfFormat, out, &saw_c, &diags), 1u);
    EXPECT_EQ(out, "\\");
    out.clear();
    EXPECT_EQ(decode_escape("\\x", 0, EscapeMode::PrintfArg, out, &saw_c, &diags), 1u);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0], "missing hex digit for \\x");
    EXPECT_FALSE(saw_c);
    out.clear();
    EXPECT_EQ(decode_escape("\\cz", 0, EscapeMode::Echo, out, &saw_c, nullptr), 2u);
    EXPECT_TRUE(saw_c);
    EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace bashkit::interp
