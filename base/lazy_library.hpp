// Shared libraries opened on first use. A process that never fetches a URL, reads an archive, runs jq or
// hashes a file does not pay for loading libcurl, libarchive, libjq, libcrypto and their dozens of
// dependencies: on a small VM that was ~30 ms and ~500 page faults of every `bashkit -c ...` start-up, more
// than the whole run of most scripts.
//
// A library's API is a struct of function pointers named like the library's functions, declared from its
// own header (so the types cannot drift), filled all at once by dlopen + dlsym on first use:
//
//   #define MY_ZLIB_FUNCTIONS(X) X(deflateInit2_) X(deflate) X(deflateEnd)
//   struct ZlibApi { MY_ZLIB_FUNCTIONS(BASHKIT_API_MEMBER) };
//   const ZlibApi* zlib_api(std::string* error = nullptr);       // in a header
//   BASHKIT_DEFINE_API(ZlibApi, zlib_api, "libz.so.1", MY_ZLIB_FUNCTIONS)   // in one .cpp
//
// zlib_api() returns nullptr (and the loader's message, e.g. "libz.so.1: cannot open shared object file: No
// such file or directory") when the library or one of the functions is missing; every later call returns
// the same answer without locking. The handle is never closed.
#pragma once

#include <string>

namespace bashkit::base {

// dlopen(soname, RTLD_NOW | RTLD_LOCAL); nullptr with *error set when it fails.
void* open_library(const char* soname, std::string* error);

// dlsym(handle, name); nullptr with *error set ("SONAME: undefined symbol: NAME") when it is missing. Does
// not overwrite an error already set.
void* library_symbol(void* handle, const char* soname, const char* name, std::string* error);

}  // namespace bashkit::base

// A member of an API struct: `decltype(&::name) name`.
#define BASHKIT_API_MEMBER(name) decltype(&::name) name = nullptr;

#define BASHKIT_API_RESOLVE_(name) \
    api_.name = reinterpret_cast<decltype(&::name)>(::bashkit::base::library_symbol(handle_, soname_, #name, &error_));

// Defines `const Api* fn(std::string* error)`, loading `soname` once with every function of LIST.
#define BASHKIT_DEFINE_API(Api, fn, soname, LIST)                                        \
    const Api* fn(std::string* error) {                                                 \
        struct Loaded {                                                                 \
            Api api_;                                                                   \
            std::string error_;                                                         \
        };                                                                              \
        static const Loaded loaded = [] {                                               \
            Loaded l;                                                                   \
            const char* soname_ = soname;                                               \
            void* handle_ = ::bashkit::base::open_library(soname_, &l.error_);          \
            if (handle_) {                                                              \
                Api& api_ = l.api_;                                                     \
                std::string& error_ = l.error_;                                         \
                LIST(BASHKIT_API_RESOLVE_)                                              \
            }                                                                           \
            return l;                                                                   \
        }();                                                                            \
        if (!loaded.error_.empty()) {                                                   \
            if (error) *error = loaded.error_;                                          \
            return nullptr;                                                             \
        }                                                                               \
        return &loaded.api_;                                                            \
    }
