// libarchive, loaded on first use (base/lazy_library.hpp): only tar, zip and unzip load it (and its
// compressors, libxml2, nettle...). Every call goes through la(), after need_libarchive() has said yes.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <string>
#include <string_view>

#include "base/lazy_library.hpp"
#include "interp/command.hpp"

#define BASHKIT_LIBARCHIVE_FUNCTIONS(X) \
    X(archive_entry_copy_gname) X(archive_entry_copy_hardlink) X(archive_entry_copy_pathname) \
    X(archive_entry_copy_symlink) X(archive_entry_copy_uname) X(archive_entry_filetype) \
    X(archive_entry_free) X(archive_entry_gid) X(archive_entry_gname) \
    X(archive_entry_hardlink) X(archive_entry_mode) X(archive_entry_mtime) \
    X(archive_entry_mtime_is_set) X(archive_entry_mtime_nsec) X(archive_entry_new) \
    X(archive_entry_pathname) X(archive_entry_perm) X(archive_entry_rdevmajor) \
    X(archive_entry_rdevminor) X(archive_entry_set_filetype) X(archive_entry_set_gid) \
    X(archive_entry_set_mtime) X(archive_entry_set_perm) X(archive_entry_set_size) \
    X(archive_entry_set_uid) X(archive_entry_size) X(archive_entry_size_is_set) \
    X(archive_entry_symlink) X(archive_entry_uid) X(archive_entry_uname) \
    X(archive_error_string) X(archive_filter_code) X(archive_format) \
    X(archive_read_data) X(archive_read_data_block) X(archive_read_free) \
    X(archive_read_new) X(archive_read_next_header) X(archive_read_open) \
    X(archive_read_open_memory) X(archive_read_support_filter_all) X(archive_read_support_filter_none) \
    X(archive_read_support_format_gnutar) X(archive_read_support_format_tar) X(archive_read_support_format_zip_seekable) \
    X(archive_set_error) X(archive_write_add_filter_bzip2) X(archive_write_add_filter_gzip) \
    X(archive_write_add_filter_none) X(archive_write_add_filter_xz) X(archive_write_add_filter_zstd) \
    X(archive_write_close) X(archive_write_data) X(archive_write_free) \
    X(archive_write_header) X(archive_write_new) X(archive_write_open) \
    X(archive_write_set_bytes_in_last_block) X(archive_write_set_format_gnutar) X(archive_write_set_format_zip) \
    X(archive_write_zip_set_compression_deflate) X(archive_write_zip_set_compression_store)

namespace bashkit::utils::archive {

struct LibarchiveApi {
    BASHKIT_LIBARCHIVE_FUNCTIONS(BASHKIT_API_MEMBER)
};

// libarchive's functions, or nullptr with *error set when the library cannot be loaded.
const LibarchiveApi* libarchive_api(std::string* error = nullptr);

// Loads libarchive for the command `name`; false after "name: libarchive cannot be loaded: WHY" on stderr.
bool need_libarchive(interp::CommandContext& ctx, std::string_view name);

// The loaded API: only after need_libarchive() returned true.
inline const LibarchiveApi& la() { return *libarchive_api(); }

}  // namespace bashkit::utils::archive
