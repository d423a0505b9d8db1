// Shared plumbing of the text utilities: size arguments and usage messages; options, inputs, outputs and
// quoting come from builtins/common.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "builtins/common/args.hpp"
#include "builtins/common/io.hpp"
#include "builtins/common/quote.hpp"
#include "interp/command.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::builtins::text {

using interp::CommandContext;

// ---------------------------------------------------------------------------------------------------------
// Options: builtins/common/args.hpp (parse_getopt: getopt's short string and a long table, as GNU declares
// them) and the messages of the text utilities.

// "Try 'X --help' for more information."
void try_help(CommandContext& ctx);
// Prints "X: message" then the try-help line.
void usage_error(CommandContext& ctx, std::string_view message);
// The program name used in messages (argv[0]).
std::string_view prog(const CommandContext& ctx);

// Writes the usage text for --help: "Usage: X ...\n" then the summary line.
int print_help(CommandContext& ctx, std::string_view usage);

// ---------------------------------------------------------------------------------------------------------
// Inputs, outputs and quoting: builtins/common (io.hpp, quote.hpp), named here for the text utilities.

using builtins::device_stream;
using builtins::errstr;
using builtins::file_error;
using builtins::Input;
using builtins::LineReader;
using builtins::Output;
using builtins::OutputFile;
using builtins::quote;
using builtins::quote_name;
using builtins::read_all;
using builtins::ReadResult;
using builtins::seed_from_file;

// ---------------------------------------------------------------------------------------------------------
// Numbers

// Parses a non-negative decimal count with an optional multiplier suffix (b 512, kB 1000, K/KiB 1024, MB,
// M, G, T, P, E; as head/tail/split accept). Returns false when invalid; saturates at UINT64_MAX.
bool parse_size(std::string_view s, uint64_t& out, bool allow_suffix = true);
enum class SizeParse : uint8_t { ok, invalid, overflow };
// Like parse_size but tells an overflow apart (out is then UINT64_MAX).
SizeParse parse_size_checked(std::string_view s, uint64_t& out, bool allow_suffix = true);
// A plain unsigned decimal (no sign, no suffix); saturates.
bool parse_uint(std::string_view s, uint64_t& out);

}  // namespace bashkit::builtins::text
