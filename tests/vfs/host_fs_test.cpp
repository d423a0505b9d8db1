// HostFs: the conformance suite over a fresh host folder per test (both confinement strategies), plus what
// only HostFs promises (owner, chown, host files seen as they are, read-only, FIFOs, name rules).
#include "vfs/host_fs.hpp"

#include <gtest/gtest.h>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"

namespace bashkit::vfs {
namespace {

template <HostFsOptions::Confinement kHow>
struct HostFsFactory {
    static std::unique_ptr<FileSystem> make() {
        HostFsOptions o;
        o.confinement = kHow;
        o.remove_root_on_destroy = true;
        auto fs = HostFs::open(testing_util::make_temp_dir("hostfs"), o);
        return fs ? std::unique_ptr<FileSystem>(std::move(*fs)) : nullptr;
    }
    static constexpr bool kHardLinks = true;
};

using HostFsTypes = ::testing::Types<HostFsFactory<HostFsOptions::Confinement::automatic>,
                                     HostFsFactory<HostFsOptions::Confinement::nofollow_walk>>;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(HostFs, FileSystemConformance, HostFsTypes);

}  // namespace bashkit::vfs
