#include "interp/vars.hpp"

#include <algorithm>
#include <cstring>

#include "interp/arith_impl.hpp"

namespace bashkit::interp {

namespace {
// bash's hash_string: FNV-1, 32 bits.
uint32_t fnv1(std::string_view s) {
    uint32_t h = 2166136261u;
    for (unsigned char c : s) {
        h *= 16777619u;
        h ^= c;
    }
    return h;
}
}  // namespace

// ---------------------------------------------------------------- AssocArray

const std::string* AssocArray::get(std::string_view key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second.value;
}

std::string* AssocArray::find(std::string_view key) {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second.value;
}

std::string& AssocArray::slot(std::string_view key, bool* created) {
    auto it = map_.find(key);
    if (it != map_.end()) {
        if (created) *created = false;
        return it->second.value;
    }
    if (created) *created = true;
    // bash grows its table (x4) once it holds twice as many entries as buckets.
    if (map_.size() >= static_cast<size_t>(buckets_) * 2) buckets_ *= 4;
    Entry e;
    e.seq = ++seq_;
    e.hash = fnv1(key);
    return map_.emplace(std::string(key), std::move(e)).first->second.value;
}

bool AssocArray::erase(std::string_view key) {
    auto it = map_.find(key);
    if (it == map_.end()) return false;
    map_.erase(it);
    return true;
}

void AssocArray::clear() {
    map_.clear();
    buckets_ = 1024;
}

std::vector<std::pair<const std::string*, const std::string*>> AssocArray::ordered() const {
    struct Item {
        uint32_t bucket;
        uint64_t seq;
        const std::string* k;
        const std::string* v;
    };
    std::vector<Item> items;
    items.reserve(map_.size());
    uint32_t mask = buckets_ - 1;
    for (const auto& [k, e] : map_) items.push_back({e.hash & mask, e.seq, &k, &e.value});
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        if (a.bucket != b.bucket) return a.bucket < b.bucket;
        return a.seq > b.seq;
    });
    std::vector<std::pair<const std::string*, const std::string*>> out;
    out.reserve(items.size());
    for (const auto& i : items) out.emplace_back(i.k, i.v);
    return out;
}

// ---------------------------------------------------------------- Var

IndexedArray& Var::idx_mut() {
    if (!idx)
        idx = std::make_shared<IndexedArray>();
    else if (idx.use_count() > 1)
        idx = std::make_shared<IndexedArray>(*idx);
    return *idx;
}

AssocArray& Var::assoc_mut() {
    if (!assoc)
        assoc = std::make_shared<AssocArray>();
    else if (assoc.use_count() > 1)
        assoc = std::make_shared<AssocArray>(*assoc);
    return *assoc;
}

const std::string* IndexedArray::get(int64_t i) const {
    if (i >= 0 && static_cast<uint64_t>(i) < dense_.size()) return &dense_[static_cast<size_t>(i)];
    if (sparse_.empty()) return nullptr;
    auto it = sparse_.find(i);
    return it == sparse_.end() ? nullptr : &it->second;
}

std::string& IndexedArray::slot(int64_t i, bool* created) {
    if (created) *created = false;
    if (i >= 0 && static_cast<uint64_t>(i) < dense_.size()) return dense_[static_cast<size_t>(i)];
    if (static_cast<uint64_t>(i) == dense_.size()) {
        if (created) *created = true;
        dense_.emplace_back();
        // The new element may close the gap to the map's first elements: they join the vector.
        while (!sparse_.empty() && static_cast<uint64_t>(sparse_.begin()->first) == dense_.size()) {
            auto node = sparse_.extract(sparse_.begin());
            dense_.push_back(std::move(node.mapped()));
        }
        return dense_[static_cast<size_t>(i)];
    }
    auto [it, inserted] = sparse_.try_emplace(i);
    if (created) *created = inserted;
    return it->second;
}

bool IndexedArray::erase(int64_t i) {
    if (i >= 0 && static_cast<uint64_t>(i) < dense_.size()) {
        // The elements after it keep their indices: they move to the map (once; an array unset from its
        // front stays sparse).
        auto hint = sparse_.begin();
        for (size_t k = static_cast<size_t>(i) + 1; k < dense_.size(); ++k)
            hint = std::next(sparse_.emplace_hint(hint, static_cast<int64_t>(k), std::move(dense_[k])));
        dense_.resize(static_cast<size_t>(i));
        return true;
    }
    return sparse_.erase(i) > 0;
}

void Var::parse_number() const {
    num_state_ = arith_detail::plain_decimal(str_, num_) ? kNumKnown : kNumNot;
}

