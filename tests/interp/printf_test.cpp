// printf builtin table tests. Every expectation was produced by /bin/bash 5.2 (LC_ALL=C.UTF-8, TZ=UTC)
// and is checked again against /bin/bash when it exists, so the table cannot drift from bash.
#include "interp/printf.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace bashkit::interp {
namespace {

// A string literal with its length, so that expectations may hold NUL bytes.
struct Bytes {
    template <size_t N>
    constexpr Bytes(const char (&s)[N]) : v(s, N - 1) {}
    std::string_view v;
};

struct PrintfCase {
    Bytes fmt;
    std::vector<Bytes> args;
    Bytes out;
    int status;
    Bytes diagnostics;  // bash's stderr without "bash: line 1: ", lines joined by \n
};

// clang-format off
const PrintfCase kCases[] = {
    {"hello", {}, "hello", 0, ""},
    {"hello\\n", {}, "hello\012", 0, ""},
    {"a\\tb\\\\c", {}, "a\011b\\c", 0, ""},
    {"\\a\\b\\f\\r\\v\\e\\E", {}, "\007\010\014\015\013\033\033", 0, ""},
    {"\\\"\\'\\?", {}, "\"'?", 0, ""},
    {"\\q\\d\\c\\z", {}, "\\q\\d\\c\\z", 0, ""},
    {"\\101\\0101\\1018", {}, "A\0101A8", 0, ""},
    {"\\7\\77\\777\\400", {}, "\007?\377\000", 0, ""},
    {"\\x41\\x4a4\\xG", {}, "AJ4\\xG", 0, "printf: missing hex digit for \\x"},
    {"\\x", {}, "\\x", 0, "printf: missing hex digit for \\x"},
    {"\\u00e9\\u263a\\U0001F600", {}, "\303\251\342\230\272\360\237\230\200", 0, ""},
    {"\\u12|\\U41|\\u", {}, "\022|A|\\u", 0, "printf: missing unicode digit for \\u"},
    {"\\ud800|\\U00110000|\\U7fffffff|\\Uffffffff", {}, "\355\240\200|\364\220\200\200|\375\277\277\277\277\277|", 0, ""},
    {"trailing\\", {}, "trailing\\", 0, ""},
    {"\\%d", {"5"}, "\\5", 0, ""},
    {"%%", {}, "%", 0, ""},
    {"100%% sure\\n", {}, "100% sure\012", 0, ""},
    {"%%d%%", {"1"}, "%d%", 0, ""},
    {"%s\\n", {"a", "b", "c"}, "a\012b\012c\012", 0, ""},
    {"%s %s\\n", {"a", "b", "c"}, "a b\012c \012", 0, ""},
    {"x\\n", {"a", "b"}, "x\012", 0, ""},
    {"%d%%\\n", {"5", "6"}, "5%\0126%\012", 0, ""},
    {"[%s|%d]", {"a"}, "[a|0]", 0, ""},
    {"[%s|%d]", {}, "[|0]", 0, ""},
    {"%s", {""}, "", 0, ""},
    {"%s", {}, "", 0, ""},
    {"%d", {}, "0", 0, ""},
    {"%b", {}, "", 0, ""},
    {"%q", {}, "''", 0, ""},
    {"%s-%s;", {"1", "2", "3", "4", "5"}, "1-2;3-4;5-;", 0, ""},
    {"%.0s", {"a", "b"}, "", 0, ""},
    {"no conversions", {"x", "y"}, "no conversions", 0, ""},
    {"[%5s]", {"ab"}, "[   ab]", 0, ""},
    {"[%-5s]", {"ab"}, "[ab   ]", 0, ""},
    {"[%05s]", {"ab"}, "[   ab]", 0, ""},
    {"[%.1s]", {"abc"}, "[a]", 0, ""},
    {"[%.s]", {"abc"}, "[]", 0, ""},
    {"[%.0s]", {"abc"}, "[]", 0, ""},
    {"[%5.2s]", {"abcdef"}, "[   ab]", 0, ""},
    {"[%-5.2s]", {"abcdef"}, "[ab   ]", 0, ""},
    {"[%*s]", {"4", "x"}, "[   x]", 0, ""},
    {"[%*s]", {"-4", "x"}, "[x   ]", 0, ""},
    {"[%-*s]", {"4", "x"}, "[x   ]", 0, ""},
    {"[%.*s]", {"2", "abcd"}, "[ab]", 0, ""},
    {"[%.*s]", {"-2", "abcd"}, "[abcd]", 0, ""},
    {"[%*.*s]", {"6", "3", "abcdef"}, "[   abc]", 0, ""},
    {"[%+ #s]", {"x"}, "[x]", 0, ""},
    {"[%5s]", {"\303\251"}, "[   \303\251]", 0, ""},
    {"[%.1s]", {"\303\251"}, "[\303]", 0, ""},
    {"[%s]", {"a b\011c"}, "[a b\011c]", 0, ""},
    {"[%lls][%hs][%zs][%js][%ts][%Ls]", {"a", "b", "c", "d", "e", "f"}, "[a][b][c][d][e][f]", 0, ""},
    {"[%*s]", {"abc", "x"}, "[x]", 1, "printf: abc: invalid number"},
    {"[%*s]", {"", "x"}, "[x]", 0, ""},
    {"[%c]", {"abc"}, "[a]", 0, ""},
    {"[%c]", {"\303\251"}, "[\303]", 0, ""},
    {"[%c]", {}, "[\000]", 0, ""},
    {"[%c]", {""}, "[\000]", 0, ""},
    {"[%5c]", {"x"}, "[    x]", 0, ""},
    {"[%-5c]", {"x"}, "[x    ]", 0, ""},
    {"[%05c]", {"x"}, "[    x]", 0, ""},
    {"[%.0c]", {"x"}, "[x]", 0, ""},
    {"%c%c%c", {"1", "2", "3"}, "123", 0, ""},
    {"%d", {"42"}, "42", 0, ""},
    {"%i", {"-42"}, "-42", 0, ""},
    {"%d", {"+7"}, "7", 0, ""},
    {"%d", {" 12"}, "12", 0, ""},
    {"%d", {"12 "}, "12", 1, "printf: 12 : invalid number"},
    {"%d", {""}, "0", 0, ""},
    {"%d", {"0x1F"}, "31", 0, ""},
    {"%d", {"0X1f"}, "31", 0, ""},
    {"%d", {"017"}, "15", 0, ""},
    {"%d", {"08"}, "0", 1, "printf: 08: invalid octal number"},
    {"%d", {"0x"}, "0", 1, "printf: 0x: invalid hex number"},
    {"%d", {"0x1g"}, "1", 1, "printf: 0x1g: invalid hex number"},
    {"%d", {"12abc"}, "12", 1, "printf: 12abc: invalid number"},
    {"%d", {"abc"}, "0", 1, "printf: abc: invalid number"},
    {"%d", {"-"}, "0", 1, "printf: -: invalid number"},
    {"%d", {"1.5"}, "1", 1, "printf: 1.5: invalid number"},
    {"%d", {"9223372036854775807"}, "9223372036854775807", 0, ""},
    {"%d", {"9223372036854775808"}, "9223372036854775807", 0, "printf: warning: 9223372036854775808: Numerical result out of range"},
    {"%d", {"99999999999999999999"}, "9223372036854775807", 0, "printf: warning: 99999999999999999999: Numerical result out of range"},
    {"%d", {"-9223372036854775808"}, "-9223372036854775808", 0, ""},
    {"%d", {"-99999999999999999999"}, "-9223372036854775808", 0, "printf: warning: -99999999999999999999: Numerical result out of range"},
    {"%d", {"'A"}, "65", 0, ""},
    {"%d", {"\"A"}, "65", 0, ""},
    {"%d", {"'\303\251"}, "233", 0, ""},
    {"%d", {"'"}, "0", 0, ""},
    {"%d", {"'ab"}, "97", 0, ""},
    {"%d", {"'\342\230\272"}, "9786", 0, ""},
    {"%d", {"'\200"}, "128", 0, ""},
    {"[%5d]", {"42"}, "[   42]", 0, ""},
    {"[%-5d]", {"42"}, "[42   ]", 0, ""},
    {"[%05d]", {"42"}, "[00042]", 0, ""},
    {"[%05d]", {"-42"}, "[-0042]", 0, ""},
    {"[%+d]", {"42"}, "[+42]", 0, ""},
    {"[% d]", {"42"}, "[ 42]", 0, ""},
    {"[%+ d]", {"42"}, "[+42]", 0, ""},
    {"[%.3d]", {"7"}, "[007]", 0, ""},
    {"[%.0d]", {"0"}, "[]", 0, ""},
    {"[%.d]", {"0"}, "[]", 0, ""},
    {"[%8.3d]", {"-7"}, "[    -007]", 0, ""},
    {"[%-08d]", {"5"}, "[5       ]", 0, ""},
    {"[%*d]", {"5", "1"}, "[    1]", 0, ""},
    {"[%*d]", {"-5", "1"}, "[1    ]", 0, ""},
    {"[%.*d]", {"4", "1"}, "[0001]", 0, ""},
    {"[%.*d]", {"-4", "1"}, "[1]", 0, ""},
    {"[%*.*d]", {"7", "4", "-1"}, "[  -0001]", 0, ""},
    {"[%'d]", {"1234567"}, "[1234567]", 0, ""},
    {"[%ld][%lld][%hd][%hhd][%jd][%zd][%td][%qd]", {"1", "2", "3", "4", "5", "6", "7", "8"}, "[1][2][3][4][5][6][7][8d]", 0, ""},
    {"%d %d", {"1"}, "1 0", 0, ""},
    {"%d\\n", {"1", "x", "3"}, "1\0120\0123\012", 1, "printf: x: invalid number"},
    {"%i", {"0777"}, "511", 0, ""},
    {"[%#d]", {"5"}, "[5]", 0, ""},
    {"[%5.-3d]", {"5"}, "[%5.0-3ld]", 0, ""},
    {"[%.-3d]", {"5"}, "[%.0-3ld]", 0, ""},
    {"[%99999999999d]", {"5"}, "[]", 0, ""},
    {"[%.99999999999d]", {"5"}, "[]", 0, ""},
    {"%*d|%d", {"x", "1", "2"}, "1|2", 1, "printf: x: invalid number"},
    {"%u", {"42"}, "42", 0, ""},
    {"%u", {"-1"}, "18446744073709551615", 0, ""},
    {"%u", {"-42"}, "18446744073709551574", 0, ""},
    {"%u", {"18446744073709551615"}, "18446744073709551615", 0, ""},
    {"%u", {"18446744073709551616"}, "18446744073709551615", 0, "printf: warning: 18446744073709551616: Numerical result out of range"},
    {"%u", {"-99999999999999999999"}, "18446744073709551615", 0, "printf: warning: -99999999999999999999: Numerical result out of range"},
    {"%u", {"12abc"}, "12", 1, "printf: 12abc: invalid number"},
    {"%x", {"255"}, "ff", 0, ""},
    {"%X", {"255"}, "FF", 0, ""},
    {"%x", {"-1"}, "ffffffffffffffff", 0, ""},
    {"%X", {"-255"}, "FFFFFFFFFFFFFF01", 0, ""},
    {"%o", {"8"}, "10", 0, ""},
    {"%o", {"-1"}, "1777777777777777777777", 0, ""},
    {"[%#x][%#X][%#o]", {"255", "255", "8"}, "[0xff][0XFF][010]", 0, ""},
    {"[%#x][%#o]", {"0", "0"}, "[0][0]", 0, ""},
    {"[%08x]", {"48879"}, "[0000beef]", 0, ""},
    {"[%-8X]", {"48879"}, "[BEEF    ]", 0, ""},
    {"[%.4x]", {"10"}, "[000a]", 0, ""},
    {"[%#10.4x]", {"10"}, "[    0x000a]", 0, ""},
    {"%x", {"'A"}, "41", 0, ""},
    {"%o", {"0x10"}, "20", 0, ""},
    {"%u", {" +5"}, "5", 0, ""},
    {"[%#5.-3x]", {"5"}, "[%#5.0-3lx]", 0, ""},
    {"%f", {"1.5"}, "1.500000", 0, ""},
    {"%f", {"1"}, "1.000000", 0, ""},
    {"%f", {"-0"}, "-0.000000", 0, ""},
    {"%.2f", {"3.14159"}, "3.14", 0, ""},
    {"%.0f", {"2.5"}, "2", 0, ""},
    {"%.0f", {"3.5"}, "4", 0, ""},
    {"[%10.3f]", {"3.14159"}, "[     3.142]", 0, ""},
    {"[%-10.3f]", {"3.14159"}, "[3.142     ]", 0, ""},
    {"[%010.3f]", {"-3.14159"}, "[-00003.142]", 0, ""},
    {"[%+f]", {"1"}, "[+1.000000]", 0, ""},
    {"[% f]", {"1"}, "[ 1.000000]", 0, ""},
    {"[%#.0f]", {"1"}, "[1.]", 0, ""},
    {"%e", {"12345.678"}, "1.234568e+04", 0, ""},
    {"%E", {"0.000123"}, "1.230000E-04", 0, ""},
    {"%.3e", {"1"}, "1.000e+00", 0, ""},
    {"%g", {"100000"}, "100000", 0, ""},
    {"%g", {"1000000"}, "1e+06", 0, ""},
    {"%g", {"0.0001"}, "0.0001", 0, ""},
    {"%g", {"0.00001"}, "1e-05", 0, ""},
    {"%G", {"1e-10"}, "1E-10", 0, ""},
    {"%#g", {"1"}, "1.00000", 0, ""},
    {"%g", {"1e100"}, "1e+100", 0, ""},
    {"%a", {"1"}, "0x8p-3", 0, ""},
    {"%a", {"100"}, "0xc.8p+3", 0, ""},
    {"%A", {"0.5"}, "0X8P-4", 0, ""},
    {"%.2a", {"1"}, "0x8.00p-3", 0, ""},
    {"%f", {"inf"}, "inf", 0, ""},
    {"%f", {"-inf"}, "-inf", 0, ""},
    {"%f", {"nan"}, "nan", 0, ""},
    {"%F", {"inf"}, "INF", 0, ""},
    {"%F", {"nan"}, "NAN", 0, ""},
    {"%e", {"INF"}, "inf", 0, ""},
    {"%f", {"0x10"}, "16.000000", 0, ""},
    {"%f", {"0x1p3"}, "8.000000", 0, ""},
    {"%f", {"1e3"}, "1000.000000", 0, ""},
    {"%f", {"1.5abc"}, "1.500000", 1, "printf: 1.5abc: invalid number"},
    {"%f", {"abc"}, "0.000000", 1, "printf: abc: invalid number"},
    {"%f", {"1e"}, "1.000000", 1, "printf: 1e: invalid number"},
    {"%f", {""}, "0.000000", 0, ""},
    {"%f", {"'A"}, "65.000000", 0, ""},
    {"%f", {" 2.5"}, "2.500000", 0, ""},
    {"%.30f", {"0.1"}, "0.100000000000000000001355252716", 0, ""},
    {"%.20e", {"1"}, "1.00000000000000000000e+00", 0, ""},
    {"%f", {"1e4000"}, "9999999999999999999965463873099623784932492583506957631301508333043261943306342355481821641865509279862764452073123673540217602217367592344172125881950527999961428582434354754501870958214290741301143014670445026260849443456275333742340822559146220440774502699147116818307775566773571206492036312963397368761826079538161612036724681027980418945071857333802019573184376407974737742100582963439581302474746605828071068162266095350249109360981931695942123253872362355720717867859931997116967823535175344886417435948827492668424224514931596965124928426557313007272003654181606637829648718026332623445964659599411688673612401217012598120557489288735334437118479345590827013160426634334036145971611294094499267930097645158316924242084444005046275789316854264698962537519604804648202558831813320199082274810678546966662106272497006996186529202046612197927965030663016053612055682060855170989021069998476304668166868798327849305544516958630545705436267868123963090419840720786295093297923233166989307185493468005963513556052273926524815064535863034951177115665985606171666708242756198962303861871354719181381961379671761938984704505073921618907144272449828915839083978037993280452559586965504199368256134650271468844247174823646278663567437132739306516943311285144568895817811521270234335023202809923439313537168685792314272771667847310402459453149183490692769538329516243242927105447175974956565949859259880257266623432431660986751258600816348320837727852352371818896648343700947852991058969433541705132345122524048434688325138322933085183721655672137865396358471035067214167360617119527605272354771447437560932908789355181041081978971762346557568230767574027302293460544968752081768656824879994376355163920300385095919688678670907760987187661793434717175760350651419537956103182910121364884637262102263204295329279620360536203761315194554053188934218409316246410738656203852138992492444404026342210499619140876855921277988778676947892152806854950785068014727125536739702656962611964401436187934885803420611286745134838665415365691409110464038694668899344879845822942763373039719688602810444439928037135468898274565353630059446256169978689065593420848456038274366567225299549352683650770160551908116011723880315176381390821744087191159014840466408422036463264182928434780181167746977398743042449413105215463884123801578726746967721334558724520471115335862516435283282393832140500259762370795907195418122260308331006030210104962511689458912869480521025430134047382228141350554394390210188326863538753083190329578149617392735325345607293804019789613107204439729055324106921126322671020066709317012835936925695594694910121291991133040352454029415895421330627924576068200470892536792435143079137382774440346196002593999683669353176553680054317921648423581639781664231716459539510456753265337998256664529200852939049468855419289097785303294946449752258791882954794558753338748235175173730073178466259683916437044889075282877916869627991289792183586849679291189074136405526988632104737613205959150473631599616592564842952439858033179702368199753306698362201401506479407699236396521519654661597132309737381973903141889548031713181771968965861360007055846791276712592611475612847974647898601585527666227738929689128212619681144409905588974943980927948431950098268346459649230305689978542029932792436486452896735925004194782587516473457624352639480090109507295735020460456725638145957022317397784209033998721254961060890916634094880983552750508881669349308347772834504388303087113341878104141612215788330206835981183895501665502020020640589210848902416003156361626873160836225566347750269512599746786860171326806831029087653660341164708808802454022881699049392139574016756146192644415820839590797897050551922334947406004738872332042844089285302334417905996381190171610168845316435533461235902086067935935005063001450522174581772443096538389199989128731679326545348278957788061762018807017602515186853205589875909910708079333605047010115738478105476750550150020629864357825543441956972190272729951206648276349901340672.000000", 0, ""},
    {"%f", {"1e-5000"}, "0.000000", 0, "printf: warning: 1e-5000: Numerical result out of range"},
    {"%g", {"123456789012345678901234567890"}, "1.23457e+29", 0, ""},
    {"[%*.*f]", {"10", "2", "3.14159"}, "[      3.14]", 0, ""},
    {"[%.*f]", {"-1", "3.14159"}, "[3.141590]", 0, ""},
    {"%Lf %lf", {"1", "2"}, "1.000000 2.000000", 0, ""},
    {"[%+.-3f]", {"1"}, "[%+.0-3Lf]", 0, ""},
    {"%b", {"a\\nb"}, "a\012b", 0, ""},
    {"%b", {"a\\tb\\\\c"}, "a\011b\\c", 0, ""},
    {"%b", {"\\0101"}, "A", 0, ""},
    {"%b", {"\\101"}, "A", 0, ""},
    {"%b", {"\\01018"}, "A8", 0, ""},
    {"%b", {"\\0"}, "\000", 0, ""},
    {"%b", {"\\0000A"}, "\000A", 0, ""},
    {"%b", {"\\1018"}, "A8", 0, ""},
    {"%b", {"\\x414"}, "A4", 0, ""},
    {"%b", {"\\x"}, "\\x", 0, "printf: missing hex digit for \\x"},
    {"%b", {"\\u263a"}, "\342\230\272", 0, ""},
    {"%b", {"\\u"}, "\\u", 0, "printf: missing unicode digit for \\u"},
    {"%b", {"\\\"\\'\\?"}, "\\\"\\'\\?", 0, ""},
    {"%b", {"\\q"}, "\\q", 0, ""},
    {"%b", {"a\\"}, "a\\", 0, ""},
    {"%b|", {"a\\cb", "c"}, "a", 0, ""},
    {"%s%b%s", {"x", "y\\cz", "w"}, "xy", 0, ""},
    {"%b\\n", {"1", "2\\c", "3"}, "1\0122", 0, ""},
    {"[%5b]", {"a\\n"}, "[   a\012]", 0, ""},
    {"[%-5b]", {"ab"}, "[ab   ]", 0, ""},
    {"[%.2b]", {"abcdef"}, "[ab]", 0, ""},
    {"[%.2b]", {"\\x41\\x42\\x43"}, "[AB]", 0, ""},
    {"[%*b]", {"3", "x"}, "[  x]", 0, ""},
    {"%b", {"\\e\\E\\a"}, "\033\033\007", 0, ""},
    {"%b", {"\\c"}, "", 0, ""},
    {"%b%d", {"\\c", "x"}, "", 0, ""},
    {"%d%b", {"x", "\\c"}, "0", 0, "printf: x: invalid number"},
    {"[%.b]", {"abc"}, "[]", 0, ""},
    {"[%.-3b]", {"abc"}, "[]", 0, ""},
    {"%q\\n", {"a b"}, "a\\ b\012", 0, ""},
    {"%q\\n", {""}, "''\012", 0, ""},
    {"%q\\n", {"it's"}, "it\\'s\012", 0, ""},
    {"%q\\n", {"a\012b"}, "$'a\\nb'\012", 0, ""},
    {"%q\\n", {"\011"}, "$'\\t'\012", 0, ""},
    {"%q\\n", {"$HOME"}, "\\$HOME\012", 0, ""},
    {"%q\\n", {"~x"}, "\\~x\012", 0, ""},
    {"%q\\n", {"a~"}, "a~\012", 0, ""},
    {"%q\\n", {"x=~"}, "x=\\~\012", 0, ""},
    {"%q\\n", {"x:~"}, "x:\\~\012", 0, ""},
    {"%q\\n", {"#a"}, "\\#a\012", 0, ""},
    {"%q\\n", {"a#"}, "a#\012", 0, ""},
    {"%q\\n", {"a,b"}, "a\\,b\012", 0, ""},
    {"%q\\n", {"!"}, "\\!\012", 0, ""},
    {"%q\\n", {"%"}, "%\012", 0, ""},
    {"%q\\n", {"+-./:=@_"}, "+-./:=@_\012", 0, ""},
    {"%q\\n", {"*?[]"}, "\\*\\?\\[\\]\012", 0, ""},
    {"%q\\n", {"{}|&;<>()`\"\\^"}, "\\{\\}\\|\\&\\;\\<\\>\\(\\)\\`\\\"\\\\\\^\012", 0, ""},
    {"%q\\n", {"\303\251"}, "\303\251\012", 0, ""},
    {"%q\\n", {"caf\303\251 bar"}, "caf\303\251\\ bar\012", 0, ""},
    {"%q\\n", {"\205"}, "$'\\205'\012", 0, ""},
    {"%q\\n", {"\351"}, "$'\\351'\012", 0, ""},
    {"%q\\n", {"\177"}, "$'\\177'\012", 0, ""},
    {"%q\\n", {"\033[0m"}, "$'\\E[0m'\012", 0, ""},
    {"%q\\n", {"\302\205"}, "$'\\302\\205'\012", 0, ""},
    {"%q\\n", {"\302\240"}, "\302\240\012", 0, ""},
    {"%q\\n", {"\342\200\250"}, "$'\\342\\200\\250'\012", 0, ""},
    {"%q\\n", {"\315\270"}, "$'\\315\\270'\012", 0, ""},
    {"%q\\n", {"\342\200\213"}, "\342\200\213\012", 0, ""},
    {"%q\\n", {"'"}, "\\'\012", 0, ""},
    {"%q\\n", {"\\'"}, "\\\\\\'\012", 0, ""},
    {"%q %q\\n", {"a", "b c"}, "a b\\ c\012", 0, ""},
    {"[%10q]", {"a b"}, "[      a\\ b]", 0, ""},
    {"[%-10q]", {"a b"}, "[a\\ b      ]", 0, ""},
    {"[%.2q]", {"a b"}, "[a\\]", 0, ""},
    {"[%Q]", {"a b"}, "[a\\ b]", 0, ""},
    {"[%.2Q]", {"a b c"}, "[a\\ ]", 0, ""},
    {"[%.0Q]", {"abc"}, "['']", 0, ""},
    {"[%.Q]", {"abc"}, "[]", 0, ""},
    {"[%5.1Q]", {"a b"}, "[    a]", 0, ""},
    {"[%.*Q]", {"2", "a b c"}, "[a\\ b\\ c]", 0, ""},
    {"[%.*q]", {"2", "a b"}, "[a\\]", 0, ""},
    {"[%q]", {"a\001b"}, "[$'a\\001b']", 0, ""},
    {"%(%Y-%m-%d %H:%M:%S)T\\n", {"0"}, "1970-01-01 00:00:00\012", 0, ""},
    {"%(%Y-%m-%d %H:%M:%S)T\\n", {"86400"}, "1970-01-02 00:00:00\012", 0, ""},
    {"%(%Y)T|%(%j)T", {"1700000000", "1700000000"}, "2023|318", 0, ""},
    {"[%10(%Y)T][%-6(%Y)T][%.2(%Y)T]", {"0", "0", "0"}, "[      1970][1970  ][19]", 0, ""},
    {"[%()T]", {"3600"}, "[01:00:00]", 0, ""},
    {"[%(%s)T]", {"12345"}, "[12345]", 0, ""},
    {"[%(%%)T]", {"0"}, "[%]", 0, ""},
    {"[%(a(b)c)T]", {"0"}, "[a(b)c]", 0, ""},
    {"%(%Y)T", {"abc"}, "1970", 1, "printf: abc: invalid number"},
    {"%(%A %B)T", {"1000000000"}, "Sunday September", 0, ""},
    {"%(%Y)X|", {"0"}, "%(", 1, "printf: warning: `X': invalid time format specification\012printf: `Y': invalid format character"},
    {"[%(%Y)T]", {"-3"}, "[1969]", 0, ""},
    {"[%(%H:%M)T]\\n", {"60", "3600", "7200"}, "[00:01]\012[01:00]\012[02:00]\012", 0, ""},
    {"ab%ncd", {"x"}, "abcd", 0, ""},
    {"ab%n", {"1x"}, "ab", 1, "printf: `1x': not a valid identifier"},
    {"%z", {}, "", 1, "printf: `%z': missing format character"},
    {"%5", {}, "", 1, "printf: `%5': missing format character"},
    {"%", {}, "", 1, "printf: `%': missing format character"},
    {"abc%", {}, "abc", 1, "printf: `%': missing format character"},
    {"%y", {"1"}, "", 1, "printf: `y': invalid format character"},
    {"x%ky", {"1"}, "x", 1, "printf: `k': invalid format character"},
    {"%-", {}, "", 1, "printf: `%-': missing format character"},
    {"%*", {}, "", 1, "printf: `%*': missing format character"},
    {"%.*", {}, "", 1, "printf: `%.*': missing format character"},
    {"%ll", {}, "", 1, "printf: `%ll': missing format character"},
    {"%d %s %z", {"1", "a"}, "1 a ", 1, "printf: `%z': missing format character"},
    {"%r", {}, "", 1, "printf: `r': invalid format character"},
    {"%w%s", {"a"}, "", 1, "printf: `w': invalid format character"},
    {"%d %d", {"a", "b"}, "0 0", 1, "printf: a: invalid number\012printf: b: invalid number"},
    {"%s %d %s", {"a", "b", "c", "d", "e"}, "a 0 cd 0 ", 1, "printf: b: invalid number\012printf: e: invalid number"},
};
// clang-format on

std::vector<std::string> args_of(const PrintfCase& c) {
    std::vector<std::string> v;
    for (const Bytes& a : c.args) v.emplace_back(a.v);
    return v;
}

std::string join(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += (s.empty() ? "" : "\n") + l;
    return s;
}

std::string describe(const PrintfCase& c) {
    std::string s = "printf '" + std::string(c.fmt.v) + "'";
    for (const Bytes& a : c.args) s += " '" + std::string(a.v) + "'";
    return s;
}

struct BashRun {
    std::string out;
    std::string err;
    int status = -1;
    bool too_large = false;  // stdout passed kMaxBashOutput: bash was killed
    bool timed_out = false;  // bash ran past kBashTimeoutMs (glibc can take a minute on a %g precision of INT_MAX)
};

constexpr int kBashTimeoutMs = 2000;

constexpr size_t kMaxBashOutput = size_t{1} << 20;

// Runs /bin/bash with argv (after "bash") in the C.UTF-8 locale and UTC, collecting stdout and stderr.
BashRun run_bash(const std::vector<std::string>& argv) {
    BashRun r;
    int out_pipe[2];
    int err_pipe[2];
    if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return r;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
    posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
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
    close(err_pipe[1]);
    if (rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        return r;
    }
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open_fds = 2;
    int waited_ms = 0;
    while (open_fds > 0) {
        int ready = poll(fds, 2, 100);
        if (ready < 0) break;
        if (ready == 0) {
            waited_ms += 100;
            if (waited_ms >= kBashTimeoutMs && !r.timed_out) {
                r.timed_out = true;
                kill(pid, SIGKILL);
            }
            continue;
        }
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || fds[k].revents == 0) continue;
            char buf[4096];
            ssize_t n = read(fds[k].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[k]->append(buf, static_cast<size_t>(n));
                if (sinks[k]->size() > kMaxBashOutput && !r.too_large) {
                    r.too_large = true;
                    kill(pid, SIGKILL);
                }
            } else {
                close(fds[k].fd);
                fds[k].fd = -1;
                --open_fds;
            }
        }
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return r;
}

