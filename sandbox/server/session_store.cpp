#include "sandbox/server/session_store.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox.hpp"

namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;

constexpr std::string_view kSuffix = ".serve";

std::optional<std::string> slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
    return text;
}

int64_t mtime_ms(const std::string& path) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return 0;
    return int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// Writes data to a new file (O_EXCL), flushed to stable storage when sync; false (and nothing left) on failure.
bool write_new(const std::string& path, std::string_view data, bool sync) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t done = 0;
    bool ok = true;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ok = false;
            break;
        }
        done += size_t(n);
    }
    if (ok && sync && ::fdatasync(fd) != 0) ok = false;
    if (::close(fd) != 0) ok = false;
    if (!ok) ::unlink(path.c_str());
    return ok;
}

std::string temp_name(const std::string& path) { return path + ".tmp-" + random_session_id(); }

}  // namespace

bool write_file_atomic(const std::string& path, std::string_view data, bool sync) {
    std::string tmp = temp_name(path);
    if (!write_new(tmp, data, sync)) return false;
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return false;
    }
    return true;
}

SessionStore::SessionStore(std::string base_dir, std::string replica_id, std::chrono::milliseconds lease, bool sync)
    : base_(std::move(base_dir)), replica_(std::move(replica_id)), lease_(lease), sync_(sync) {
    while (base_.size() > 1 && base_.back() == '/') base_.pop_back();
}

