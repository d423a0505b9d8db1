// SessionStore: what `bashkit serve` keeps of a session on its base dir beside the session's tree, so that
// any replica sharing that dir (a shared volume) can reopen it, and only one runs it at a time.
//
//   <base>/serve--sbx-<16 hex>-<hash>/   the session tree (vfs/session_tree.hpp, instance id "serve")
//   <base>/sbx-<16 hex>.serve/           this store's folder for the session, outside the tree (a script
//                                        cannot see or touch it):
//       meta.json    how to rebuild the session: the create request (network, egress, header bindings),
//                    the GET answer, expires_at, idle timeout, last use, the SHA-256 of its owner's token
//       state.json   the shell state (Shell::save_state), rewritten after an exec that changed it
//       lease        {"owner": replica id, "nonce": random, "expires_at_ms": wall clock ms}
//       lease.takeover  present only while a replica replaces an expired lease
//
// Every file is written whole to a temporary name in the same folder, closed and renamed over the old one, so
// a reader (another replica) sees the old content or the new one, never a part. With sync, each is also
// flushed to stable storage (fdatasync) before the rename: what a power loss of the volume's machine needs;
// a replica that dies (its process or its node) needs only the close (the kernel, or an NFS client on
// close, has the data before the rename).
//
// The lease: created with link(2) from a complete temporary file (fails with EEXIST when one exists: one
// creator wins), renewed by its owner by rename, released by unlink. An expired lease is taken over under
// lease.takeover (created O_EXCL: one taker at a time), re-read under it (a renewal that came meanwhile
// wins), then replaced. A takeover lock older than max(lease, 5 s) is left by a replica that died in that
// window and is removed.
// Clock assumption: expiry is wall-clock time (system_clock, ms since the epoch) compared across replicas:
// their clocks must agree (NTP) to well within the lease; a skew of d shortens the protection to lease - d.
// File modification times (the takeover lock's age, last_touch_ms) come from the file server's clock on a
// network file system: it must agree as well.
// A replica that cannot renew for a whole lease (stalled, partitioned from the volume) must stop using the
// session: the server checks its lease before every request and before saving the state.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace bashkit::sandbox {

struct Lease {
    std::string owner;        // replica id
    std::string nonce;        // random per acquisition: tells one holding from the next
    int64_t expires_at_ms = 0;
};

class SessionStore {
public:
    SessionStore(std::string base_dir, std::string replica_id, std::chrono::milliseconds lease, bool sync = false);

    // "sbx-" and 16 lowercase hex digits: the ids `bashkit serve` makes (nothing else reaches the disk).
    static bool valid_id(std::string_view id);
    static int64_t now_ms();

    const std::string& base_dir() const { return base_; }
    const std::string& replica_id() const { return replica_; }
    std::chrono::milliseconds lease_length() const { return lease_; }
    std::string dir(const std::string& id) const;

    enum class Outcome { taken, held, gone, error };
    struct Take {
        Outcome outcome = Outcome::error;
        Lease lease;        // taken: ours; held: the holder's
        std::string error;  // error: what failed
    };
    // A new session: makes its folder (EEXIST: error), takes the lease, writes meta.json.
    Take create(const std::string& id, const nlohmann::json& meta);
    // An existing session (meta.json present): takes its lease when it is free, expired, or held under this
    // replica's own id (an earlier life of this replica). gone: no such session.
    Take acquire(const std::string& id);
    // Extends our lease; false when it is no longer ours (another replica took it over) or cannot be written.
    bool renew(const std::string& id, Lease& mine);
    // Removes our lease (nothing when it is no longer ours).
    void release(const std::string& id, const Lease& mine);
    std::optional<Lease> read_lease(const std::string& id) const;

    std::optional<nlohmann::json> read_meta(const std::string& id) const;
    bool write_meta(const std::string& id, const nlohmann::json& meta);
    std::optional<std::string> read_state(const std::string& id) const;
    bool write_state(const std::string& id, const std::string& state);
    // Latest write to the session's store files (ms since the epoch; 0 when none): a replica that died
    // left its last renewal here, an upper bound of its last use.
    int64_t last_touch_ms(const std::string& id) const;
    // Removes the session's store folder (meta.json first: the session is gone for other replicas at once).
    void remove(const std::string& id);
    // The ids with a store folder under the base dir.
    std::vector<std::string> list() const;
    // Writes and removes a probe file under the base dir: the volume is there and writable.
    bool writable() const;

private:
    std::string lease_path(const std::string& id) const { return dir(id) + "/lease"; }
    std::string new_lease_text(Lease& l) const;
    bool link_lease(const std::string& id, Lease& l);

    std::string base_;
    std::string replica_;
    std::chrono::milliseconds lease_;
    bool sync_ = false;
};

// Writes path atomically (temporary file in the same folder, fdatasync when sync, rename). False on failure.
bool write_file_atomic(const std::string& path, std::string_view data, bool sync);

}  // namespace bashkit::sandbox