bool printf_have_bash() { return access("/bin/bash", X_OK) == 0; }

TEST(Printf, TableHasEnoughCases) { EXPECT_GE(std::size(kCases), 200u); }

TEST(Printf, Table) {
    for (const PrintfCase& c : kCases) {
        auto args = args_of(c);
        PrintfResult r = format(c.fmt.v, args);
        EXPECT_EQ(r.output, c.out.v) << describe(c);
        EXPECT_EQ(r.status, c.status) << describe(c);
        EXPECT_EQ(join(r.diagnostics), c.diagnostics.v) << describe(c);
    }
}

TEST(Printf, TableMatchesBash) {
    if (!printf_have_bash()) GTEST_SKIP() << "no /bin/bash";
    for (const PrintfCase& c : kCases) {
        std::vector<std::string> argv = {"-c", "printf -- \"$@\"", "_", std::string(c.fmt.v)};
        for (const Bytes& a : c.args) argv.emplace_back(a.v);
        BashRun b = run_bash(argv);
        EXPECT_EQ(b.out, c.out.v) << describe(c);
        EXPECT_EQ(b.status, c.status) << describe(c);
    }
}

PrintfResult run(std::string_view fmt, std::vector<std::string> args, const PrintfContext& ctx = {}) {
    return format(fmt, args, ctx);
}

