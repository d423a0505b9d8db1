// Shell variables: scalars, indexed and associative arrays, attributes, and dynamic scoping.
//
// Scoping is "shallow binding": one hash table maps a name to a short stack of bindings, innermost last,
// each tagged with the scope level (0 = global, one more per function call or temporary-assignment
// scope). Lookup is one hash probe; a function return pops the bindings its scope created.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/strings.hpp"

#include "interp/governor.hpp"

namespace bashkit::interp {

enum VarAttr : uint16_t {
    kAttrExport = 1u << 0,    // -x
    kAttrReadonly = 1u << 1,  // -r
    kAttrInteger = 1u << 2,   // -i
    kAttrLower = 1u << 3,     // -l
    kAttrUpper = 1u << 4,     // -u
    kAttrNameref = 1u << 5,   // -n
    kAttrIndexed = 1u << 6,   // -a
    kAttrAssoc = 1u << 7,     // -A
    kAttrTrace = 1u << 8,     // -t
    kAttrCapital = 1u << 9,   // -c (bash's undocumented capitalize)
};

// Variables whose value is computed when read.
enum class DynVar : uint8_t {
    None,
    Random,
    Srandom,
    Seconds,
    Lineno,
    Bashpid,
    Funcname,
    BashSource,
    BashLineno,
    EpochSeconds,
    EpochRealtime,
    BashSubshell,
    BashArgc,
    BashArgv,
    Groups,
    Pipestatus,
    Underscore,
    BashCommand,
};

// Sparse indexed array. Most arrays a script builds are dense from 0 (`a+=(x)`, `mapfile`, `read -a`): those
// elements live in a vector, indexed by their subscript; the others in an ordered map. Invariant: the map's
// keys are all above dense_.size() (never equal: an element that closes the gap moves to the vector), so the
// vector holds exactly the elements 0..dense_.size()-1 and iteration is the vector, then the map.
class IndexedArray {
public:
    // An element seen through an iterator: `for (const auto& [index, value] : array)`.
    struct Element {
        int64_t first;
        const std::string& second;
    };
    class const_iterator {
    public:
        using value_type = Element;
        using difference_type = std::ptrdiff_t;
        Element operator*() const {
            if (pos_ < a_->dense_.size()) return {static_cast<int64_t>(pos_), a_->dense_[pos_]};
            return {it_->first, it_->second};
        }
        const_iterator& operator++() {
            if (pos_ < a_->dense_.size()) ++pos_;
            else ++it_;
            return *this;
        }
        bool operator==(const const_iterator& o) const { return pos_ == o.pos_ && it_ == o.it_; }

    private:
        friend class IndexedArray;
        const_iterator(const IndexedArray* a, size_t pos, std::map<int64_t, std::string>::const_iterator it)
            : a_(a), pos_(pos), it_(it) {}
        const IndexedArray* a_;
        size_t pos_;
        std::map<int64_t, std::string>::const_iterator it_;
    };
    const_iterator begin() const { return {this, 0, sparse_.begin()}; }
    const_iterator end() const { return {this, dense_.size(), sparse_.end()}; }

    // The element at index i (i >= 0), nullptr when missing.
    const std::string* get(int64_t i) const;
    std::string* find(int64_t i) { return const_cast<std::string*>(std::as_const(*this).get(i)); }
    // The element at index i (i >= 0), created empty when missing; `created` says which. The reference is
    // good until the next change of the array.
    std::string& slot(int64_t i, bool* created = nullptr);
    // Removes the element at index i; false when it was missing.
    bool erase(int64_t i);
    void clear() {
        dense_.clear();
        sparse_.clear();
    }
    size_t size() const { return dense_.size() + sparse_.size(); }
    bool empty() const { return dense_.empty() && sparse_.empty(); }
    // One past the highest index (where `a+=(x)` appends).
    int64_t next_index() const {
        return sparse_.empty() ? static_cast<int64_t>(dense_.size()) : sparse_.rbegin()->first + 1;
    }

private:
    std::vector<std::string> dense_;
    std::map<int64_t, std::string> sparse_;
};

// Associative array, iterated in the order bash 5.2 iterates its hash table (FNV-1 buckets, newest first
// within a bucket), so `${!a[@]}` lists keys like bash does.
class AssocArray {
public:
    const std::string* get(std::string_view key) const;
    // The value to change in place; nullptr when missing (nothing is created).
    std::string* find(std::string_view key);
    // Returns the value slot (created empty when missing) and whether it was created.
    std::string& slot(std::string_view key, bool* created = nullptr);
    bool erase(std::string_view key);
    size_t size() const { return map_.size(); }
    bool empty() const { return map_.empty(); }
    void clear();
    // (key, value) pairs in bash's order.
    std::vector<std::pair<const std::string*, const std::string*>> ordered() const;

private:
    struct Entry {
        std::string value;
        uint64_t seq = 0;
        uint32_t hash = 0;
    };
    using Hash = base::NameHash;
    std::unordered_map<std::string, Entry, Hash, std::equal_to<>> map_;
    uint64_t seq_ = 0;
    uint32_t buckets_ = 1024;
};

struct Var {
    std::shared_ptr<IndexedArray> idx;    // when kAttrIndexed
    std::shared_ptr<AssocArray> assoc;    // when kAttrAssoc
    uint16_t attrs = 0;
    DynVar dyn = DynVar::None;
    bool set = false;  // has a value: `declare x` and `local x` declare without one

