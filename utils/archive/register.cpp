#include "utils/archive/archive.hpp"
#include "utils/archive/tools.hpp"

namespace bashkit::utils {

void register_archive_utils(interp::CommandRegistry& registry, const ArchiveLimits& limits) {
    using Fn = int (*)(interp::CommandContext&, const ArchiveLimits&);
    struct Entry {
        const char* name;
        const char* help;
        Fn fn;
    };
    const Entry entries[] = {
        {"tar", "tar -c|-x|-t [-vzjJaOkmp] [-f ARCHIVE] [-C DIR] [--strip-components=N] [--exclude=PAT] [FILE]... : tape archives", archive::cmd_tar},
        {"gzip", "gzip [-cdfklnNqtv19] [FILE]... : compress or expand files (.gz)", archive::cmd_gzip},
        {"gunzip", "gunzip [-cfklqtv] [FILE]... : expand .gz files", archive::cmd_gzip},
        {"zcat", "zcat [-f] [FILE]... : expand .gz files to stdout", archive::cmd_gzip},
        {"zip", "zip [-rqjD0-9] ZIPFILE FILE... : package files into a zip archive", archive::cmd_zip},
        {"unzip", "unzip [-lqo] [-d DIR] ZIPFILE [MEMBER]... : list or extract a zip archive", archive::cmd_unzip},
        {"bzip2", "bzip2 [-cdfkqtz1-9] [FILE]... : compress or expand files (.bz2)", archive::cmd_compress_filter},
        {"bunzip2", "bunzip2 [-cfkqt] [FILE]... : expand .bz2 files", archive::cmd_compress_filter},
        {"bzcat", "bzcat [FILE]... : expand .bz2 files to stdout", archive::cmd_compress_filter},
        {"xz", "xz [-cdfkqtz0-9e] [FILE]... : compress or expand files (.xz)", archive::cmd_compress_filter},
        {"unxz", "unxz [-cfkqt] [FILE]... : expand .xz files", archive::cmd_compress_filter},
        {"xzcat", "xzcat [FILE]... : expand .xz files to stdout", archive::cmd_compress_filter},
    };
    for (const auto& e : entries) {
        Fn fn = e.fn;
        registry.add(e.name, e.help, [fn, limits](interp::CommandContext& ctx) { return fn(ctx, limits); });
    }
}

}  // namespace bashkit::utils
