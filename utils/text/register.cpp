#include "utils/text/text.hpp"

#include "utils/text/tools.hpp"

namespace bashkit::utils {

namespace text {

int version(CommandContext& ctx) {
    std::string s(prog(ctx));
    s += " (bashkit) 1.0\n";
    (void)ctx.out.write(s);
    return 0;
}

}  // namespace text

void register_text_utils(interp::CommandRegistry& registry) {
    struct Entry {
        const char* name;
        const char* help;
        interp::CommandFn fn;
    };
    const Entry entries[] = {
        {"more", "more [FILE]... : copy files to stdout (no terminal to page on; a banner before each named file)", text::cmd_more},
        {"less", "less [FILE]... : copy files to stdout (no terminal to page on)", text::cmd_less},
        {"cat", "cat [-AbeEnstTuv] [FILE]... : concatenate files", text::cmd_cat},
        {"head", "head [-n [-]N] [-c [-]N] [-qvz] [FILE]... : first lines or bytes", text::cmd_head},
        {"tail", "tail [-n [+]N] [-c [+]N] [-qvz] [FILE]... : last lines or bytes", text::cmd_tail},
        {"wc", "wc [-clmwL] [--total=WHEN] [FILE]... : line, word and byte counts", text::cmd_wc},
        {"sort", "sort [-bdfghiMnRrVsuzcCm] [-k KEYDEF]... [-t SEP] [-o FILE] [FILE]... : sort lines", text::cmd_sort},
        {"uniq", "uniq [-cdDiuz] [-f N] [-s N] [-w N] [--group] [INPUT [OUTPUT]] : drop adjacent repeats", text::cmd_uniq},
        {"cut", "cut -b|-c|-f LIST [-d C] [-s] [--complement] [--output-delimiter=S] [FILE]... : select parts of lines", text::cmd_cut},
        {"tr", "tr [-cdst] SET1 [SET2] : translate, delete or squeeze bytes", text::cmd_tr},
        {"seq", "seq [-w] [-s SEP] [-f FMT] [FIRST [INCR]] LAST : print a sequence of numbers", text::cmd_seq},
        {"tee", "tee [-a] [-p] [FILE]... : copy stdin to stdout and files", text::cmd_tee},
        {"paste", "paste [-s] [-d LIST] [-z] [FILE]... : merge lines of files", text::cmd_paste},
        {"rev", "rev [-0] [FILE]... : reverse each line", text::cmd_rev},
        {"tac", "tac [-b] [-s SEP] [FILE]... : print records last first", text::cmd_tac},
        {"fold", "fold [-bs] [-w WIDTH] [FILE]... : wrap lines", text::cmd_fold},
        {"fmt", "fmt [-WIDTH] [-w WIDTH] [-g GOAL] [-cstu] [FILE]... : fill paragraphs", text::cmd_fmt},
        {"expand", "expand [-i] [-t LIST] [FILE]... : tabs to spaces", text::cmd_expand},
        {"unexpand", "unexpand [-a] [--first-only] [-t LIST] [FILE]... : spaces to tabs", text::cmd_unexpand},
        {"comm", "comm [-123] [--check-order] [--nocheck-order] [--output-delimiter=S] [--total] [-z] FILE1 FILE2 : compare sorted files", text::cmd_comm},
        {"join", "join [-i] [-a N] [-v N] [-e S] [-o FMT|auto] [-t C] [-1 F] [-2 F] [-j F] [--header] [--check-order] FILE1 FILE2 : join sorted files on a field", text::cmd_join},
        {"csplit", "csplit [-ksz] [-f PREFIX] [-b FORMAT] [-n DIGITS] [--suppress-matched] FILE PATTERN... : split a file at line numbers and /RE/[OFFSET] %RE%[OFFSET] {N} {*}", text::cmd_csplit},
        {"pr", "pr [+FIRST[:LAST]] [-COLUMN] [-adFfJmtT] [-D FORMAT] [-h HEADER] [-l N] [-n[SEP[DIGITS]]] [-N N] [-o N] [-s[CHAR]] [-S[STRING]] [-w N] [-W N] [FILE]... : paginate or columnate files for printing", text::cmd_pr},
        {"column", "column [-t] [-s SEPS] [-o SEP] [-x] [-c WIDTH] [-R COLS] [-N NAMES] [-L] [FILE]... : columnate lists", text::cmd_column},
        {"split", "split [-l N | -b SIZE | -C SIZE | -n N] [-a LEN] [-d|-x] [-e] [--additional-suffix=S] [--verbose] [FILE [PREFIX]] : split a file into pieces", text::cmd_split},
        {"yes", "yes [STRING]... : repeat a line forever", text::cmd_yes},
        {"od", "od [-A doxn] [-t TYPE]... [-abcdiloxsv] [-j SKIP] [-N COUNT] [-w N] [FILE]... : dump bytes (no float types)", text::cmd_od},
        {"xxd", "xxd [-p] [-r] [-i] [-u] [-l LEN] [-s SEEK] [-c COLS] [-g GROUP] [FILE [OUTFILE]] : hex dump and reverse", text::cmd_xxd},
        {"hexdump", "hexdump -C [-v] [-n LEN] [-s SKIP] [FILE]... : canonical hex+ASCII dump", text::cmd_hexdump},
        {"strings", "strings [-a] [-n MIN] [-t odx] [-f] [-w] [-s SEP] [FILE]... : printable strings", text::cmd_strings},
        {"shuf", "shuf [-n N] [-r] [-z] [-o FILE] [-s SEED | --random-source=FILE] [FILE | -e ARG... | -i LO-HI] : random permutation", text::cmd_shuf},
        {"nl", "nl [-b STYLE] [-h STYLE] [-f STYLE] [-n FMT] [-w N] [-s SEP] [-v N] [-i N] [-l N] [-d CC] [-p] [FILE]... : number lines", text::cmd_nl},
    };
    for (const auto& e : entries) registry.add(e.name, e.help, e.fn);
}

}  // namespace bashkit::utils
