// The data utilities, one function each (registered in register.cpp). They reuse the text family's input
// and output plumbing (utils/text/util.hpp) and the shared option parser (utils/common/args.hpp).
#pragma once

#include "utils/common/args.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::data {

using interp::CommandContext;

int cmd_base64(CommandContext& ctx);
int cmd_base32(CommandContext& ctx);
int cmd_basenc(CommandContext& ctx);
int cmd_iconv(CommandContext& ctx);
int cmd_md5sum(CommandContext& ctx);
int cmd_sha1sum(CommandContext& ctx);
int cmd_sha224sum(CommandContext& ctx);
int cmd_sha256sum(CommandContext& ctx);
int cmd_sha384sum(CommandContext& ctx);
int cmd_sha512sum(CommandContext& ctx);
int cmd_cksum(CommandContext& ctx);
int cmd_expr(CommandContext& ctx);
int cmd_bc(CommandContext& ctx);
int cmd_factor(CommandContext& ctx);
int cmd_sum(CommandContext& ctx);
int cmd_tsort(CommandContext& ctx);
int cmd_numfmt(CommandContext& ctx);
int cmd_b2sum(CommandContext& ctx);
int cmd_shasum(CommandContext& ctx);

// "NAME (bashkit) 1.0" for --version.
int version(CommandContext& ctx);

}  // namespace bashkit::utils::data