const std::string* Var::scalar_value() const {
    if (attrs & kAttrIndexed) {
        if (!idx) return nullptr;
        return idx->get(0);
    }
    if (attrs & kAttrAssoc) return assoc ? assoc->get("0") : nullptr;
    return set ? &str_ : nullptr;
}

void Var::append_values(std::vector<std::string>& out) const {
    if (is_indexed()) {
        if (!idx) return;
        out.reserve(out.size() + idx->size());
        for (const auto& [k, v] : *idx) out.push_back(v);
    } else if (is_assoc()) {
        if (assoc)
            for (const auto& [k, v] : assoc->ordered()) out.push_back(*v);
    } else if (set) {
        out.push_back(str_);
    }
}

size_t Var::count() const {
    if (attrs & kAttrIndexed) return idx ? idx->size() : 0;
    if (attrs & kAttrAssoc) return assoc ? assoc->size() : 0;
    return set ? 1 : 0;
}

size_t var_bytes(const Var& v) {
    size_t n = v.str().size();
    if (v.idx)
        for (const auto& [k, s] : *v.idx) n += s.size() + kElemOverhead;
    if (v.assoc)
        for (const auto& [k, s] : v.assoc->ordered()) n += k->size() + s->size() + kElemOverhead;
    return n;
}

// ---------------------------------------------------------------- VarStore

VarStore::NameTable::NameTable(const NameTable& o) : slots_(o.slots_) {
    chunks_.reserve(o.chunks_.size());
    try {
        for (size_t i = 0; i < o.size_; ++i) {
            if (i % kChunk == 0) chunks_.push_back(std::unique_ptr<Chunk>(new Chunk));
            new (at(i)) Entry(*o.at(i));
            ++size_;  // after the copy: only whole entries are destroyed
        }
    } catch (...) {
        destroy();  // a constructor that throws runs no destructor of its own
        throw;
    }
}

VarStore::NameTable::Entry& VarStore::NameTable::add(std::string_view name, size_t hash) {
    if ((size_ + 1) * 2 > slots_.size()) {
        // The index doubles (64 slots at first) and is rebuilt from the entries' hashes.
        slots_.assign(std::max<size_t>(64, slots_.size() * 2), 0);
        for (size_t i = 0; i < size_; ++i) place(i);
    }
    if (size_ % kChunk == 0 && size_ / kChunk == chunks_.size()) chunks_.push_back(std::unique_ptr<Chunk>(new Chunk));
    Entry* e = new (at(size_)) Entry{std::string(name), hash, Chain{}};
    ++size_;
    place(size_ - 1);
    return *e;
}

void VarStore::NameTable::place(size_t i) {
    const size_t mask = slots_.size() - 1;
    size_t k = at(i)->hash & mask;
    while (slots_[k] != 0) k = (k + 1) & mask;  // ends: the index is at most half full
    slots_[k] = static_cast<uint32_t>(i + 1);
}

VarStore::NameTable::Entry& VarStore::new_entry(std::string_view name, size_t hash) {
    const size_t bytes = name.size() + kEntryOverhead;
    if (budget_ && !fits(bytes)) throw MemoryLimitExceeded(budget_->limit());
    NameTable::Entry& e = table_.add(name, hash);
    add_bytes(static_cast<int64_t>(bytes));
    ++chains_made_;
    return e;
}

Var* VarStore::find_at(std::string_view name, uint32_t scope) {
    NameTable::Entry* e = table_.find(name);
    if (!e) return nullptr;
    Chain& c = e->chain;
    for (size_t i = c.size(); i-- > 0;) {
        if (c[i].scope == scope) return &c[i].var;
        if (c[i].scope < scope) break;
    }
    return nullptr;
}

int64_t VarStore::scope_of(std::string_view name) const {
    const NameTable::Entry* e = table_.find(name);
    if (!e || e->chain.empty()) return -1;
    return e->chain.back().scope;
}

Var& VarStore::lookup_or_create(std::string_view name) {
    Chain* cp = chain(name);
    if (!cp) cp = &new_entry(name, Hash{}(name)).chain;
    Chain& c = *cp;
    if (c.empty()) c.push_back(Binding{0, Var{}});
    return c.back().var;
}