    bool is_indexed() const { return attrs & kAttrIndexed; }
    bool is_assoc() const { return attrs & kAttrAssoc; }
    bool is_array() const { return attrs & (kAttrIndexed | kAttrAssoc); }
    bool readonly() const { return attrs & kAttrReadonly; }
    bool exported() const { return attrs & kAttrExport; }
    bool nameref() const { return attrs & kAttrNameref; }

    // Copy-on-write access to the arrays (a subshell copy shares them until one side writes).
    IndexedArray& idx_mut();
    AssocArray& assoc_mut();
    // The scalar view: element 0 of an indexed array, element "0" of an associative one.
    const std::string* scalar_value() const;
    // Element count (1 for a set scalar, 0 for an unset one).
    size_t count() const;
    // What `"${name[@]}"` lists, appended to out: an array's elements in order (bash's order for an
    // associative one), a set scalar's value.
    void append_values(std::vector<std::string>& out) const;
    // A set scalar without magic (no dynamic value, nameref or array): its text is its value, as it is.
    bool plain() const {
        return set && dyn == DynVar::None && !(attrs & (kAttrNameref | kAttrIndexed | kAttrAssoc));
    }

    // The scalar value (or the target name of a nameref). Every change of it goes through str_mut(),
    // set_str() or set_number(), so that the number kept beside it (number()) never goes stale.
    const std::string& str() const { return str_; }
    // The text to change in place: forgets the number. Change it before the next number() call.
    std::string& str_mut() {
        num_state_ = kNumUnknown;
        return str_;
    }
    void set_str(std::string_view text) {
        num_state_ = kNumUnknown;
        copy_in(text);
    }
    void set_str(const char* text) { set_str(std::string_view(text)); }
    void set_str(std::string&& text) {
        num_state_ = kNumUnknown;
        str_ = std::move(text);
    }
    // The value is `value`, whose decimal text is `text` (an arithmetic assignment: no parse on the next read).
    void set_number(int64_t value, std::string_view text) {
        copy_in(text);
        num_ = value;
        num_state_ = kNumKnown;
    }
    // The value as a plain decimal number (digits, surrounding blanks allowed, no leading 0 unless it is "0"):
    // what an arithmetic evaluation of it gives without one. Parsed once per change of the text, so a counter
    // read again and again costs no parse. False when the text is anything else.
    bool number(int64_t& out) const {
        if (num_state_ == kNumUnknown) parse_number();
        out = num_;
        return num_state_ == kNumKnown;
    }

private:
    void parse_number() const;
    // std::string::assign goes through _M_replace and its overlap checks, about 90 instructions; a loop
    // counter's new value has the old one's length and is copied in place.
    void copy_in(std::string_view text) {
        if (text.empty()) {  // (its data may be null, which memcpy must not be given)
            str_.clear();
            return;
        }
        const char* d = str_.data();
        bool disjoint = text.data() + text.size() <= d || text.data() >= d + str_.capacity();
        if (text.size() <= str_.size() && disjoint) {
            std::memcpy(str_.data(), text.data(), text.size());
            str_.resize(text.size());
            return;
        }
        str_.assign(text);
    }
    static constexpr uint8_t kNumUnknown = 0, kNumKnown = 1, kNumNot = 2;
    std::string str_;
    mutable int64_t num_ = 0;
    mutable uint8_t num_state_ = kNumUnknown;
};

class VarStore {
public:
    struct Binding {
        uint32_t scope = 0;
        Var var;
    };
    using Hash = base::NameHash;
    // A name's bindings, ordered by scope, innermost last. Almost every name has one (a global), and every
    // read wants the innermost: that one is kept inline (`top_`), the outer ones in a vector. A copy of the
    // store (every subshell, pipeline stage and command substitution makes one) then allocates nothing for a
    // name beyond the table's node, and a read costs no branch.
    class Chain {
    public:
        bool empty() const { return size_ == 0; }
        size_t size() const { return size_; }
        Binding& operator[](size_t i) { return i + 1 == size_ ? top_ : outer_[i]; }
        const Binding& operator[](size_t i) const { return i + 1 == size_ ? top_ : outer_[i]; }
        Binding& back() { return top_; }
        const Binding& back() const { return top_; }
        void push_back(Binding b) {
            if (size_ > 0) outer_.push_back(std::move(top_));
            top_ = std::move(b);
            ++size_;
        }
        void pop_back() {
            if (--size_ == 0) {
                top_ = Binding{};
            } else {
                top_ = std::move(outer_.back());
                outer_.pop_back();
            }
        }
        // b goes at index pos (0 <= pos <= size()).
        void insert(size_t pos, Binding b) {
            if (pos == size_) return push_back(std::move(b));
            outer_.insert(outer_.begin() + static_cast<std::ptrdiff_t>(pos), std::move(b));
            ++size_;
        }