bool SessionStore::valid_id(std::string_view id) {
    if (id.size() != 20 || !id.starts_with("sbx-")) return false;
    for (char c : id.substr(4))
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

int64_t SessionStore::now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string SessionStore::dir(const std::string& id) const { return base_ + "/" + id + std::string(kSuffix); }

std::string SessionStore::new_lease_text(Lease& l) const {
    l.owner = replica_;
    l.expires_at_ms = now_ms() + lease_.count();
    return json{{"owner", l.owner}, {"nonce", l.nonce}, {"expires_at_ms", l.expires_at_ms}}.dump();
}

std::optional<Lease> SessionStore::read_lease(const std::string& id) const {
    auto text = slurp(lease_path(id));
    if (!text) return std::nullopt;
    json j = json::parse(*text, nullptr, false);
    Lease l;
    if (j.is_object() && j.contains("owner") && j["owner"].is_string() && j.contains("nonce") && j["nonce"].is_string() &&
        j.contains("expires_at_ms") && j["expires_at_ms"].is_number_integer()) {
        l.owner = j["owner"].get<std::string>();
        l.nonce = j["nonce"].get<std::string>();
        l.expires_at_ms = j["expires_at_ms"].get<int64_t>();
    } else {
        // Not ours to judge (a foreign or damaged file): held for one lease from its last write.
        l.owner = "unknown";
        l.expires_at_ms = mtime_ms(lease_path(id)) + lease_.count();
    }
    return l;
}

bool SessionStore::link_lease(const std::string& id, Lease& l) {
    l.nonce = random_session_id();
    std::string tmp = temp_name(lease_path(id));
    if (!write_new(tmp, new_lease_text(l), sync_)) return false;
    int r = ::link(tmp.c_str(), lease_path(id).c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    return r == 0;
}

SessionStore::Take SessionStore::create(const std::string& id, const json& meta) {
    Take t;
    if (!valid_id(id)) {
        t.error = "invalid session id";
        return t;
    }
    if (::mkdir(dir(id).c_str(), 0700) != 0) {
        t.error = "cannot make " + dir(id) + ": " + std::strerror(errno);
        return t;
    }
    if (!link_lease(id, t.lease)) {
        t.error = "cannot write the lease of " + id + ": " + std::strerror(errno);
        return t;
    }
    if (!write_meta(id, meta)) {
        ::unlink(lease_path(id).c_str());
        ::rmdir(dir(id).c_str());
        t.error = "cannot write the metadata of " + id;
        return t;
    }
    t.outcome = Outcome::taken;
    return t;
}

SessionStore::Take SessionStore::acquire(const std::string& id) {
    Take t;
    const std::string meta = dir(id) + "/meta.json";
    const std::string takeover = dir(id) + "/lease.takeover";
    for (int attempt = 0; attempt < 4; ++attempt) {
        struct stat st{};
        if (!valid_id(id) || ::stat(meta.c_str(), &st) != 0) {
            t.outcome = Outcome::gone;
            return t;
        }
        std::optional<Lease> cur = read_lease(id);
        if (cur && cur->owner != replica_ && cur->expires_at_ms > now_ms()) {
            t.outcome = Outcome::held;
            t.lease = *cur;
            return t;
        }
        if (!cur) {  // free: whoever links first has it
            if (link_lease(id, t.lease)) break;
            if (errno == EEXIST) continue;
            t.error = "cannot write the lease of " + id + ": " + std::strerror(errno);
            return t;
        }
        // Expired, or held under our own id by an earlier life of this replica: replace it, one taker at a time.
        int fd = ::open(takeover.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno != EEXIST) {
                t.error = "cannot take over the lease of " + id + ": " + std::strerror(errno);
                return t;
            }
            int64_t age = now_ms() - mtime_ms(takeover);
            if (age > std::max<int64_t>(lease_.count(), 5000)) {
                ::unlink(takeover.c_str());  // left by a replica that died while taking over
                continue;
            }
            t.outcome = Outcome::held;
            t.lease = *cur;
            return t;
        }
        ::close(fd);
        std::optional<Lease> again = read_lease(id);
        bool renewed = again && again->nonce != cur->nonce && again->owner != replica_ && again->expires_at_ms > now_ms();
        if (renewed) {
            ::unlink(takeover.c_str());
            t.outcome = Outcome::held;
            t.lease = *again;
            return t;
        }
        ::unlink(lease_path(id).c_str());
        bool linked = link_lease(id, t.lease);
        int err = errno;
        ::unlink(takeover.c_str());
        if (linked) break;
        if (err == EEXIST) continue;
        t.error = "cannot write the lease of " + id + ": " + std::strerror(err);
        return t;
    }
    if (t.lease.nonce.empty() || t.lease.owner != replica_) {
        t.error = "the lease of " + id + " keeps changing hands";
        return t;
    }
    // Deleted while we took it: not a session any more.
    struct stat st{};
    if (::stat(meta.c_str(), &st) != 0) {
        release(id, t.lease);
        t = Take{};
        t.outcome = Outcome::gone;
        return t;
    }
    t.outcome = Outcome::taken;
    return t;
}

bool SessionStore::renew(const std::string& id, Lease& mine) {
    std::optional<Lease> cur = read_lease(id);
    if (!cur || cur->nonce != mine.nonce) return false;
    Lease next = mine;
    std::string text = new_lease_text(next);
    if (!write_file_atomic(lease_path(id), text, sync_)) return false;
    mine = next;
    return true;
}

void SessionStore::release(const std::string& id, const Lease& mine) {
    std::optional<Lease> cur = read_lease(id);
    if (cur && cur->nonce == mine.nonce) ::unlink(lease_path(id).c_str());
}

std::optional<json> SessionStore::read_meta(const std::string& id) const {
    if (!valid_id(id)) return std::nullopt;
    auto text = slurp(dir(id) + "/meta.json");
    if (!text) return std::nullopt;
    json j = json::parse(*text, nullptr, false);
    if (!j.is_object() || j.value("format", std::string()) != "bashkit-serve-session") return std::nullopt;
    return j;
}

bool SessionStore::write_meta(const std::string& id, const json& meta) {
    return write_file_atomic(dir(id) + "/meta.json", meta.dump(-1, ' ', false, json::error_handler_t::replace), sync_);
}

std::optional<std::string> SessionStore::read_state(const std::string& id) const { return slurp(dir(id) + "/state.json"); }

bool SessionStore::write_state(const std::string& id, const std::string& state) {
    return write_file_atomic(dir(id) + "/state.json", state, sync_);
}

int64_t SessionStore::last_touch_ms(const std::string& id) const {
    int64_t t = 0;
    for (const char* f : {"/meta.json", "/state.json", "/lease"}) t = std::max(t, mtime_ms(dir(id) + f));
    return t;
}

void SessionStore::remove(const std::string& id) {
    if (!valid_id(id)) return;
    const std::string d = dir(id);
    ::unlink((d + "/meta.json").c_str());
    if (DIR* dp = ::opendir(d.c_str())) {
        std::vector<std::string> names;
        while (dirent* de = ::readdir(dp)) {
            std::string n = de->d_name;
            if (n != "." && n != ".." && n != "lease") names.push_back(n);
        }
        ::closedir(dp);
        for (const auto& n : names) ::unlink((d + "/" + n).c_str());
    }
    ::unlink((d + "/lease").c_str());
    ::rmdir(d.c_str());
}

std::vector<std::string> SessionStore::list() const {
    std::vector<std::string> ids;
    DIR* dp = ::opendir(base_.c_str());
    if (!dp) return ids;
    while (dirent* de = ::readdir(dp)) {
        std::string_view n = de->d_name;
        if (n.size() > kSuffix.size() && n.ends_with(kSuffix)) {
            std::string id(n.substr(0, n.size() - kSuffix.size()));
            if (valid_id(id)) ids.push_back(std::move(id));
        }
    }
    ::closedir(dp);
    return ids;
}

bool SessionStore::writable() const {
    std::string probe = base_ + "/.ready-" + random_session_id();
    if (!write_new(probe, replica_, false)) return false;
    ::unlink(probe.c_str());
    return true;
}

}  // namespace bashkit::sandbox
