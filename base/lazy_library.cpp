#include "base/lazy_library.hpp"

#include <dlfcn.h>

namespace bashkit::base {

void* open_library(const char* soname, std::string* error) {
    void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle && error) {
        const char* why = ::dlerror();
        *error = why ? why : std::string(soname) + ": cannot be loaded";
    }
    return handle;
}

void* library_symbol(void* handle, const char* soname, const char* name, std::string* error) {
    void* p = ::dlsym(handle, name);
    if (!p && error && error->empty()) *error = std::string(soname) + ": undefined symbol: " + name;
    return p;
}

}  // namespace bashkit::base
