#include "sandbox/configured_shell.hpp"

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "interp/governor.hpp"
#include "vfs/memory_fs.hpp"
#include "vfs/mount_table.hpp"
#include "vfs/overlay_fs.hpp"

#include "utils/system/timeutil.hpp"
#include "sandbox/setup.hpp"

namespace bashkit::sandbox {

namespace {
// Calls f on every MemoryFs the shell may write to through tree: the tree itself, the inner tree of a
// LimitedFs, the upper layer of an overlay (the lower one is only read, and may be shared), the writable
// mounts of a mount table (as mounted now). Other trees (HostFs) keep nothing in memory.
template <class F>
void each_memory_tree(vfs::FileSystem& tree, F&& f, int depth = 0) {
    if (depth > 16) return;
    if (auto* m = dynamic_cast<vfs::MemoryFs*>(&tree)) {
        f(*m);
    } else if (auto* l = dynamic_cast<vfs::LimitedFs*>(&tree)) {
        each_memory_tree(l->inner(), f, depth + 1);
    } else if (auto* o = dynamic_cast<vfs::OverlayFs*>(&tree)) {
        each_memory_tree(o->upper(), f, depth + 1);
    } else if (auto* t = dynamic_cast<vfs::MountTable*>(&tree)) {
        for (const vfs::MountInfo& mi : t->mounts())
            if (!mi.read_only && mi.fs) each_memory_tree(*mi.fs, f, depth + 1);
    }
}
}  // namespace

// The tree's memory account (vfs::MemoryAccount) over the session's budget: file bytes of an in-memory tree
// and the script's other buffers share max_memory_bytes. Detached before the shell (and its budget) goes; a
// handle that outlives it then charges nothing.
class ConfiguredShell::BudgetAccount final : public vfs::MemoryAccount {
public:
    explicit BudgetAccount(interp::MemoryBudget* budget) : budget_(budget) {}
    bool try_charge(uint64_t n) override {
        std::lock_guard lock(mu_);
        return !budget_ || (n <= SIZE_MAX && budget_->try_charge(static_cast<size_t>(n)));
    }
    void force_charge(uint64_t n) override {
        std::lock_guard lock(mu_);
        if (budget_) budget_->force_charge(static_cast<size_t>(n));
    }
    void release(uint64_t n) override {
        std::lock_guard lock(mu_);
        if (budget_) budget_->release(static_cast<size_t>(n));
    }
    void detach() {
        std::lock_guard lock(mu_);
        budget_ = nullptr;
    }

private:
    std::mutex mu_;
    interp::MemoryBudget* budget_;
};

ConfiguredShell::ConfiguredShell(ShellSetup setup) {
    if (!setup.tree) throw std::invalid_argument("ConfiguredShell: no tree");
    fs_ = std::move(setup.tree);
    limited_ = dynamic_cast<vfs::LimitedFs*>(fs_.get());
    if (!limited_ && setup.fs_limits) {
        auto limited = std::make_shared<vfs::LimitedFs>(fs_, *setup.fs_limits, setup.count_existing_usage);
        limited_ = limited.get();
        fs_ = std::move(limited);
    }
    http_ = make_http_client(std::move(setup.network));
    setup.shell.http = http_.get();
    if (!setup.shell.local_time) {
        vfs::FileSystem* zones = fs_.get();  // outlives the shell: both belong to this object
        setup.shell.local_time = [zones](int64_t t, const std::string* tz, std::tm& out) {
            const auto zone = utils::systemutil::TimeZone::from_tz(tz, zones);
            const utils::systemutil::LocalTime lt = zone.local(t);
            // strftime reads tm_zone right after, on this thread.
            thread_local std::string abbr;
            abbr = lt.abbr;
            out = std::tm{};
            out.tm_year = static_cast<int>(lt.year - 1900);
            out.tm_mon = lt.mon - 1;
            out.tm_mday = lt.mday;
            out.tm_hour = lt.hour;
            out.tm_min = lt.min;
            out.tm_sec = lt.sec;
            out.tm_wday = lt.wday;
            out.tm_yday = lt.yday;
            out.tm_isdst = lt.dst ? 1 : 0;
#if defined(__GLIBC__) || defined(__APPLE__)
            out.tm_gmtoff = lt.offset;
            out.tm_zone = abbr.c_str();
#endif
            return true;
        };
    }
    const interp::CommandRegistry* registry = &default_registry();
    if (setup.utilities != Utilities::sandbox) {
        own_registry_ = std::make_unique<interp::CommandRegistry>();
        if (setup.utilities == Utilities::host) register_commands(*own_registry_, /*git_config=*/false);
        registry = own_registry_.get();
    }
    shell_ = std::make_unique<interp::Shell>(*fs_, *registry, std::move(setup.shell));
    if (setup.charge_tree_to_budget) {
        account_ = std::make_shared<BudgetAccount>(&shell_->memory());
        each_memory_tree(*fs_, [&](vfs::MemoryFs& m) { m.set_memory_account(account_); });
    }
}

// The tree stops charging the budget before the shell (which owns it) goes; then the shell: it runs the EXIT
// trap and joins its jobs, which still use the tree and the client.
ConfiguredShell::~ConfiguredShell() {
    if (account_) {
        each_memory_tree(*fs_, [](vfs::MemoryFs& m) { m.set_memory_account(nullptr); });
        account_->detach();
    }
    shell_.reset();
}

}  // namespace bashkit::sandbox