Var& VarStore::declare_at(std::string_view name, uint32_t scope, bool* created) {
    const size_t hash = Hash{}(name);
    NameTable::Entry* e = table_.find(name, hash);
    if (!e) e = &new_entry(name, hash);
    Chain& c = e->chain;
    // Bindings are ordered by scope; find the place for `scope`.
    size_t pos = c.size();
    while (pos > 0 && c[pos - 1].scope > scope) --pos;
    if (pos > 0 && c[pos - 1].scope == scope) {
        if (created) *created = false;
        return c[pos - 1].var;
    }
    if (created) *created = true;
    c.insert(pos, Binding{scope, Var{}});
    if (scope > 0) {
        if (scope_names_.size() <= scope) scope_names_.resize(scope + 1);
        scope_names_[scope].push_back(e->name);
    }
    return c[pos].var;
}

Var& VarStore::global(std::string_view name) { return declare_at(name, 0); }

bool VarStore::unset(std::string_view name, uint32_t current_scope) {
    NameTable::Entry* e = table_.find(name);
    if (!e || e->chain.empty()) return false;
    Chain& c = e->chain;
    Binding& b = c.back();
    add_bytes(-static_cast<int64_t>(var_bytes(b.var)));
    if (b.scope == current_scope && current_scope > 0) {
        b.var = Var{};
        return true;
    }
    c.pop_back();
    return true;
}

bool VarStore::grow(size_t want) {
    // A step beyond what is needed, so a loop of small assignments charges the budget once in a while.
    size_t target = want + std::max(kStep, want / 8);
    if (budget_->try_charge(target - reserved_)) {
        reserved_ = target;
        return true;
    }
    if (budget_->try_charge(want - reserved_)) {
        reserved_ = want;
        return true;
    }
    return false;
}

void VarStore::rebalance() {
    if (total_bytes_ > reserved_) {
        if (!grow(total_bytes_)) {
            budget_->force_charge(total_bytes_ - reserved_);
            reserved_ = total_bytes_;
        }
        return;
    }
    size_t keep = total_bytes_ + kStep;
    if (reserved_ > keep) {
        budget_->release(reserved_ - keep);
        reserved_ = keep;
    }
}

VarStore::Chain* VarStore::chain_slow(std::string_view name, size_t set) {
    CacheEntry& first = cache_[2 * set];
    CacheEntry& second = cache_[2 * set + 1];
    if (answers(second, name)) return second.chain;
    if (second.ptr == name.data() && second.len == name.size())
        return chain_miss(name, second);  // the same address, now another name or a new chain
    // A name new to the set takes the first way; the first way's name moves to the second (unless the first
    // way held this very address, stale).
    if (first.ptr != name.data() || first.len != name.size()) second = first;
    return chain_miss(name, first);
}

VarStore::Chain* VarStore::chain_miss(std::string_view name, CacheEntry& e) {
    NameTable::Entry* found = table_.find(name);
    if (!found) {
        // Remembered as absent until a chain is made, for a short name (its bytes are kept to check it).
        if (name.size() <= sizeof e.absent) {
            e = CacheEntry{name.data(), name.size(), nullptr, nullptr, chains_made_};
            std::memcpy(e.absent, name.data(), name.size());
        }
        return nullptr;
    }
    e = CacheEntry{name.data(), name.size(), &found->chain, &found->name};
    return &found->chain;
}

void VarStore::charge_copy() {
    reserved_ = 0;
    if (!budget_ || !total_bytes_) return;
    budget_->charge(total_bytes_);  // throws MemoryLimitExceeded: the copy is then destroyed uncharged
    reserved_ = total_bytes_;
}

void VarStore::pop_scope(uint32_t scope) {
    if (scope == 0 || scope >= scope_names_.size()) return;
    for (const std::string& name : scope_names_[scope]) {
        NameTable::Entry* e = table_.find(name);
        if (!e) continue;
        Chain& c = e->chain;
        if (!c.empty() && c.back().scope == scope) {
            add_bytes(-static_cast<int64_t>(var_bytes(c.back().var)));
            c.pop_back();
        }
    }
    scope_names_[scope].clear();
}

std::vector<std::pair<const std::string*, const Var*>> VarStore::visible() const {
    std::vector<std::pair<const std::string*, const Var*>> out;
    out.reserve(table_.size());
    table_.for_each([&](const NameTable::Entry& e) {
        if (!e.chain.empty()) out.emplace_back(&e.name, &e.chain.back().var);
    });
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
    return out;
}

std::vector<std::string> VarStore::names_with_prefix(std::string_view prefix) const {
    std::vector<std::string> out;
    table_.for_each([&](const NameTable::Entry& e) {
        if (!e.chain.empty() && e.name.starts_with(prefix)) out.push_back(e.name);
    });
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace bashkit::interp
