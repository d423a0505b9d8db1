// Helpers shared by the libFuzzer targets: an input cut into fields at NUL bytes, and a finding that aborts
// with the input's parts printed (libFuzzer keeps the input as the crash artifact).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::fuzz {

// The input as NUL-separated fields: "a\0b" is {"a", "b"}; missing fields read as empty.
class Fields {
public:
    Fields(const uint8_t* data, size_t size) {
        std::string_view s(reinterpret_cast<const char*>(data), size);
        for (;;) {
            size_t nul = s.find('\0');
            parts_.push_back(s.substr(0, nul));
            if (nul == std::string_view::npos) break;
            s.remove_prefix(nul + 1);
        }
    }
    std::string_view operator[](size_t i) const { return i < parts_.size() ? parts_[i] : std::string_view(); }
    size_t size() const { return parts_.size(); }
    // Every field from i on.
    std::vector<std::string> rest(size_t i) const {
        std::vector<std::string> out;
        for (; i < parts_.size(); ++i) out.emplace_back(parts_[i]);
        return out;
    }

private:
    std::vector<std::string_view> parts_;
};

// The first byte of a field as option bits (0 when the field is empty).
inline unsigned flag_bits(std::string_view field) { return field.empty() ? 0u : static_cast<unsigned char>(field[0]); }

[[noreturn]] inline void finding(const char* what, std::string_view a = {}, std::string_view b = {}) {
    std::fprintf(stderr, "fuzz finding: %s\n--- 1:\n%.*s\n--- 2:\n%.*s\n---\n", what, int(a.size()), a.data(),
                 int(b.size()), b.data());
    std::abort();
}

}  // namespace bashkit::fuzz
