// BLAKE2b as RFC 7693 specifies it (section 3): 12 rounds of the G mixing function over a 16-word state.
#include "utils/data/blake2b.hpp"

#include <algorithm>
#include <cstring>

namespace bashkit::utils::data {

namespace {

constexpr uint64_t kIv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                             0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                             0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

constexpr unsigned char kSigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

constexpr uint64_t rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

uint64_t load64(const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

void mix(uint64_t* v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 63);
}

}  // namespace

Blake2b::Blake2b(size_t out_bytes) : out_(out_bytes) {
    for (int i = 0; i < 8; ++i) h_[i] = kIv[i];
    h_[0] ^= 0x01010000ULL ^ static_cast<uint64_t>(out_bytes);
}

void Blake2b::compress(const unsigned char* block, bool last) {
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; ++i) m[i] = load64(block + 8 * i);
    for (int i = 0; i < 8; ++i) {
        v[i] = h_[i];
        v[i + 8] = kIv[i];
    }
    v[12] ^= t0_;
    v[13] ^= t1_;
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; ++r) {
        const unsigned char* s = kSigma[r % 10];
        mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
        mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
        mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
        mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
        mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
        mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
        mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
        mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; ++i) h_[i] ^= v[i] ^ v[i + 8];
}

void Blake2b::update(std::string_view data) {
    const auto* p = reinterpret_cast<const unsigned char*>(data.data());
    size_t n = data.size();
    while (n > 0) {
        if (buflen_ == sizeof buf_) {
            // A full block is compressed only once more data follows: the last block needs the final flag.
            t0_ += sizeof buf_;
            if (t0_ < sizeof buf_) ++t1_;
            compress(buf_.data(), false);
            buflen_ = 0;
        }
        size_t take = std::min(n, sizeof buf_ - buflen_);
        std::memcpy(buf_.data() + buflen_, p, take);
        buflen_ += take;
        p += take;
        n -= take;
    }
}

std::array<unsigned char, 64> Blake2b::final() {
    t0_ += buflen_;
    if (t0_ < buflen_) ++t1_;
    std::memset(buf_.data() + buflen_, 0, sizeof buf_ - buflen_);
    compress(buf_.data(), true);
    std::array<unsigned char, 64> out{};
    for (size_t i = 0; i < 64; ++i) out[i] = static_cast<unsigned char>(h_[i / 8] >> (8 * (i % 8)));
    return out;
}

}  // namespace bashkit::utils::data
