// The archive utilities, one function each (registered in register.cpp).
#pragma once

#include "utils/archive/archive.hpp"
#include "interp/command.hpp"

namespace bashkit::utils::archive {

int cmd_tar(interp::CommandContext& ctx, const ArchiveLimits& limits);
int cmd_gzip(interp::CommandContext& ctx, const ArchiveLimits& limits);  // gzip, gunzip, zcat by argv[0]
int cmd_zip(interp::CommandContext& ctx, const ArchiveLimits& limits);
int cmd_unzip(interp::CommandContext& ctx, const ArchiveLimits& limits);
// bzip2, bunzip2, bzcat, xz, unxz, xzcat by argv[0] (filters.cpp)
int cmd_compress_filter(interp::CommandContext& ctx, const ArchiveLimits& limits);

}  // namespace bashkit::utils::archive
