// The network half of git: clone, fetch, pull, push, remote, ls-remote over the smart HTTP protocol (v0:
// info/refs?service=git-upload-pack|git-receive-pack, then one POST of the request) through the session's
// HttpClient, so the network policy, the private-address rules, redirects and header bindings (a
// GitHubBinding's token is added on the wire, never seen here) apply exactly as for curl.
//
// Packs received are checked (trailing SHA-1) and indexed as git's index-pack does: the .pack is kept as
// received and a version 2 .idx is written beside it, named after the pack's checksum. Deltas are resolved
// from their bases with a bounded cache; a delta whose base never appears (a REF_DELTA loop, a thin pack)
// ends in a fatal error. Responses are capped (kMaxPackBytes) and charged to the session's memory budget.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <atomic>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "utils/git/core.hpp"
#include "utils/net/common.hpp"
#include "net/http.hpp"

namespace bashkit::utils::git {

namespace {

constexpr uint64_t kMaxPackBytes = uint64_t{2} << 30;   // one received pack
constexpr size_t kMaxAdvertBytes = 64u << 20;           // one ref advertisement or push report
constexpr size_t kDeltaCacheBytes = 32u << 20;          // resolved delta bases kept while indexing
constexpr size_t kMaxHaves = 256;                       // commits offered as common ground on fetch
const char* kAgent = "git/2.39.5";

// ------------------------------------------------------------------ pkt-line

std::string pkt(std::string_view d) {
    static const char* hex = "0123456789abcdef";
    size_t n = d.size() + 4;
    std::string h = {hex[(n >> 12) & 15], hex[(n >> 8) & 15], hex[(n >> 4) & 15], hex[n & 15]};
    return h + std::string(d);
}

struct PktReader {
    std::string_view d;
    size_t pos = 0;
    enum Kind { data, flush, delim, end };
    Kind next(std::string_view& out) {
        if (pos >= d.size()) return end;
        if (pos + 4 > d.size()) throw Fatal{"protocol error: bad line length character"};
        unsigned n = 0;
        for (int k = 0; k < 4; ++k) {
            char c = d[pos + k];
            int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (v < 0) throw Fatal{"protocol error: bad line length character: " + std::string(d.substr(pos, 4))};
            n = n * 16 + unsigned(v);
        }
        pos += 4;
        if (n == 0) return flush;
        if (n == 1) return delim;
        if (n < 4) return flush;
        if (pos + (n - 4) > d.size()) throw Fatal{"the remote end hung up unexpectedly"};
        out = d.substr(pos, n - 4);
        pos += n - 4;
        return data;
    }
};

std::string chomp(std::string_view s) {
    if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
    return std::string(s);
}

// ------------------------------------------------------------------ URLs

// The URL with any "user:password@" removed, as git shows it.
std::string anonymize(const std::string& url) {
    size_t scheme = url.find("://");
    if (scheme == std::string::npos) return url;
    size_t host = scheme + 3, slash = url.find('/', host), at = url.find('@', host);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) return url.substr(0, host) + url.substr(at + 1);
    return url;
}

// Refuses what is not http(s) with a clear message.
void check_url(const std::string& url) {
    if (url.starts_with("http://") || url.starts_with("https://")) return;
    size_t colon = url.find(':'), slash = url.find('/');
    bool scp_like = colon != std::string::npos && (slash == std::string::npos || colon < slash) &&
                    url.find("://") == std::string::npos && colon > 1;
    if (url.starts_with("ssh://") || url.starts_with("git+ssh://") || url.starts_with("ssh+git://") ||
        url.starts_with("git://") || scp_like)
        throw Fatal{"'" + anonymize(url) + "': ssh:// and git:// remotes are not available in this sandbox (only http:// and https://)"};
    if (url.find("://") != std::string::npos)
        throw Fatal{"Unable to find remote helper for '" + url.substr(0, url.find("://")) + "'"};
    throw Fatal{"'" + url + "': local repositories are not available as remotes in this sandbox (only http:// and https://)"};
}

// ------------------------------------------------------------------ the connection

struct Advert {
    std::vector<std::pair<std::string, std::string>> refs;  // (name, oid) in the server's order, "x^{}" peeled
    std::set<std::string> caps;  // v0: the capabilities of the first line; v2: the server's capability lines
    bool v2 = false;             // the server answered protocol v2: refs from ls-refs, objects by `fetch`
    std::string head_target;  // from symref=HEAD:refs/heads/main
    std::optional<std::string> find(const std::string& name) const {
        for (const auto& [n, o] : refs)
            if (n == name) return o;
        return std::nullopt;
    }
};

class Conn {
public:
    Conn(Invocation& s, std::string url) : s_(s), url_(std::move(url)) {
        check_url(url_);
        base_ = url_;
        while (base_.size() > 1 && base_.back() == '/') base_.pop_back();
        shown_ = anonymize(base_) + "/";
    }
    const std::string& url() const { return url_; }

    // Protocol v2 is asked for on fetches (git's default since 2.26) unless protocol.version says 0 or 1;
    // a server that does not know it answers v0, which is read as before. Pushes are v0 (git has no v2
    // receive-pack).
    bool want_v2() const {
        std::optional<std::string> v;
        for (const auto& [k, val] : s_.overrides)
            if (k == "protocol.version") v = val;
        if (!v && s_.repo) v = s_.repo->config.get("protocol.version");
        return !v || *v == "2";
    }

    Advert discover(const std::string& service) {
        net::HttpRequest req;
        req.url = base_ + "/info/refs?service=" + service;
        req.follow_redirects = true;
        req.headers = {{"Accept", "*/*"}, {"Pragma", "no-cache"}};
        const bool ask_v2 = service == "git-upload-pack" && want_v2();
        if (ask_v2) req.headers.emplace_back("Git-Protocol", "version=2");
        interp::MemoryCharge held(s_.ctx.memory);
        std::string ctype;
        std::string body = send(req, kMaxAdvertBytes, held, &ctype);
        if (ctype != "application/x-" + service + "-advertisement")
            throw Fatal{"repository '" + shown_ + "' is not a smart HTTP server (dumb HTTP is not available in this sandbox)"};
        Advert a;
        PktReader r{body};
        std::string_view line;
        auto k0 = r.next(line);
        bool service_line = k0 == PktReader::data && chomp(line) == "# service=" + service;
        if (!service_line && !(ask_v2 && k0 == PktReader::data && chomp(line) == "version 2"))
            throw Fatal{"invalid server response; got '" + chomp(line) + "'"};
        if (service_line) {
            while (r.next(line) == PktReader::data) {
            }
            size_t at = r.pos;
            if (!(ask_v2 && r.next(line) == PktReader::data && chomp(line) == "version 2")) r.pos = at;
            else service_line = false;
        }
        if (!service_line) return list_refs_v2(r);
        bool first = true;
        for (;;) {
            check_cancel(s_.ctx);
            auto k = r.next(line);
            if (k != PktReader::data) break;
            std::string l = chomp(line);
            if (first) {
                first = false;
                size_t nul = l.find('\0');
                if (nul != std::string::npos) {
                    std::string caps = l.substr(nul + 1);
                    l.resize(nul);
                    size_t p = 0;
                    while (p < caps.size()) {
                        size_t e = caps.find(' ', p);
                        if (e == std::string::npos) e = caps.size();
                        std::string c = caps.substr(p, e - p);
                        if (!c.empty()) a.caps.insert(c);
                        if (c.starts_with("symref=HEAD:")) a.head_target = c.substr(12);
                        p = e + 1;
                    }
                }
            }
            if (l.size() < 42 || l[40] != ' ' || !is_hex_oid(l.substr(0, 40)))
                throw Fatal{"protocol error: unexpected '" + l + "'"};
            std::string name = l.substr(41);
            if (name == "capabilities^{}") continue;
            a.refs.emplace_back(name, l.substr(0, 40));
        }
        return a;
    }

    // A v2 command's request: "command=NAME", the capabilities we send, a delimiter, the arguments, a flush.
    static std::string v2_request(const Advert& a, const std::string& command, const std::vector<std::string>& args) {
        std::string body = pkt("command=" + command + "\n");
        bool agent = false, sha1 = false;
        for (const auto& c : a.caps) {
            agent = agent || c == "agent" || c.starts_with("agent=");
            sha1 = sha1 || c == "object-format=sha1";
        }
        if (agent) body += pkt(std::string("agent=") + kAgent + "\n");
        if (sha1) body += pkt("object-format=sha1\n");
        body += "0001";
        for (const auto& x : args) body += pkt(x + "\n");
        return body + "0000";
    }

    std::string rpc(const std::string& service, std::string body, uint64_t cap, interp::MemoryCharge& held, bool v2 = false) {
        net::HttpRequest req;
        req.method = "POST";
        req.url = base_ + "/" + service;
        req.headers = {{"Content-Type", "application/x-" + service + "-request"},
                       {"Accept", "application/x-" + service + "-result"}};
        if (v2) req.headers.emplace_back("Git-Protocol", "version=2");
        req.body = std::move(body);
        req.has_body = true;
        std::string ctype;
        std::string out = send(req, cap, held, &ctype);
        if (ctype != "application/x-" + service + "-result")
            throw Fatal{"invalid content-type: '" + ctype + "'"};
        return out;
    }

private:
    // The rest of a v2 capability advertisement (after "version 2"), then the refs by `ls-refs`, in the form
    // a v0 advertisement gives them: HEAD first when it points somewhere, a peeled tag as "name^{}" after it.
    Advert list_refs_v2(PktReader& r) {
        Advert a;
        a.v2 = true;
        std::string_view line;
        while (r.next(line) == PktReader::data) {
            check_cancel(s_.ctx);
            a.caps.insert(chomp(line));
        }
        bool ls_refs = false, fetch = false;
        for (const auto& c : a.caps) {
            ls_refs = ls_refs || c == "ls-refs" || c.starts_with("ls-refs=");
            fetch = fetch || c == "fetch" || c.starts_with("fetch=");
            if (c.starts_with("object-format=") && c != "object-format=sha1")
                throw Fatal{"the remote repository uses " + c.substr(14) + " object names, which are not available here"};
        }
        if (!ls_refs || !fetch) throw Fatal{"the server speaks protocol v2 without ls-refs and fetch"};
        interp::MemoryCharge held(s_.ctx.memory);
        // "unborn" when the server offers it (as git asks on clone): an empty repository's HEAD still names
        // its branch, which a clone of it takes.
        std::vector<std::string> args = {"symrefs", "peel"};
        for (const auto& c : a.caps)
            if (c.starts_with("ls-refs=") && (" " + c.substr(8) + " ").find(" unborn ") != std::string::npos) args.push_back("unborn");
        std::string resp = rpc("git-upload-pack", v2_request(a, "ls-refs", args), kMaxAdvertBytes, held, true);
        PktReader rr{resp};
        for (;;) {
            check_cancel(s_.ctx);
            if (rr.next(line) != PktReader::data) break;
            std::string l = chomp(line);
            if (l.starts_with("ERR ")) throw Fatal{"remote error: " + l.substr(4)};
            if (l.starts_with("unborn HEAD symref-target:")) {
                a.head_target = l.substr(26);
                continue;
            }
            if (l.starts_with("unborn ")) continue;
            if (l.size() < 42 || l[40] != ' ' || !is_hex_oid(l.substr(0, 40)))
                throw Fatal{"invalid ls-refs response: " + l};
            std::string oid = l.substr(0, 40), rest = l.substr(41), peeled;
            size_t sp = rest.find(' ');
            std::string name = rest.substr(0, sp);
            while (sp != std::string::npos) {
                size_t e = rest.find(' ', sp + 1);
                std::string attr = rest.substr(sp + 1, e == std::string::npos ? std::string::npos : e - sp - 1);
                if (attr.starts_with("symref-target:") && name == "HEAD") a.head_target = attr.substr(14);
                if (attr.starts_with("peeled:")) peeled = attr.substr(7);
                sp = e;
            }
            a.refs.emplace_back(name, oid);
            if (is_hex_oid(peeled)) a.refs.emplace_back(name + "^{}", peeled);
        }
        return a;
    }

