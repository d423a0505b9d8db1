// The system utilities, one function each (registered in register.cpp), and what they share.
#pragma once

#include <cstdint>
#include <string>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/system/timeutil.hpp"
#include "interp/command.hpp"

namespace bashkit::utils::systemutil {

using interp::CommandContext;

// date -d STRING (GNU parse_datetime's common forms) relative to now, in zone tz; false when invalid.
bool parse_date(std::string_view text, int64_t now_sec, int64_t now_nsec, const TimeZone& tz,
                vfs::FileSystem* fs, int64_t& out_sec, int64_t& out_nsec);

// A duration NUMBER[smhd] (sleep, timeout): a decimal or hex floating number; false when invalid.
bool parse_duration(std::string_view s, double& seconds);

// Waits for `seconds` (may be infinite) in steps of at most 10 ms, checking cancel; false when cancelled first.
bool wait_for(const interp::CancelToken& cancel, double seconds);

// 'NAME' quoted like coreutils' quote() in the C locale.
std::string quote(std::string_view s);

// Runs argv[0] with the given streams through ctx.runner the way exec() would (no shell functions), after
// checking it exists: a missing command prints "<prog>: 'NAME': No such file or directory" (or the
// message given by `missing`) and gives 127; a directory or non-executable file gives 126.
struct ExecOptions {
    std::string_view prog;              // for messages
    const interp::Environment* env = nullptr;
    bool exact_env = false;
    std::shared_ptr<const interp::CancelToken> cancel;
    interp::ByteStream* in = nullptr;    // default: ctx.in
    std::string cwd;                     // env -C
    bool timeout_style = false;          // "timeout: failed to run command 'x': No such file or directory"
};
int exec_command(CommandContext& ctx, std::span<const std::string> argv, const ExecOptions& opts);

int cmd_date(CommandContext& ctx);
int cmd_sleep(CommandContext& ctx);
int cmd_timeout(CommandContext& ctx);
int cmd_env(CommandContext& ctx);
int cmd_printenv(CommandContext& ctx);
int cmd_nohup(CommandContext& ctx);
int cmd_xargs(CommandContext& ctx);
int cmd_which(CommandContext& ctx);
int cmd_whoami(CommandContext& ctx);
int cmd_id(CommandContext& ctx);
int cmd_hostname(CommandContext& ctx);
int cmd_uname(CommandContext& ctx);
int cmd_arch(CommandContext& ctx);
int cmd_nproc(CommandContext& ctx);
int cmd_true(CommandContext& ctx);
int cmd_false(CommandContext& ctx);
int cmd_tty(CommandContext& ctx);
int cmd_logname(CommandContext& ctx);
int cmd_groups(CommandContext& ctx);
int cmd_nice(CommandContext& ctx);
int cmd_stdbuf(CommandContext& ctx);
int cmd_envsubst(CommandContext& ctx);
int cmd_getopt(CommandContext& ctx);
int cmd_tput(CommandContext& ctx);
int cmd_free(CommandContext& ctx);
int cmd_uptime(CommandContext& ctx);
int cmd_uuidgen(CommandContext& ctx);
int cmd_who(CommandContext& ctx);
int cmd_users(CommandContext& ctx);
int cmd_w(CommandContext& ctx);
int cmd_ps(CommandContext& ctx);
// The session's running background jobs as processes (pgrep, pkill, ps): pid, name (the base name of a simple
// command's first word, "bash" otherwise; 15 characters at most) and command line (the job's text).
struct JobProcess {
    int64_t pid = 0;
    std::string name;
    std::string cmdline;
};
std::vector<JobProcess> job_processes(CommandContext& ctx);
int cmd_pgrep(CommandContext& ctx);
int cmd_pkill(CommandContext& ctx);
int cmd_watch(CommandContext& ctx);

}  // namespace bashkit::utils::systemutil
