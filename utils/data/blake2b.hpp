// BLAKE2b (RFC 7693), unkeyed, with any digest length from 1 to 64 bytes: b2sum's -l needs lengths OpenSSL's
// fixed BLAKE2b512 does not offer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bashkit::utils::data {

class Blake2b {
public:
    explicit Blake2b(size_t out_bytes);
    void update(std::string_view data);
    // The digest (out_bytes of it are meaningful); call once.
    std::array<unsigned char, 64> final();
    size_t size() const { return out_; }

private:
    void compress(const unsigned char* block, bool last);
    std::array<uint64_t, 8> h_{};
    std::array<unsigned char, 128> buf_{};
    size_t buflen_ = 0;
    uint64_t t0_ = 0, t1_ = 0;
    size_t out_;
};

}  // namespace bashkit::utils::data