bool has_diag(const PrintfResult& r, std::string_view msg) {
    for (const auto& d : r.diagnostics)
        if (d == msg) return true;
    return false;
}

TEST(Printf, HostileWidthOrPrecisionIsRefused) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"%*d", {"2000000000", "1"}},     {"%*d", {"-2000000000", "1"}}, {"%2000000000d", {"1"}},
        {"%.2000000000d", {"1"}},         {"%.*d", {"2000000000", "1"}}, {"%.2000000000f", {"1"}},
        {"%2000000000f", {"1"}},          {"%.*e", {"2000000000", "1"}}, {"%2000000000s", {"x"}},
        {"%*s", {"2000000000", "x"}},     {"%-*s", {"2000000000", "x"}}, {"%2000000000b", {"x"}},
        {"%2000000000q", {"x"}},          {"%2000000000Q", {"x"}},       {"%2000000000c", {"x"}},
        {"%2000000000(%Y)T", {"0"}},      {"%*x", {"2147483647", "1"}},  {"%2147483647u", {"1"}},
        {"%99999999999b", {"x"}},         {"%*d", {"99999999999", "1"}},
    };
    for (const auto& [fmt, args] : cases) {
        PrintfResult r = run(fmt, args);
        EXPECT_EQ(r.status, 1) << fmt;
        EXPECT_TRUE(has_diag(r, "printf: output too large")) << fmt;
        EXPECT_LT(r.output.size(), 100u) << fmt;
    }
    // A huge precision that cannot show in the output is not refused (bash, slowly, prints the same).
    EXPECT_EQ(run("%.*g", {"2147483647", "1.5"}).output, "1.5");
    EXPECT_EQ(run("[%.*G]", {"2147483647", "12"}).output, "[12]");
    EXPECT_EQ(run("[%10.*f]", {"2147483647", "inf"}).output, "[       inf]");
    EXPECT_EQ(run("[%.*f]", {"2147483647", "nan"}).output, "[nan]");
    EXPECT_EQ(run("%#.*g", {"2147483647", "1.5"}).status, 1);
    // The clamped `*` width still warns like bash, naming the argument after it.
    EXPECT_TRUE(has_diag(run("%*d", {"99999999999", "1"}), "printf: warning: 1: Numerical result out of range"));
}

