// A GNU getopt_long-like option parser shared by the utilities.
//
//   constexpr OptionSpec kSpecs[] = {
//       {'n', 'n', "lines", ArgKind::required},   // -n 5, -n5, --lines=5, --lines 5, --li=5
//       {'v', 'v', "verbose"},                     // -v, --verbose, bundled: -vn5
//       {kOptHelp, 0, "help"},
//   };
//   ParsedArgs p = parse_args(ctx.argv, kSpecs);   // argv[0] is skipped
//   for (const auto& o : p.options) switch (o.id) { ... case kOptHelp: print help; return 0; }
//   if (!p.ok()) return usage_error(ctx, p.error);  // "x: invalid option -- 'z'" + "Try 'x --help' ..."
//
// Behaviour follows glibc's getopt_long:
//  - Short options bundle (-abc); an option with a required argument takes the rest of its word or the
//    next word (-n5, -n 5); an optional argument only attaches (-n5; `-n 5` leaves 5 an operand).
//  - Long options: --name, --name=value, --name value (required arguments only); any unambiguous prefix
//    of a long name works (--verb), an exact name always wins; a prefix shared by options that all mean
//    the same thing (same id and argument kind) is not ambiguous.
//  - `--` ends the options; a lone `-` is an operand. In Permute mode (the default, like GNU) options may
//    follow operands; in StopAtOperand mode (getopt's leading `+`, POSIXLY_CORRECT) the first operand
//    ends the options (env, timeout, xargs).
//  - Errors stop parsing: the options parsed before the error are kept (so `--help` before a bad option
//    still wins, as in GNU tools that act on --help inside their getopt loop), and `error` holds glibc's
//    message without the program name: "invalid option -- 'z'", "option requires an argument -- 'n'",
//    "unrecognized option '--foo'", "option '--s' is ambiguous; possibilities: '--size' '--sort'",
//    "option '--all' doesn't allow an argument", "option '--width' requires an argument".
//  - Optionally a word like -5 (a dash and digits) can be reported as an option of its own (head -5,
//    tail -5, xargs -0 is not this): set ParseConfig::digit_option to the id to report with the digits
//    as its value.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "interp/command.hpp"

namespace bashkit::utils {

enum class ArgKind : unsigned char { none, required, optional };

// ids for the common long-only options; utilities pick other long-only ids above kOptFirstLongOnly.
inline constexpr int kOptHelp = 0x10000;
inline constexpr int kOptVersion = 0x10001;
inline constexpr int kOptFirstLongOnly = 0x10100;

struct OptionSpec {
    int id = 0;                       // reported in ParsedOption::id (the letter for a short option)
    char short_name = 0;              // 0: long only
    std::string_view long_name = {};  // empty: short only
    ArgKind arg = ArgKind::none;
};

struct ParsedOption {
    int id = 0;
    std::string value;        // the argument, when has_value
    bool has_value = false;
    std::string spelled;      // as written: "-n" or "--lines" (for messages)
};

enum class ParseMode : unsigned char { Permute, StopAtOperand };

struct ParseConfig {
    ParseMode mode = ParseMode::Permute;
    int digit_option = 0;  // nonzero: "-123" is reported as this id with value "123"
    // With digit_option: a run of digits inside a cluster is that option too (grep -n5 is -n -5, GNU grep's
    // digits are option characters).
    bool digits_in_clusters = false;
    // "-1", "-.5": operands, not options (seq's negative numbers).
    bool negative_numbers_are_operands = false;
};

struct ParsedArgs {
    std::vector<ParsedOption> options;   // in command-line order
    std::vector<std::string> operands;   // in order (after permutation)
    std::string error;                   // empty when parsing succeeded
    bool ok() const { return error.empty(); }
    // Whether an option with this id was given (the last one wins for values: see last()).
    bool has(int id) const;
    const ParsedOption* last(int id) const;
};

// Parses args (args[0] is the program name and is skipped).
ParsedArgs parse_args(std::span<const std::string> args, std::span<const OptionSpec> specs,
                      ParseConfig config = {});

// The way most GNU tools declare their options, over parse_args: `shortopts` is getopt's string ("n:c:qv";
// "w::" for an optional argument, which only attaches: -w5), `longopts` the long names (a long name of a
// short option has the letter as its id), and --help and --version (kOptHelp, kOptVersion) come after them,
// the order of glibc's "ambiguous" message. POSIXLY_CORRECT in the environment stops at the first operand.
// On an error prints it with usage_error() and returns false.
//
//   static constexpr OptionSpec kLong[] = {{'n', 0, "lines", ArgKind::required}, {'q', 0, "quiet"}};
//   std::vector<ParsedOption> opts;
//   std::vector<std::string> files;
//   if (!parse_getopt(ctx, "n:qv", kLong, opts, files)) return 1;
bool parse_getopt(interp::CommandContext& ctx, std::string_view shortopts, std::span<const OptionSpec> longopts,
                  std::vector<ParsedOption>& options, std::vector<std::string>& operands, ParseConfig config = {});

// Prints "<argv0>: <message>" (when message is not empty) and "Try '<argv0> --help' for more information."
// on stderr; returns status.
int usage_error(const interp::CommandContext& ctx, std::string_view message, int status = 1);

// Writes text to stdout; false when the write failed (broken pipe...).
bool write_out(interp::CommandContext& ctx, std::string_view text);

}  // namespace bashkit::utils