    private:
        Binding top_;
        std::vector<Binding> outer_;
        uint32_t size_ = 0;
    };
    // The name -> chain table. Its entries live in fixed chunks and never move, nor are they erased: a Chain*
    // (the lookup cache's), a name (scope_names_' source) and a Var& a caller holds stay valid. An
    // open-addressing index of entry numbers finds them. A copy (every subshell, pipeline stage and command
    // substitution makes one) costs an allocation per chunk and one for the index, and the entries' own
    // copies: a node-based map allocated a node for each of the forty-odd names of a fresh shell, most of a
    // two-stage pipeline's cost.
    class NameTable {
    public:
        struct Entry {
            std::string name;
            size_t hash = 0;
            Chain chain;
        };
        NameTable() = default;
        NameTable(const NameTable& o);
        NameTable& operator=(const NameTable& o) {
            if (this != &o) {
                NameTable copy(o);
                *this = std::move(copy);
            }
            return *this;
        }
        NameTable(NameTable&& o) noexcept
            : chunks_(std::move(o.chunks_)), slots_(std::move(o.slots_)), size_(std::exchange(o.size_, 0)) {}
        NameTable& operator=(NameTable&& o) noexcept {
            if (this != &o) {
                destroy();
                chunks_ = std::move(o.chunks_);
                slots_ = std::move(o.slots_);
                size_ = std::exchange(o.size_, 0);
            }
            return *this;
        }
        ~NameTable() { destroy(); }

        size_t size() const { return size_; }
        // The entry of name (hash: Hash{}(name)), or nullptr.
        Entry* find(std::string_view name, size_t hash) const {
            if (slots_.empty()) return nullptr;
            const size_t mask = slots_.size() - 1;
            // Ends: the index is at most half full.
            for (size_t i = hash & mask;; i = (i + 1) & mask) {
                uint32_t s = slots_[i];
                if (s == 0) return nullptr;
                Entry* e = at(s - 1);
                if (e->hash == hash && e->name == name) return e;
            }
        }
        Entry* find(std::string_view name) const { return find(name, Hash{}(name)); }
        // A new entry for name, which has none.
        Entry& add(std::string_view name, size_t hash);
        template <class F>
        void for_each(F&& f) const {
            for (size_t i = 0; i < size_; ++i) f(*at(i));
        }

    private:
        static constexpr size_t kChunk = 32;
        struct Chunk {
            alignas(Entry) unsigned char bytes[sizeof(Entry) * kChunk];
        };
        Entry* at(size_t i) const {
            return std::launder(reinterpret_cast<Entry*>(chunks_[i / kChunk]->bytes)) + i % kChunk;
        }
        void place(size_t i);  // index entry i
        void destroy() {
            for (size_t i = size_; i-- > 0;) at(i)->~Entry();
            size_ = 0;
        }
        std::vector<std::unique_ptr<Chunk>> chunks_;
        std::vector<uint32_t> slots_;  // entry number + 1, 0 when free; a power of two, at most half full
        size_t size_ = 0;
    };