TEST(Printf, OutputLimitStopsGrowth) {
    PrintfContext ctx;
    ctx.max_output = 10;
    PrintfResult r = run("%s", {"aaaa", "bbbb", "cccc"}, ctx);
    EXPECT_EQ(r.output, "aaaabbbb");
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(has_diag(r, "printf: output too large"));
    r = run("0123456789ab", {}, ctx);
    EXPECT_EQ(r.output, "0123456789");
    EXPECT_EQ(r.status, 1);
    r = run("%10d", {"5"}, ctx);  // exactly at the limit is fine
    EXPECT_EQ(r.output, "         5");
    EXPECT_EQ(r.status, 0);
    r = run("%11d", {"5"}, ctx);
    EXPECT_EQ(r.output, "");
    EXPECT_EQ(r.status, 1);
    // Within the default limit, large widths are honoured.
    r = run("%5000d|", {"7"});
    EXPECT_EQ(r.output.size(), 5001u);
    EXPECT_EQ(r.output.substr(4999), "7|");
}

TEST(Printf, LongFormatsStayLinear) {
    // Unclosed "%(" everywhere: each one is a warning and prints "%(", without rescanning the rest.
    std::string fmt;
    for (int k = 0; k < 100000; ++k) fmt += "%(";
    PrintfResult r = run(fmt, {});
    EXPECT_EQ(r.output, fmt);
    EXPECT_EQ(r.status, 0);  // warnings only, as in bash
    EXPECT_EQ(r.diagnostics.size(), 100000u);
    // A format that prints nothing, reused for many arguments, is bounded by max_steps.
    PrintfContext ctx;
    ctx.max_steps = 1000;
    std::vector<std::string> args(100, "x");
    r = format("%.0s" + std::string(100, 'a'), args, ctx);
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(has_diag(r, "printf: format too costly for its arguments"));
    EXPECT_LE(r.output.size(), 1000u);
    r = format("%.0s\\Uffffffff", args);  // within the default budget
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.output, "");
}

