// Archives made in memory with libarchive's write API, for tests that need hostile members (../ names,
// links leading out, bombs) that no real tar would write.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace bashkit::testing {

struct Member {
    enum Kind { file, dir, symlink, hardlink } kind = file;
    std::string name = {};
    std::string data = {};    // file content
    std::string target = {};  // symlink or hard link target
    uint64_t zeros = 0;  // file of this many zero bytes instead of data
};

inline la_ssize_t append_cb(struct archive*, void* out, const void* buf, size_t n) {
    static_cast<std::string*>(out)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
}

// An archive in memory: format "tar" (GNU) or "zip"; filter "gzip" or "".
inline std::string make_archive(const std::vector<Member>& members, const std::string& format = "tar",
                         const std::string& filter = "") {
    std::string out;
    struct archive* a = archive_write_new();
    if (format == "zip") archive_write_set_format_zip(a);
    else archive_write_set_format_gnutar(a);
    if (filter == "gzip") archive_write_add_filter_gzip(a);
    if (format == "zip" || !filter.empty()) archive_write_set_bytes_in_last_block(a, 1);  // no zero padding
    archive_write_open(a, &out, nullptr, append_cb, nullptr);
    const std::string chunk(1 << 20, '\0');
    for (const auto& m : members) {
        struct archive_entry* e = archive_entry_new();
        archive_entry_copy_pathname(e, m.name.c_str());
        archive_entry_set_perm(e, m.kind == Member::dir ? 0755 : 0644);
        archive_entry_set_mtime(e, 1'600'000'000, 0);
        switch (m.kind) {
            case Member::file:
                archive_entry_set_filetype(e, AE_IFREG);
                archive_entry_set_size(e, static_cast<la_int64_t>(m.zeros ? m.zeros : m.data.size()));
                break;
            case Member::dir: archive_entry_set_filetype(e, AE_IFDIR); break;
            case Member::symlink:
                archive_entry_set_filetype(e, AE_IFLNK);
                archive_entry_copy_symlink(e, m.target.c_str());
                break;
            case Member::hardlink:
                archive_entry_set_filetype(e, AE_IFREG);
                archive_entry_copy_hardlink(e, m.target.c_str());
                archive_entry_set_size(e, 0);
                break;
        }
        EXPECT_GE(archive_write_header(a, e), ARCHIVE_WARN) << archive_error_string(a);
        archive_entry_free(e);
        if (m.kind == Member::file) {
            if (m.zeros) {
                for (uint64_t left = m.zeros; left > 0;) {
                    size_t n = std::min<uint64_t>(left, chunk.size());
                    archive_write_data(a, chunk.data(), n);
                    left -= n;
                }
            } else if (!m.data.empty()) {
                archive_write_data(a, m.data.data(), m.data.size());
            }
        }
    }
    archive_write_close(a);
    archive_write_free(a);
    return out;
}

}  // namespace bashkit::testing
