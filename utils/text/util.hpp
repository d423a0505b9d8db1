// Shared plumbing of the text utilities: size arguments and usage messages; options, inputs, outputs and
// quoting come from utils/common.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/common/io.hpp"
#include "utils/common/quote.hpp"
#include "interp/command.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::utils::text {

using interp::CommandContext;

// ---------------------------------------------------------------------------------------------------------
// Options: utils/common/args.hpp (parse_getopt: getopt's short string and a long table, as GNU declares
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
// Inputs, outputs and quoting: utils/common (io.hpp, quote.hpp), named here for the text utilities.

using utils::device_stream;
using utils::errstr;
using utils::file_error;
using utils::Input;
using utils::LineReader;
using utils::Output;
using utils::OutputFile;
using utils::quote;
using utils::quote_name;
using utils::read_all;
using utils::ReadResult;
using utils::seed_from_file;

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

}  // namespace bashkit::utils::text