    VarStore() = default;
    ~VarStore() { release_all(); }
    // A copy (a subshell) starts with an empty lookup cache: the cache points into this store's table. It
    // holds its own charge on the session's budget (its scalars are real copies; its arrays are shared until
    // written, and a write copies them): MemoryLimitExceeded when the budget cannot hold it.
    VarStore(const VarStore& o)
        : table_(o.table_), scope_names_(o.scope_names_), total_bytes_(o.total_bytes_), budget_(o.budget_) {
        charge_copy();
    }
    VarStore& operator=(const VarStore& o) {
        if (this != &o) {
            release_all();
            table_ = o.table_;
            scope_names_ = o.scope_names_;
            total_bytes_ = o.total_bytes_;
            budget_ = o.budget_;
            cache_ = {};
            charge_copy();
        }
        return *this;
    }
    VarStore(VarStore&& o) noexcept
        : table_(std::move(o.table_)),
          scope_names_(std::move(o.scope_names_)),
          total_bytes_(o.total_bytes_),
          budget_(o.budget_),
          reserved_(std::exchange(o.reserved_, 0)) {
        o.total_bytes_ = 0;
        o.cache_ = {};
    }
    VarStore& operator=(VarStore&& o) noexcept {
        if (this != &o) {
            release_all();
            table_ = std::move(o.table_);
            scope_names_ = std::move(o.scope_names_);
            total_bytes_ = std::exchange(o.total_bytes_, 0);
            budget_ = o.budget_;
            reserved_ = std::exchange(o.reserved_, 0);
            cache_ = {};
            o.cache_ = {};
        }
        return *this;
    }

    // The session's memory budget the values are charged to (null: none). Values already held are charged
    // as they are.
    void set_budget(MemoryBudget* budget) {
        release_all();
        budget_ = budget;
        if (budget_ && total_bytes_) {
            budget_->force_charge(total_bytes_);
            reserved_ = total_bytes_;
        }
    }
    MemoryBudget* budget() const { return budget_; }
    // Whether `more` bytes of values fit in the budget: grows the store's reservation when needed (in steps,
    // so most assignments touch no shared counter). False when the budget is full.
    bool fits(size_t more) {
        size_t want = total_bytes_ + more;
        if (want <= reserved_ || !budget_) return true;
        return grow(want);
    }

    // Innermost binding of name (set or not), or nullptr.
    Var* find(std::string_view name) {
        Chain* c = chain(name);
        if (!c || c->empty()) return nullptr;
        return &c->back().var;
    }
    const Var* find(std::string_view name) const {
        const NameTable::Entry* e = table_.find(name);
        if (!e || e->chain.empty()) return nullptr;
        return &e->chain.back().var;
    }
    // The binding of name at exactly `scope`, or nullptr.
    Var* find_at(std::string_view name, uint32_t scope);
    // The scope of the innermost binding, or -1.
    int64_t scope_of(std::string_view name) const;
    // The innermost binding, or a new global (scope 0) one when the name has none: where a plain
    // assignment goes.
    Var& lookup_or_create(std::string_view name);
    // The binding at `scope`, created (unset, with no attributes) when missing. Also registers it so
    // pop_scope(scope) removes it.
    Var& declare_at(std::string_view name, uint32_t scope, bool* created = nullptr);
    // A global binding: the scope-0 one, created when missing (declare -g).
    Var& global(std::string_view name);
    // unset: a binding at the current function scope stays as an unset local; any other innermost
    // binding is removed, revealing the one below. Returns false when there was nothing.
    bool unset(std::string_view name, uint32_t current_scope);
    // Removes every binding made at `scope` (function return, end of a temporary assignment).
    void pop_scope(uint32_t scope);

    // Every visible variable (innermost bindings), sorted by name.
    std::vector<std::pair<const std::string*, const Var*>> visible() const;
    // f(name, var) for every visible variable, in no particular order (no list, no sort: what a command's
    // environment needs, which sorts only the exported ones).
    template <class F>
    void for_each_visible(F&& f) const {
        table_.for_each([&](const NameTable::Entry& e) {
            if (!e.chain.empty()) f(e.name, e.chain.back().var);
        });
    }
    // Visible names starting with prefix, sorted.
    std::vector<std::string> names_with_prefix(std::string_view prefix) const;

