// Internal: a vector with its first N elements inline, for the parser's short-lived lists (the parts of a
// word, the words of a command, the statements of a list) that are copied into the arena when complete.
// Most hold a few elements: a std::vector would allocate and free once per word.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>

namespace bashkit::syntax::detail {

template <class T, uint32_t N>
class SmallVec {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

public:
    SmallVec() = default;
    SmallVec(std::initializer_list<T> il) {
        for (const T& x : il) push_back(x);
    }
    SmallVec(const SmallVec& o) { append(o); }
    SmallVec(SmallVec&& o) noexcept { take(o); }
    SmallVec& operator=(const SmallVec& o) {
        if (this != &o) {
            size_ = 0;
            append(o);
        }
        return *this;
    }
    SmallVec& operator=(SmallVec&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    ~SmallVec() { release(); }

    void push_back(const T& x) {
        if (size_ == cap_) grow();
        new (data_ + size_++) T(x);
    }
    template <class... A>
    T& emplace_back(A&&... a) {
        if (size_ == cap_) grow();
        return *new (data_ + size_++) T{static_cast<A&&>(a)...};
    }
    void pop_back() { --size_; }
    void clear() { size_ = 0; }
    void resize(uint32_t n) {  // shrinking only
        if (n < size_) size_ = n;
    }
    T& back() { return data_[size_ - 1]; }
    const T& back() const { return data_[size_ - 1]; }
    T& front() { return data_[0]; }
    const T& front() const { return data_[0]; }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T* data() { return data_; }
    const T* data() const { return data_; }
    T* begin() { return data_; }
    T* end() { return data_ + size_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }

private:
    void append(const SmallVec& o) {
        for (const T& x : o) push_back(x);
    }
    void take(SmallVec& o) {
        if (o.data_ == o.inline_data()) {
            data_ = inline_data();
            cap_ = N;
            size_ = 0;
            append(o);
        } else {
            data_ = o.data_;
            cap_ = o.cap_;
            size_ = o.size_;
            o.data_ = o.inline_data();
            o.cap_ = N;
        }
        o.size_ = 0;
    }
    void release() {
        if (data_ != inline_data()) ::operator delete(data_);
        data_ = inline_data();
        cap_ = N;
        size_ = 0;
    }
    void grow() {
        uint32_t cap = cap_ * 2;
        T* p = static_cast<T*>(::operator new(sizeof(T) * cap));
        if (size_) std::memcpy(static_cast<void*>(p), data_, sizeof(T) * size_);
        if (data_ != inline_data()) ::operator delete(data_);
        data_ = p;
        cap_ = cap;
    }
    T* inline_data() { return reinterpret_cast<T*>(inline_); }

    alignas(T) unsigned char inline_[sizeof(T) * N];
    T* data_ = inline_data();
    uint32_t size_ = 0;
    uint32_t cap_ = N;
};

}  // namespace bashkit::syntax::detail