TEST(Printf, TimeComesFromTheContext) {
    PrintfContext ctx;
    ctx.now = 365 * 86400;      // 1971-01-01
    ctx.shell_start = 86400;    // 1970-01-02
    EXPECT_EQ(run("%(%Y-%m-%d)T", {}, ctx).output, "1971-01-01");
    EXPECT_EQ(run("%(%Y-%m-%d)T", {"-1"}, ctx).output, "1971-01-01");
    EXPECT_EQ(run("%(%Y-%m-%d)T", {"-2"}, ctx).output, "1970-01-02");
    EXPECT_EQ(run("%(%s)T", {}, ctx).output, "31536000");
    EXPECT_EQ(run("%(%s|%%s)T", {"42"}, ctx).output, "42|%s");
    EXPECT_EQ(run("%(%Z %z)T", {"0"}, ctx).output, "UTC +0000");  // bash with TZ=UTC
    // An injected time zone one hour east of UTC.
    ctx.local_time = [](int64_t secs, std::tm& tm) {
        if (secs < 0) return false;
        std::time_t t = static_cast<std::time_t>(secs + 3600);
        return gmtime_r(&t, &tm) != nullptr;
    };
    EXPECT_EQ(run("%(%H:%M)T", {"0"}, ctx).output, "01:00");
    // A time the zone function rejects falls back to the epoch, as bash does when localtime() fails.
    EXPECT_EQ(run("%(%H:%M)T", {"-5"}, ctx).output, "01:00");
    // Results longer than bash's 128-byte buffer are empty.
    EXPECT_EQ(run("[%(" + std::string(200, 'x') + ")T]", {"0"}, ctx).output, "[]");
}

