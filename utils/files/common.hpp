// Helpers shared by the file utilities: GNU quoting for messages, mode strings, owner names, civil time
// (UTC: the sandbox has no time zone database, so local time is UTC), date parsing for touch -d, human
// sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "utils/common/io.hpp"
#include "interp/command.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::utils::files {

using interp::CommandContext;

// GNU quote(): always quoted, 'name' (or "it's"; control bytes as 'a'$'\n''b').
std::string quote(std::string_view s);
// GNU quotef(): quoted only when the name has characters special to the shell.
std::string quotef(std::string_view s);

inline std::string_view errstr(vfs::Errc e) { return vfs::error_message(e); }

// "drwxr-xr-x" (10 characters, with setuid/setgid/sticky letters).
std::string mode_string(const vfs::Stat& st);
char type_letter(vfs::FileType t);

// The session's names for ids: 0 is root, the session user (uid/gid 1000) is $USER (default "user"),
// anything else is printed as its number.
std::string user_name(const CommandContext& ctx, uint32_t uid);
std::string group_name(const CommandContext& ctx, uint32_t gid);

// Civil time in UTC.
struct Civil {
    int64_t year = 1970;
    int mon = 1;  // 1..12
    int day = 1;  // 1..31
    int hour = 0, min = 0, sec = 0;
    int wday = 4;  // 0 = Sunday
    int yday = 0;  // 0-based
};
Civil to_civil(int64_t epoch_sec);
int64_t from_civil(int64_t year, int mon, int day, int hour = 0, int min = 0, int sec = 0);
// A strftime subset: %Y %m %d %e %H %M %S %b %a %F %T %y %j %z(+0000) %Z(UTC) %s %%.
std::string format_time(std::string_view fmt, int64_t epoch_sec);
// "2020-01-02 03:04:05.000000000 +0000" as stat prints it.
std::string stat_time(vfs::TimeSpec t);

// Parses a GNU date string (touch -d, find -newermt): ISO dates and times, @epoch, month names,
// MM/DD/YYYY, YYYYMMDD, now/today/yesterday/tomorrow, relative items ("2 days ago", "+1 hour",
// "next week"), numeric zones. nullopt when the string is not understood.
std::optional<vfs::TimeSpec> parse_date(std::string_view text, vfs::TimeSpec now);

// ls -h / du -h: 1023, 1.0K, 4.9K, 11K, 1.5M (rounding up, powers of 1024; si: powers of 1000, k).
std::string human_size(uint64_t bytes, bool si = false);

// The utilities' buffered writer (utils/common/io.hpp): a closed pipe stops the utility with 141.
using utils::Output;

// Joins a directory and a name the way GNU tools do: "d" + "x" -> "d/x", "d/" + "x" -> "d/x",
// "/" + "x" -> "/x".
std::string join(std::string_view dir, std::string_view name);

// Copies the rest of `in` to `out` in 64 KiB blocks, polling the cancel token (cp, mv, install). False when
// it stopped: `error` is then GNU's message ("error reading 'SRC': ...", "error writing 'DST': ..."), or empty
// when the command was cancelled.
bool copy_contents(CommandContext& ctx, vfs::FileHandle& in, vfs::FileHandle& out, std::string_view src,
                   std::string_view dst, std::string& error);

// Whether `name` is "." or "..".
inline bool is_dot_or_dotdot(std::string_view name) { return name == "." || name == ".."; }

// Prints a usage text for --help.
int print_help(CommandContext& ctx, std::string_view text);

// Parses an octal or symbolic mode (chmod, mkdir -m) applied to `old` (for symbolic modes); `is_dir`
// decides what X means; umask applies to who-less symbolic clauses. nullopt when invalid.
std::optional<vfs::Mode> parse_mode(std::string_view spec, vfs::Mode old, bool is_dir, uint32_t umask);

}  // namespace bashkit::utils::files
