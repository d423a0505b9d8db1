// Archive utilities: tar gzip gunzip zcat zip unzip, in-process over the FileSystem through libarchive and
// zlib. Extraction is confined to its target directory and bounded by ArchiveLimits (utils/archive/README.md).
#pragma once

#include <cstdint>

#include "interp/command.hpp"

namespace bashkit::utils {

// The bounds every archive utility enforces. Each trips with a clear message and a non-zero status.
struct ArchiveLimits {
    // Bytes one command may write out of an archive or a compressed stream (all members together).
    uint64_t max_expanded_bytes = uint64_t{1} << 30;  // 1 GiB
    // Members one command may extract or list.
    uint64_t max_entries = 100'000;
    // Bytes of an archive read whole into memory (unzip, zip updating an archive).
    uint64_t max_archive_bytes = uint64_t{512} << 20;  // 512 MiB
};

void register_archive_utils(interp::CommandRegistry& registry, const ArchiveLimits& limits = {});

}  // namespace bashkit::utils