    std::string send(net::HttpRequest& req, uint64_t cap, interp::MemoryCharge& held, std::string* ctype) {
        CommandContext& ctx = s_.ctx;
        if (!ctx.http) throw Fatal{"unable to access '" + shown_ + "': the network is off in this sandbox"};
        req.headers.emplace_back("User-Agent", kAgent);
        // The session's client with git's cap on a response (a pack may be larger than a curl download; what
        // arrives is charged to the memory budget below) and the session's deadline instead of a total
        // timeout. Everything else (policy, address rules, resolver, bindings and their secrets) is the same.
        net::ClientOptions opts = ctx.http->options();
        opts.max_response_bytes = size_t(std::min<uint64_t>(cap, SIZE_MAX));
        opts.total_timeout = std::chrono::hours(24);
        net::HttpClient client(std::move(opts));
        std::string body;
        std::atomic<bool> abort{false};
        bool over_budget = false;
        auto on_body = [&](std::string_view c) {
            if (!held.try_add(c.size())) {
                over_budget = true;
                abort = true;
                return;
            }
            body.append(c);
        };
        auto t = netutil::perform(ctx, client, req, abort, on_body);
        if (t.cancelled) throw Cancelled{};
        if (over_budget) throw Fatal{"out of memory: the response of '" + shown_ + "' passes the session's memory budget"};
        if (!t.result.ok()) {
            const auto& e = *t.result.error;
            std::string m = e.message;
            if (e.curl_code == 63) m = "the response is larger than " + std::to_string(cap) + " bytes";
            throw Fatal{"unable to access '" + shown_ + "': " + m};
        }
        const auto& resp = *t.result.response;
        if (resp.status != 200) {
            // As git: a plain-text error body is shown as the remote's words.
            bool plain = false;
            for (const auto& [k, v] : resp.headers)
                if ((k == "Content-Type" || k == "content-type") && v.starts_with("text/plain")) plain = true;
            if (plain) {
                size_t p = 0;
                while (p < body.size()) {
                    size_t e = body.find('\n', p);
                    if (e == std::string::npos) e = body.size();
                    s_.err("remote: " + body.substr(p, e - p) + "\n");
                    p = e + 1;
                }
            }
        }
        if (resp.status == 404) throw Fatal{"repository '" + shown_ + "' not found"};
        if (resp.status == 401) throw Fatal{"Authentication failed for '" + shown_ + "'"};
        if (resp.status != 200)
            throw Fatal{"unable to access '" + shown_ + "': The requested URL returned error: " + std::to_string(resp.status)};
        for (const auto& [k, v] : resp.headers) {
            std::string lk = k;
            std::transform(lk.begin(), lk.end(), lk.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            if (lk == "content-type") {
                *ctype = v;
                size_t semi = ctype->find(';');
                if (semi != std::string::npos) ctype->resize(semi);
                while (!ctype->empty() && ctype->back() == ' ') ctype->pop_back();
            }
        }
        return body;
    }

    Invocation& s_;
    std::string url_, base_, shown_;
};

// ------------------------------------------------------------------ index-pack

uint32_t be32(std::string_view d, size_t at) {
    const auto* p = reinterpret_cast<const unsigned char*>(d.data() + at);
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

struct PackEntry {
    uint64_t off = 0, data_off = 0, end = 0, size = 0, base_off = 0;
    int type = 0;        // 1-4, 6 OFS_DELTA, 7 REF_DELTA
    int final_type = 0;  // the object's type once resolved
    std::string base_raw;
    std::string oid_raw;
    uint32_t crc = 0;
};

class PackIndexer {
public:
    PackIndexer(Repo& repo, std::string_view pack) : repo_(repo), ctx_(repo.ctx), pack_(pack), cache_held_(repo.ctx.memory) {}

    // Parses, resolves and writes the pack and its .idx; returns how many objects it holds.
    size_t run() {
        if (pack_.size() < 32 || pack_.substr(0, 4) != "PACK") throw Fatal{"protocol error: bad pack header"};
        uint32_t version = be32(pack_, 4), count = be32(pack_, 8);
        if (version != 2 && version != 3) throw Fatal{"pack version " + std::to_string(version) + " unsupported"};
        if (count > pack_.size() / 2) throw Fatal{"pack claims " + std::to_string(count) + " objects, more than it can hold"};
        std::string_view trailer = pack_.substr(pack_.size() - 20);
        if (sha1_raw(pack_.substr(0, pack_.size() - 20)) != trailer) throw Fatal{"pack is corrupted (SHA1 mismatch)"};
        interp::MemoryCharge entries_held(ctx_.memory);
        entries_held.add(size_t(count) * sizeof(PackEntry));
        entries_.reserve(count);
        uint64_t pos = 12, end = pack_.size() - 20;
        for (uint32_t n = 0; n < count; ++n) {
            check_cancel(ctx_);
            if (pos >= end) throw Fatal{"premature end of pack file, " + std::to_string(count - n) + " objects missing"};
            PackEntry e;
            e.off = pos;
            size_t i = pos;
            unsigned char c = static_cast<unsigned char>(pack_[i++]);
            e.type = (c >> 4) & 7;
            e.size = c & 15;
            int shift = 4;
            while (c & 0x80) {
                if (i >= end || shift > 60) throw Fatal{"pack has a bad object header at offset " + std::to_string(pos)};
                c = static_cast<unsigned char>(pack_[i++]);
                e.size |= uint64_t(c & 0x7f) << shift;
                shift += 7;
            }
            if (e.size > kMaxObjectBytes) throw Fatal{"pack has an object larger than " + std::to_string(kMaxObjectBytes) + " bytes"};
            if (e.type == 6) {
                if (i >= end) throw Fatal{"premature end of pack file"};
                c = static_cast<unsigned char>(pack_[i++]);
                uint64_t v = c & 0x7f;
                while (c & 0x80) {
                    if (i >= end || v > (uint64_t(1) << 56)) throw Fatal{"pack has a bad delta base offset"};
                    c = static_cast<unsigned char>(pack_[i++]);
                    v = ((v + 1) << 7) | (c & 0x7f);
                }
                if (v == 0 || v > pos) throw Fatal{"delta base offset is out of bound"};
                e.base_off = pos - v;
            } else if (e.type == 7) {
                if (i + 20 > end) throw Fatal{"premature end of pack file"};
                e.base_raw = std::string(pack_.substr(i, 20));
                i += 20;
            } else if (e.type < 1 || e.type > 4) {
                throw Fatal{"unknown object type " + std::to_string(e.type) + " in pack"};
            }
            e.data_off = i;
            size_t used = 0;
            std::string data = inflate_all(ctx_, pack_.substr(i, end - i), e.size, &used, "object in pack");
            if (data.size() != e.size) throw Fatal{"inflate returned a size different from the object header"};
            e.end = i + used;
            e.crc = uint32_t(crc32(0, reinterpret_cast<const Bytef*>(pack_.data() + e.off), uInt(e.end - e.off)));
            if (e.type <= 4) {
                e.final_type = e.type;
                e.oid_raw = from_hex(Repo::hash(ObjType(e.type), data));
                known_.emplace(e.oid_raw, entries_.size());
            }
            entries_.push_back(std::move(e));
            pos = entries_.back().end;
        }
        if (pos != end) throw Fatal{"pack has junk at the end"};
        // Resolve deltas: a pass resolves every delta whose base is known; a pass without progress means the
        // remaining ones can never be (a missing base or a loop).
        std::vector<size_t> pending;
        for (size_t k = 0; k < entries_.size(); ++k)
            if (entries_[k].type > 4) pending.push_back(k);
        while (!pending.empty()) {
            std::vector<size_t> left;
            for (size_t k : pending) {
                check_cancel(ctx_);
                auto obj = materialize(k);
                if (!obj) {
                    left.push_back(k);
                    continue;
                }
                PackEntry& e = entries_[k];
                e.final_type = int(obj->type);
                e.oid_raw = from_hex(Repo::hash(obj->type, obj->data));
                known_.emplace(e.oid_raw, k);
            }
            if (left.size() == pending.size()) throw Fatal{"pack has " + std::to_string(left.size()) + " unresolved deltas"};
            pending = std::move(left);
        }
        write_files();
        return entries_.size();
    }

private:
    size_t index_at(uint64_t off) const {
        auto it = std::lower_bound(entries_.begin(), entries_.end(), off,
                                   [](const PackEntry& e, uint64_t o) { return e.off < o; });
        if (it == entries_.end() || it->off != off) throw Fatal{"delta base offset does not start an object"};
        return size_t(it - entries_.begin());
    }

    std::string inflate_entry(const PackEntry& e) {
        return inflate_all(ctx_, pack_.substr(e.data_off, e.end - e.data_off), e.size, nullptr, "object in pack");
    }

    // The object of entry k, its delta chain applied; nullopt while a REF_DELTA base is not yet known.
    std::optional<Object> materialize(size_t k) {
        std::vector<size_t> chain;
        size_t cur = k;
        Object base;
        bool have_base = false;
        for (;;) {
            check_cancel(ctx_);
            if (chain.size() > size_t(kMaxDeltaDepth)) throw Fatal{"pack has a delta chain deeper than " + std::to_string(kMaxDeltaDepth)};
            if (auto c = cache_.find(cur); c != cache_.end()) {
                base = c->second;
                have_base = true;
                break;
            }
            const PackEntry& e = entries_[cur];
            if (e.type <= 4) break;
            chain.push_back(cur);
            if (e.type == 6) {
                cur = index_at(e.base_off);
            } else {
                auto it = known_.find(e.base_raw);
                if (it == known_.end()) return std::nullopt;
                cur = it->second;
            }
        }
        if (!have_base) base = Object{ObjType(entries_[cur].type), inflate_entry(entries_[cur])};
        interp::MemoryCharge held(ctx_.memory);
        held.add(base.data.size());
        while (!chain.empty()) {
            check_cancel(ctx_);
            size_t d = chain.back();
            chain.pop_back();
            std::string delta = inflate_entry(entries_[d]);
            base.data = apply_delta(ctx_, base.data, delta);
            held.set(base.data.size());
            remember(d, base);
        }
        return base;
    }

    void remember(size_t k, const Object& o) {
        if (o.data.size() > kDeltaCacheBytes / 4) return;
        while (!order_.empty() && cache_bytes_ + o.data.size() > kDeltaCacheBytes) {
            auto it = cache_.find(order_.front());
            cache_bytes_ -= it->second.data.size();
            cache_held_.sub(it->second.data.size());
            cache_.erase(it);
            order_.pop_front();
        }
        if (!cache_held_.try_add(o.data.size())) return;
        cache_.emplace(k, o);
        order_.push_back(k);
        cache_bytes_ += o.data.size();
    }

    void write_files() {
        std::vector<size_t> order(entries_.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return entries_[a].oid_raw < entries_[b].oid_raw; });
        order.erase(std::unique(order.begin(), order.end(),
                                [&](size_t a, size_t b) { return entries_[a].oid_raw == entries_[b].oid_raw; }),
                    order.end());
        std::string idx = "\377tOc";
        put32(idx, 2);
        uint32_t fan[256] = {};
        for (size_t k : order) ++fan[static_cast<unsigned char>(entries_[k].oid_raw[0])];
        uint32_t run = 0;
        for (int b = 0; b < 256; ++b) {
            run += fan[b];
            put32(idx, run);
        }
        for (size_t k : order) idx += entries_[k].oid_raw;
        for (size_t k : order) put32(idx, entries_[k].crc);
        std::string large;
        uint32_t nlarge = 0;
        for (size_t k : order) {
            uint64_t off = entries_[k].off;
            if (off < 0x80000000u) {
                put32(idx, uint32_t(off));
            } else {
                put32(idx, 0x80000000u | nlarge++);
                put32(large, uint32_t(off >> 32));
                put32(large, uint32_t(off));
            }
        }
        idx += large;
        std::string_view checksum = pack_.substr(pack_.size() - 20);
        idx += checksum;
        idx += sha1_raw(idx);
        std::string base = repo_.gitdir + "/objects/pack/pack-" + to_hex(checksum);
        std::string failed;
        (void)repo_.fs.mkdir_all(repo_.gitdir + "/objects/pack", 0755, &failed);
        if (auto r = repo_.fs.write_file(base + ".pack", pack_); !r)
            throw Fatal{"unable to write " + base + ".pack: " + std::string(vfs::error_message(r.error()))};
        if (auto r = repo_.fs.write_file(base + ".idx", idx); !r)
            throw Fatal{"unable to write " + base + ".idx: " + std::string(vfs::error_message(r.error()))};
        (void)repo_.fs.chmod(base + ".pack", 0444);
        (void)repo_.fs.chmod(base + ".idx", 0444);
        repo_.rescan();
    }

    Repo& repo_;
    CommandContext& ctx_;
    std::string_view pack_;
    std::vector<PackEntry> entries_;
    std::unordered_map<std::string, size_t> known_;  // raw oid -> entry
    std::unordered_map<size_t, Object> cache_;
    std::deque<size_t> order_;
    size_t cache_bytes_ = 0;
    interp::MemoryCharge cache_held_;
};

// ------------------------------------------------------------------ object walks

// Every object reachable from tips, not descending into those in `stop` (nor adding them).
void reachable(Repo& repo, const std::vector<std::string>& tips, std::set<std::string>& out,
               const std::set<std::string>& stop, std::vector<std::pair<std::string, ObjType>>* list) {
    std::vector<std::string> todo(tips.begin(), tips.end());
    while (!todo.empty()) {
        check_cancel(repo.ctx);
        std::string oid = todo.back();
        todo.pop_back();
        if (stop.count(oid) || !out.insert(oid).second) continue;
        Object o = repo.read(oid);
        if (list) list->emplace_back(oid, o.type);
        if (o.type == ObjType::commit) {
            Commit c = parse_commit(o.data, oid);
            todo.push_back(c.tree);
            for (auto& p : c.parents) todo.push_back(p);
        } else if (o.type == ObjType::tree) {
            for (auto& e : parse_tree(o.data, oid))
                if (e.mode != 0160000) todo.push_back(e.oid);
        } else if (o.type == ObjType::tag) {
            todo.push_back(parse_tag(o.data).object);
        }
    }
}

// A pack of the objects (undeltified) as git's pack format version 2.
std::string build_pack(Repo& repo, const std::vector<std::pair<std::string, ObjType>>& objs, interp::MemoryCharge& held) {
    std::string out = "PACK";
    put32(out, 2);
    put32(out, uint32_t(objs.size()));
    for (const auto& [oid, type] : objs) {
        check_cancel(repo.ctx);
        Object o = repo.read(oid);
        uint64_t size = o.data.size();
        unsigned char c = static_cast<unsigned char>((int(o.type) << 4) | (size & 15));
        size >>= 4;
        std::string hdr;
        while (size) {
            hdr += char(c | 0x80);
            c = static_cast<unsigned char>(size & 0x7f);
            size >>= 7;
        }
        hdr += char(c);
        std::string z = deflate_all(o.data);
        held.add(hdr.size() + z.size());
        out += hdr;
        out += z;
    }
    out += sha1_raw(out);
    return out;
}

// ------------------------------------------------------------------ config helpers

struct RemoteCfg {
    std::string name, url, pushurl;
    std::vector<std::string> fetch;
};

std::optional<RemoteCfg> remote_cfg(Repo& repo, const std::string& name) {
    auto url = repo.config.get("remote." + name + ".url");
    if (!url) return std::nullopt;
    RemoteCfg r{name, *url, repo.config.get("remote." + name + ".pushurl").value_or(""), repo.config.get_all("remote." + name + ".fetch")};
    return r;
}

std::vector<std::string> remote_names(Repo& repo) {
    std::vector<std::string> out;
    for (const auto& [k, v] : repo.config.entries()) {
        if (!k.starts_with("remote.") || !k.ends_with(".url")) continue;
        std::string n = k.substr(7, k.size() - 11);
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    return out;
}

void reload_config(Invocation& s) {
    std::string cwd = s.ctx.cwd;
    if (s.repo) s.ctx.cwd = s.repo->worktree.empty() ? s.repo->gitdir : s.repo->worktree;
    s.repo = discover(s.ctx, s.overrides);
    s.ctx.cwd = cwd;
}

std::string read_text(CommandContext& ctx, const std::string& path) {
    auto t = ctx.fs.read_file(path, kMaxConfigBytes);
    return t ? *t : std::string();
}

void set_config(Repo& repo, const std::string& key, const std::string& value) {
    std::string path = repo.gitdir + "/config";
    std::string text = config_edit(read_text(repo.ctx, path), key, value, nullptr);
    repo.write_file_atomic(path, text);
}

// Removes the [section "sub"] blocks of a config file's text.
std::string remove_section(std::string_view text, const std::string& header) {
    std::string out;
    bool skipping = false;
    size_t p = 0;
    while (p < text.size()) {
        size_t e = text.find('\n', p);
        if (e == std::string_view::npos) e = text.size() - 1;
        std::string_view line = text.substr(p, e - p + 1);
        size_t f = line.find_first_not_of(" \t");
        if (f != std::string_view::npos && line[f] == '[') {
            std::string_view l = line.substr(f);
            while (!l.empty() && (l.back() == '\n' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
            skipping = l == header;
        }
        if (!skipping) out += line;
        p = e + 1;
    }
    return out;
}

std::string prettify(const std::string& ref) {
    for (const char* p : {"refs/heads/", "refs/tags/", "refs/remotes/"})
        if (ref.starts_with(p)) return ref.substr(std::string(p).size());
    return ref;
}

// Maps a ref through "+src:dst" refspecs with at most one '*'; nullopt when none matches. *force tells '+'.
std::optional<std::string> map_ref(const std::vector<std::string>& specs, const std::string& ref, bool* force) {
    for (const auto& spec0 : specs) {
        std::string spec = spec0;
        bool f = false;
        if (!spec.empty() && spec[0] == '+') {
            f = true;
            spec = spec.substr(1);
        }
        size_t colon = spec.find(':');
        if (colon == std::string::npos) continue;
        std::string src = spec.substr(0, colon), dst = spec.substr(colon + 1);
        size_t star = src.find('*');
        if (star == std::string::npos) {
            if (src == ref) {
                if (force) *force = f;
                return dst;
            }
            continue;
        }
        std::string pre = src.substr(0, star), post = src.substr(star + 1);
        if (ref.size() >= pre.size() + post.size() && ref.starts_with(pre) && ref.ends_with(post)) {
            std::string mid = ref.substr(pre.size(), ref.size() - pre.size() - post.size());
            size_t dstar = dst.find('*');
            if (dstar == std::string::npos) continue;
            if (force) *force = f;
            return dst.substr(0, dstar) + mid + dst.substr(dstar + 1);
        }
    }
    return std::nullopt;
}

std::string current_branch(Repo& repo) {
    std::string h = repo.head_ref();
    return h.starts_with("refs/heads/") ? h.substr(11) : "";
}

// ------------------------------------------------------------------ fetching objects

// Our ref tips and their recent ancestors: the commits offered as common ground.
std::vector<std::string> haves_for(Invocation& s, Repo& repo) {
    std::vector<std::string> todo, out;
    for (auto& [n, o] : repo.refs("refs/")) todo.push_back(o);
    if (auto h = repo.head_oid()) todo.push_back(*h);
    std::set<std::string> seen;
    for (size_t at = 0; at < todo.size() && out.size() < kMaxHaves; ++at) {
        check_cancel(s.ctx);
        const std::string c = todo[at];
        if (!seen.insert(c).second) continue;
        auto o = repo.try_read(c);
        if (!o || o->type != ObjType::commit) continue;
        out.push_back(c);
        for (auto& p : parse_commit(o->data, c).parents) todo.push_back(p);
    }
    return out;
}

// The pack of a response: the data of side band 1 (band 2 is progress, band 3 an error) from r's position
// to the flush that ends it, moved to the front of buf in place (buf is what r reads: each payload moves
// to an earlier place than it was read from), so a large pack is neither copied into a second buffer nor
// given fresh pages. Returns the pack's size.
size_t sideband_pack_in_place(Invocation& s, std::string& buf, PktReader& r) {
    size_t w = 0;
    std::string_view line;
    for (;;) {
        check_cancel(s.ctx);
        if (r.next(line) != PktReader::data) break;
        if (line.empty()) continue;
        char band = line[0];
        line.remove_prefix(1);
        if (band == 1) {
            std::memmove(buf.data() + w, line.data(), line.size());
            w += line.size();
        } else if (band == 3) {
            throw Fatal{"remote error: " + chomp(line)};
        }
    }
    return w;
}

// The pack a fetch received (v0 or v2), moved out of the response `resp`: charged at its size while it is
// indexed into the repository, which must then hold every object asked for.
void index_fetched_pack(Repo& repo, const std::string& pack, std::string& resp, interp::MemoryCharge& held,
                        const std::vector<std::string>& wants) {
    held.set(pack.size());
    resp = std::string();
    if (pack.empty()) throw Fatal{"the remote end hung up unexpectedly (no pack)"};
    PackIndexer(repo, pack).run();
    for (const auto& w : wants)
        if (!repo.has(w)) throw Fatal{"remote did not send all necessary objects"};
}

// Protocol v2's `fetch`: the wants, the haves and "done" in one request; the answer's "packfile" section
// is the pack on side band 1 (no thin pack is asked for: every delta's base is in the pack or here).
bool fetch_pack_v2(Invocation& s, Repo& repo, Conn& conn, const Advert& adv, const std::vector<std::string>& wants) {
    std::vector<std::string> args = {"ofs-delta", "no-progress", "include-tag"};
    for (const auto& w : wants) args.push_back("want " + w);
    for (const auto& h : haves_for(s, repo)) args.push_back("have " + h);
    args.push_back("done");
    interp::MemoryCharge held(s.ctx.memory);
    std::string resp = conn.rpc("git-upload-pack", Conn::v2_request(adv, "fetch", args), kMaxPackBytes, held, true);
    std::string pack;
    PktReader r{resp};
    std::string_view line;
    for (;;) {
        check_cancel(s.ctx);
        auto k = r.next(line);
        if (k == PktReader::end) break;
        if (k != PktReader::data) continue;  // the delimiter between sections
        std::string l = chomp(line);
        if (l.starts_with("ERR ")) throw Fatal{"remote error: " + l.substr(4)};
        if (l == "packfile") {
            resp.resize(sideband_pack_in_place(s, resp, r));
            pack = std::move(resp);
            break;
        }
        // "acknowledgments", "shallow-info", "wanted-refs" and their lines: nothing asked for needs them.
    }
    index_fetched_pack(repo, pack, resp, held, wants);
    return true;
}

// Asks the server for `wants` (those not here already) and indexes the pack. Returns whether a pack came.
bool fetch_pack(Invocation& s, Repo& repo, Conn& conn, const Advert& adv, const std::vector<std::string>& wants_in) {
    std::vector<std::string> wants;
    for (const auto& w : wants_in)
        if (!repo.has(w) && std::find(wants.begin(), wants.end(), w) == wants.end()) wants.push_back(w);
    if (wants.empty()) return false;
    if (adv.v2) return fetch_pack_v2(s, repo, conn, adv, wants);
    std::string caps;
    for (const char* c : {"side-band-64k", "ofs-delta", "include-tag", "no-progress"})
        if (adv.caps.count(c)) caps += std::string(" ") + c;
    caps += std::string(" agent=") + kAgent;
    std::string body;
    for (size_t k = 0; k < wants.size(); ++k) body += pkt("want " + wants[k] + (k == 0 ? caps : "") + "\n");
    body += "0000";
    for (const auto& h : haves_for(s, repo)) body += pkt("have " + h + "\n");
    body += pkt("done\n");
    interp::MemoryCharge held(s.ctx.memory);
    std::string resp = conn.rpc("git-upload-pack", std::move(body), kMaxPackBytes, held);
    std::string pack;
    bool sideband = adv.caps.count("side-band-64k") > 0;
    PktReader r{resp};
    std::string_view line;
    for (;;) {
        check_cancel(s.ctx);
        size_t before = r.pos;
        auto k = r.next(line);
        if (k == PktReader::end) break;
        if (k != PktReader::data) {
            if (sideband) break;
            continue;
        }
        if (line.starts_with("NAK") || line.starts_with("ACK ")) continue;
        if (line.starts_with("ERR ")) throw Fatal{"remote error: " + chomp(line.substr(4))};
        if (!sideband) {
            resp.erase(0, before);
        } else {
            r.pos = before;
            resp.resize(sideband_pack_in_place(s, resp, r));
        }
        pack = std::move(resp);
        break;
    }
    index_fetched_pack(repo, pack, resp, held, wants);
    return true;
}

// ------------------------------------------------------------------ fetch output

struct RefUpdate {
    std::string remote_ref, local_ref;  // local_ref "" for FETCH_HEAD only
    std::string old_oid, new_oid;
    bool force = false;
};

std::string from_url(const std::string& url) {
    std::string u = anonymize(url);
    while (!u.empty() && u.back() == '/') u.pop_back();
    if (u.size() > 4 && u.ends_with(".git")) u.resize(u.size() - 4);
    return u;
}

// Applies and prints the updates of a fetch (git's format: " * [new branch]      main       -> origin/main").
int apply_fetch_updates(Invocation& s, Repo& repo, const std::string& url, std::vector<RefUpdate>& ups, bool quiet) {
    size_t refcol = 10;
    for (const auto& u : ups) {
        // As git: only the lines shown (not up to date) with a local ref count.
        if (u.local_ref.empty() || u.old_oid == u.new_oid) continue;
        size_t rlen = prettify(u.remote_ref).size(), llen = prettify(u.local_ref).size();
        if (21 + rlen + 4 + llen >= 80) continue;
        refcol = std::max(refcol, rlen);
    }
    std::string out;
    int status = 0;
    for (const auto& u : ups) {
        check_cancel(s.ctx);
        std::string summary, suffix;
        char code = ' ';
        std::string kind = u.remote_ref.starts_with("refs/tags/") ? "tag" : "branch";
        std::string local = u.local_ref.empty() ? "FETCH_HEAD" : prettify(u.local_ref);
        if (u.local_ref.empty()) {
            code = '*';
            summary = "[" + kind + "]";
            if (kind == "branch") summary = "branch";
            else summary = "tag";
        } else if (u.old_oid == u.new_oid) {
            continue;
        } else if (u.old_oid.empty()) {
            code = '*';
            summary = u.local_ref.starts_with("refs/tags/") ? "[new tag]" : u.remote_ref.starts_with("refs/heads/") ? "[new branch]" : "[new ref]";
            repo.update_ref(u.local_ref, u.new_oid, "", "fetch: storing head");
        } else if (u.local_ref.starts_with("refs/tags/") && !u.force) {
            code = '!';
            summary = "[rejected]";
            suffix = "  (would clobber existing tag)";
            status = 1;
        } else if (is_ancestor(repo, u.old_oid, u.new_oid)) {
            summary = repo.abbrev(u.old_oid) + ".." + repo.abbrev(u.new_oid);
            repo.update_ref(u.local_ref, u.new_oid, u.old_oid, "fetch: fast-forward");
        } else if (u.force) {
            code = '+';
            summary = repo.abbrev(u.old_oid) + "..." + repo.abbrev(u.new_oid);
            suffix = "  (forced update)";
            repo.update_ref(u.local_ref, u.new_oid, u.old_oid, "fetch: forced-update");
        } else {
            code = '!';
            summary = "[rejected]";
            suffix = "  (non-fast-forward)";
            status = 1;
        }
        std::string rname = prettify(u.remote_ref);
        std::string line = std::string(1, ' ') + code + " " + summary;
        if (summary.size() < 17) line += std::string(17 - summary.size(), ' ');
        line += " " + rname;
        if (rname.size() < refcol) line += std::string(refcol - rname.size(), ' ');
        line += " -> " + local + suffix + "\n";
        out += line;
    }
    if (!out.empty() && !quiet) s.err("From " + from_url(url) + "\n" + out);
    else if (status != 0 && quiet) s.err(out);
    return status;
}

// Fetches from a remote (a configured name or a URL). cli_specs: refspecs from the command line.
// Returns the status; *merge_oid gets the oid to merge for pull (branch.<b>.merge or the first cli spec).
struct FetchOpts {
    bool quiet = false, tags = false, prune = false;
};
int do_fetch(Invocation& s, Repo& repo, const std::string& remote, const std::vector<std::string>& cli_specs,
             const FetchOpts& opt, std::string* merge_oid, std::string* merge_name) {
    auto rc = remote_cfg(repo, remote);
    std::string url = rc ? rc->url : remote;
    if (!rc && url.find("://") == std::string::npos && url.find(':') == std::string::npos)
        throw Fatal{"'" + remote + "' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists."};
    Conn conn(s, url);
    Advert adv = conn.discover("git-upload-pack");
    std::vector<RefUpdate> ups;
    std::string fetch_head;
    std::string shown = from_url(url);
    std::vector<std::string> wants;
    std::string cur = current_branch(repo);
    std::string merge_ref;
    if (cli_specs.empty() && rc && !cur.empty() && repo.config.get("branch." + cur + ".remote") == remote)
        merge_ref = repo.config.get("branch." + cur + ".merge").value_or("");
    std::vector<std::pair<std::string, std::string>> for_merge, not_for_merge;  // (remote ref, oid)
    if (cli_specs.empty()) {
        std::vector<std::string> specs = rc ? rc->fetch : std::vector<std::string>{};
        for (const auto& [name, oid] : adv.refs) {
            if (name.ends_with("^{}")) continue;
            bool force = false;
            auto local = map_ref(specs, name, &force);
            if (local) {
                ups.push_back({name, *local, repo.resolve_ref(*local).value_or(""), oid, force});
                wants.push_back(oid);
            }
            if (name.starts_with("refs/heads/")) {
                if (name == merge_ref) for_merge.emplace_back(name, oid);
                else if (local || !rc) not_for_merge.emplace_back(name, oid);
            }
        }
        if (!rc) {
            // A bare URL with no refspec fetches HEAD into FETCH_HEAD.
            if (auto h = adv.find("HEAD")) {
                wants.push_back(*h);
                for_merge.insert(for_merge.begin(), {"HEAD", *h});
                not_for_merge.clear();
            }
        }
    } else {
        std::vector<std::string> specs = rc ? rc->fetch : std::vector<std::string>{};
        for (const auto& spec0 : cli_specs) {
            std::string spec = spec0;
            bool force = false;
            if (!spec.empty() && spec[0] == '+') {
                force = true;
                spec = spec.substr(1);
            }
            size_t colon = spec.find(':');
            std::string src = spec.substr(0, colon), dst = colon == std::string::npos ? "" : spec.substr(colon + 1);
            std::string full;
            for (const std::string& cand : {src, "refs/" + src, "refs/tags/" + src, "refs/heads/" + src})
                if (full.empty() && adv.find(cand)) full = cand;
            if (full.empty()) throw Fatal{"couldn't find remote ref " + src};
            std::string oid = *adv.find(full);
            wants.push_back(oid);
            for_merge.emplace_back(full, oid);
            std::string local;
            if (!dst.empty()) local = dst.starts_with("refs/") ? dst : "refs/heads/" + dst;
            else if (auto m = map_ref(specs, full, &force)) local = *m;  // opportunistic remote-tracking update
            if (!local.empty()) ups.push_back({full, local, repo.resolve_ref(local).value_or(""), oid, force});
            else ups.push_back({full, "", "", oid, false});
        }
    }
    // Tags: --tags fetches them all; otherwise those pointing at what we fetch or have (auto-follow).
    std::set<std::string> have_tags;
    for (auto& [n, o] : repo.refs("refs/tags/")) have_tags.insert(n);
    // As git: the tags whose target is here or wanted are reported first, the ones found only once the pack is
    // in (a second round, "backfill") after them.
    std::set<std::string> first_round;
    for (size_t k = 0; k < adv.refs.size(); ++k) {
        const auto& [name, oid] = adv.refs[k];
        if (!name.starts_with("refs/tags/") || name.ends_with("^{}")) continue;
        std::string peeled = oid;
        if (k + 1 < adv.refs.size() && adv.refs[k + 1].first == name + "^{}") peeled = adv.refs[k + 1].second;
        if (repo.has(peeled) || std::find(wants.begin(), wants.end(), peeled) != wants.end()) first_round.insert(name);
    }
    fetch_pack(s, repo, conn, adv, wants);
    for (int round = 0; round < 2 && (opt.tags || cli_specs.empty()); ++round) {
        for (size_t k = 0; k < adv.refs.size(); ++k) {
            const auto& [name, oid] = adv.refs[k];
            if (!name.starts_with("refs/tags/") || name.ends_with("^{}")) continue;
            if (!opt.tags && (round == 0) != (first_round.count(name) > 0)) continue;
            if (opt.tags && round == 1) continue;
            std::string local = "refs/tags/" + name.substr(10);
            bool already = std::any_of(ups.begin(), ups.end(), [&](const RefUpdate& u) { return u.local_ref == local; });
            if (already) continue;
            if (!opt.tags) {
                if (have_tags.count(local)) continue;
                std::string peeled = oid;
                if (k + 1 < adv.refs.size() && adv.refs[k + 1].first == name + "^{}") peeled = adv.refs[k + 1].second;
                if (!repo.has(peeled)) continue;
                if (!repo.has(oid)) fetch_pack(s, repo, conn, adv, {oid});
            } else if (!repo.has(oid)) {
                fetch_pack(s, repo, conn, adv, {oid});
            }
            ups.push_back({name, local, repo.resolve_ref(local).value_or(""), oid, false});
            not_for_merge.emplace_back(name, oid);
        }
    }
    for (const auto& [n, o] : for_merge) {
        std::string what = n == "HEAD" ? "" : (n.starts_with("refs/tags/") ? "tag '" : "branch '") + prettify(n) + "' of ";
        fetch_head += o + "\t\t" + what + shown + "\n";
    }
    for (const auto& [n, o] : not_for_merge) {
        std::string what = (n.starts_with("refs/tags/") ? "tag '" : "branch '") + prettify(n) + "' of ";
        fetch_head += o + "\tnot-for-merge\t" + what + shown + "\n";
    }
    repo.write_file_atomic(repo.gitdir + "/FETCH_HEAD", fetch_head);
    if (merge_oid && !for_merge.empty()) {
        *merge_oid = for_merge.front().second;
        if (merge_name) *merge_name = for_merge.front().first;
    }
    if (opt.prune && rc) {
        for (auto& [lname, loid] : repo.refs("refs/")) {
            check_cancel(s.ctx);
            bool tracked = false;
            for (const auto& spec : rc->fetch) {
                std::string sp = spec[0] == '+' ? spec.substr(1) : spec;
                size_t colon = sp.find(':');
                if (colon == std::string::npos) continue;
                std::string dst = sp.substr(colon + 1);
                size_t star = dst.find('*');
                if (star != std::string::npos && lname.starts_with(dst.substr(0, star))) tracked = true;
            }
            if (!tracked) continue;
            bool still = false;
            for (auto& [n, o] : adv.refs)
                if (!n.ends_with("^{}") && map_ref(rc->fetch, n, nullptr) == lname) still = true;
            if (still) continue;
            repo.delete_ref(lname);
            if (!opt.quiet) s.err(" - [deleted]         (none)     -> " + prettify(lname) + "\n");
        }
    }
    return apply_fetch_updates(s, repo, url, ups, opt.quiet);
}

std::string default_remote(Repo& repo) {
    std::string cur = current_branch(repo);
    if (!cur.empty())
        if (auto r = repo.config.get("branch." + cur + ".remote")) return *r;
    return "origin";
}

std::string packed_refs_text(const std::vector<std::pair<std::string, std::string>>& refs,
                             const std::map<std::string, std::string>& peeled) {
    std::string t = "# pack-refs with: peeled fully-peeled sorted \n";
    for (const auto& [n, o] : refs) {
        t += o + " " + n + "\n";
        if (auto p = peeled.find(n); p != peeled.end()) t += "^" + p->second + "\n";
    }
    return t;
}

}  // namespace

// ------------------------------------------------------------------ commands

int cmd_clone(Invocation& s, const Args& a) {
    CommandContext& ctx = s.ctx;
    bool quiet = false, bare = false, no_checkout = false;
    std::string branch, origin = "origin";
    std::vector<std::string> rest;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& x = a[i];
        if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--bare") bare = true;
        else if (x == "-n" || x == "--no-checkout") no_checkout = true;
        else if ((x == "-b" || x == "--branch") && i + 1 < a.size()) branch = a[++i];
        else if (x.starts_with("--branch=")) branch = x.substr(9);
        else if ((x == "-o" || x == "--origin") && i + 1 < a.size()) origin = a[++i];
        else if (x == "--depth" || x.starts_with("--depth=") || x == "--shallow-since" || x == "--filter" ||
                 x.starts_with("--filter="))
            throw Fatal{"option '" + x + "' is not available in this sandbox's clone (shallow and partial clones)", 129};
        else if (x == "--progress" || x == "--no-progress" || x == "--single-branch" || x == "--no-tags") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else rest.push_back(x);
    }
    if (rest.empty() || rest.size() > 2) {
        s.err(rest.empty() ? "fatal: You must specify a repository to clone.\n\nusage: git clone [<options>] [--] <repo> [<dir>]\n"
                           : "fatal: Too many arguments.\n\nusage: git clone [<options>] [--] <repo> [<dir>]\n");
        return 129;
    }
    std::string url = rest[0];
    std::string dir;
    if (rest.size() == 2) {
        dir = rest[1];
    } else {
        std::string u = url;
        while (!u.empty() && u.back() == '/') u.pop_back();
        if (u.ends_with("/.git")) u.resize(u.size() - 5);
        size_t slash = u.find_last_of("/:");
        dir = slash == std::string::npos ? u : u.substr(slash + 1);
        if (dir.ends_with(".git")) dir.resize(dir.size() - 4);
        if (bare) dir += ".git";
        if (dir.empty()) throw Fatal{"No directory name could be guessed.\nPlease specify a directory on the command line"};
    }
    check_url(url);
    std::string top = vfs::normalize_path(ctx.resolve(dir));
    if (auto st = ctx.fs.stat(top)) {
        auto entries = ctx.fs.readdir(top);
        if (!st->is_directory() || (entries && !entries->empty()) || !entries)
            throw Fatal{"destination path '" + dir + "' already exists and is not an empty directory."};
    }
    if (!quiet) s.err(std::string(bare ? "Cloning into bare repository '" : "Cloning into '") + dir + "'...\n");
    Conn conn(s, url);
    Advert adv = conn.discover("git-upload-pack");
    // Remove what we made when anything fails after this point, as git does.
    bool created = !ctx.fs.stat(top);
    struct Cleanup {
        CommandContext& ctx;
        std::string path;
        bool armed;
        ~Cleanup() {
            if (armed) (void)ctx.fs.remove_all(path);
        }
    } cleanup{ctx, top, created};
    std::string head_branch;
    if (!adv.head_target.empty() && adv.head_target.starts_with("refs/heads/")) head_branch = adv.head_target.substr(11);
    else if (auto h = adv.find("HEAD")) {
        for (auto& [n, o] : adv.refs)
            if (n.starts_with("refs/heads/") && o == *h) {
                head_branch = n.substr(11);
                break;
            }
    }
    if (!branch.empty()) {
        if (!adv.find("refs/heads/" + branch) && !adv.find("refs/tags/" + branch))
            throw Fatal{"Remote branch " + branch + " not found in upstream " + origin};
    }
    {
        Invocation init{ctx, s.overrides, nullptr, s.output};
        Args ia{"-q"};
        if (bare) ia.push_back("--bare");
        std::string b = !branch.empty() && adv.find("refs/heads/" + branch) ? branch : head_branch;
        if (!b.empty()) ia.push_back("--initial-branch=" + b);
        ia.push_back(top);
        if (int rc = cmd_init(init, ia); rc != 0) return rc;
    }
    std::string saved = ctx.cwd;
    ctx.cwd = top;
    s.repo = discover(ctx, s.overrides);
    ctx.cwd = saved;
    if (!s.repo) throw Fatal{"could not open the new repository " + top};
    Repo& repo = *s.repo;
    std::string tracking = bare ? "refs/heads/" : "refs/remotes/" + origin + "/";
    set_config(repo, "remote." + origin + ".url", url);
    if (!bare) set_config(repo, "remote." + origin + ".fetch", "+refs/heads/*:" + tracking + "*");
    std::vector<std::string> wants;
    std::vector<std::pair<std::string, std::string>> packed;
    std::map<std::string, std::string> peeled;
    for (size_t k = 0; k < adv.refs.size(); ++k) {
        const auto& [n, o] = adv.refs[k];
        if (n.ends_with("^{}")) {
            peeled[n.substr(0, n.size() - 3)] = o;
            continue;
        }
        if (n.starts_with("refs/heads/")) {
            wants.push_back(o);
            packed.emplace_back(tracking + n.substr(11), o);
        } else if (n.starts_with("refs/tags/")) {
            wants.push_back(o);
            packed.emplace_back(n, o);
        }
    }
    if (adv.refs.empty()) {
        // Protocol v2 tells the branch of an empty repository's HEAD ("unborn"): the clone's HEAD names it.
        if (adv.v2 && adv.head_target.starts_with("refs/heads/")) repo.set_symref("HEAD", adv.head_target);
        if (std::string b = current_branch(repo); !b.empty() && !bare) {
            set_config(repo, "branch." + b + ".remote", origin);
            set_config(repo, "branch." + b + ".merge", "refs/heads/" + b);
        }
        if (!quiet) s.err("warning: You appear to have cloned an empty repository.\n");
        cleanup.armed = false;
        return 0;
    }
    fetch_pack(s, repo, conn, adv, wants);
    std::sort(packed.begin(), packed.end());
    std::map<std::string, std::string> peeled_packed;
    for (auto& [n, o] : packed) {
        std::string src = n.starts_with("refs/tags/") ? n : "refs/heads/" + n.substr(tracking.size());
        if (auto p = peeled.find(src); p != peeled.end()) peeled_packed[n] = p->second;
    }
    repo.write_file_atomic(repo.gitdir + "/packed-refs", packed_refs_text(packed, peeled_packed));
    repo.rescan();
    std::string msg = "clone: from " + anonymize(url);
    std::string checkout_oid;
    std::string b = branch.empty() ? head_branch : branch;
    if (!b.empty() && adv.find("refs/heads/" + b)) {
        checkout_oid = *adv.find("refs/heads/" + b);
        if (!bare) {
            repo.update_ref("refs/heads/" + b, checkout_oid, "", msg);
            set_config(repo, "branch." + b + ".remote", origin);
            set_config(repo, "branch." + b + ".merge", "refs/heads/" + b);
            if (!head_branch.empty()) {
                std::string failed;
                (void)repo.fs.mkdir_all(repo.gitdir + "/" + tracking.substr(0, tracking.size() - 1), 0755, &failed);
                repo.set_symref(tracking + "HEAD", tracking + head_branch);
            }
        }
    } else if (!branch.empty() && adv.find("refs/tags/" + branch)) {
        // A tag: HEAD detached at the commit it names.
        std::string t = *adv.find("refs/tags/" + branch);
        checkout_oid = peeled.count("refs/tags/" + branch) ? peeled["refs/tags/" + branch] : t;
        repo.write_file_atomic(repo.gitdir + "/HEAD", checkout_oid + "\n");
    } else if (auto h = adv.find("HEAD")) {
        checkout_oid = *h;
        repo.write_file_atomic(repo.gitdir + "/HEAD", checkout_oid + "\n");
    }
    if (!bare && !no_checkout && !checkout_oid.empty()) {
        Invocation co{ctx, s.overrides, nullptr, s.output};
        co.repo = std::move(s.repo);
        if (!switch_trees(co, "", co.repo->commit(checkout_oid).tree, true)) return 1;
        s.repo = std::move(co.repo);
    }
    cleanup.armed = false;
    return 0;
}

int cmd_fetch(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    FetchOpts opt;
    bool all = false;
    std::vector<std::string> rest;
    for (const auto& x : a) {
        if (x == "-q" || x == "--quiet") opt.quiet = true;
        else if (x == "-t" || x == "--tags") opt.tags = true;
        else if (x == "-p" || x == "--prune") opt.prune = true;
        else if (x == "--all") all = true;
        else if (x == "-v" || x == "--verbose" || x == "--progress" || x == "--no-progress" || x == "--no-tags") {
        } else if (x == "--depth" || x.starts_with("--depth=") || x == "--unshallow")
            throw Fatal{"option '" + x + "' is not available in this sandbox's fetch (shallow clones)", 129};
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else rest.push_back(x);
    }
    if (all) {
        int st = 0;
        for (const auto& r : remote_names(repo)) {
            if (!opt.quiet) s.out("Fetching " + r + "\n");
            st = std::max(st, do_fetch(s, repo, r, {}, opt, nullptr, nullptr));
        }
        return st;
    }
    std::string remote = rest.empty() ? default_remote(repo) : rest[0];
    if (rest.empty() && !remote_cfg(repo, remote)) {
        if (remote_names(repo).empty()) {
            throw Fatal{"No remote repository specified.  Please, specify either a URL or a\nremote name from which new revisions should be fetched."};
        }
    }
    std::vector<std::string> specs(rest.size() > 1 ? rest.begin() + 1 : rest.end(), rest.end());
    return do_fetch(s, repo, remote, specs, opt, nullptr, nullptr);
}

int cmd_pull(Invocation& s, const Args& a) {
    Repo& repo = s.need_worktree();
    FetchOpts opt;
    std::string mode;  // "ff-only", "merge", "rebase", ""
    bool no_commit = false;
    std::vector<std::string> rest;
    for (const auto& x : a) {
        if (x == "-q" || x == "--quiet") opt.quiet = true;
        else if (x == "--ff-only") mode = "ff-only";
        else if (x == "--no-rebase" || x == "--ff" || x == "--no-ff") mode = x == "--no-ff" ? "no-ff" : "merge";
        else if (x == "-r" || x == "--rebase" || x.starts_with("--rebase="))
            throw Fatal{"pull --rebase is not available in this sandbox (use fetch, then rebase)", 129};
        else if (x == "--no-commit") no_commit = true;
        else if (x == "-v" || x == "--progress" || x == "--no-progress" || x == "--no-edit" || x == "--commit") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else rest.push_back(x);
    }
    for (auto& e : repo.read_index())
        if (e.stage() != 0) {
            s.err("error: Pulling is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\n");
            throw Fatal{"Exiting because of an unresolved conflict."};
        }
    std::string cur = current_branch(repo);
    if (mode.empty()) {
        if (auto ff = repo.config.get("pull.ff")) mode = *ff == "only" ? "ff-only" : *ff == "false" ? "no-ff" : "merge";
        else if (auto rb = repo.config.get("pull.rebase")) {
            if (*rb != "false") throw Fatal{"pull --rebase is not available in this sandbox (use fetch, then rebase)"};
            mode = "merge";
        }
    }
    std::string remote = rest.empty() ? default_remote(repo) : rest[0];
    std::vector<std::string> specs(rest.size() > 1 ? rest.begin() + 1 : rest.end(), rest.end());
    if (rest.empty() && (cur.empty() || !repo.config.get("branch." + cur + ".merge"))) {
        if (cur.empty())
            throw Fatal{"You are not currently on a branch.\nPlease specify which branch you want to merge with.\nSee git-pull(1) for details.\n\n    git pull <remote> <branch>\n", 1, false};
        throw Fatal{"There is no tracking information for the current branch.\nPlease specify which branch you want to merge with.\nSee git-pull(1) for details.\n\n    git pull <remote> <branch>\n\nIf you wish to set tracking information for this branch you can do so with:\n\n    git branch --set-upstream-to=" + remote + "/<branch> " + cur + "\n", 1, false};
    }
    std::string merge_oid, merge_name;
    int st = do_fetch(s, repo, remote, specs, opt, &merge_oid, &merge_name);
    if (st != 0) return st;
    if (merge_oid.empty()) throw Fatal{"couldn't find remote ref " + repo.config.get("branch." + cur + ".merge").value_or("HEAD")};
    repo.rescan();
    auto head = repo.head_oid();
    if (head && *head != merge_oid && !is_ancestor(repo, merge_oid, *head) && !is_ancestor(repo, *head, merge_oid)) {
        if (mode.empty()) {
            s.err("hint: You have divergent branches and need to specify how to reconcile them.\n"
                  "hint: You can do so by running one of the following commands sometime before\n"
                  "hint: your next pull:\n"
                  "hint: \n"
                  "hint:   git config pull.rebase false  # merge\n"
                  "hint:   git config pull.rebase true   # rebase\n"
                  "hint:   git config pull.ff only       # fast-forward only\n"
                  "hint: \n"
                  "hint: You can replace \"git config\" with \"git config --global\" to set a default\n"
                  "hint: preference for all repositories. You can also pass --rebase, --no-rebase,\n"
                  "hint: or --ff-only on the command line to override the configured default per\n"
                  "hint: invocation.\n");
            throw Fatal{"Need to specify how to reconcile divergent branches."};
        }
        if (mode == "ff-only") throw Fatal{"Not possible to fast-forward, aborting."};
    }
    // As git pull: `git merge FETCH_HEAD`, whose message names the branch and the remote's URL.
    MergeRequest req;
    req.other = merge_oid;
    req.label = merge_oid;
    std::string desc;
    if (auto fh = repo.fs.read_file(repo.gitdir + "/FETCH_HEAD", kMaxConfigBytes)) {
        std::string first = fh->substr(0, fh->find('\n'));
        if (size_t t = first.find("\t\t"); t != std::string::npos) desc = first.substr(t + 2);
    }
    req.title = merge_title_into(repo, "Merge " + (desc.empty() ? merge_name : desc));
    req.reflog = "pull";
    req.ff_only = mode == "ff-only" || mode.empty();
    req.no_ff = mode == "no-ff";
    req.no_commit = no_commit;
    req.quiet = opt.quiet;
    return run_merge(s, req);
}

int cmd_push(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    bool quiet = false, force = false, set_upstream = false, del = false, tags = false, dry = false;
    std::vector<std::string> rest;
    for (const auto& x : a) {
        if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "-f" || x == "--force") force = true;
        else if (x == "-u" || x == "--set-upstream") set_upstream = true;
        else if (x == "-d" || x == "--delete") del = true;
        else if (x == "--tags") tags = true;
        else if (x == "-n" || x == "--dry-run") dry = true;
        else if (x == "-v" || x == "--verbose" || x == "--progress" || x == "--no-progress" || x == "--porcelain" ||
                 x == "--no-verify") {
        } else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else rest.push_back(x);
    }
    std::string cur = current_branch(repo);
    std::string remote;
    if (!rest.empty()) remote = rest[0];
    else if (!cur.empty() && repo.config.get("branch." + cur + ".pushremote")) remote = *repo.config.get("branch." + cur + ".pushremote");
    else if (auto d = repo.config.get("remote.pushdefault")) remote = *d;
    else remote = default_remote(repo);
    auto rc = remote_cfg(repo, remote);
    if (!rc && rest.empty())
        throw Fatal{"No configured push destination.\nEither specify the URL from the command-line or configure a remote repository using\n\n    git remote add <name> <url>\n\nand then push using the remote name\n\n    git push <name>\n"};
    std::string url = rc ? (rc->pushurl.empty() ? rc->url : rc->pushurl) : remote;
    if (!rc && url.find("://") == std::string::npos && url.find(':') == std::string::npos)
        throw Fatal{"'" + remote + "' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists."};
    std::vector<std::string> specs(rest.size() > 1 ? rest.begin() + 1 : rest.end(), rest.end());
    if (specs.empty() && !tags) {
        if (cur.empty())
            throw Fatal{"You are not currently on a branch.\nTo push the history leading to the current (detached HEAD)\nstate now, use\n\n    git push " + remote + " HEAD:<name-of-remote-branch>\n"};
        auto up_remote = repo.config.get("branch." + cur + ".remote");
        auto up_merge = repo.config.get("branch." + cur + ".merge");
        if (set_upstream || !up_merge || up_remote != remote) {
            if (!set_upstream && (!up_merge || !up_remote))
                throw Fatal{"The current branch " + cur + " has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream " + remote + " " + cur + "\n\nTo have this happen automatically for branches without a tracking\nupstream, see 'push.autoSetupRemote' in 'git help config'.\n"};
            specs.push_back("refs/heads/" + cur + ":refs/heads/" + cur);
        } else {
            if (*up_merge != "refs/heads/" + cur)
                throw Fatal{"The upstream branch of your current branch does not match\nthe name of your current branch.  To push to the upstream branch\non the remote, use\n\n    git push " + remote + " HEAD:" + up_merge->substr(up_merge->starts_with("refs/heads/") ? 11 : 0) + "\n\nTo push to the branch of the same name on the remote, use\n\n    git push " + remote + " HEAD\n"};
            specs.push_back("refs/heads/" + cur + ":" + *up_merge);
        }
    }
    Conn conn(s, url);
    Advert adv = conn.discover("git-receive-pack");
    struct Cmd {
        std::string src_name, dst, old_oid, new_oid;
        bool force = false;
        std::string status;  // "", "up-to-date", "rejected-nonff", "rejected-fetch", "ok", "ng <reason>"
    };
    std::vector<Cmd> cmds;
    if (tags)
        for (auto& [n, o] : repo.refs("refs/tags/")) specs.push_back(n + ":" + n);
    for (const auto& spec0 : specs) {
        check_cancel(s.ctx);
        std::string spec = spec0;
        bool f = force;
        if (!spec.empty() && spec[0] == '+') {
            f = true;
            spec = spec.substr(1);
        }
        size_t colon = spec.find(':');
        std::string src = spec.substr(0, colon), dst = colon == std::string::npos ? "" : spec.substr(colon + 1);
        if (del) {
            if (colon != std::string::npos) throw Fatal{"--delete only accepts plain target ref names"};
            dst = src;
            src.clear();
        }
        Cmd c;
        c.force = f;
        if (!src.empty()) {
            std::string full;
            if (src.starts_with("refs/") && repo.resolve_ref(src)) full = src;
            else if (src != "HEAD" && repo.resolve_ref("refs/heads/" + src)) full = "refs/heads/" + src;
            else if (src != "HEAD" && repo.resolve_ref("refs/tags/" + src)) full = "refs/tags/" + src;
            auto oid = full.empty() ? repo.rev_parse(src) : repo.resolve_ref(full);
            if (!oid) {
                s.err("error: src refspec " + src + " does not match any\n");
                s.err("error: failed to push some refs to '" + anonymize(url) + "'\n");
                return 1;
            }
            c.new_oid = *oid;
            c.src_name = full.empty() ? src : full;
            if (dst.empty()) {
                if (full.empty()) {
                    if (src == "HEAD" && !cur.empty()) full = "refs/heads/" + cur;
                    else throw Fatal{"The destination you provided is not a full refname (i.e.,\nstarting with \"refs/\"). We tried to guess what you meant by:\n\n- Looking for a ref that matches '" + src + "' on the remote side.\n- Checking if the <src> being pushed ('" + src + "')\n  is a ref in \"refs/{heads,tags}/\". If so we add a corresponding\n  refs/{heads,tags}/ prefix on the remote side.\n\nNeither worked, so we gave up. You must fully qualify the ref.", 1, true};
                }
                dst = full;
            }
        } else {
            c.new_oid = kNullOid;
        }
        if (!dst.starts_with("refs/")) {
            if (adv.find("refs/heads/" + dst)) dst = "refs/heads/" + dst;
            else if (adv.find("refs/tags/" + dst)) dst = "refs/tags/" + dst;
            else if (c.src_name.starts_with("refs/tags/")) dst = "refs/tags/" + dst;
            else if (c.src_name.starts_with("refs/heads/") || c.new_oid == kNullOid || src == "HEAD" ||
                     repo.rev_parse(c.new_oid + "^{commit}"))
                dst = "refs/heads/" + dst;
        }
        if (c.new_oid == kNullOid && !adv.find(dst)) {
            s.err("error: unable to delete '" + prettify(dst) + "': remote ref does not exist\n");
            s.err("error: failed to push some refs to '" + anonymize(url) + "'\n");
            return 1;
        }
        c.dst = dst;
        c.old_oid = adv.find(dst).value_or(kNullOid);
        if (c.old_oid == c.new_oid) c.status = "up-to-date";
        else if (c.old_oid != kNullOid && c.new_oid != kNullOid && !c.force) {
            if (dst.starts_with("refs/tags/")) c.status = "rejected-tag";
            else if (!repo.has(c.old_oid)) c.status = "rejected-fetch";
            else if (!is_ancestor(repo, c.old_oid, c.new_oid)) c.status = "rejected-nonff";
        }
        cmds.push_back(std::move(c));
    }
    // As git: refs the remote has, in its order, then the new ones in the order asked.
    auto rank = [&](const Cmd& c) {
        for (size_t k = 0; k < adv.refs.size(); ++k)
            if (adv.refs[k].first == c.dst) return k;
        return adv.refs.size();
    };
    std::stable_sort(cmds.begin(), cmds.end(), [&](const Cmd& x, const Cmd& y) { return rank(x) < rank(y); });
    std::vector<Cmd*> send;
    for (auto& c : cmds)
        if (c.status.empty()) send.push_back(&c);
    std::string shown = anonymize(url);
    if (!send.empty() && !dry) {
        std::string body;
        std::string caps = "report-status";
        if (adv.caps.count("delete-refs")) caps += " delete-refs";
        caps += std::string(" agent=") + kAgent;
        bool need_pack = false;
        for (size_t k = 0; k < send.size(); ++k) {
            body += pkt(send[k]->old_oid + " " + send[k]->new_oid + " " + send[k]->dst + (k == 0 ? std::string(1, '\0') + caps : "") + "\n");
            if (send[k]->new_oid != kNullOid) need_pack = true;
        }
        body += "0000";
        interp::MemoryCharge pack_held(s.ctx.memory);
        if (need_pack) {
            std::vector<std::string> tips, theirs;
            for (auto* c : send)
                if (c->new_oid != kNullOid) tips.push_back(c->new_oid);
            for (auto& [n, o] : adv.refs)
                if (repo.has(o)) theirs.push_back(o);
            std::set<std::string> stop, mine;
            reachable(repo, theirs, stop, {}, nullptr);
            std::vector<std::pair<std::string, ObjType>> objs;
            reachable(repo, tips, mine, stop, &objs);
            body += build_pack(repo, objs, pack_held);
        }
        interp::MemoryCharge held(s.ctx.memory);
        std::string resp = conn.rpc("git-receive-pack", std::move(body), kMaxAdvertBytes, held);
        PktReader r{resp};
        std::string_view line;
        std::string unpack;
        while (r.next(line) == PktReader::data) {
            check_cancel(s.ctx);
            std::string l = chomp(line);
            if (l.starts_with("unpack ")) unpack = l.substr(7);
            else if (l.starts_with("ok ")) {
                for (auto* c : send)
                    if (c->dst == l.substr(3)) c->status = "ok";
            } else if (l.starts_with("ng ")) {
                std::string rest_l = l.substr(3);
                size_t sp = rest_l.find(' ');
                std::string ref = rest_l.substr(0, sp), why = sp == std::string::npos ? "failed" : rest_l.substr(sp + 1);
                for (auto* c : send)
                    if (c->dst == ref) c->status = "ng " + why;
            }
        }
        if (unpack != "ok") {
            s.err("error: remote unpack failed: " + (unpack.empty() ? std::string("eof before pack header was fully read") : unpack) + "\n");
            for (auto* c : send)
                if (c->status.empty()) c->status = "ng unpacker error";
        }
    } else if (dry) {
        for (auto* c : send) c->status = "ok";
    }
    // Report as git does.
    std::string out;
    int status = 0;
    bool any_shown = false, nonff = false, fetch_first = false;
    for (auto& c : cmds) {
        if (c.status == "up-to-date") continue;
        any_shown = true;
        std::string from = c.src_name.empty() ? "" : prettify(c.src_name), to = prettify(c.dst);
        if (!c.src_name.empty() && !c.src_name.starts_with("refs/")) from = c.src_name;
        std::string pair = c.new_oid == kNullOid ? to : from + " -> " + to;
        auto line = [&](char flag, const std::string& summary, const std::string& suffix) {
            std::string l = std::string(" ") + flag + " " + summary;
            if (summary.size() < 17) l += std::string(17 - summary.size(), ' ');
            out += l + " " + pair + suffix + "\n";
        };
        if (c.status == "rejected-nonff") {
            line('!', "[rejected]", " (non-fast-forward)");
            nonff = true;
            status = 1;
        } else if (c.status == "rejected-fetch") {
            line('!', "[rejected]", " (fetch first)");
            fetch_first = true;
            status = 1;
        } else if (c.status == "rejected-tag") {
            line('!', "[rejected]", " (already exists)");
            status = 1;
        } else if (c.status.starts_with("ng ")) {
            line('!', "[remote rejected]", " (" + c.status.substr(3) + ")");
            status = 1;
        } else if (c.status == "ok") {
            if (c.new_oid == kNullOid) line('-', "[deleted]", "");
            else if (c.old_oid == kNullOid)
                line('*', c.dst.starts_with("refs/tags/") ? "[new tag]" : c.dst.starts_with("refs/heads/") ? "[new branch]" : "[new reference]", "");
            else if (is_ancestor(repo, c.old_oid, c.new_oid)) line(' ', repo.abbrev(c.old_oid) + ".." + repo.abbrev(c.new_oid), "");
            else line('+', repo.abbrev(c.old_oid) + "..." + repo.abbrev(c.new_oid), " (forced update)");
            if (!dry && rc) {
                bool fo = false;
                if (auto local = map_ref(rc->fetch, c.dst, &fo)) {
                    if (c.new_oid == kNullOid) {
                        if (repo.resolve_ref(*local)) repo.delete_ref(*local);
                    } else {
                        repo.update_ref(*local, c.new_oid, repo.resolve_ref(*local).value_or(""), "update by push");
                    }
                }
            }
        }
    }
    if (!any_shown) {
        if (!quiet) s.err("Everything up-to-date\n");
    } else if (!quiet || status != 0) {
        s.err("To " + shown + "\n" + out);
    }
    if (status != 0) {
        s.err("error: failed to push some refs to '" + shown + "'\n");
        if (nonff)
            s.err("hint: Updates were rejected because the tip of your current branch is behind\n"
                  "hint: its remote counterpart. Integrate the remote changes (e.g.\n"
                  "hint: 'git pull ...') before pushing again.\n"
                  "hint: See the 'Note about fast-forwards' in 'git push --help' for details.\n");
        else if (fetch_first)
            s.err("hint: Updates were rejected because the remote contains work that you do\n"
                  "hint: not have locally. This is usually caused by another repository pushing\n"
                  "hint: to the same ref. You may want to first integrate the remote changes\n"
                  "hint: (e.g., 'git pull ...') before pushing again.\n"
                  "hint: See the 'Note about fast-forwards' in 'git push --help' for details.\n");
        return status;
    }
    if (set_upstream && rc && !dry) {
        for (auto& c : cmds) {
            if (!c.src_name.starts_with("refs/heads/") || !c.dst.starts_with("refs/heads/")) continue;
            std::string b = c.src_name.substr(11);
            set_config(repo, "branch." + b + ".remote", remote);
            set_config(repo, "branch." + b + ".merge", c.dst);
            s.out("branch '" + b + "' set up to track '" + remote + "/" + c.dst.substr(11) + "'.\n");
        }
    }
    return 0;
}


// The words of a `git remote` subcommand: its flags (each word sets its bool) and, in order, its other
// arguments; an option it does not know is "unknown option" (129).
static std::vector<std::string> sub_words(const Args& rest, std::initializer_list<std::pair<const char*, bool*>> flags) {
    std::vector<std::string> pos;
    for (const auto& x : rest) {
        auto f = std::find_if(flags.begin(), flags.end(), [&](const auto& fl) { return x == fl.first; });
        if (f != flags.end()) *f->second = true;
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else pos.push_back(x);
    }
    return pos;
}

int cmd_remote(Invocation& s, const Args& a) {
    Repo& repo = s.need_repo();
    bool verbose = false;
    size_t i = 0;
    for (; i < a.size() && a[i].size() > 1 && a[i][0] == '-'; ++i) {
        if (a[i] == "-v" || a[i] == "--verbose") verbose = true;
        else throw Fatal{"unknown option: " + a[i], 129};
    }
    if (i == a.size()) {
        std::vector<std::string> names = remote_names(repo);
        for (const auto& n : names) {
            if (!verbose) {
                s.out(n + "\n");
                continue;
            }
            auto r = remote_cfg(repo, n);
            s.out(n + "\t" + r->url + " (fetch)\n" + n + "\t" + (r->pushurl.empty() ? r->url : r->pushurl) + " (push)\n");
        }
        return 0;
    }
    std::string sub = a[i];
    Args rest(a.begin() + long(i) + 1, a.end());
    auto usage_err = [&](const std::string& u) {
        s.err("usage: git remote " + u + "\n");
        return 129;
    };
    if (sub == "add") {
        bool fetch_now = false;
        std::vector<std::string> pos = sub_words(rest, {{"-f", &fetch_now}, {"--fetch", &fetch_now}});
        if (pos.size() != 2) return usage_err("add [<options>] <name> <url>");
        const std::string& name = pos[0];
        if (name.empty() || name.find_first_of(" \t/\\:?*[~^") != std::string::npos || name.starts_with("-"))
            throw Fatal{"'" + name + "' is not a valid remote name"};
        if (remote_cfg(repo, name)) {
            s.err("error: remote " + name + " already exists.\n");
            return 3;
        }
        set_config(repo, "remote." + name + ".url", pos[1]);
        set_config(repo, "remote." + name + ".fetch", "+refs/heads/*:refs/remotes/" + name + "/*");
        reload_config(s);
        if (fetch_now) {
            if (!s.ctx.cancelled()) s.out("Updating " + name + "\n");
            return do_fetch(s, *s.repo, name, {}, FetchOpts{}, nullptr, nullptr);
        }
        return 0;
    }
    if (sub == "remove" || sub == "rm") {
        if (rest.size() != 1) return usage_err("remove <name>");
        const std::string& name = rest[0];
        if (!remote_cfg(repo, name)) {
            s.err("error: No such remote: '" + name + "'\n");
            return 2;
        }
        std::string path = repo.gitdir + "/config";
        std::string text = remove_section(read_text(s.ctx, path), "[remote \"" + name + "\"]");
        for (const auto& [k, v] : repo.config.entries()) {
            if (k.starts_with("branch.") && k.ends_with(".remote") && v == name) {
                std::string b = k.substr(7, k.size() - 14);
                text = config_edit(text, "branch." + b + ".remote", std::nullopt, nullptr);
                text = config_edit(text, "branch." + b + ".merge", std::nullopt, nullptr);
            }
        }
        repo.write_file_atomic(path, text);
        for (auto& [n, o] : repo.refs("refs/remotes/" + name + "/")) {
            check_cancel(s.ctx);
            repo.delete_ref(n);
        }
        if (repo.read_ref_raw("refs/remotes/" + name + "/HEAD")) repo.delete_ref("refs/remotes/" + name + "/HEAD");
        return 0;
    }
    if (sub == "rename") {
        std::vector<std::string> pos;
        for (const auto& x : rest) {
            if (x == "--progress" || x == "--no-progress") continue;
            if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
            pos.push_back(x);
        }
        if (pos.size() != 2) return usage_err("rename [--[no-]progress] <old> <new>\n\n    --progress            force progress reporting\n");
        const std::string &from = pos[0], &to = pos[1];
        if (!remote_cfg(repo, from)) {
            s.err("error: No such remote: '" + from + "'\n");
            return 2;
        }
        if (remote_cfg(repo, to)) {
            s.err("error: remote " + to + " already exists.\n");
            return 3;
        }
        if (to.empty() || to.find_first_of(" \t/\\:?*[~^") != std::string::npos || to.starts_with("-"))
            throw Fatal{"'" + to + "' is not a valid remote name"};
        // The section renamed in place; its default fetch refspecs follow the new name.
        const std::string path = repo.gitdir + "/config", old_header = "[remote \"" + from + "\"]";
        const std::string old_dst = ":refs/remotes/" + from + "/";
        std::string text = read_text(s.ctx, path), out;
        bool inside = false;
        for (size_t p = 0; p < text.size();) {
            check_cancel(s.ctx);
            size_t e = text.find('\n', p);
            e = e == std::string::npos ? text.size() : e + 1;
            std::string line = text.substr(p, e - p);
            p = e;
            size_t f = line.find_first_not_of(" \t");
            if (f != std::string::npos && line[f] == '[') {
                std::string h = line.substr(f);
                while (!h.empty() && (h.back() == '\n' || h.back() == ' ' || h.back() == '\t')) h.pop_back();
                inside = h == old_header;
                if (inside) line = line.substr(0, f) + "[remote \"" + to + "\"]" + line.substr(f + h.size());
            } else if (inside && f != std::string::npos && line.compare(f, 5, "fetch") == 0) {
                size_t at = line.find(old_dst);
                if (at != std::string::npos) line.replace(at + 14, from.size(), to);
                else {
                    size_t eq = line.find('=');
                    std::string v = eq == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", eq + 1));
                    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
                    s.err("warning: Not updating non-default fetch refspec\n\t" + v +
                          "\n\tPlease update the configuration manually if necessary.\n");
                }
            }
            out += line;
        }
        for (const auto& [k, v] : repo.config.entries()) {
            if (k.starts_with("branch.") && (k.ends_with(".remote") || k.ends_with(".pushremote")) && v == from)
                out = config_edit(out, k, to, nullptr);
        }
        repo.write_file_atomic(path, out);
        // The remote-tracking refs move under the new name; a symbolic HEAD among them points at the moved ref.
        const std::string old_prefix = "refs/remotes/" + from + "/", new_prefix = "refs/remotes/" + to + "/";
        std::optional<std::string> head_target;
        if (auto raw = repo.read_ref_raw(old_prefix + "HEAD"); raw && raw->starts_with("ref: ")) {
            std::string t = raw->substr(5);
            while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
            head_target = t.starts_with(old_prefix) ? new_prefix + t.substr(old_prefix.size()) : t;
            repo.delete_ref(old_prefix + "HEAD");
        }
        for (auto& [n, o] : repo.refs(old_prefix)) {
            check_cancel(s.ctx);
            if (n == old_prefix + "HEAD") continue;
            std::string moved = new_prefix + n.substr(old_prefix.size());
            repo.update_ref(moved, o, "", "remote: renamed " + n + " to " + moved);
            repo.delete_ref(n);
        }
        if (head_target) repo.set_symref(new_prefix + "HEAD", *head_target);
        return 0;
    }
    if (sub == "get-url") {
        bool push = false, all = false;
        std::vector<std::string> pos = sub_words(rest, {{"--push", &push}, {"--all", &all}});
        if (pos.size() != 1) return usage_err("get-url [--push] [--all] <name>");
        auto r = remote_cfg(repo, pos[0]);
        if (!r) {
            s.err("error: No such remote '" + pos[0] + "'\n");
            return 2;
        }
        if (all) {
            auto urls = repo.config.get_all("remote." + pos[0] + (push && !r->pushurl.empty() ? ".pushurl" : ".url"));
            for (auto& u : urls) s.out(u + "\n");
        } else {
            s.out((push && !r->pushurl.empty() ? r->pushurl : r->url) + "\n");
        }
        return 0;
    }
    if (sub == "show") {
        // -n: what the configuration and the remote-tracking refs say, without asking the remote
        bool no_query = false;
        std::vector<std::string> pos = sub_words(rest, {{"-n", &no_query}});
        if (pos.empty()) {  // like `git remote`
            for (const auto& n : remote_names(repo)) s.out(n + "\n");
            return 0;
        }
        if (!no_query) throw Fatal{"git remote show without -n (asking the remote) is not available here; use -n, or git ls-remote", 129};
        std::string o;
        for (const auto& name : pos) {
            check_cancel(s.ctx);
            auto r = remote_cfg(repo, name);
            std::string url = r ? r->url : name, push = r && !r->pushurl.empty() ? r->pushurl : url;
            o += "* remote " + name + "\n  Fetch URL: " + url + "\n  Push  URL: " + push + "\n  HEAD branch: (not queried)\n";
            std::vector<std::string> tracked;
            for (auto& [ref, oid] : repo.refs("refs/remotes/" + name + "/"))
                if (ref != "refs/remotes/" + name + "/HEAD") tracked.push_back(ref.substr(14 + name.size()));
            if (!tracked.empty()) {
                o += std::string(tracked.size() == 1 ? "  Remote branch:" : "  Remote branches:") + " (status not queried)\n";
                for (auto& t : tracked) o += "    " + t + "\n";
            }
            std::vector<std::pair<std::string, std::string>> pulls;  // local branch -> remote branch it merges
            for (const auto& [k, v] : repo.config.entries())
                if (k.starts_with("branch.") && k.ends_with(".remote") && v == name) {
                    std::string b = k.substr(7, k.size() - 14);
                    auto m = repo.config.get("branch." + b + ".merge");
                    if (!m) continue;
                    std::string mb = m->starts_with("refs/heads/") ? m->substr(11) : *m;
                    if (std::none_of(pulls.begin(), pulls.end(), [&](const auto& pr) { return pr.first == b; })) pulls.emplace_back(b, mb);
                }
            std::sort(pulls.begin(), pulls.end());
            if (!pulls.empty()) {
                size_t w = 0;
                for (auto& [b, m] : pulls) w = std::max(w, b.size());
                o += std::string(pulls.size() == 1 ? "  Local branch" : "  Local branches") + " configured for 'git pull':\n";
                for (auto& [b, m] : pulls) o += "    " + b + std::string(w - b.size(), ' ') + " merges with remote " + m + "\n";
            }
            o += "  Local ref configured for 'git push' (status not queried):\n    (matching) pushes to (matching)\n";
        }
        s.out(o);
        return 0;
    }
    if (sub == "set-url") {
        bool push = false;
        std::vector<std::string> pos = sub_words(rest, {{"--push", &push}});
        if (pos.size() != 2) return usage_err("set-url [--push] <name> <newurl> [<oldurl>]");
        if (!remote_cfg(repo, pos[0])) {
            s.err("error: No such remote '" + pos[0] + "'\n");
            return 2;
        }
        set_config(repo, "remote." + pos[0] + (push ? ".pushurl" : ".url"), pos[1]);
        return 0;
    }
    if (sub == "show" && !rest.empty()) throw Fatal{"git remote show is not available in this sandbox (use git ls-remote)"};
    s.err("error: unknown subcommand: `" + sub + "'\n");
    return 129;
}

int cmd_ls_remote(Invocation& s, const Args& a) {
    bool heads = false, tags = false, refs_only = false, quiet = false, exit_code = false, symref = false;
    std::vector<std::string> rest;
    for (const auto& x : a) {
        if (x == "-h" || x == "--heads") heads = true;
        else if (x == "-t" || x == "--tags") tags = true;
        else if (x == "--refs") refs_only = true;
        else if (x == "-q" || x == "--quiet") quiet = true;
        else if (x == "--exit-code") exit_code = true;
        else if (x == "--symref") symref = true;
        else if (x.size() > 1 && x[0] == '-') throw Fatal{"unknown option: " + x, 129};
        else rest.push_back(x);
    }
    std::string url;
    if (rest.empty()) {
        if (!s.repo) throw Fatal{"No remote configured to list refs from."};
        auto rc = remote_cfg(*s.repo, default_remote(*s.repo));
        if (!rc) throw Fatal{"No remote configured to list refs from."};
        url = rc->url;
    } else if (s.repo && remote_cfg(*s.repo, rest[0])) {
        url = remote_cfg(*s.repo, rest[0])->url;
    } else {
        url = rest[0];
        if (url.find("://") == std::string::npos && url.find(':') == std::string::npos)
            throw Fatal{"'" + url + "' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists."};
    }
    std::vector<std::string> patterns(rest.size() > 1 ? rest.begin() + 1 : rest.end(), rest.end());
    Conn conn(s, url);
    Advert adv = conn.discover("git-upload-pack");
    std::string out;
    int shown = 0;
    if (symref && !adv.head_target.empty() && !heads && !tags && !refs_only) out += "ref: " + adv.head_target + "\tHEAD\n";
    for (const auto& [n, o] : adv.refs) {
        check_cancel(s.ctx);
        if (refs_only && (n.ends_with("^{}") || n == "HEAD")) continue;
        if ((heads || tags) && !((heads && n.starts_with("refs/heads/")) || (tags && n.starts_with("refs/tags/")))) continue;
        if (!patterns.empty()) {
            bool m = false;
            for (const auto& p : patterns)
                if (n == p || n.ends_with("/" + p) || wildmatch(p, n, false) || wildmatch("*/" + p, n, false)) m = true;
            if (!m) continue;
        }
        out += o + "\t" + n + "\n";
        ++shown;
    }
    if (!quiet) s.out(out);
    return exit_code && shown == 0 ? 2 : 0;
}

}  // namespace bashkit::utils::git