TEST(Printf, PercentNReportsAssignments) {
    PrintfResult r = run("ab%ncd%n", {"x", "y"});
    EXPECT_EQ(r.output, "abcd");
    ASSERT_EQ(r.assignments.size(), 2u);
    EXPECT_EQ(r.assignments[0], (std::pair<std::string, int64_t>{"x", 2}));
    EXPECT_EQ(r.assignments[1], (std::pair<std::string, int64_t>{"y", 4}));
    // Counted from the start of the current pass over the format.
    r = run("%s%n", {"abc", "v", "de", "w"});
    ASSERT_EQ(r.assignments.size(), 2u);
    EXPECT_EQ(r.assignments[0].second, 3);
    EXPECT_EQ(r.assignments[1].second, 2);
    r = run("%n", {"1x"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(has_diag(r, "printf: `1x': not a valid identifier"));
}

TEST(Printf, CLocale) {
    PrintfContext ctx;
    ctx.utf8 = false;  // expectations from LC_ALL=C bash
    EXPECT_EQ(run("\\u00e9|\\U0001F600", {}, ctx).output, "\\u00E9|\\U0001F600");
    EXPECT_EQ(run("%d", {"'\xc3\xa9"}, ctx).output, "195");
    EXPECT_EQ(run("%q", {"\xc3\xa9"}, ctx).output, "$'\\303\\251'");
    EXPECT_EQ(run("%d", {"'\xc3\xa9"}).output, "233");
}

// Random formats built from printf's pieces, with random arguments, must give bash's stdout, status and
// messages.
TEST(Printf, RandomFormatsMatchBash) {
    if (!printf_have_bash()) GTEST_SKIP() << "no /bin/bash";
    static const std::vector<std::string> kText = {"a", " ", "|", "\\n", "\\t", "\\x41", "\\101", "\\u00e9", "\\q",
                                                  "%%", "\\", "-", "\\c"};
    static const std::vector<std::string> kFlags = {"", "", "-", "+", " ", "#", "0", "-0", "+ ", "'"};
    static const std::vector<std::string> kWidths = {"", "", "3", "10", "*", "0"};
    static const std::vector<std::string> kPrecisions = {"", "", ".", ".0", ".2", ".*", ".10"};
    static const std::vector<std::string> kMods = {"", "", "", "l", "ll", "h", "j", "z", "L"};
    static const std::string kConvs = "diouxXeEfFgGaAcsbqQk";
    static const std::vector<std::string> kArgs = {"", "0", "1", "-1", "42", "abc", "12abc", "0x1f", "010", "08",
                                                   "'A", "\"b", "3.5", "-2.25", "1e3", "inf", "a b", "\\n", "\\c",
                                                   "\xc3\xa9", "%", "-5", "99999999999999999999", "x\\0101y", "~/a"};
    std::mt19937 rng(2024);
    for (int n = 0; n < 300; ++n) {
        std::string fmt;
        size_t pieces = 1 + rng() % 4;
        for (size_t p = 0; p < pieces; ++p) {
            if (rng() % 3 == 0) {
                fmt += kText[rng() % kText.size()];
                continue;
            }
            // One draw per statement: the order of operands of + is unspecified, the formats must not be.
            fmt += '%';
            fmt += kFlags[rng() % kFlags.size()];
            fmt += kWidths[rng() % kWidths.size()];
            fmt += kPrecisions[rng() % kPrecisions.size()];
            fmt += kMods[rng() % kMods.size()];
            fmt += kConvs[rng() % kConvs.size()];
        }
        std::vector<std::string> args;
        size_t nargs = rng() % 5;
        for (size_t a = 0; a < nargs; ++a) args.push_back(kArgs[rng() % kArgs.size()]);
        PrintfResult r = format(fmt, args);
        std::vector<std::string> argv = {"-c", "printf -- \"$@\"", "_", fmt};
        argv.insert(argv.end(), args.begin(), args.end());
        BashRun b = run_bash(argv);
        std::string desc = "printf '" + fmt + "'";
        for (const auto& a : args) desc += " '" + a + "'";
        if (b.timed_out) continue;  // nothing to compare with
        if (b.too_large) {  // e.g. a `*` width of INT_MAX: we refuse what bash does
            EXPECT_EQ(r.status, 1) << desc;
            EXPECT_TRUE(has_diag(r, "printf: output too large")) << desc;
            continue;
        }
        std::string bash_err;
        for (size_t at = 0; at < b.err.size();) {
            size_t nl = b.err.find('\n', at);
            std::string line = b.err.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
            if (line.rfind("_: line 1: ", 0) == 0) line = line.substr(11);
            bash_err += (bash_err.empty() ? "" : "\n") + line;
            at = nl == std::string::npos ? b.err.size() : nl + 1;
        }
        EXPECT_EQ(r.output, b.out) << desc;
        EXPECT_EQ(r.status, b.status) << desc;
        EXPECT_EQ(join(r.diagnostics), bash_err) << desc;
    }
}

}  // namespace
}  // namespace bashkit::interp
