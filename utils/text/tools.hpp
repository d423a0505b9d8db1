// The text utilities, one function each (registered in register.cpp).
#pragma once

#include "utils/text/util.hpp"

namespace bashkit::utils::text {

// --version: "NAME (bashkit) 1.0".
int version(CommandContext& ctx);

int cmd_cat(CommandContext& ctx);
int cmd_csplit(CommandContext& ctx);  // csplit.cpp
int cmd_pr(CommandContext& ctx);      // pr.cpp
int cmd_head(CommandContext& ctx);
int cmd_tail(CommandContext& ctx);
int cmd_wc(CommandContext& ctx);
int cmd_sort(CommandContext& ctx);
int cmd_uniq(CommandContext& ctx);
int cmd_cut(CommandContext& ctx);
int cmd_tr(CommandContext& ctx);
int cmd_seq(CommandContext& ctx);
int cmd_tee(CommandContext& ctx);
int cmd_more(CommandContext& ctx);  // pagers.cpp
int cmd_less(CommandContext& ctx);
int cmd_paste(CommandContext& ctx);
int cmd_rev(CommandContext& ctx);
int cmd_tac(CommandContext& ctx);
int cmd_nl(CommandContext& ctx);
int cmd_fold(CommandContext& ctx);
int cmd_fmt(CommandContext& ctx);
int cmd_expand(CommandContext& ctx);
int cmd_unexpand(CommandContext& ctx);
int cmd_comm(CommandContext& ctx);
int cmd_join(CommandContext& ctx);
int cmd_column(CommandContext& ctx);
int cmd_split(CommandContext& ctx);
int cmd_yes(CommandContext& ctx);
int cmd_od(CommandContext& ctx);
int cmd_xxd(CommandContext& ctx);
int cmd_hexdump(CommandContext& ctx);
int cmd_strings(CommandContext& ctx);
int cmd_shuf(CommandContext& ctx);

}  // namespace bashkit::utils::text