    // Byte accounting for the limits (approximate: values assigned through the store's helpers).
    size_t total_bytes() const { return total_bytes_; }
    // Saturating: values set before accounting started (the initial environment) may be released later.
    // The budget's charge follows (in steps); never throws: a path that did not check fits() first is
    // charged anyway, and the next checked assignment fails.
    // Inlined into every assignment: the budget is touched only when the reservation must move.
    [[gnu::always_inline]] void add_bytes(int64_t delta) {
        if (delta < 0 && static_cast<size_t>(-delta) > total_bytes_)
            total_bytes_ = 0;
        else
            total_bytes_ = static_cast<size_t>(static_cast<int64_t>(total_bytes_) + delta);
        if (budget_ && (total_bytes_ > reserved_ || reserved_ - total_bytes_ > kReleaseSlack)) rebalance();
    }

private:
    // The chain of name, or nullptr. Chains are never erased, so a pointer to one stays valid; a small
    // cache keyed by the address of the name (names in the syntax tree do not move) skips hashing in loops.
    // Inlined (a hit costs a hash of the address and one compare); a miss calls the map.
    // 32 sets of two ways (the 4 KB that 64 direct-mapped entries took): with one way, two names of a loop
    // that hash alike evicted each other at every round (a loop's dozen names in 64 entries collide more
    // often than not; `[[ ]]` looked LC_ALL up in the map at every test). Only the first way is checked
    // inline (a hit there costs what a direct-mapped cache did); chain_slow checks the second.
    [[gnu::always_inline]] Chain* chain(std::string_view name) {
        auto h = (reinterpret_cast<uintptr_t>(name.data()) >> 2) ^ (name.size() * 0x9E37u);
        const size_t set = h & (kCacheSize - 1);
        const CacheEntry& e = cache_[2 * set];
        if (answers(e, name)) return e.chain;  // null for a name still absent
        return chain_slow(name, set);
    }
    // The bytes still name the cached chain (a name's address may be reused for another one). Names are
    // short: a loop inline is cheaper than a call to memcmp.
    static bool same_name(std::string_view key, std::string_view name) {
        if (key.size() != name.size()) return false;
        const char* a = key.data();
        const char* b = name.data();
        for (size_t i = 0; i < name.size(); ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    // A name's chain (key: its name in the map), or, with key null, that the name had no chain when
    // chains_made_ was `made` (a lookup of an unset variable, LC_ALL or IFS, then costs no hash either).
    struct CacheEntry {
        const char* ptr = nullptr;
        size_t len = 0;
        Chain* chain = nullptr;
        const std::string* key = nullptr;
        uint64_t made = UINT64_MAX;
        char absent[24] = {};  // the absent name's bytes
    };
    // The entry holds name (the same address and bytes): its chain, or that it was absent when no chain has
    // been made since.
    [[gnu::always_inline]] bool answers(const CacheEntry& e, std::string_view name) const {
        if (e.ptr != name.data() || e.len != name.size()) return false;
        if (e.key) return same_name(std::string_view(*e.key), name);
        return e.made == chains_made_ && same_name(std::string_view(e.absent, e.len), name);
    }
    // A new name's entry. Entries stay for the session (they are never erased), so their bytes are charged
    // like a value's: a script that makes names without end (`declare v$i=1` in a loop) stops at the budget
    // (MemoryLimitExceeded: the command fails) instead of growing past it.
    NameTable::Entry& new_entry(std::string_view name, size_t hash);
    static constexpr size_t kEntryOverhead = sizeof(NameTable::Entry) + 2 * sizeof(uint32_t);
    Chain* chain_miss(std::string_view name, CacheEntry& e);  // looks name up in the map and caches it
    Chain* chain_slow(std::string_view name, size_t set);     // the second way, then the map
    static constexpr size_t kCacheSize = 32;
    std::array<CacheEntry, 2 * kCacheSize> cache_{};  // set k: entries 2k (first way) and 2k+1

    NameTable table_;
    uint64_t chains_made_ = 0;  // chains added to table_ (never erased): what an absent entry of the cache checks
    // Names bound at each scope > 0, to pop them.
    std::vector<std::vector<std::string>> scope_names_;
    size_t total_bytes_ = 0;
    // The charge held on budget_ for the values: at least total_bytes_ (after add_bytes), give or take a step.
    MemoryBudget* budget_ = nullptr;
    size_t reserved_ = 0;
    static constexpr size_t kStep = 256u << 10;
    static constexpr size_t kReleaseSlack = 4u << 20;
    bool grow(size_t want);
    void rebalance();
    void charge_copy();
    void release_all() {
        if (budget_ && reserved_) budget_->release(reserved_);
        reserved_ = 0;
    }
};

// Bytes a variable's values take, with kElemOverhead for each array element (its node in the map).
inline constexpr size_t kElemOverhead = 48;
size_t var_bytes(const Var& v);

}  // namespace bashkit::interp
